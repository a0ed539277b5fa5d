// cards.js: the tutor's cards (CONCEPT, DRILL, EXAM, and the CHOICES of a clarifying
// question) rendered into the chat timeline. Cards call back into tutor.js through `ctx`
// (turn, grade, exam calls, and the exam the policy has opened).
import { el, fill, withBusy, countdown, isFuture, tierBadge, tierLabel, showBanner } from './ui.js';
import { renderMath, renderText } from './math.js';
import { ApiError, newKey } from './api.js';

// "bronze" -> "Bronze", for a heading.
const capitalised = (word) => word.charAt(0).toUpperCase() + word.slice(1);

export function renderCard(card, msg, ctx) {
  switch (card?.type) {
    case 'CONCEPT': return settled(conceptCard(card, ctx), msg);
    case 'DRILL': return drillCard(card, msg, ctx);
    case 'EXAM': return examCard(card, msg, ctx);
    case 'CHOICES': return choicesCard(card, msg, ctx);
    default: return el('pre', { class: 'card' }, JSON.stringify(card, null, 2));
  }
}

const actions = (...btns) => el('div', { class: 'card-actions' }, ...btns);
const btn = (label, cls, onclick) => el('button', { type: 'button', class: cls, onclick }, label);
// A button that sends a turn; once that turn succeeds, the whole action bar is retired, and
// so is every such button on earlier cards (tutor.js): a next step is offered by the latest
// turn only.
const turnBtn = (label, cls, ctx, ev) => {
  const b = btn(label, `${cls} turn-step`, async () => {
    if (await ctx.turn(ev)) b.parentElement?.querySelectorAll('button').forEach(retire);
  });
  return b;
};
export const retire = (b) => { b.disabled = true; b.dataset.keepDisabled = '1'; };
// A card a later turn has answered keeps its buttons as a record, disabled.
const settled = (node, msg) => { if (msg?.settled) node.querySelectorAll('.turn-step').forEach(retire); return node; };

function conceptCard(card, ctx) {
  const ex = card.workedExample;
  return el('section', { class: 'card concept', 'aria-label': 'Key idea' },
    el('h3', {}, 'Key idea'),
    el('ul', {}, (card.keyIdeas ?? []).slice(0, 3).map((k) => el('li', {}, renderText(k)))),
    ex && el('details', {},
      el('summary', {}, 'Worked example'),
      el('p', {}, renderMath(ex.problemLatex, true)),
      ex.stepsLatex?.length ? el('ol', {}, ex.stepsLatex.map((s) => el('li', {}, renderMath(s)))) : null,
      el('p', {}, 'Answer: ', renderMath(ex.finalAnswerLatex))),
    card.sources?.length ? renderSources(card.sources, ctx) : null,
    actions(
      btn('Ask follow-up', 'secondary', () => ctx.focusComposer()),
      turnBtn('Try a Drill', 'primary', ctx, { type: 'REQUEST_DRILL', unitId: card.unitId })));
}

// Where a card's or a reply's ideas come from: each citation opens its passage, read from
// the course.
export function renderSources(list, ctx) {
  return el('div', { class: 'sources small' }, el('span', { class: 'muted' }, 'From your material: '),
    list.map((src) => {
      const text = el('blockquote', { class: 'passage-text' });
      const box = el('details', { class: 'source', 'data-passage': src.passageId }, el('summary', {}, el('cite', {}, src.citation)), text);
      box.addEventListener('toggle', () => {
        if (!box.open || text.childNodes.length) return;
        text.textContent = 'Loading…';
        ctx.passage(src.passageId).then((p) => { text.textContent = p.text; },
          () => { text.textContent = 'This passage is no longer in the course.'; });
      });
      return box;
    }));
}

// "Which do you mean?": each unit a button that answers with CHOOSE_UNIT; once a later turn
// has come, the choice is over and the buttons stay as a record.
function choicesCard(card, msg, ctx) {
  const bar = actions(...(card.choices ?? []).map((c) =>
    turnBtn(c.title, 'secondary choice-unit', ctx, { type: 'CHOOSE_UNIT', unitId: c.unitId })));
  return settled(el('section', { class: 'card choices-card', 'aria-label': 'Choose a topic' }, bar), msg);
}

function drillCard(card, msg, ctx) {
  const key = `pw.drill.${msg.id}`;
  const input = el('input', { type: 'text', class: 'answer', 'aria-label': 'Your answer', autocomplete: 'off', value: localStorage.getItem(key) ?? '' });
  input.addEventListener('input', () => localStorage.setItem(key, input.value));
  const choices = card.options?.length
    ? el('div', { class: 'choices', role: 'group', 'aria-label': 'Choices' }, card.options.map((o) => {
      const b = btn(o, 'choice', () => {
        input.value = o; localStorage.setItem(key, o);
        choices.querySelectorAll('.choice').forEach((c) => c.setAttribute('aria-pressed', String(c === b)));
      });
      b.setAttribute('aria-pressed', String(input.value === o));
      return b;
    }))
    : null;
  const result = el('div', { class: 'drill-result', 'aria-live': 'polite' });
  const check = btn('Check Answer', 'primary', () => doCheck());
  const stuck = turnBtn("I'm stuck", 'secondary', ctx, { type: 'DRILL_STUCK', unitId: card.unitId });
  const bar = actions(stuck, check);
  const form = el('form', { class: 'drill-form', onsubmit: (e) => { e.preventDefault(); doCheck(); } },
    el('label', {}, el('span', { class: 'sr-only' }, 'Answer'), input));

  async function doCheck(typed) {
    if (typed != null) { input.value = typed; localStorage.setItem(key, typed); }
    const answer = input.value.trim();
    if (!answer) { input.focus(); return; }
    const r = await withBusy(() => ctx.grade(card, answer));
    if (!r) return;
    localStorage.removeItem(key);
    showResult(r, true);
    bar.lastChild.focus();
  }

  // A graded drill: the answer kept, the verdict, and (while the learner has not moved on)
  // the document's Try another / Continue.
  function showResult(r, open) {
    input.disabled = true; input.dataset.keepDisabled = '1';
    choices?.querySelectorAll('button').forEach((b) => { b.disabled = true; b.dataset.keepDisabled = '1'; });
    const last = r.isCorrect ? 'correct' : 'incorrect';
    fill(result,
      el('span', { class: `pill ${last}` }, r.isCorrect ? 'Correct' : 'Incorrect'),
      el('p', {}, renderText(r.feedbackText ?? '')),
      !r.isCorrect && r.expectedAnswer && !(r.feedbackText ?? '').includes(r.expectedAnswer) ? el('p', { class: 'muted' }, 'Expected: ', renderText(r.expectedAnswer)) : null);
    if (!open) { bar.remove(); return; }
    const check = ctx.examCheck();
    bar.replaceChildren(...[
      turnBtn('Try another', 'secondary', ctx, { type: 'REQUEST_DRILL', unitId: card.unitId }),
      turnBtn('Continue', check ? 'secondary' : 'primary', ctx, { type: 'DRILL_CONTINUE', unitId: card.unitId, lastResult: last }),
      // The exam the policy has just opened on this unit, one click away.
      check?.unitId === card.unitId
        ? turnBtn(`Take the ${check.tier} check`, 'primary', ctx, { type: 'REQUEST_EXAM', unitId: card.unitId })
        : null,
    ].filter(Boolean));
  }

  const node = el('section', { class: 'card drill', 'aria-label': 'Drill', 'data-drill-id': card.drillId ?? null },
    el('h3', {}, 'Drill'),
    el('p', {}, renderText(card.prompt)),
    card.questionLatex ? el('p', {}, renderMath(card.questionLatex, true)) : null,
    choices, form, result, bar);
  // While it waits for an answer, what is typed in the message box and reads as an answer
  // answers it (tutor.js): one of its options, a number, or a few words; a question (ending
  // with "?") or a sentence is a message to the tutor.
  node.answerWith = (text) => doCheck(text);
  node.isOpen = () => !input.disabled;
  node.takes = (text) => {
    const t = text.trim();
    if (!t || t.endsWith('?')) return false;
    const same = (o) => o.trim().toLowerCase() === t.toLowerCase();
    return (card.options ?? []).some(same) || /\d/.test(t) || t.split(/\s+/).length <= 3;
  };
  if (msg.answered) {
    const { outcome, feedback, open } = msg.answered;
    input.value = outcome.answer;
    choices?.querySelectorAll('.choice').forEach((c) => c.setAttribute('aria-pressed', String(c.textContent === outcome.answer)));
    showResult({ isCorrect: outcome.isCorrect, feedbackText: feedback, expectedAnswer: outcome.expectedAnswer }, open);
  }
  return node;
}

function examCard(card, msg, ctx) {
  const name = `exam-${card.questionId}-${Math.random().toString(36).slice(2, 7)}`;
  const opts = (card.options ?? []).map((o, i) => el('label', { class: 'option' },
    el('input', { type: 'radio', name, value: String(i) }), el('span', {}, renderText(o))));
  const fieldset = el('fieldset', { class: 'options' }, el('legend', { class: 'sr-only' }, 'Options'), opts);
  const status = el('div', { class: 'exam-status', 'aria-live': 'polite' });
  const support = el('div', { class: 'support' });
  // This card's answers carry keys of their own (a retry is answered as the first time); a
  // question open again after its lockout is a new attempt, with a new key.
  let cardKey = newKey();
  // A passed question counts once and never locks again: its memo and video open freely.
  let passed = false;
  const submit = btn('Submit', 'primary', () => doSubmit());
  const memoBtn = card.hasMemo ? btn('View Memo', 'secondary', () => viewSupport('memo')) : null;
  const videoBtn = card.video ? btn('Watch Video', 'secondary', () => viewSupport('video')) : null;
  const bar = actions(memoBtn, videoBtn, submit);
  bar.classList.add('exam-actions');

  function lock(until, note) {
    submit.disabled = true; submit.dataset.keepDisabled = '1';
    fieldset.disabled = true;
    status.replaceChildren(el('span', { class: 'pill incorrect' }, note ?? 'Locked'), ' ', until ? countdown(until, unlock) : '');
  }
  function unlock() {
    cardKey = newKey();
    delete submit.dataset.keepDisabled; submit.disabled = false; fieldset.disabled = false;
    status.replaceChildren(el('span', { class: 'muted' }, 'You can try this question again.'));
  }
  function showContinue(result) {
    submit.remove();
    bar.append(turnBtn('Continue', 'primary', ctx, { type: 'EXAM_CONTINUE', unitId: card.unitId, questionId: card.questionId, result }));
  }

  async function doSubmit() {
    const picked = fieldset.querySelector('input:checked');
    if (!picked) { showBanner('Pick an option first.', 'info'); return; }
    await withBusy(async () => {
      try {
        const r = await ctx.examSubmit(card.unitId, card.questionId, Number(picked.value), cardKey);
        if (r.isCorrect) {
          showPassed(r.tierChanged ? r.masteryTier : null);
          showContinue('passed');
        } else {
          lock(r.lockedUntil, 'Locked for 24h');
          showContinue('locked');
        }
      } catch (e) {
        if (e instanceof ApiError && e.code === 'exam_locked') lock(e.details?.next_eligible_at, 'Locked');
        else throw e;
      }
    });
  }

  // Passed, with the tier the answer earned (kept on the timeline, so a reload shows it too).
  function showPassed(tier) {
    passed = true;
    fieldset.disabled = true;
    status.replaceChildren(el('span', { class: 'pill correct' }, 'Passed'),
      tier ? el('span', { class: 'tier-earned' }, ' Mastery is now ', tierBadge(tier)) : '');
  }

  // Opening the memo or video of a question not passed yet locks it (the server's rule):
  // the card says so and asks, in place; a passed question's opens at once.
  function viewSupport(type) {
    if (passed) { openSupport(type); return; }
    const what = type === 'memo' ? 'memo' : 'video';
    support.querySelector('.support-confirm')?.remove();
    const ask = el('div', { class: 'support-confirm', role: 'group', 'aria-label': `View the ${what}?` },
      el('p', {}, `Viewing the ${what} locks this question for 24 hours; you can answer it after that.`),
      el('div', { class: 'card-actions' },
        btn('Not now', 'secondary', () => ask.remove()),
        btn(`View the ${what} and lock it`, 'primary', () => { ask.remove(); openSupport(type); })));
    support.append(ask);
    ask.querySelector('button.primary').focus();
  }

  async function openSupport(type) {
    await withBusy(async () => {
      const r = await ctx.supportViewed(card.unitId, card.questionId, type, cardKey);
      (type === 'memo' ? memoBtn : videoBtn)?.remove(); // shown below now; no second view needed
      if (r.memo) support.append(el('div', { class: 'memo' }, el('h4', {}, 'Memo'), el('p', {}, renderText(r.memo))));
      if (r.video) {
        const url = /^https?:\/\//.test(r.video) ? r.video : null;
        support.append(el('div', { class: 'memo' }, el('h4', {}, 'Video'),
          url ? el('a', { href: url, target: '_blank', rel: 'noopener' }, url) : el('p', {}, r.video),
          r.videoTranscript ? el('details', {}, el('summary', {}, 'Transcript'), el('p', {}, r.videoTranscript)) : null));
      }
      if (isFuture(r.lockedUntil)) lock(r.lockedUntil, 'Locked');
    });
  }

  const node = el('section', { class: 'card exam', 'aria-label': 'Exam question', 'data-question-id': card.questionId },
    el('h3', {}, `${capitalised(tierLabel(card.tier))} check `, el('span', { class: `badge tier-${card.tier}` }, tierLabel(card.tier))),
    el('p', {}, renderText(card.stem)),
    fieldset, status, support, bar);
  if (isFuture(card.lockedUntil)) lock(card.lockedUntil, 'Locked');
  if (msg.answered) {
    const { outcome, open } = msg.answered;
    const chosen = fieldset.querySelectorAll('input')[outcome.selectedIndex];
    if (chosen) chosen.checked = true;
    if (outcome.isCorrect) {
      showPassed(outcome.tierEarned ?? null);
    } else if (!isFuture(card.lockedUntil)) {
      status.replaceChildren(el('span', { class: 'muted' }, 'Answered wrongly before; you can try this question again.'));
    }
    if (open) showContinue(outcome.isCorrect ? 'passed' : 'locked');
    else if (outcome.isCorrect) submit.remove();
  }
  return node;
}
