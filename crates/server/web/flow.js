// flow.js: a topic's learning loop, one step at a time, through the flows API:
// diagnostic questions -> plan -> teach -> quiz -> review, back to teaching while concepts
// remain. The flow lives on the server, so a reload finds it where it was (its status, the
// question waiting for an answer); only a step's one-off output (an explanation, a grade)
// is not kept, and the page offers the step again instead.
import { api, ApiError, NetworkError, keyFor } from './api.js';
import { el, fill, withBusy, reportError, fmtTime, hideBanner, count } from './ui.js';
import { renderText } from './math.js';

export const FLOW_STEPS = [
  { label: 'Diagnostic', statuses: ['pending', 'diagnosing'] },
  { label: 'Plan', statuses: ['planning'] },
  { label: 'Teach', statuses: ['teaching'] },
  { label: 'Quiz', statuses: ['quizzing'] },
  { label: 'Review', statuses: ['reviewing'] },
  { label: 'Done', statuses: ['completed'] },
];
const TOPIC_DRAFT = 'pw.topicDraft';
const MAX_TOPIC = 200, MAX_GOAL = 500, MAX_ANSWER = 4000;

// The "Start a topic" form: creates a pending flow and opens it.
export function topicForm() {
  const draft = JSON.parse(localStorage.getItem(TOPIC_DRAFT) ?? '{}');
  const topic = el('input', { id: 'topic-input', name: 'topic', maxlength: String(MAX_TOPIC), autocomplete: 'off', placeholder: 'e.g. Graph algorithms', 'aria-describedby': 'topic-err' });
  const goal = el('textarea', { id: 'goal-input', name: 'goal', rows: '2', maxlength: String(MAX_GOAL), placeholder: 'e.g. Find shortest paths in a road network' });
  topic.value = draft.topic ?? ''; goal.value = draft.goal ?? '';
  const save = () => localStorage.setItem(TOPIC_DRAFT, JSON.stringify({ topic: topic.value, goal: goal.value }));
  topic.addEventListener('input', save); goal.addEventListener('input', save);
  const err = el('p', { class: 'form-error', id: 'topic-err', 'aria-live': 'polite' });
  const submit = el('button', { type: 'submit', class: 'primary' }, 'Start');
  return el('form', { class: 'topic-form', novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    const t = topic.value.trim(), g = goal.value.trim();
    if (!t) { err.textContent = 'Write the topic you want to learn (1 to 200 characters).'; topic.focus(); return; }
    if (t.length > MAX_TOPIC) { err.textContent = `The topic is ${t.length} characters; at most ${MAX_TOPIC} are allowed.`; return; }
    if (g.length > MAX_GOAL) { err.textContent = `The goal is ${g.length} characters; at most ${MAX_GOAL} are allowed.`; return; }
    err.textContent = '';
    submit.disabled = true;
    try {
      const flow = await api('POST', '/flows', { topic: t, goal: g || null });
      localStorage.removeItem(TOPIC_DRAFT);
      location.hash = `#/maps/topic/${flow.id}`;
    } catch (ex) {
      // What was typed stays in the fields (and in the saved draft).
      // 503: no language model. The server's message names settings, which are the operator's
      // business; the learner hears what works without one.
      if (ex instanceof ApiError && ex.status === 503) err.textContent = 'Not started: writing a topic’s map needs a language model, and this server has none. Paste the topic’s outline under “Paste an outline” instead.';
      else if (ex instanceof ApiError && ex.status === 422) err.textContent = `Not started: ${ex.message}`;
      else if (ex instanceof NetworkError) err.textContent = 'Not started: the server cannot be reached. Your topic is kept; try again when it is back.';
      else reportError(ex);
    } finally { submit.disabled = false; }
  } },
  el('label', { for: 'topic-input' }, 'Topic'), topic,
  el('label', { for: 'goal-input' }, 'Goal ', el('span', { class: 'muted small' }, '(optional: what you want to be able to do)')), goal,
  err, el('div', { class: 'card-actions' }, submit));
}

// mountFlow(root, flowId, studyNode): a topic's page; with `studyNode` (the map's "Study
// this next"), the loop teaches that concept first.
export function mountFlow(root, flowId, studyNode = null, config = {}) {
  // What a learner waiting on a step is told: the model writes most steps, and how long
  // one request to it may take.
  const modelWait = config.model
    ? `The language model is writing this step${config.model_call_deadline_secs ? `; one request to it gives up after ${config.model_call_deadline_secs} s` : ''}.`
    : null;
  const title = el('h1', {}, 'Topic');
  const sub = el('p', { class: 'muted' });
  const stepper = el('ol', { class: 'stepper', 'aria-label': 'Learning loop' });
  // How the last answer was graded, beside (never inside) the card of the step now on
  // screen, and naming the question it answers: the next question is not what it grades.
  const lastAnswer = el('div', { class: 'flow-last-answer', 'aria-live': 'polite' });
  const body = el('section', { class: 'card flow-step', 'aria-live': 'polite' }, el('p', { class: 'muted' }, 'Loading…'));
  const problem = el('div', { class: 'flow-problem', role: 'alert' });
  const footer = el('div', { class: 'flow-footer' });
  const page = el('div', { class: 'flow-page' },
    el('a', { href: '#/maps', class: 'back' }, '← All topics and maps'), title, sub, stepper, problem, lastAnswer, body, footer);
  root.replaceChildren(page);
  let flow = null;

  load().then(() => {
    if (!studyNode || !flow) return;
    // Once: a reload of the page does not teach it again.
    history.replaceState(null, '', `#/maps/topic/${flowId}`);
    step('advance', { step: 'teach', node_id: studyNode });
  });

  async function load(extra = {}) {
    try {
      flow = await api('GET', `/flows/${flowId}`);
      if (page.isConnected) render(extra);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        fill(body, el('p', {}, 'There is no such topic for you. ', el('a', { href: '#/maps' }, 'See your topics')));
        return;
      }
      reportError(e);
      fill(body, el('p', {}, 'The topic could not be loaded. ', el('button', { type: 'button', class: 'secondary', onclick: () => load() }, 'Try again')));
    }
  }

  // Run one step: show what it produced, or say clearly why it could not run. `answered`:
  // the question an answer step answers, shown with its grade.
  function step(path, payload, after, answered = null) {
    return withBusy(async () => {
      fill(problem);
      try {
        // An answer names its question; a step sent again with the same payload (after a lost
        // reply) carries the same key and is answered as the first time.
        const body = payload ?? {};
        const r = await api('POST', `/flows/${flowId}/${path}`, body,
          { idempotencyKey: keyFor(`flow\n${flowId}\n${path}\n${flow?.version}\n${JSON.stringify(body)}`) });
        hideBanner();
        flow = r.flow ?? r;
        await after?.(r);
        render({ ...r, answered });
        return r;
      } catch (e) {
        explain(e);
        return null;
      }
    }, modelWait);
  }

  function explain(e) {
    if (e instanceof ApiError && e.status === 503) {
      fill(problem, el('div', { class: 'card notice' },
        el('h2', {}, 'This step needs a language model'),
        el('p', {}, 'This server has no language model connected, so it cannot write this topic’s questions, plans or explanations. Whoever runs the server can connect one; your topic is saved and continues from this step then.'),
        el('p', {}, 'Meanwhile, a topic you paste as an outline (', el('a', { href: '#/maps' }, 'Topics and maps'), ') is studied by recall, with no model.')));
    } else if (e instanceof ApiError && e.status === 502) {
      fill(problem, el('div', { class: 'card notice' }, el('p', {}, `The language model failed: ${e.message}. Nothing changed; try the step again.`)));
    } else if (e instanceof ApiError && e.status === 409) {
      fill(problem, el('div', { class: 'card notice' }, el('p', {}, `This topic had moved on (in another tab?): ${e.message}. Here is where it is now.`)));
      load();
    } else if (e instanceof ApiError && e.status === 422) {
      fill(problem, el('div', { class: 'card notice' }, el('p', {}, `Not accepted: ${e.message}`)));
    } else if (e instanceof NetworkError) {
      fill(problem, el('div', { class: 'card notice' }, el('p', {}, `${e.message} Nothing you typed is lost.`)));
    } else {
      reportError(e);
    }
  }

  function render(r = {}) {
    title.textContent = flow.topic;
    sub.textContent = [flow.goal ? `Goal: ${flow.goal}` : null, `started ${fmtTime(flow.started_at)}`].filter(Boolean).join(' · ');
    const at = FLOW_STEPS.findIndex((s) => s.statuses.includes(flow.status));
    fill(stepper, FLOW_STEPS.map((s, i) => el('li', { class: i < at ? 'done' : i === at ? 'now' : '', 'aria-current': i === at ? 'step' : null },
      el('span', { class: 'sr-only' }, i < at ? 'done: ' : i === at ? 'current: ' : ''), s.label)));
    const q = flow.state?.question ?? null;
    fill(lastAnswer, r.grade ? gradeNote(r.grade, r.answered) : null);
    const mapLink = flow.mind_map_id ? el('a', { href: `#/maps/${flow.mind_map_id}`, class: 'button-link' }, 'Open the map') : null;
    const button = (label, fn, primary = true) => el('button', { type: 'button', class: primary ? 'primary' : 'secondary', onclick: fn }, label);
    switch (flow.status) {
      case 'pending':
        fill(body, el('h2', {}, 'Diagnostic'),
          el('p', {}, 'A few questions find what you already know, so that the plan can skip it. You can also skip them and plan straight away.'),
          el('div', { class: 'card-actions' }, button('Skip to the plan', () => step('plan'), false), button('Start the diagnostic', () => step('diagnostic/start'))));
        break;
      case 'diagnosing': {
        const answered = flow.state?.diagnostic?.probes?.length ?? r.probes_answered ?? 0;
        fill(body, el('h2', {}, 'Diagnostic'),
          el('p', { class: 'muted small' }, `${count(answered, 'question')} answered.`),
          q ? questionForm(q, (answer) => step('diagnostic/answer', { answer, question_id: q.id }, null, q))
            : el('p', {}, 'That is enough to see where you stand.'),
          el('div', { class: 'card-actions' },
            q ? button('Finish the diagnostic now', () => step('diagnostic/complete'), false) : null,
            q ? null : button('Finish the diagnostic', () => step('diagnostic/complete'))));
        break;
      }
      case 'planning':
        // Planned (the flow has its map) but nothing taught yet, or still to plan.
        fill(body, el('h2', {}, 'Plan'),
          flow.mind_map_id
            ? [r.plan ? planNote(r.plan) : el('p', {}, 'Your map is ready.'), el('div', { class: 'card-actions' }, button('Teach me the first concept', () => step('teach')))]
            : [el('p', {}, 'Pathwise lays the topic out as concepts and their prerequisites, ordered so that each builds on what you know.'),
              el('div', { class: 'card-actions' }, button('Plan my map', () => step('plan')))]);
        break;
      case 'teaching':
        fill(body, el('h2', {}, 'Learn'),
          r.explanation
            ? [el('h3', {}, r.node?.label ?? 'This concept'), el('div', { class: 'explanation' }, paragraphs(r.explanation))]
            : currentConcept('You were learning', 'Ask for the explanation again, or go on to the question.'),
          el('div', { class: 'card-actions' }, r.explanation ? null : button('Explain it again', () => step('teach'), false), button('Quiz me', () => step('quiz'))));
        break;
      case 'quizzing':
        fill(body, el('h2', {}, 'Quiz'), q ? questionForm(q, (answer) => step('answer', { answer, question_id: q.id }, null, q))
          : [el('p', {}, 'No question is waiting.'), el('div', { class: 'card-actions' }, button('Ask me a question', () => step('quiz')))]);
        break;
      case 'reviewing':
        if (q) {
          fill(body, el('h2', {}, 'Review'), questionForm(q, (answer) => step('answer', { answer, question_id: q.id }, null, q)));
        } else {
          fill(body, el('h2', {}, 'Review or go on'),
            r.next_review_at ? el('p', {}, `Nothing to review now; the next review is due ${fmtTime(r.next_review_at)}.`) : null,
            el('p', {}, 'Review a concept that is due, or learn the next one.'),
            el('div', { class: 'card-actions' }, button('Review what is due', () => step('review'), false), button('Next concept', () => step('teach'))));
        }
        break;
      case 'completed':
        fill(body, el('h2', {}, 'Done'), el('p', {}, 'Every concept of this topic is mastered. Reviews keep coming back as they fall due.'));
        break;
      default:
        fill(body, el('h2', {}, 'Stopped'), el('p', {}, 'You stopped this topic; its map keeps what you learned.'));
    }
    const open = !['completed', 'abandoned'].includes(flow.status);
    fill(footer, mapLink, open ? el('button', { type: 'button', class: 'secondary danger', onclick: abandon }, 'Stop this topic') : null);
  }

  // After a reload the explanation is gone; say which concept is at hand.
  function currentConcept(prefix, hint) {
    const p = el('p', {}, `${prefix} a concept of this topic. ${hint}`);
    const id = flow.state?.current_node_id;
    if (id) api('GET', `/nodes/${id}`).then((n) => { p.textContent = `${prefix} “${n.label}”. ${hint}`; }).catch(() => {});
    return p;
  }

  async function abandon() {
    if (!confirm('Stop this topic? Its map is kept but no longer scheduled for reviews.')) return;
    await step('abandon');
  }

  // A question waiting for an answer: a choice (radio buttons) or free text. The text typed
  // is kept per question, so an error or a reload does not lose it.
  function questionForm(q, send) {
    const key = `pw.flowAnswer.${flowId}.${q.asked_at ?? q.text}`;
    const err = el('p', { class: 'form-error', 'aria-live': 'polite' });
    let input;
    let fields;
    if (q.kind === 'choice') {
      fields = el('fieldset', { class: 'options', 'aria-labelledby': 'flow-question' },
        q.choices.map((c, i) => el('label', { class: 'option' }, el('input', { type: 'radio', name: 'choice', value: String(i) }), el('span', {}, renderText(c)))));
    } else {
      input = el('textarea', { id: 'flow-answer', rows: '4', maxlength: String(MAX_ANSWER) });
      input.value = localStorage.getItem(key) ?? '';
      input.addEventListener('input', () => localStorage.setItem(key, input.value));
      fields = [el('label', { for: 'flow-answer' }, 'Your answer'), input];
    }
    return el('form', { class: 'question', onsubmit: async (e) => {
      e.preventDefault();
      let answer;
      if (q.kind === 'choice') {
        answer = e.target.querySelector('input[name=choice]:checked')?.value;
        if (answer === undefined) { err.textContent = 'Choose one of the answers first.'; return; }
      } else {
        answer = input.value.trim();
        if (!answer) { err.textContent = `Write an answer first (up to ${MAX_ANSWER} characters).`; input.focus(); return; }
      }
      err.textContent = '';
      const r = await send(answer);
      if (r) localStorage.removeItem(key);
    } },
    el('p', { class: 'muted small' }, `About: ${q.concept}`),
    el('p', { class: 'question-text', id: 'flow-question' }, renderText(q.text)), fields, err,
    el('div', { class: 'card-actions' }, el('button', { type: 'submit', class: 'primary' }, 'Answer')));
  }
}

// The grade of an answer, with the question it answered (when the page asked it).
function gradeNote(g, question) {
  return el('div', { class: `grade-note ${g.correct ? 'right' : 'wrong'}` },
    question ? el('p', { class: 'small muted grade-about' }, 'Your answer to ', el('q', {}, renderText(question.text))) : null,
    el('p', {}, el('span', { class: `pill ${g.correct ? 'correct' : 'incorrect'}` }, g.correct ? 'Correct' : 'Not quite'),
      ` ${g.quality}/5 `, g.feedback ? el('span', {}, renderText(g.feedback)) : null));
}
function planNote(p) {
  return el('p', { class: 'muted' }, `Your map has ${count(p.node_count, 'concept')} and ${count(p.edge_count, 'prerequisite link')}. `,
    el('a', { href: `#/maps/${p.mind_map_id}` }, 'See it'));
}
const paragraphs = (text) => text.split(/\n{2,}/).map((t) => el('p', {}, renderText(t)));
