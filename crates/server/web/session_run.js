// session_run.js: one open session's page: its view (title, status, progress, the timer
// from the server's clock), the server's events over SSE (sse.js) turned into text, widgets
// (widgets.js) and feedback, the learner's answers sent once, reconnection that replays only
// what was missed, ending, and the results.
import { api, ApiError, NetworkError, keyFor } from './api.js';
import { el, fill, reportError, count } from './ui.js';
import { renderText } from './math.js';
import { readStream } from './sse.js';
import { renderWidget, clearDrafts } from './widgets.js';

export const STATUS_LABEL = { created: 'Not started', running: 'In progress', awaiting_response: 'Waiting for you', completed: 'Completed', terminated: 'Ended' };
export const TYPE_LABEL = { evaluation: 'Evaluation', survey: 'Survey', learning: 'Learning', thought: 'Conversation' };
const END_REASON = {
  finished: 'Every item was answered.',
  max_items: 'The session reached its number of items.',
  time_limit: 'Time ran out: the server ended the session at its time limit. Unanswered items are not counted.',
  learner: 'You ended the session; what you answered is kept.',
};
export const isFinal = (status) => status === 'completed' || status === 'terminated';
// The events after which a stream may end; any other end is a lost connection.
const STREAM_ENDS = ['run_suspended', 'session_completed', 'session_terminated', 'error'];

// POST /session/ and go to it; a refusal is shown in `error` (the server's message names
// the field and what is allowed).
export async function create(body, error, button) {
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

// Run session `id` in `pane` until `signal` aborts; `refreshList` updates the list beside it.
export function showSession(pane, id, signal, refreshList) {
  const run = new SessionRun(pane, id, signal, refreshList);
  const tick = setInterval(() => run.renderTimer(), 1000);
  signal.addEventListener('abort', () => clearInterval(tick));
  run.start();
}

class SessionRun {
  constructor(pane, id, signal, refreshList) {
    Object.assign(this, { pane, id, signal, refreshList });
    this.view = null; this.lastSeen = 0; this.pending = null; this.widget = null; this.deadlineMs = null;
    this.ended = false; this.streaming = false; this.retries = 0; this.timeUp = false; this.item = null;
    this.layOut();
  }

  layOut() {
    this.title = el('h1', { class: 'sess-title' }, 'Session');
    this.badges = el('span', { class: 'sess-badges' });
    this.progress = el('span', { class: 'sess-progress', 'aria-live': 'polite' });
    this.timer = el('span', { class: 'sess-timer', role: 'timer', 'aria-label': 'Time left', hidden: true });
    this.conn = el('div', { class: 'sess-conn', role: 'status', 'aria-live': 'polite' });
    this.log = el('div', { class: 'sess-log', 'aria-live': 'polite' });
    this.slot = el('div', { class: 'sess-widget' });
    this.results = el('div', { class: 'sess-results-slot' });
    this.endBtn = el('button', { type: 'button', class: 'secondary', onclick: () => this.confirmEnd() }, 'End session');
    this.footer = el('div', { class: 'sess-footer' }, this.endBtn);
    fill(this.pane, el('div', { class: 'sess-run' },
      el('header', { class: 'sess-head' }, el('div', { class: 'sess-head-text' }, this.title, this.badges), el('div', { class: 'sess-meta' }, this.progress, this.timer)),
      this.conn, this.log, this.slot, this.results, this.footer));
  }

  async start() {
    try {
      const view = await api('GET', `/session/${this.id}`);
      if (this.signal.aborted) return;
      this.applyView(view);
      if (isFinal(view.status)) { this.finish(view.results, view.end_reason, view.status); return; }
      if (view.status === 'created') this.view = { ...view, status: 'starting' }; // the first stream starts it: refresh the list then
      await this.showEarlierAnswers(view);
      if (this.signal.aborted) return;
      this.stream(null);
    } catch (e) {
      if (this.signal.aborted) return;
      if (e instanceof ApiError && e.status === 404) {
        fill(this.pane, el('div', { class: 'pad' }, el('h1', {}, 'Session not found'),
          el('p', {}, 'There is no session with this address for you (it may belong to another learner).'),
          el('a', { class: 'button primary', href: '#/sessions' }, 'Start a session')));
        return;
      }
      this.showProblem(e, () => this.start());
    }
  }

  // Resumed: what was answered before comes back from the session's conversation (the
  // stream replays only from the last answer); failing that, how many there were.
  async showEarlierAnswers(view) {
    const earlier = await answeredBefore(this.id, view.pending?.tool_call_id).catch(() => null);
    if (this.signal.aborted) return;
    const before = view.context?.items_completed ?? view.context?.answered ?? 0;
    if (earlier?.length) this.log.append(...earlier);
    else if (before) this.log.append(el('p', { class: 'muted small sess-resumed' }, `Resumed: ${count(before, view.session_type === 'survey' ? 'question' : 'item')} answered earlier in this session.`));
  }

  // The session's view: title, status, progress, and the timer from the server's clock
  // (seconds left when asked, so the browser's clock does not matter).
  applyView(view) {
    // The list on the side shows the status too: keep it current when it changes.
    if (this.view && this.view.status !== view.status) this.refreshList();
    this.view = view;
    this.title.textContent = view.title;
    this.showBadges(view.session_type, view.status);
    if (view.time_remaining_seconds != null && !isFinal(view.status)) {
      this.deadlineMs = Date.now() + view.time_remaining_seconds * 1000;
      if (view.time_remaining_seconds > 0 && this.timeUp) { this.timeUp = false; this.widget?.setDisabled(false); this.setConn(''); }
    }
    if (isFinal(view.status)) this.deadlineMs = null;
    const line = progressLine(view);
    if (line != null) this.progress.textContent = line;
    this.renderTimer();
  }

  showBadges(type, status) {
    fill(this.badges, el('span', { class: 'badge' }, TYPE_LABEL[type] ?? type ?? ''),
      el('span', { class: `badge status-${status}` }, STATUS_LABEL[status] ?? status));
  }

  async refreshView() {
    try { const view = await api('GET', `/session/${this.id}`); if (!this.signal.aborted) this.applyView(view); } catch { /* the stream reports problems */ }
  }

  renderTimer() {
    const timer = this.timer;
    if (this.deadlineMs == null || this.ended) { timer.hidden = true; return; }
    const left = Math.max(0, Math.ceil((this.deadlineMs - Date.now()) / 1000));
    timer.hidden = false;
    const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), sec = left % 60;
    timer.textContent = `${h ? `${h}:${String(m).padStart(2, '0')}` : m}:${String(sec).padStart(2, '0')} left`;
    timer.classList.toggle('low', left <= 60);
    timer.setAttribute('data-seconds', String(left));
    if (left === 0 && !this.timeUp) this.onTimeUp();
  }

  // The server ends a timed-out session on the next stream: show that, and open one.
  onTimeUp() {
    this.timeUp = true;
    this.widget?.setDisabled(true);
    this.setConn('Time is up — the server is ending the session…');
    if (!this.streaming) this.stream(this.lastSeen || null);
  }

  async stream(after) {
    if (this.streaming || this.ended || this.signal.aborted) return;
    this.streaming = true;
    let last = null;
    try {
      await readStream(this.id, { after, signal: this.signal, onEvent: (ev) => {
        if (ev.id != null) { if (ev.id <= this.lastSeen) return; this.lastSeen = ev.id; }
        last = ev.name;
        this.handle(ev);
      } });
      this.retries = 0;
      if (!STREAM_ENDS.includes(last)) throw new NetworkError('The stream closed early.');
    } catch (e) {
      if (this.signal.aborted) return;
      this.streaming = false;
      if (e instanceof ApiError) { this.showProblem(e, () => this.stream(this.lastSeen)); return; }
      this.reconnect();
      return;
    } finally { this.streaming = false; }
    if (last !== 'run_suspended') return;
    await this.refreshView();
    // Time ran out while the stream ran: the next stream ends the session (the server's
    // clock decides; applyView clears timeUp if it says time is left).
    if (this.timeUp && !this.ended) setTimeout(() => { if (!this.signal.aborted && this.timeUp) this.stream(this.lastSeen || null); }, 1000);
  }

  // A lost connection: try again by itself, a little later each time, replaying only
  // what was missed (Last-Event-ID); the learner can also retry at once.
  reconnect() {
    this.retries += 1;
    const wait = Math.min(30, 2 ** this.retries);
    const again = setTimeout(() => { if (!this.signal.aborted) this.stream(this.lastSeen || null); }, wait * 1000);
    this.signal.addEventListener('abort', () => clearTimeout(again));
    this.setConn(`Connection to the server lost — trying again in ${wait} s. Anything you typed is kept.`,
      el('button', { type: 'button', class: 'secondary', onclick: () => { clearTimeout(again); this.setConn(''); this.stream(this.lastSeen || null); } }, 'Reconnect now'));
  }

  setConn(text, ...extra) { fill(this.conn, text ? el('span', {}, text) : null, ...extra); this.conn.classList.toggle('shown', !!text); }

  showProblem(e, retry) {
    const msg = e instanceof ApiError && e.status === 401 ? 'Your sign-in is no longer valid. Sign in again; this session and your typed answer are kept.'
      : e instanceof NetworkError ? e.message : e instanceof ApiError ? `${e.message} (${e.code})` : `Something went wrong in the page: ${e.message}`;
    if (!(e instanceof ApiError || e instanceof NetworkError)) console.error(e);
    this.setConn(msg, el('button', { type: 'button', class: 'secondary', onclick: () => { this.setConn(''); retry(); } }, 'Try again'));
  }

  // One event of the session's log.
  handle(ev) {
    const data = ev.data?.data ?? {};
    switch (ev.name) {
      case 'connected': case 'heartbeat': if (!this.timeUp) this.setConn(''); break;
      case 'session_started': this.refreshView(); break;
      case 'text_delta': if (data.text) this.log.append(el('div', { class: 'sess-text' }, renderText(data.text))); break;
      case 'item_presented': {
        this.item = data;
        if (data.item_number && data.total_items) this.progress.textContent = `Item ${data.item_number} of ${data.total_items}`;
        if (data.concept) this.progress.textContent = `${data.concept}${data.item_number ? ` · item ${data.item_number}` : ''}`;
        break;
      }
      case 'client_action': this.showWidget(data); break;
      case 'item_evaluated': this.log.append(feedback(data)); break;
      case 'session_completed': case 'session_terminated':
        this.finish(data.results, data.reason, ev.name === 'session_completed' ? 'completed' : 'terminated');
        break;
      case 'error': {
        const err = ev.data?.error ?? {};
        this.showProblem(new ApiError(500, err.code ?? 'error', err.message ?? 'The session could not continue.', err.details), () => this.stream(this.lastSeen));
        break;
      }
      default: break;
    }
  }

  showWidget(action) {
    this.pending = action;
    const widget = renderWidget(action, { sessionId: this.id, submit: (response) => this.respond(response) });
    this.widget = widget;
    if (this.item?.item_number) widget.setAttribute('data-item-number', String(this.item.item_number));
    fill(this.slot, widget);
    if (this.timeUp) widget.setDisabled(true);
    else widget.querySelector('input, textarea')?.focus({ preventScroll: true });
    widget.scrollIntoView({ block: 'nearest' });
  }

  // Send the answer; a refusal is returned as text for the widget to show, and the typed
  // answer stays (in the form and in localStorage) until the server has it.
  async respond(response) {
    const action = this.pending;
    if (!action) return 'This question was already answered.';
    this.widget.setDisabled(true);
    try {
      await api('POST', `/session/${this.id}/respond`, { tool_call_id: action.tool_call_id, response },
        { idempotencyKey: keyFor(`respond\n${this.id}\n${action.tool_call_id}\n${JSON.stringify(response)}`) });
    } catch (e) {
      if (!this.timeUp) this.widget.setDisabled(false);
      return this.notSent(e);
    }
    clearDrafts(this.id, action.tool_call_id);
    this.pending = null;
    this.log.append(answered(action, response, this.item));
    fill(this.slot);
    this.stream(this.lastSeen || null);
    return null;
  }

  // Why an answer was not taken, in words for the widget.
  notSent(e) {
    if (e instanceof NetworkError) return "Not sent: can't reach the server. Your answer is kept here; send it again when the server is back.";
    if (e instanceof ApiError) {
      if (e.status === 401) return 'Not sent: your sign-in is no longer valid. Sign in again; your answer is kept.';
      if (e.code === 'time_limit_passed') { this.onTimeUp(); return 'Not counted: the time limit passed before this answer arrived.'; }
      if (e.status === 409) { this.refreshView(); this.stream(this.lastSeen || null); return `${e.message}.`; }
      if (e.status === 422) return e.message;
      return `Not sent: ${e.message} (${e.code}). Your answer is kept; try again.`;
    }
    reportError(e);
    return 'Not sent because of an error in the page; your answer is kept.';
  }

  finish(res, reason, status) {
    this.ended = true;
    this.pending = null;
    this.deadlineMs = null;
    this.renderTimer();
    fill(this.slot);
    this.setConn('');
    clearDrafts(this.id);
    this.endBtn.hidden = true;
    this.showBadges(this.view?.session_type, status);
    fill(this.results, renderResults(this.view, res ?? {}, reason));
    this.refreshList();
    if (this.view && !isFinal(this.view.status)) this.refreshView();
  }

  // Ending asks twice, in place (no dialog): it cannot be undone.
  confirmEnd() {
    fill(this.footer, el('span', { class: 'muted' }, 'End now? What you answered is kept and scored; the rest is not.'),
      el('button', { type: 'button', class: 'secondary', onclick: () => fill(this.footer, this.endBtn) }, 'Keep going'),
      el('button', { type: 'button', class: 'danger', onclick: async (e) => {
        e.target.disabled = true;
        try {
          const view = await api('DELETE', `/session/${this.id}`);
          this.view = view;
          fill(this.footer, this.endBtn);
          this.finish(view.results, view.end_reason, view.status);
        } catch (ex) { e.target.disabled = false; this.showProblem(ex, () => this.confirmEnd()); }
      } }, 'End session'));
  }
}

// The progress line for a view, or null to leave it as it is.
function progressLine(view) {
  const c = view.context ?? {};
  if (view.session_type === 'evaluation' && c.total_items) {
    const current = Math.min(c.items_completed + (view.pending ? 1 : 0), c.total_items);
    return isFinal(view.status) ? `${c.items_completed} of ${c.total_items} answered` : `Item ${Math.max(current, 1)} of ${c.total_items}`;
  }
  if (view.session_type === 'survey' && c.total_questions) {
    return isFinal(view.status) ? `${c.answered} answered` : `Question ${Math.min(c.answered + 1, c.total_questions)} of up to ${c.total_questions}`;
  }
  if (view.session_type === 'learning' && c.max_items) return `${c.items_completed} of ${c.max_items} items done`;
  return null;
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
      el('p', {}, `${res.items_correct ?? 0} of ${count(res.items_total ?? res.items_answered ?? 0, 'item')} correct`
        + (res.items_unanswered ? `; ${res.items_unanswered} not answered, counted as wrong.` : '.')),
      res.ability?.theta != null ? el('p', { class: 'muted small' }, `Estimated ability: ${num(res.ability.theta)}${res.ability.se != null ? ` ± ${num(res.ability.se)}` : ''}`) : null,
      why, practice?.note,
      items.length ? el('ol', { class: 'sess-items' }, items.map((it) => el('li', { class: it.correct ? 'ok' : 'bad' },
        el('p', {}, renderText(it.stem ?? '')),
        el('p', { class: 'small' },
          el('span', { class: `pill ${it.correct ? 'correct' : 'incorrect'}` }, it.correct ? 'Correct' : it.credit > 0 ? `Partly (${num(it.credit)})` : 'Wrong'),
          ' Your answer: ', el('strong', {}, it.answer ?? ''),
          it.correct ? null : el('span', {}, ' · Expected: ', el('strong', {}, typeof it.expected === 'string' ? it.expected : JSON.stringify(it.expected ?? ''))),
          it.tests?.total ? el('span', { class: 'muted' }, ` · tests passed ${it.tests.passed}/${it.tests.total}`) : null)))) : null,
      res.unanswered?.length ? el('section', { class: 'sess-unanswered' }, el('h3', {}, 'Not answered'),
        el('ol', { class: 'sess-items', start: String(res.unanswered[0].item_number ?? 1) }, res.unanswered.map((it) => el('li', { class: 'bad' },
          el('p', {}, renderText(it.stem ?? '')),
          el('p', { class: 'small' }, el('span', { class: 'pill incorrect' }, 'Not answered'),
            ' Expected: ', el('strong', {}, typeof it.expected === 'string' ? it.expected : JSON.stringify(it.expected ?? ''))))))) : null,
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
