// tutor.js: the Tutor view: thread list (left), chat timeline + composer
// (center), the learner's progress in the course and debug drawer (right).
import { api, keyFor } from './api.js';
import { el, fill, withBusy, reportError, hideBanner, countdown, isFuture, tierBadge, fmtTime, showBanner } from './ui.js';
import { renderText, renderMath } from './math.js';
import { renderCard, renderSources, retire } from './cards.js';
import { voiceInput } from './voice.js';

const THREAD_KEY = 'pw.thread';
const COMPOSER_KEY = 'pw.composer';

export function mountTutor(root, config) {
  const s = { threads: [], thread: null, snapshot: null, debug: null };
  let sent = 0; // messages sent from this page: a new message with the same text is a new request

  // ---- layout
  const threadList = el('ul', { class: 'threads' });
  const sidebar = el('aside', { id: 'sidebar', class: 'sidebar', 'aria-label': 'Sessions' },
    el('button', { type: 'button', class: 'primary wide', onclick: () => newSession() }, '+ New session'),
    el('h2', { class: 'side-title' }, 'Sessions'), threadList);
  const heading = el('h1', { class: 'thread-title' }, 'Tutor');
  const timeline = el('div', { class: 'timeline', tabindex: '-1' });
  const live = el('div', { class: 'sr-only', 'aria-live': 'polite', 'aria-atomic': 'false' });
  const textarea = el('textarea', { id: 'composer-input', rows: '2', placeholder: 'Ask the tutor or answer its question…', 'aria-label': 'Message to the tutor' });
  textarea.value = localStorage.getItem(COMPOSER_KEY) ?? '';
  textarea.addEventListener('input', () => localStorage.setItem(COMPOSER_KEY, textarea.value));
  textarea.addEventListener('keydown', (e) => { if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); } });
  const voice = config.voice ? voiceInput(textarea) : null;
  const composer = el('form', { class: 'composer', onsubmit: (e) => { e.preventDefault(); send(); } },
    textarea, voice?.button, el('button', { type: 'submit', class: 'primary' }, 'Send'));
  const chat = el('section', { class: 'chat', 'aria-label': 'Conversation' }, heading, timeline, live, voice?.status, composer);
  const panel = el('div', { class: 'snapshot' });
  const debugPre = el('pre', { class: 'debug-json' }, 'No turn yet.');
  const info = el('aside', { id: 'info', class: 'info', 'aria-label': 'Progress' },
    el('h2', {}, 'Your progress'), panel,
    el('p', { class: 'muted small answered-by' }, config.model
      ? `Replies come from the language model ${config.model_name ?? ''}, checked against the course's rules; when a reply breaks them${config.model_deadline_secs ? `, or takes more than ${config.model_deadline_secs} s` : ''}, the course's own tutor answers instead.`
      : 'Replies come from the course\'s own tutor: no language model is configured.'),
    config.debug ? el('details', { class: 'debug' }, el('summary', {}, 'Debug (last turn)'), debugPre) : null);
  root.replaceChildren(el('div', { class: 'workspace' }, sidebar, chat, info));
  setupDrawers(sidebar, info);

  // ---- callbacks the cards use
  const ctx = {
    turn: (clientEvent) => withBusy(() => doTurn({ clientEvent })),
    grade: (drill, studentAnswer) => post('drill/grade', { unitId: drill.unitId, drill, studentAnswer },
      keyFor(`drill\n${drill.drillId}\n${studentAnswer}`)),
    examSubmit: (unitId, questionId, selectedIndex, cardKey) => post('exam/mcq-submit', { unitId, questionId, selectedIndex },
      keyFor(`exam\n${cardKey}\n${selectedIndex}`)),
    supportViewed: (unitId, questionId, supportType, cardKey) => post('exam/support-viewed', { unitId, questionId, supportType },
      keyFor(`support\n${cardKey}\n${supportType}`)),
    focusComposer: () => textarea.focus(),
    // The exam the policy has opened now (from the latest snapshot), if any.
    examCheck: () => s.snapshot?.examCheck ?? null,
    // A passage of the course's material that a card cites.
    passage: (passageId) => api('GET', `/courses/${encodeURIComponent(s.thread.courseId)}/passages/${encodeURIComponent(passageId)}`),
  };
  async function post(path, body, idempotencyKey) {
    const r = await api('POST', `/tutor/threads/${s.thread.id}/${path}`, body, { idempotencyKey });
    touchThread(r.messages);
    if (r.snapshotLite) s.snapshot = r.snapshotLite;
    if (r.snapshotLite) renderSnapshot(r.snapshotLite);
    // Plain feedback messages are shown inside the card; new cards go to the timeline.
    appendMessages((r.messages ?? []).filter((m) => m.card));
    return r;
  }

  // While the model is asked: how long so far, and the most it can take.
  const thinking = el('p', { class: 'muted small thinking', role: 'status', hidden: true });
  chat.insertBefore(thinking, composer);
  function showThinking() {
    if (!config.model) return () => {};
    const started = Date.now();
    const limit = config.model_deadline_secs;
    const tick = () => {
      const seconds = Math.floor((Date.now() - started) / 1000);
      thinking.textContent = `The tutor is thinking… ${seconds} s` + (limit
        ? ` (at most ${limit} s; after that the course's own tutor answers)` : '');
    };
    tick();
    // Shown once the wait is noticeable, so that a quick reply does not flash it.
    const shown = setTimeout(() => { thinking.hidden = false; }, 1000);
    const timer = setInterval(tick, 1000);
    return () => { clearTimeout(shown); clearInterval(timer); thinking.hidden = true; };
  }

  async function doTurn(body, idempotencyKey) {
    if (!s.thread) return false;
    const done = showThinking();
    let r;
    try {
      r = await api('POST', `/tutor/threads/${s.thread.id}/turn`, { clientEvent: { type: 'NONE' }, ...body }, { idempotencyKey });
    } finally { done(); }
    hideBanner();
    touchThread(r.messages);
    if (r.snapshotLite) s.snapshot = r.snapshotLite; // before the cards render: they offer the exam it opens
    settleCards();
    appendMessages(r.messages ?? []);
    if (r.snapshotLite) renderSnapshot(r.snapshotLite);
    if (r.debug) debugPre.textContent = JSON.stringify(r.debug, null, 2);
    return true;
  }

  async function send() {
    const text = textarea.value.trim();
    if (!text || !s.thread) { if (!s.thread) { showBanner('Start a session first: choose its course.', 'info'); newSession(); } return; }
    // While a drill waits for its answer, an answer typed in the message box answers it
    // (cards.js says what reads as one), so that it is never read as a new topic.
    const drill = openDrill();
    if (drill?.takes(text)) {
      textarea.value = ''; localStorage.removeItem(COMPOSER_KEY);
      await drill.answerWith(text);
      composerHint();
      return;
    }
    // The same message sent again after a failure keeps its key: if the first one did reach
    // the server, the retry is answered with its reply rather than asked twice.
    const key = keyFor(`message\n${s.thread.id}\n${sent}\n${text}`);
    const ok = await withBusy(() => doTurn({ messageText: text }, key));
    if (ok) { textarea.value = ''; localStorage.removeItem(COMPOSER_KEY); textarea.focus(); sent += 1; }
  }

  // Keep the sidebar's count and time current without refetching the list.
  function touchThread(msgs = []) {
    s.thread.messageCount = (s.thread.messageCount ?? 0) + msgs.length;
    s.thread.updatedAt = new Date().toISOString();
    renderThreads();
  }

  // ---- timeline
  function messageNode(m) {
    const body = el('div', { class: 'bubble' });
    if (m.text) body.append(el('p', {}, renderText(m.text)));
    if (m.latex) body.append(el('p', {}, renderMath(m.latex, true)));
    const node = el('article', { class: `msg ${m.role}`, 'data-id': m.id },
      el('span', { class: 'sr-only' }, m.role === 'user' ? 'You said:' : 'Tutor:'), body);
    if (m.card) node.append(renderCard(m.card, m, ctx));
    // A concept card lists its sources under its key ideas; any other reply under its text.
    const carded = m.card?.type === 'CONCEPT' && m.card.sources?.length;
    if (m.sources?.length && !carded) body.append(renderSources(m.sources, ctx));
    return node;
  }
  // A newer turn ends every earlier card's next steps (Try another, Continue, Take the
  // check, a choice): their buttons stay as a record, disabled. A drill still waiting for
  // its answer can still be answered.
  function settleCards() {
    timeline.querySelectorAll('.turn-step').forEach(retire);
  }
  // The latest card, when it is a drill that waits for its answer.
  function openDrill() {
    const cards = timeline.querySelectorAll('.card.drill, .card.exam, .card.concept, .card.choices-card');
    const last = cards[cards.length - 1];
    return last?.classList.contains('drill') && last.isOpen?.() ? last : null;
  }
  function composerHint() {
    textarea.placeholder = openDrill()
      ? 'Your answer to the drill above, or a question to the tutor…'
      : 'Ask the tutor or answer its question…';
  }
  function appendMessages(msgs) {
    if (msgs.length) timeline.querySelectorAll(':scope > p.muted, :scope > .start-here').forEach((n) => n.remove());
    for (const m of msgs) {
      timeline.append(messageNode(m));
      if (m.role === 'assistant') live.textContent = m.text || (m.card ? `New ${m.card.type.toLowerCase()} card` : '');
    }
    nextSteps();
    composerHint();
    timeline.scrollTop = timeline.scrollHeight;
  }
  // Every reply ends with something to click: a reply with no card of its own (a question,
  // an acknowledgement) gets the next steps the policy offers, practice on the unit being
  // learned and the check it has opened.
  function nextSteps() {
    timeline.querySelector(':scope > .next-steps')?.remove();
    const last = timeline.lastElementChild;
    if (!last?.classList.contains('assistant') || last.querySelector('.card')) return;
    const focus = s.snapshot?.focus, check = s.snapshot?.examCheck, first = s.snapshot?.prereqNudge;
    if (!focus?.unitId) return;
    const step = (label, cls, ev) => {
      const b = el('button', { type: 'button', class: `${cls} turn-step`, onclick: async () => { if (await ctx.turn(ev)) retire(b); } }, label);
      return b;
    };
    timeline.append(el('div', { class: 'card-actions next-steps', role: 'group', 'aria-label': 'Next steps' },
      // While a prerequisite comes first, the drill is on it: the button says so (the
      // tutor's reply says why).
      step(first?.unitId ? `Practise ${first.title} first` : `Practise ${focus.title}`, check ? 'secondary' : 'primary',
        { type: 'REQUEST_DRILL', unitId: focus.unitId }),
      check ? step(`Take the ${check.tier} check`, 'primary', { type: 'REQUEST_EXAM', unitId: check.unitId }) : null));
  }

  // ---- snapshot panel
  function renderSnapshot(lite) {
    s.snapshot = lite;
    if (!lite) { panel.replaceChildren(el('p', { class: 'muted' }, 'No progress yet.')); return; }
    const { focus, prereqNudge, revisit, progress, examCheck } = lite;
    const check = examCheck
      ? el('div', { class: 'panel-block exam-check' }, el('h3', {}, 'Ready for a check'),
        el('p', {}, `Two right in a row on ${examCheck.title}: one question from the course decides your ${examCheck.tier} tier.`),
        el('button', { type: 'button', class: 'primary', onclick: () => ctx.turn({ type: 'REQUEST_EXAM', unitId: examCheck.unitId }) },
          `Take the ${examCheck.tier} check`))
      : null;
    fill(panel,
      el('div', { class: 'panel-block' }, el('h3', {}, 'Working towards'),
        focus ? el('p', {}, el('strong', {}, focus.title), ' ', tierBadge(focus.masteryTier)) : el('p', { class: 'muted' }, 'Not chosen yet')),
      prereqNudge ? el('div', { class: 'panel-block nudge' }, el('h3', {}, 'Learning first'),
        el('p', {}, prereqNudge.title)) : null,
      check,
      el('div', { class: 'panel-block' }, el('h3', {}, 'Revisit'),
        revisit?.lockedCount
          ? el('p', {}, `${revisit.lockedCount} locked question${revisit.lockedCount === 1 ? '' : 's'}. `,
            isFuture(revisit.nextEligibleAt) ? countdown(revisit.nextEligibleAt) : 'Next one is available now.',
            revisit.nextEligibleAt ? el('span', { class: 'muted block' }, fmtTime(revisit.nextEligibleAt)) : null)
          : el('p', { class: 'muted' }, 'Nothing locked.')),
      el('div', { class: 'panel-block' }, el('h3', {}, 'Progress'),
        el('ul', { class: 'progress' },
          ['bronze', 'silver', 'gold'].map((t) => el('li', {}, tierBadge(t), ` ${progress?.[t] ?? 0} of ${progress?.total ?? 0} units`)))));
    if (timeline.lastElementChild?.classList.contains('next-steps') || timeline.lastElementChild?.classList.contains('assistant')) nextSteps();
  }

  // ---- threads
  function renderThreads() {
    threadList.replaceChildren(...s.threads.map((t) => el('li', {},
      el('button', { type: 'button', class: 'thread', 'aria-current': s.thread?.id === t.id ? 'true' : null, onclick: () => withBusy(() => openThread(t)) },
        el('span', { class: 'thread-name' }, t.title || t.courseId),
        el('span', { class: 'muted small' }, `${fmtTime(t.updatedAt)} · ${t.messageCount} msg`)))));
    if (!s.threads.length) threadList.append(el('li', { class: 'muted pad' }, 'No sessions yet.'));
  }
  async function loadThreads() {
    const r = await api('GET', '/tutor/threads');
    s.threads = r.items ?? [];
    renderThreads();
  }
  async function openThread(t) {
    const [list, snap] = await Promise.all([
      allMessages(t.id),
      api('GET', `/tutor/courses/${encodeURIComponent(t.courseId)}/snapshot`).catch(() => null),
    ]);
    s.thread = t;
    localStorage.setItem(THREAD_KEY, t.id);
    heading.textContent = t.title || t.courseId;
    timeline.replaceChildren();
    if (!list.length) timeline.append(el('p', { class: 'muted pad' }, 'Say what you want to learn, or ask for a drill.'));
    appendMessages(settleAnswers(list));
    renderSnapshot(snap?.snapshotLite ?? null);
    renderThreads();
    closeDrawers();
  }
  // The whole timeline, a page at a time (the server sends at most 500 messages a page).
  async function allMessages(threadId) {
    const all = [];
    for (;;) {
      const after = all.length ? all[all.length - 1].seq : 0;
      const page = await api('GET', `/tutor/threads/${threadId}/messages?after=${after}&limit=500`);
      all.push(...page);
      if (page.length < 500) return all;
    }
  }
  async function newSession() {
    const courses = await api('GET', '/courses').catch((e) => { reportError(e); return null; });
    if (!courses) return;
    const dlg = el('dialog', { class: 'picker', 'aria-label': 'Choose a course' },
      el('h2', {}, 'Which course?'),
      el('ul', {}, courses.map((c) => el('li', {}, el('button', { type: 'button', class: 'course', onclick: async () => {
        dlg.close();
        await withBusy(async () => {
          const t = await api('POST', '/tutor/threads', { courseId: c.id });
          s.threads.unshift(t);
          await openThread(t);
          textarea.focus();
        });
      } }, el('strong', {}, c.title), el('span', { class: 'muted small' }, `${c.id} · ${c.unitCount} units`))))),
      el('form', { method: 'dialog' }, el('button', { class: 'secondary' }, 'Cancel')));
    dlg.addEventListener('close', () => dlg.remove());
    document.body.append(dlg);
    dlg.showModal();
  }

  // ---- boot
  withBusy(async () => {
    await loadThreads();
    const last = localStorage.getItem(THREAD_KEY);
    const t = s.threads.find((x) => x.id === last);
    if (t) await openThread(t);
    else {
      // The start is in the timeline itself: on a phone the sessions' list is a drawer.
      timeline.replaceChildren(el('div', { class: 'pad start-here' },
        el('p', { class: 'muted' }, 'No session open. Pick a course to start one with the tutor.'),
        el('button', { type: 'button', class: 'primary', onclick: () => newSession() }, 'Choose a course')));
      renderSnapshot(null);
    }
  });
}

// A reloaded timeline as it looked live: each answer (the learner's message and the tutor's
// reply carrying the outcome) folds into the card it answers, the nearest earlier card of
// the same drill or question; the card offers its next step only while no turn came after.
function settleAnswers(list) {
  const answers = (m, o) => (o.kind === 'exam'
    ? m.card?.type === 'EXAM' && m.card.questionId === o.questionId
    : m.card?.type === 'DRILL' && (o.drillId ? m.card.drillId === o.drillId
      : m.card.prompt === o.prompt && m.card.questionLatex === o.questionLatex));
  const folded = new Set();
  list.forEach((m, i) => {
    if (!m.outcome) return;
    let j = i - 1;
    while (j >= 0 && !answers(list[j], m.outcome)) j -= 1; // a later answer to the same card wins
    if (j < 0) return; // its card is on an earlier page or gone: show the reply as it is
    const open = !list.slice(i + 1).some((later) => later.turnId);
    list[j].answered = { outcome: m.outcome, feedback: m.text, open };
    folded.add(m);
    if (list[i - 1]?.role === 'user' && !list[i - 1].turnId) folded.add(list[i - 1]);
  });
  // A card a later turn answered is over: its next steps stay as a record, disabled.
  list.forEach((m, i) => {
    if (m.card) m.settled = list.slice(i + 1).some((later) => later.turnId);
  });
  return list.filter((m) => !folded.has(m));
}

// Mobile drawers: hamburger toggles the sidebar, Info toggles the right panel.
let drawerCleanup = null;
function setupDrawers(sidebar, info) {
  drawerCleanup?.();
  const menu = document.getElementById('menu-btn'), infoBtn = document.getElementById('info-btn');
  menu.hidden = false; infoBtn.hidden = false;
  const toggle = (panel, b, other, ob) => () => {
    const open = !panel.classList.contains('open');
    other.classList.remove('open'); ob.setAttribute('aria-expanded', 'false');
    panel.classList.toggle('open', open); b.setAttribute('aria-expanded', String(open));
  };
  const a = toggle(sidebar, menu, info, infoBtn), b = toggle(info, infoBtn, sidebar, menu);
  const esc = (e) => { if (e.key === 'Escape') closeDrawers(); };
  menu.addEventListener('click', a); infoBtn.addEventListener('click', b); document.addEventListener('keydown', esc);
  // Widening past the phone layout shows both panels in place; drop the drawers' state.
  const wide = window.matchMedia('(min-width: 721px)');
  const resized = () => { if (wide.matches) closeDrawers(); };
  wide.addEventListener('change', resized);
  drawerCleanup = () => {
    menu.removeEventListener('click', a); infoBtn.removeEventListener('click', b);
    document.removeEventListener('keydown', esc); wide.removeEventListener('change', resized);
  };
}
function closeDrawers() {
  document.querySelectorAll('.sidebar.open, .info.open').forEach((n) => n.classList.remove('open'));
  document.querySelectorAll('#menu-btn, #info-btn').forEach((b) => b.setAttribute('aria-expanded', 'false'));
}
