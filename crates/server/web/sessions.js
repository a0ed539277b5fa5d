// sessions.js: the Sessions view: start an evaluation (an assessment of the item
// library), a survey (a definition pasted, loaded from a file, or the example) or a
// learning session (a map, and per concept the skills that practise it); then run it
// (session_run.js). #/sessions/<id> resumes a session after a reload; the list on the side
// (open sessions first) leads back to any of them.
import { api } from './api.js';
import { el, fill, fmtTime, count, skillsFor, statusLabel } from './ui.js';
import { create, showSession, STATUS_LABEL, TYPE_LABEL, isFinal } from './session_run.js';
import { recallCard } from './reviews.js';

const SURVEY_DRAFT_KEY = 'pw.surveyDefinition';
// What the Maps view's "Study this next" asks the learning form for: { map_id, node_id }.
const LEARN_PRESET_KEY = 'pw.learnPreset';

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

// ---------------------------------------------------------------- studying by recall

// A learning run with no items: the map's concepts ready to learn (the frontier, in
// learning order), one recall card each, up to `limit`. Each rating is an answer like any
// other: it moves the concept's mastery and schedules its review. Concepts whose
// prerequisites open during the run join it.
async function recallRun(form, map, limit) {
  const title = map.map?.title ?? map.title ?? 'this map';
  const studied = [];
  const list = el('ul', { class: 'reviews recall-study', 'aria-label': `Study ${title} by recall` });
  const status = el('p', { class: 'small muted', role: 'status', 'aria-live': 'polite' });
  fill(form, el('h2', {}, `Studying ${title} by recall`),
    el('p', { class: 'muted small' }, 'Say what you know of each concept in your own words, check it, and rate how well you knew it. ',
      'Your rating moves the concept and schedules its review, as any answer does.'),
    status, list);
  async function next() {
    let ready;
    try { ready = await api('GET', `/mind-maps/${map.id}/frontier`); } catch (e) { status.textContent = `The concepts could not be loaded: ${e.message}`; return; }
    const node = studied.length < limit ? ready.find((n) => !studied.some((s) => s.id === n.id)) : null;
    if (!node) { finish(); return; }
    const card = recallCard(node, {
      responseType: ['unseen', 'diagnosed', 'learning'].includes(node.mastery_status) ? 'teach' : 'review',
      note: `Concept ${studied.length + 1}${limit ? ` of at most ${limit}` : ''}`,
      onRecorded: (r, g) => {
        studied.push({ ...r.node, grade: g.label });
        const due = r.node.next_review_at ? ` It comes back for review ${fmtTime(r.node.next_review_at)}.` : '';
        fill(card, el('p', { class: 'small recall-done' },
          `${node.label}: recorded as ${g.label}; now ${statusLabel(r.node.mastery_status).toLowerCase()}.${due}`));
        status.textContent = `${node.label} recorded as ${g.label}.`;
        next();
      },
    });
    list.append(card);
    card.querySelector('textarea')?.focus();
  }
  function finish() {
    const done = studied.length
      ? `You studied ${count(studied.length, 'concept')} by recall. The next concepts open as these are mastered; their reviews come due under Maps.`
      : 'Every concept of this map that is ready to learn has been studied; the next ones open as these are mastered. Maps lists the reviews that are due.';
    list.after(el('div', { class: 'recall-summary' }, el('p', { role: 'status' }, done),
      el('p', {}, el('a', { class: 'button', href: '#/maps' }, 'Reviews due'), ' ',
        el('a', { class: 'button', href: `#/maps/${map.id}` }, 'Open the map'))));
  }
  await next();
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
    const chosen = assessments.find((a) => a.blueprint_id === form.querySelector('input[name="assessment"]:checked')?.value);
    if (!chosen) { error.textContent = 'Choose an assessment first.'; return; }
    const n = wholeNumber(items, 'The number of items', chosen.item_count);
    const m = wholeNumber(minutes, 'The time limit', 1440);
    if (n.problem || m.problem) { error.textContent = n.problem ?? m.problem; return; }
    create({ session_type: 'evaluation', title: chosen.title,
      config: { blueprint_id: chosen.blueprint_id, max_items: n.value, time_limit_minutes: m.value } }, error, start);
  } },
  el('h2', {}, 'Choose an assessment'), list,
  el('div', { class: 'fields' }, el('div', {}, itemsLabel, items), el('div', {}, timeLabel, minutes)),
  error, el('div', { class: 'card-actions' }, start));
  api('GET', '/library/assessments').then((all) => {
    if (signal.aborted) return;
    assessments = all;
    if (!all.length) { fill(list, el('p', { class: 'muted' }, 'The item library has no assessments.')); return; }
    fill(list, all.map((a, i) => el('label', { class: 'option assessment' },
      el('input', { type: 'radio', name: 'assessment', value: a.blueprint_id, checked: i === 0 }),
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
    const n = wholeNumber(items, 'The number of items', 200);
    if (n.problem) { error.textContent = n.problem; return; }
    // No skill chosen (a pasted outline, a course's map): the map's concepts by recall.
    if (!Object.keys(templates).length) { recallRun(form, map, n.value ?? 10); return; }
    create({ session_type: 'learning', title: `Learning: ${map.map?.title ?? map.title ?? 'map'}`.slice(0, 200),
      config: { map_id: mapSelect.value, item_templates: templates, max_items: n.value } }, error, start);
  } },
  el('h2', {}, 'What to learn'),
  el('label', { for: 'learn-map' }, 'Map'), mapSelect,
  el('p', { class: 'muted small' }, 'For each concept you want to practise, add the skills whose items practise it; the session picks the concept from your mastery. ',
    'With no skill added, you study the map by recall: each concept ready to learn, in your own words, rated by you.'),
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
        '. Check the skills that practise it (or none, to study it by recall), then start.') : null, rows);
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
    const suggested = skillsFor(node.label, skills);
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
