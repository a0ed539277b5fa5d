// widgets.js: the client actions a session asks the learner to answer (choices, free
// text, code editor), each a form whose unsent answer is kept in localStorage, so that a
// reload or a lost connection never loses what the learner typed.
import { el } from './ui.js';
import { renderText } from './math.js';

const DRAFT_PREFIX = 'pw.sessionDraft.';
const draftKey = (sessionId, callId) => `${DRAFT_PREFIX}${sessionId}.${callId}`;

export function loadDraft(sessionId, callId) {
  try { return JSON.parse(localStorage.getItem(draftKey(sessionId, callId)) ?? 'null'); } catch { return null; }
}
export function saveDraft(sessionId, callId, value) {
  try { localStorage.setItem(draftKey(sessionId, callId), JSON.stringify(value)); } catch { /* storage full: keep going */ }
}
// Drop the drafts of a session (once answered, or the session is over).
export function clearDrafts(sessionId, callId = null) {
  const prefix = callId ? draftKey(sessionId, callId) : `${DRAFT_PREFIX}${sessionId}.`;
  for (const k of Object.keys(localStorage)) if (k === prefix || (!callId && k.startsWith(prefix))) localStorage.removeItem(k);
}

const TOOL_LABEL = { present_choices: 'Choose one', request_free_text: 'Your answer', present_code_editor: 'Code' };

// renderWidget(action, { sessionId, submit(response) -> Promise<bool>, number })
// The form shows the server's complaint about an answer under it (form-error).
export function renderWidget(action, { sessionId, submit }) {
  const args = action.arguments ?? {};
  const callId = action.tool_call_id;
  const draft = loadDraft(sessionId, callId) ?? {};
  const error = el('p', { class: 'form-error', role: 'status', 'aria-live': 'polite' });
  const promptId = `prompt-${callId}`;
  const prompt = el('p', { class: 'widget-prompt', id: promptId }, renderText(args.prompt ?? ''));
  const save = (v) => saveDraft(sessionId, callId, v);
  let body, collect;

  if (action.tool === 'present_choices') {
    const name = `choice-${callId}`;
    const options = (args.options ?? []).map((option, i) => {
      const input = el('input', { type: 'radio', name, value: String(i), checked: draft.selected_index === i,
        onchange: () => save({ selected_index: i }) });
      return el('label', { class: 'option' }, input, el('span', {}, renderText(option)));
    });
    body = el('fieldset', { class: 'options', 'aria-labelledby': promptId }, options);
    collect = () => {
      const checked = body.querySelector('input:checked');
      if (!checked) return { problem: 'Choose one of the options first.' };
      return { response: { selected_index: Number(checked.value) } };
    };
  } else if (action.tool === 'present_code_editor') {
    const lang = args.language || 'code';
    const area = el('textarea', { class: 'code-input', rows: '12', spellcheck: 'false', autocapitalize: 'off',
      autocomplete: 'off', wrap: 'off', 'aria-labelledby': promptId, 'aria-describedby': `hint-${callId}`, 'data-language': lang });
    area.value = draft.code ?? args.starter_code ?? '';
    area.addEventListener('input', () => save({ code: area.value }));
    codeKeys(area);
    body = el('div', { class: 'code-editor' },
      el('div', { class: 'code-bar' }, el('span', { class: 'badge lang' }, lang),
        el('span', { class: 'muted small', id: `hint-${callId}` }, 'Tab indents (4 spaces); press Esc, then Tab, to leave the editor.')),
      area);
    collect = () => ({ response: { code: area.value } });
  } else {
    const area = el('textarea', { class: 'text-input', rows: '3', placeholder: args.placeholder ?? 'Type your answer',
      'aria-labelledby': promptId, 'aria-describedby': `hint-${callId}` });
    area.value = draft.text ?? '';
    area.addEventListener('input', () => save({ text: area.value }));
    area.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); form.requestSubmit(); } });
    body = el('div', {}, area, el('p', { class: 'muted small', id: `hint-${callId}` }, 'Ctrl+Enter sends.'));
    collect = () => {
      if (!area.value.trim()) return { problem: 'Write an answer first (or skip, if the question allows it).' };
      return { response: { text: area.value } };
    };
  }

  const send = el('button', { type: 'submit', class: 'primary' }, 'Submit answer');
  const skip = args.optional ? el('button', { type: 'button', class: 'secondary', onclick: () => go({ skipped: true }) }, 'Skip') : null;
  const form = el('form', { class: 'card widget', 'data-tool': action.tool, 'data-call-id': callId, onsubmit: (e) => {
    e.preventDefault();
    const { problem, response } = collect();
    if (problem) { error.textContent = problem; return; }
    go(response);
  } },
  el('h3', { class: 'widget-kind' }, TOOL_LABEL[action.tool] ?? 'Answer'), prompt, body, error,
  el('div', { class: 'card-actions' }, skip, send));

  async function go(response) {
    error.textContent = '';
    const problem = await submit(response);
    if (problem) { error.textContent = problem; form.querySelector('textarea, input')?.focus(); }
  }
  form.showError = (msg) => { error.textContent = msg; };
  form.setDisabled = (off) => form.querySelectorAll('button, input, textarea').forEach((n) => { n.disabled = off; });
  return form;
}

// A code editor without a library: Tab and Shift+Tab indent and outdent by four spaces,
// Enter keeps the line's indentation; Esc lets the next Tab leave the editor (no trap).
function codeKeys(area) {
  let escaped = false;
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { escaped = true; return; }
    if (e.key !== 'Tab') { if (e.key !== 'Shift') escaped = false; if (e.key === 'Enter') keepIndent(e); return; }
    if (escaped) { escaped = false; return; }
    e.preventDefault();
    const { selectionStart: start, selectionEnd: end, value } = area;
    const lineStart = value.lastIndexOf('\n', start - 1) + 1;
    if (e.shiftKey) {
      const lead = value.slice(lineStart).match(/^ {1,4}/)?.[0].length ?? 0;
      if (!lead) return;
      area.setRangeText('', lineStart, lineStart + lead, 'preserve');
      area.selectionStart = area.selectionEnd = Math.max(lineStart, start - lead);
    } else {
      area.setRangeText('    ', start, end, 'end');
    }
    area.dispatchEvent(new Event('input'));
  });
  function keepIndent(e) {
    const { selectionStart: start, value } = area;
    const lineStart = value.lastIndexOf('\n', start - 1) + 1;
    const indent = value.slice(lineStart).match(/^ */)[0].slice(0, start - lineStart);
    const extra = /:\s*$/.test(value.slice(lineStart, start)) ? '    ' : '';
    if (!indent && !extra) return;
    e.preventDefault();
    area.setRangeText(`\n${indent}${extra}`, start, area.selectionEnd, 'end');
    area.dispatchEvent(new Event('input'));
  }
}
