// sessions.js: the Sessions view: start an evaluation (an assessment of the item
// library), a survey (a definition pasted, loaded from a file, or the example) or a
// learning session (a map, and per concept the skills that practise it); then run it:
// the server's events over SSE (sse.js) turn into text, widgets (widgets.js), a timer and
// the results. #/sessions/<id> resumes a session after a reload; the list on the side
// (open sessions first) leads back to any of them.
import { api, ApiError, NetworkError, keyFor } from './api.js';
import { el, fill, reportError, fmtTime, count } from './ui.js';
import { renderText } from './math.js';
import { readStream } from './sse.js';
import { renderWidget, clearDrafts } from './widgets.js';

const SURVEY_DRAFT_KEY = 'pw.surveyDefinition';
// What the Maps view's "Study this next" asks the learning form for: { map_id, node_id }.
const LEARN_PRESET_KEY = 'pw.learnPreset';
const STATUS_LABEL = { created: 'Not started', running: 'In progress', awaiting_response: 'Waiting for you', completed: 'Completed', terminated: 'Ended' };
const TYPE_LABEL = { evaluation: 'Evaluation', survey: 'Survey', learning: 'Learning', thought: 'Conversation' };
const END_REASON = {
  finished: 'Every item was answered.',
  max_items: 'The session reached its number of items.',
  time_limit: 'Time ran out: the server ended the session at its time limit. Unanswered items are not counted.',
  learner: 'You ended the session; what you answered is kept.',
};
const isFinal = (status) => status === 'completed' || status === 'terminated';

// The mounted view's controller: a new mount (every hashchange) or another view taking the
// page (app.js's `pw:leave`) stops the old one's stream and timers.
let active = null;

export function mountSessions(root, config, rest) {
  active?.abort();
  const ctl = new AbortController();
  active = ctl;
  root.addEventListener('pw:leave', () => ctl.abort(), { once: true, signal: ctl.signal });
  const id = (rest ?? '').split('/')[0];
  const list = el('ul', { class: 'sess-list' });
  const side = el('aside', { class: 'sess-side', 'aria-label': 'Your sessions' },
    el('a', { class: 'button primary wide', href: '#/sessions' }, '+ New session'),
    el('h2', { class: 'side-title' }, 'Your sessions'), list);
  const pane = el('section', { class: 'sess-main', 'aria-label': id ? 'Session' : 'Start a session' });
  root.replaceChildren(el('div', { class: 'sessions' }, pane, side));
  const refreshList = () => loadList(list, id, ctl.signal);
  refreshList();
  if (id) showSession(pane, id, ctl.signal, refreshList);
  else showStart(pane, ctl.signal);
}

// ---------------------------------------------------------------- the list

async function loadList(list, current, signal) {
  try {
    const page = await api('GET', '/session/?limit=50');
    if (signal.aborted) return;
    const items = [...(page.items ?? [])].sort((a, b) =>
      (isFinal(a.status) - isFinal(b.status)) || (Date.parse(b.updated_at) - Date.parse(a.updated_at)));
    if (!items.length) { fill(list, el('li', { class: 'muted small' }, 'No sessions yet.')); return; }
    fill(list, items.map((s) => el('li', {},
      el('a', { class: `sess-link${isFinal(s.status) ? ' done' : ''}`, href: `#/sessions/${s.id}`, 'aria-current': s.id === current ? 'true' : 'false' },
        el('span', { class: 'sess-link-title' }, s.title),
        el('span', { class: 'small muted' }, `${TYPE_LABEL[s.session_type] ?? s.session_type} · ${STATUS_LABEL[s.status] ?? s.status}`,
          el('span', { class: 'sr-only' }, ', '), el('br'), fmtTime(s.updated_at))))));
  } catch (e) {
    if (signal.aborted) return;
    fill(list, el('li', { class: 'form-error small' }, `The list could not be loaded: ${e.message}`));
  }
}

// ---------------------------------------------------------------- starting a session

function showStart(pane, signal) {
  const tabs = [['evaluation', 'Evaluation'], ['survey', 'Survey'], ['learning', 'Learning']];
  const panels = {};
  const buttons = tabs.map(([key, label]) => el('button', { type: 'button', role: 'tab', id: `tab-${key}`, 'aria-controls': `panel-${key}`,
    'aria-selected': 'false', onclick: () => select(key) }, label));
  const body = el('div', { class: 'start-body' });
  fill(pane, el('div', { class: 'pad start' },
    el('h1', {}, 'Start a session'),
    el('p', { class: 'muted' }, 'An evaluation scores you on an assessment, with a timer and no feedback until the end. A survey asks questions with no right answers. A learning session teaches the concepts of one of your maps, with feedback after each answer.'),
    el('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Session type' }, buttons), body));

  function select(key) {
    buttons.forEach((b) => b.setAttribute('aria-selected', String(b.id === `tab-${key}`)));
    if (!panels[key]) panels[key] = ({ evaluation: evaluationForm, survey: surveyForm, learning: learningForm })[key](signal);
    fill(body, panels[key]);
    sessionStorage.setItem('pw.sessionTab', key);
  }
  select(sessionStorage.getItem('pw.sessionTab') ?? 'evaluation');
}

// POST /session/ and go to it; a refusal is shown in `error` (the server's message names
// the field and what is allowed).
async function create(body, error, button) {
  error.textContent = '';
  button.disabled = true;
  try {
    const session = await api('POST', '/session/', body);
    location.hash = `#/sessions/${session.id}`;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) error.textContent = 'Sign in again, then start the session.';
    else if (e instanceof ApiError && e.status === 503) error.textContent = `${e.message} — this kind of session needs a model, which the server does not have.`;
    else if (e instanceof ApiError) error.textContent = e.message;
    else if (e instanceof NetworkError) error.textContent = e.message;
    else { reportError(e); }
  } finally { button.disabled = false; }
}

const numberField = (id, label, hint, attrs = {}) => {
  const input = el('input', { id, type: 'number', inputmode: 'numeric', min: '1', step: '1', ...attrs });
  return [el('label', { for: id }, label, ' ', el('span', { class: 'muted small' }, hint)), input];
};
// An optional whole number from an input: undefined when empty, or a complaint.
function wholeNumber(input, what, max) {
  const raw = input.value.trim();
  if (!raw) return { value: undefined };
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) return { problem: `${what} must be a whole number from 1 to ${max}.` };
  return { value: n };
}

function evaluationForm(signal) {
  const list = el('div', { class: 'assessments', role: 'radiogroup', 'aria-label': 'Assessment' }, el('p', { class: 'muted' }, 'Loading the assessments…'));
  const [itemsLabel, items] = numberField('eval-items', 'Number of items', '(optional; the assessment’s count if empty)');
  const [timeLabel, minutes] = numberField('eval-minutes', 'Time limit in minutes', '(optional; the assessment’s limit if empty)', { max: '1440' });
  const error = el('p', { class: 'form-error', role: 'status', 'aria-live': 'polite' });
  const start = el('button', { type: 'submit', class: 'primary' }, 'Start evaluation');
  let assessments = [];
  const form = el('form', { id: 'panel-evaluation', role: 'tabpanel', 'aria-labelledby': 'tab-evaluation', class: 'card start-form', onsubmit: (e) => {
    e.preventDefault();
    const chosen = assessments.find((a) => a.assessment_id === form.querySelector('input[name="assessment"]:checked')?.value);
    if (!chosen) { error.textContent = 'Choose an assessment first.'; return; }
    const n = wholeNumber(items, 'The number of items', chosen.item_count);
    const m = wholeNumber(minutes, 'The time limit', 1440);
    if (n.problem || m.problem) { error.textContent = n.problem ?? m.problem; return; }
    create({ session_type: 'evaluation', title: chosen.title,
      config: { blueprint_id: chosen.assessment_id, max_items: n.value, time_limit_minutes: m.value } }, error, start);
  } },
  el('h2', {}, 'Choose an assessment'), list,
  el('div', { class: 'fields' }, el('div', {}, itemsLabel, items), el('div', {}, timeLabel, minutes)),
  error, el('div', { class: 'card-actions' }, start));
  api('GET', '/library/assessments').then((all) => {
    if (signal.aborted) return;
    assessments = all;
    if (!all.length) { fill(list, el('p', { class: 'muted' }, 'The item library has no assessments.')); return; }
    fill(list, all.map((a, i) => el('label', { class: 'option assessment' },
      el('input', { type: 'radio', name: 'assessment', value: a.assessment_id, checked: i === 0 }),
      el('span', {}, el('strong', {}, a.title), el('br'),
        el('span', { class: 'small muted' }, [`${a.selection === 'adaptive' ? 'up to ' : ''}${a.item_count} items`, `${a.time_limit_minutes} min`,
          a.domains.join(', '), a.item_kinds.map((k) => k.replace(/_/g, ' ')).join(', ')].join(' · '))))));
  }).catch((e) => { if (!signal.aborted) fill(list, el('p', { class: 'form-error' }, `The assessments could not be loaded: ${e.message}`)); });
  return form;
}

const EXAMPLE_SURVEY = {
  survey_id: 'study-habits',
  title: 'Study habits',
  questions: [
    { question_id: 'practice', text: 'Did you practise this week?', question_type: 'multiple_choice', options: ['Yes', 'No'] },
    { question_id: 'minutes', text: 'How many minutes a day, roughly?', question_type: 'multiple_choice', options: ['Under 15', '15-30', '30-60', 'Over 60'] },
    { question_id: 'why_not', text: 'What got in the way?', question_type: 'free_text' },
    { question_id: 'confidence', text: 'How confident do you feel about the material?', question_type: 'rating', scale: [1, 5] },
    { question_id: 'wish', text: 'Anything you would like more of?', question_type: 'free_text', required: false },
  ],
  skip_logic: {
    practice: [{ answer_in: ['No'], skip_to: 'why_not' }],
    minutes: [{ answer_in: ['Under 15', '15-30', '30-60', 'Over 60'], skip_to: 'confidence' }],
  },
};

function surveyForm() {
  const area = el('textarea', { id: 'survey-json', class: 'code-input', rows: '14', spellcheck: 'false', 'aria-describedby': 'survey-help survey-error' });
  area.value = localStorage.getItem(SURVEY_DRAFT_KEY) ?? '';
  area.addEventListener('input', () => localStorage.setItem(SURVEY_DRAFT_KEY, area.value));
  const error = el('p', { class: 'form-error', id: 'survey-error', role: 'status', 'aria-live': 'polite' });
  const file = el('input', { type: 'file', id: 'survey-file', accept: '.json,application/json', class: 'sr-only', onchange: async () => {
    const f = file.files?.[0];
    if (!f) return;
    if (f.size > 512 * 1024) { error.textContent = `${f.name} is ${Math.round(f.size / 1024)} KB; a survey definition must be under 512 KB.`; return; }
    area.value = await f.text();
    localStorage.setItem(SURVEY_DRAFT_KEY, area.value);
    error.textContent = '';
    file.value = '';
  } });
  const [timeLabel, minutes] = numberField('survey-minutes', 'Time limit in minutes', '(optional)', { max: '1440' });
  const start = el('button', { type: 'submit', class: 'primary' }, 'Start survey');
  return el('form', { id: 'panel-survey', role: 'tabpanel', 'aria-labelledby': 'tab-survey', class: 'card start-form', onsubmit: (e) => {
    e.preventDefault();
    const text = area.value.trim();
    if (!text) { error.textContent = 'Paste a survey definition, load one from a file, or use the example.'; return; }
    let survey;
    try { survey = JSON.parse(text); } catch (ex) { error.textContent = `The definition is not valid JSON: ${jsonProblem(ex, text)}`; return; }
    if (!survey || typeof survey !== 'object' || Array.isArray(survey)) { error.textContent = 'The definition must be a JSON object with survey_id, title and questions.'; return; }
    const m = wholeNumber(minutes, 'The time limit', 1440);
    if (m.problem) { error.textContent = m.problem; return; }
    create({ session_type: 'survey', title: typeof survey.title === 'string' ? survey.title.slice(0, 200) : undefined,
      config: { survey, time_limit_minutes: m.value } }, error, start);
  } },
  el('h2', {}, 'Survey definition'),
  el('p', { class: 'muted small', id: 'survey-help' }, 'JSON with survey_id, title and questions (each with question_id, text and question_type: multiple_choice with 2-6 options, rating with a scale such as [1, 5], or free_text; required unless "required": false), and optional skip_logic that jumps forward on an answer.'),
  el('div', { class: 'row' },
    el('button', { type: 'button', class: 'secondary', onclick: () => {
      area.value = JSON.stringify(EXAMPLE_SURVEY, null, 2); localStorage.setItem(SURVEY_DRAFT_KEY, area.value); error.textContent = '';
    } }, 'Use the example survey'),
    el('label', { for: 'survey-file', class: 'button secondary' }, 'Load from a file…'), file),
  el('label', { for: 'survey-json' }, 'Definition (JSON)'), area, error,
  el('div', { class: 'fields' }, el('div', {}, timeLabel, minutes)),
  el('div', { class: 'card-actions' }, start));
}

// Where JSON.parse stopped, as a line and column a person can find.
function jsonProblem(ex, text) {
  const at = Number(String(ex.message).match(/position (\d+)/)?.[1]);
  if (!Number.isFinite(at)) return ex.message;
  const before = text.slice(0, at);
  const line = before.split('\n').length, column = at - before.lastIndexOf('\n');
  return `${ex.message.replace(/ in JSON at position \d+.*$/, '').replace(/\s*\(line.*\)$/, '')} (line ${line}, column ${column}).`;
}

function learningForm(signal) {
  const mapSelect = el('select', { id: 'learn-map' }, el('option', { value: '' }, 'Loading your maps…'));
  const concepts = el('div', { class: 'concepts' });
  const [itemsLabel, items] = numberField('learn-items', 'Number of items', '(optional; 10 if empty)', { max: '200' });
  const error = el('p', { class: 'form-error', role: 'status', 'aria-live': 'polite' });
  const start = el('button', { type: 'submit', class: 'primary' }, 'Start learning');
  let skills = [], map = null;
  const chosen = new Map(); // node label -> Set of skill ids
  const form = el('form', { id: 'panel-learning', role: 'tabpanel', 'aria-labelledby': 'tab-learning', class: 'card start-form', onsubmit: (e) => {
    e.preventDefault();
    if (!map) { error.textContent = 'Choose one of your maps first.'; return; }
    const templates = Object.fromEntries([...chosen].filter(([, set]) => set.size).map(([label, set]) => [label, [...set]]));
    if (!Object.keys(templates).length) { error.textContent = 'Add at least one skill to at least one concept: those are the items you will practise.'; return; }
    const n = wholeNumber(items, 'The number of items', 200);
    if (n.problem) { error.textContent = n.problem; return; }
    create({ session_type: 'learning', title: `Learning: ${map.map?.title ?? map.title ?? 'map'}`.slice(0, 200),
      config: { map_id: mapSelect.value, item_templates: templates, max_items: n.value } }, error, start);
  } },
  el('h2', {}, 'What to learn'),
  el('label', { for: 'learn-map' }, 'Map'), mapSelect,
  el('p', { class: 'muted small' }, 'For each concept you want to practise, add the skills whose items practise it. The session picks the concept from your mastery.'),
  concepts,
  el('div', { class: 'fields' }, el('div', {}, itemsLabel, items)),
  error, el('div', { class: 'card-actions' }, start));

  Promise.all([api('GET', '/mind-maps?limit=100'), api('GET', '/library/skills')]).then(([maps, all]) => {
    if (signal.aborted) return;
    skills = all;
    const list = maps.items ?? maps;
    if (!list.length) {
      fill(mapSelect, el('option', { value: '' }, 'No maps yet'));
      fill(concepts, el('p', {}, 'You have no maps yet. ', el('a', { href: '#/maps' }, 'Create one in Maps'), ', then come back.'));
      return;
    }
    fill(mapSelect, el('option', { value: '' }, 'Choose a map…'), list.map((m) => el('option', { value: m.id }, m.title)));
    mapSelect.onchange = () => loadMap(mapSelect.value);
    // "Study this next" on a map with no learning loop to teach it: this concept, ready to
    // start once it has a skill (the ones whose wording matches it are added already).
    const preset = JSON.parse(sessionStorage.getItem(LEARN_PRESET_KEY) ?? 'null');
    sessionStorage.removeItem(LEARN_PRESET_KEY);
    if (preset && list.some((m) => m.id === preset.map_id)) {
      mapSelect.value = preset.map_id;
      loadMap(preset.map_id, preset.node_id);
    }
  }).catch((e) => { if (!signal.aborted) fill(concepts, el('p', { class: 'form-error' }, `Your maps or the skills could not be loaded: ${e.message}`)); });

  async function loadMap(id, focusNode = null) {
    map = null; chosen.clear(); error.textContent = '';
    if (!id) { fill(concepts); return; }
    fill(concepts, el('p', { class: 'muted' }, 'Loading the concepts…'));
    try {
      map = await api('GET', `/mind-maps/${id}`);
      const nodes = map.nodes ?? [];
      if (!nodes.length) { fill(concepts, el('p', { class: 'muted' }, 'This map has no concepts yet.')); return; }
      const focus = nodes.find((n) => n.id === focusNode);
      // From the map's "Study this next": that concept alone, first.
      const rows = (focus ? [focus] : nodes).map(conceptRow);
      fill(concepts, focus ? el('p', { class: 'study-from-map' }, 'From the map: ', el('strong', {}, focus.label),
        '. Check the skills that practise it, then start.') : null, rows);
      if (focus) {
        rows[0].suggested.forEach((skill) => rows[0].add(skill.skill_id));
        rows[0].querySelector('select')?.focus();
      }
    } catch (e) { fill(concepts, el('p', { class: 'form-error' }, `The map could not be loaded: ${e.message}`)); }
  }

  // A concept, the skills chosen for it (removable chips) and a picker grouped by domain,
  // with the skills whose wording matches the concept suggested first.
  function conceptRow(node) {
    const set = new Set();
    chosen.set(node.label, set);
    const chips = el('ul', { class: 'chips', 'aria-label': `Skills for ${node.label}` });
    const selectId = `skill-${node.id}`;
    const words = node.label.toLowerCase().split(/\W+/).filter((w) => w.length > 3).map((w) => w.replace(/(ing|ion|s)$/, ''));
    const matches = (s) => words.some((w) => `${s.title} ${s.domain}`.toLowerCase().includes(w));
    const suggested = skills.filter(matches);
    const byDomain = new Map();
    for (const s of skills) { if (!byDomain.has(s.domain)) byDomain.set(s.domain, []); byDomain.get(s.domain).push(s); }
    const option = (s) => el('option', { value: s.skill_id }, `${s.title} (${s.item_kinds.map((k) => k.replace(/_/g, ' ')).join(', ')})`);
    const select = el('select', { id: selectId, onchange: () => { if (select.value) add(select.value); select.value = ''; } },
      el('option', { value: '' }, 'Add a skill…'),
      suggested.length ? el('optgroup', { label: 'Suggested for this concept' }, suggested.map(option)) : null,
      [...byDomain].map(([domain, list]) => el('optgroup', { label: domain }, list.map(option))));
    function add(skillId) {
      if (set.has(skillId)) return;
      set.add(skillId);
      const skill = skills.find((s) => s.skill_id === skillId);
      const chip = el('li', { class: 'chip' }, el('span', {}, skill?.title ?? skillId),
        el('button', { type: 'button', class: 'icon-btn', 'aria-label': `Remove ${skill?.title ?? skillId}`, onclick: () => { set.delete(skillId); chip.remove(); } }, '×'));
      chips.append(chip);
    }
    const row = el('div', { class: 'concept' },
      el('label', { for: selectId, class: 'concept-label' }, node.label),
      chips, select);
    return Object.assign(row, { add, suggested });
  }
  return form;
}

// ---------------------------------------------------------------- running a session

function showSession(pane, id, signal, refreshList) {
  const s = { view: null, lastSeen: 0, pending: null, widget: null, deadlineMs: null, ended: false, streaming: false,
    retries: 0, timeUp: false, item: null };
  const title = el('h1', { class: 'sess-title' }, 'Session');
  const badges = el('span', { class: 'sess-badges' });
  const progress = el('span', { class: 'sess-progress', 'aria-live': 'polite' });
  const timer = el('span', { class: 'sess-timer', role: 'timer', 'aria-label': 'Time left', hidden: true });
  const conn = el('div', { class: 'sess-conn', role: 'status', 'aria-live': 'polite' });
  const log = el('div', { class: 'sess-log', 'aria-live': 'polite' });
  const slot = el('div', { class: 'sess-widget' });
  const results = el('div', { class: 'sess-results-slot' });
  const endBtn = el('button', { type: 'button', class: 'secondary', onclick: () => confirmEnd() }, 'End session');
  const footer = el('div', { class: 'sess-footer' }, endBtn);
  fill(pane, el('div', { class: 'sess-run' },
    el('header', { class: 'sess-head' }, el('div', { class: 'sess-head-text' }, title, badges), el('div', { class: 'sess-meta' }, progress, timer)),
    conn, log, slot, results, footer));

  const tick = setInterval(renderTimer, 1000);
  signal.addEventListener('abort', () => clearInterval(tick));
  start();

  async function start() {
    try {
      const view = await api('GET', `/session/${id}`);
      if (signal.aborted) return;
      applyView(view);
      if (isFinal(view.status)) { finish(view.results, view.end_reason, view.status); return; }
      if (view.status === 'created') s.view = { ...view, status: 'starting' }; // the first stream starts it: refresh the list then
      // Resumed: what was answered before comes back from the session's conversation (the
      // stream replays only from the last answer); failing that, how many there were.
      const earlier = await answeredBefore(id, view.pending?.tool_call_id).catch(() => null);
      if (signal.aborted) return;
      const before = view.context?.items_completed ?? view.context?.answered ?? 0;
      if (earlier?.length) log.append(...earlier);
      else if (before) log.append(el('p', { class: 'muted small sess-resumed' }, `Resumed: ${count(before, view.session_type === 'survey' ? 'question' : 'item')} answered earlier in this session.`));
      stream(null);
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof ApiError && e.status === 404) {
        fill(pane, el('div', { class: 'pad' }, el('h1', {}, 'Session not found'),
          el('p', {}, 'There is no session with this address for you (it may belong to another learner).'),
          el('a', { class: 'button primary', href: '#/sessions' }, 'Start a session')));
        return;
      }
      showProblem(e, () => start());
    }
  }

  // The session's view: title, status, progress, and the timer from the server's clock
  // (seconds left when asked, so the browser's clock does not matter).
  function applyView(view) {
    // The list on the side shows the status too: keep it current when it changes.
    if (s.view && s.view.status !== view.status) refreshList();
    s.view = view;
    title.textContent = view.title;
    fill(badges, el('span', { class: 'badge' }, TYPE_LABEL[view.session_type] ?? view.session_type),
      el('span', { class: `badge status-${view.status}` }, STATUS_LABEL[view.status] ?? view.status));
    if (view.time_remaining_seconds != null && !isFinal(view.status)) {
      s.deadlineMs = Date.now() + view.time_remaining_seconds * 1000;
      if (view.time_remaining_seconds > 0 && s.timeUp) { s.timeUp = false; s.widget?.setDisabled(false); setConn(''); }
    }
    if (isFinal(view.status)) s.deadlineMs = null;
    const c = view.context ?? {};
    if (view.session_type === 'evaluation' && c.total_items) {
      const current = Math.min(c.items_completed + (view.pending ? 1 : 0), c.total_items);
      progress.textContent = isFinal(view.status) ? `${c.items_completed} of ${c.total_items} answered` : `Item ${Math.max(current, 1)} of ${c.total_items}`;
    } else if (view.session_type === 'survey' && c.total_questions) {
      progress.textContent = isFinal(view.status) ? `${c.answered} answered` : `Question ${Math.min(c.answered + 1, c.total_questions)} of up to ${c.total_questions}`;
    } else if (view.session_type === 'learning' && c.max_items) {
      progress.textContent = `${c.items_completed} of ${c.max_items} items done`;
    }
    renderTimer();
  }

  async function refreshView() {
    try { const view = await api('GET', `/session/${id}`); if (!signal.aborted) applyView(view); } catch { /* the stream reports problems */ }
  }

  function renderTimer() {
    if (s.deadlineMs == null || s.ended) { timer.hidden = true; return; }
    const left = Math.max(0, Math.ceil((s.deadlineMs - Date.now()) / 1000));
    timer.hidden = false;
    const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), sec = left % 60;
    timer.textContent = `${h ? `${h}:${String(m).padStart(2, '0')}` : m}:${String(sec).padStart(2, '0')} left`;
    timer.classList.toggle('low', left <= 60);
    timer.setAttribute('data-seconds', String(left));
    if (left === 0 && !s.timeUp) timeUp();
  }

  // The server ends a timed-out session on the next stream: show that, and open one.
  function timeUp() {
    s.timeUp = true;
    s.widget?.setDisabled(true);
    setConn('Time is up — the server is ending the session…');
    if (!s.streaming) stream(s.lastSeen || null);
  }

  async function stream(after) {
    if (s.streaming || s.ended || signal.aborted) return;
    s.streaming = true;
    let last = null;
    try {
      await readStream(id, { after, signal, onEvent: (ev) => {
        if (ev.id != null) { if (ev.id <= s.lastSeen) return; s.lastSeen = ev.id; }
        last = ev.name;
        handle(ev);
      } });
      s.retries = 0;
      if (!['run_suspended', 'session_completed', 'session_terminated', 'error'].includes(last)) throw new NetworkError('The stream closed early.');
    } catch (e) {
      if (signal.aborted) return;
      s.streaming = false;
      if (e instanceof ApiError) { showProblem(e, () => stream(s.lastSeen)); return; }
      reconnect();
      return;
    } finally { s.streaming = false; }
    if (last !== 'run_suspended') return;
    await refreshView();
    // Time ran out while the stream ran: the next stream ends the session (the server's
    // clock decides; applyView clears timeUp if it says time is left).
    if (s.timeUp && !s.ended) setTimeout(() => { if (!signal.aborted && s.timeUp) stream(s.lastSeen || null); }, 1000);
  }

  // A lost connection: try again by itself, a little later each time, replaying only
  // what was missed (Last-Event-ID); the learner can also retry at once.
  function reconnect() {
    s.retries += 1;
    const wait = Math.min(30, 2 ** s.retries);
    setConn(`Connection to the server lost — trying again in ${wait} s. Anything you typed is kept.`,
      el('button', { type: 'button', class: 'secondary', onclick: () => { clearTimeout(timer_); setConn(''); stream(s.lastSeen || null); } }, 'Reconnect now'));
    const timer_ = setTimeout(() => { if (!signal.aborted) stream(s.lastSeen || null); }, wait * 1000);
    signal.addEventListener('abort', () => clearTimeout(timer_));
  }

  function setConn(text, ...extra) { fill(conn, text ? el('span', {}, text) : null, ...extra); conn.classList.toggle('shown', !!text); }

  function showProblem(e, retry) {
    const msg = e instanceof ApiError && e.status === 401 ? 'Your sign-in is no longer valid. Sign in again; this session and your typed answer are kept.'
      : e instanceof NetworkError ? e.message : e instanceof ApiError ? `${e.message} (${e.code})` : `Something went wrong in the page: ${e.message}`;
    if (!(e instanceof ApiError || e instanceof NetworkError)) console.error(e);
    setConn(msg, el('button', { type: 'button', class: 'secondary', onclick: () => { setConn(''); retry(); } }, 'Try again'));
  }

  function handle(ev) {
    const data = ev.data?.data ?? {};
    switch (ev.name) {
      case 'connected': case 'heartbeat': if (!s.timeUp) setConn(''); break;
      case 'session_started': refreshView(); break;
      case 'text_delta': if (data.text) log.append(el('div', { class: 'sess-text' }, renderText(data.text))); break;
      case 'item_presented': {
        s.item = data;
        if (data.item_number && data.total_items) progress.textContent = `Item ${data.item_number} of ${data.total_items}`;
        if (data.concept) progress.textContent = `${data.concept}${data.item_number ? ` · item ${data.item_number}` : ''}`;
        break;
      }
      case 'client_action': showWidget(data); break;
      case 'item_evaluated': log.append(feedback(data)); break;
      case 'session_completed': case 'session_terminated':
        finish(data.results, data.reason, ev.name === 'session_completed' ? 'completed' : 'terminated');
        break;
      case 'error': {
        const err = ev.data?.error ?? {};
        showProblem(new ApiError(500, err.code ?? 'error', err.message ?? 'The session could not continue.', err.details), () => stream(s.lastSeen));
        break;
      }
      default: break;
    }
  }

  function showWidget(action) {
    s.pending = action;
    s.widget = renderWidget(action, { sessionId: id, submit: respond });
    if (s.item?.item_number) s.widget.setAttribute('data-item-number', String(s.item.item_number));
    fill(slot, s.widget);
    if (s.timeUp) s.widget.setDisabled(true);
    else s.widget.querySelector('input, textarea')?.focus({ preventScroll: true });
    s.widget.scrollIntoView({ block: 'nearest' });
  }

  // Send the answer; a refusal is returned as text for the widget to show, and the typed
  // answer stays (in the form and in localStorage) until the server has it.
  async function respond(response) {
    const action = s.pending;
    if (!action) return 'This question was already answered.';
    s.widget.setDisabled(true);
    try {
      await api('POST', `/session/${id}/respond`, { tool_call_id: action.tool_call_id, response },
        { idempotencyKey: keyFor(`respond\n${id}\n${action.tool_call_id}\n${JSON.stringify(response)}`) });
    } catch (e) {
      if (!s.timeUp) s.widget.setDisabled(false);
      if (e instanceof NetworkError) return "Not sent: can't reach the server. Your answer is kept here; send it again when the server is back.";
      if (e instanceof ApiError) {
        if (e.status === 401) return 'Not sent: your sign-in is no longer valid. Sign in again; your answer is kept.';
        if (e.code === 'time_limit_passed') { timeUp(); return 'Not counted: the time limit passed before this answer arrived.'; }
        if (e.status === 409) { refreshView(); stream(s.lastSeen || null); return `${e.message}.`; }
        if (e.status === 422) return e.message;
        return `Not sent: ${e.message} (${e.code}). Your answer is kept; try again.`;
      }
      reportError(e);
      return 'Not sent because of an error in the page; your answer is kept.';
    }
    clearDrafts(id, action.tool_call_id);
    s.pending = null;
    log.append(answered(action, response, s.item));
    fill(slot);
    stream(s.lastSeen || null);
    return null;
  }

  function finish(res, reason, status) {
    s.ended = true;
    s.pending = null;
    s.deadlineMs = null;
    renderTimer();
    fill(slot);
    setConn('');
    clearDrafts(id);
    endBtn.hidden = true;
    fill(badges, el('span', { class: 'badge' }, TYPE_LABEL[s.view?.session_type] ?? ''),
      el('span', { class: `badge status-${status}` }, STATUS_LABEL[status] ?? status));
    fill(results, renderResults(s.view, res ?? {}, reason));
    refreshList();
    if (s.view && !isFinal(s.view.status)) refreshView();
  }

  // Ending asks twice, in place (no dialog): it cannot be undone.
  function confirmEnd() {
    fill(footer, el('span', { class: 'muted' }, 'End now? What you answered is kept and scored; the rest is not.'),
      el('button', { type: 'button', class: 'secondary', onclick: () => fill(footer, endBtn) }, 'Keep going'),
      el('button', { type: 'button', class: 'danger', onclick: async (e) => {
        e.target.disabled = true;
        try {
          const view = await api('DELETE', `/session/${id}`);
          s.view = view;
          fill(footer, endBtn);
          finish(view.results, view.end_reason, view.status);
        } catch (ex) { e.target.disabled = false; showProblem(ex, confirmEnd); }
      } }, 'End session'));
  }
}

// The widgets answered so far, read back from the session's conversation: each client
// tool call with its result (the learner's answer), in order, but the one still waiting.
const CLIENT_TOOLS = new Set(['present_choices', 'request_free_text', 'present_code_editor']);
async function answeredBefore(id, waitingCallId) {
  const messages = await api('GET', `/session/${id}/messages`);
  const results = new Map(messages.filter((m) => m.role === 'tool' && m.tool_call_id).map((m) => [m.tool_call_id, m.content]));
  const calls = messages.filter((m) => m.role === 'assistant').flatMap((m) => (Array.isArray(m.tool_calls) ? m.tool_calls : []))
    .filter((c) => CLIENT_TOOLS.has(c.name) && c.id !== waitingCallId && results.has(c.id));
  return calls.map((call, i) => {
    let args = {};
    try { args = JSON.parse(call.arguments || '{}'); } catch { /* shown without its prompt */ }
    const content = results.get(call.id);
    let response;
    if (content === '(skipped)') response = { skipped: true };
    else if (call.name === 'present_choices') {
      try { response = JSON.parse(content); } catch { response = { text: content }; }
    } else response = call.name === 'present_code_editor' ? { code: content } : { text: content };
    return answered({ arguments: args }, response, { item_number: i + 1 });
  });
}

// What the learner sent, kept in the log (the widget is gone once answered).
function answered(action, response, item) {
  const args = action.arguments ?? {};
  const text = response.skipped ? '(skipped)' : response.selected_index != null ? args.options?.[response.selected_index]
    : response.text ?? response.code ?? '';
  const code = response.code != null;
  return el('div', { class: 'sess-answered' },
    el('p', { class: 'small muted' }, item?.item_number ? `Item ${item.item_number}` : 'Answered'),
    el('p', {}, renderText(args.prompt ?? '')),
    el('p', {}, el('span', { class: 'muted' }, 'Your answer: '), code ? el('pre', { class: 'code-answer' }, text) : el('strong', {}, text)));
}

// Immediate feedback (learning sessions; evaluations give none until the end).
function feedback(data) {
  const ok = data.correct === true;
  return el('div', { class: `sess-feedback ${ok ? 'ok' : 'bad'}` },
    data.correct != null ? el('span', { class: `pill ${ok ? 'correct' : 'incorrect'}` }, ok ? 'Correct' : 'Not quite') : null,
    data.feedback ? el('span', {}, ' ', renderText(data.feedback)) : null,
    !ok && data.expected != null ? el('span', { class: 'muted' }, ` Expected: ${String(data.expected)}`) : null);
}

const num = (x) => (Number.isInteger(x) ? String(x) : (Math.round(x * 100) / 100).toString());

function renderResults(view, res, reason) {
  const type = view?.session_type;
  const why = el('p', { class: 'muted' }, type === 'survey' && reason === 'finished' ? 'Every question that applied was asked.' : END_REASON[reason] ?? '');
  const practice = practiseMissed(view, res);
  const again = el('div', { class: 'card-actions' }, practice?.button,
    el('a', { class: `button ${practice ? 'secondary' : 'primary'}`, href: '#/sessions' }, 'Start another session'));
  if (type === 'evaluation') {
    const items = res.items ?? [];
    return el('section', { class: 'card sess-results', 'aria-labelledby': 'score-title', 'data-score': String(res.score ?? 0), 'data-max-score': String(res.max_score ?? 0) },
      el('h2', { id: 'score-title' }, 'Your score'),
      el('p', { class: 'score-line' },
        el('span', { class: 'sess-score' }, `${num(res.score ?? 0)} / ${num(res.max_score ?? 0)}`),
        el('span', { class: 'score-percent' }, ` (${num(res.percent ?? 0)}%)`)),
      el('p', {}, `${res.items_correct ?? 0} of ${count(res.items_answered ?? 0, 'answered item')} correct.`),
      res.ability?.theta != null ? el('p', { class: 'muted small' }, `Estimated ability: ${num(res.ability.theta)}${res.ability.se != null ? ` ± ${num(res.ability.se)}` : ''}`) : null,
      why, practice?.note,
      items.length ? el('ol', { class: 'sess-items' }, items.map((it) => el('li', { class: it.correct ? 'ok' : 'bad' },
        el('p', {}, renderText(it.stem ?? '')),
        el('p', { class: 'small' },
          el('span', { class: `pill ${it.correct ? 'correct' : 'incorrect'}` }, it.correct ? 'Correct' : it.credit > 0 ? `Partly (${num(it.credit)})` : 'Wrong'),
          ' Your answer: ', el('strong', {}, it.answer ?? ''),
          it.correct ? null : el('span', {}, ' · Expected: ', el('strong', {}, typeof it.expected === 'string' ? it.expected : JSON.stringify(it.expected ?? ''))),
          it.tests?.total ? el('span', { class: 'muted' }, ` · tests passed ${it.tests.passed}/${it.tests.total}`) : null)))) : null,
      practice?.error, again);
  }
  if (type === 'survey') {
    const n = typeof res.answers === 'number' ? res.answers : Object.keys(res.answers ?? {}).length;
    return el('section', { class: 'card sess-results' }, el('h2', {}, 'Survey done'),
      el('p', {}, `${n} answer${n === 1 ? '' : 's'} recorded. Thank you.`),
      res.skipped_questions?.length ? el('p', { class: 'muted small' }, `Not asked (skip logic): ${res.skipped_questions.join(', ')}`) : null, why, again);
  }
  if (type === 'learning') {
    return el('section', { class: 'card sess-results' }, el('h2', {}, 'Learning session done'),
      el('p', {}, `${res.items_correct ?? 0} of ${count(res.items_answered ?? 0, 'item')} right.`),
      res.concepts?.length ? el('p', { class: 'muted' }, `${count(res.concepts.length, 'concept')} covered.`) : null,
      why, practice?.note, el('p', {}, 'Your mastery was updated: see ', el('a', { href: '#/progress' }, 'Progress'), '.'), practice?.error, again);
  }
  return el('section', { class: 'card sess-results' }, el('h2', {}, 'Session over'), why, again);
}

// "Practise what you missed": a new session on what this one scored wrong. An evaluation's
// missed items come back as fresh items of the same skills (the server picks them, since
// item keys never reach the page); a learning session's missed concepts are practised again
// with the same skills. Null when the session had nothing to practise.
function practiseMissed(view, res) {
  if (!view || !['evaluation', 'learning'].includes(view.session_type)) return null;
  const wrong = view.session_type === 'evaluation'
    ? (res.items ?? []).filter((it) => !it.correct).length
    : (res.results ?? []).filter((r) => !r.correct).length;
  if (!(res.items_answered > 0)) return null;
  if (!wrong) return { note: el('p', { class: 'muted practice-note' }, 'Nothing missed, so nothing to practise again.') };
  const error = el('p', { class: 'form-error', role: 'status', 'aria-live': 'polite' });
  const title = `Practice: ${view.title}`.slice(0, 200);
  const button = el('button', { type: 'button', class: 'primary practise-missed', onclick: async () => {
    if (view.session_type === 'evaluation') {
      create({ session_type: 'evaluation', title, config: { missed_in: view.id } }, error, button);
      return;
    }
    button.disabled = true;
    try {
      const { config, concepts } = await learningPractice(view.config, res.results);
      create({ session_type: 'learning', title: `Practice: ${concepts.join(', ')}`.slice(0, 200), config }, error, button);
    } catch (e) {
      button.disabled = false;
      error.textContent = `The practice could not be prepared: ${e.message}`;
    }
  } }, 'Practise what you missed');
  const note = el('p', { class: 'practice-note' }, `You missed ${count(wrong, view.session_type === 'evaluation' ? 'item' : 'answer')}: practise ${wrong === 1 ? 'it' : 'them'} again in a new session.`);
  return { button, note, error };
}

// A learning session's configuration narrowed to the concepts answered wrong (the session
// named its concepts by label or id; the results name them by id).
async function learningPractice(config, results) {
  const missed = new Set(results.filter((r) => !r.correct).map((r) => r.node_id));
  const map = await api('GET', `/mind-maps/${config.map_id}`);
  const byKey = (key) => map.nodes.find((n) => n.id === key.trim() || n.label.trim().toLowerCase() === key.trim().toLowerCase());
  const chosen = Object.entries(config.item_templates ?? {})
    .map(([key, skills]) => [byKey(key), skills]).filter(([node]) => node && missed.has(node.id));
  if (!chosen.length) throw new Error('the concepts you missed are no longer on the map');
  const wrong = results.filter((r) => !r.correct).length;
  return {
    config: { map_id: config.map_id, item_templates: Object.fromEntries(chosen.map(([node, skills]) => [node.id, skills])),
      max_items: Math.min(200, Math.max(wrong, 1)) },
    concepts: chosen.map(([node]) => node.label),
  };
}
