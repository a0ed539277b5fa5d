// reviews.js: spaced-repetition reviews due now, answered in place. Each item asks the
// learner to recall a concept, lets them check against its description, and records their
// self-grade (Again/Hard/Good/Easy as SM-2 qualities) with POST /api/responses.
import { api, keyFor } from './api.js';
import { el, fill, reportError, fmtTime, hideBanner, statusLabel } from './ui.js';

// SM-2 qualities: below 3 is a failed recall (the interval starts again).
export const GRADES = [
  { label: 'Again', quality: 1, hint: 'I did not remember it' },
  { label: 'Hard', quality: 3, hint: 'I remembered it with effort' },
  { label: 'Good', quality: 4, hint: 'I remembered it after a moment' },
  { label: 'Easy', quality: 5, hint: 'I remembered it at once' },
];
const DRAFT_KEY = (nodeId) => `pw.review.${nodeId}`;

// mountReviews(container, { mapId, mapTitles, onAnswered(node, grade) }) -> { reload }
// mapId limits the list to one map; mapTitles (id -> title) labels items from several maps.
export function mountReviews(container, opts = {}) {
  const list = el('ul', { class: 'reviews', 'aria-label': 'Reviews due' });
  const status = el('p', { class: 'muted small', 'aria-live': 'polite' });
  const count = el('span', { class: 'badge review-count' }, '…');
  fill(container, el('h2', {}, 'Reviews due today ', count), status, list);
  let items = [];

  async function reload() {
    try {
      const path = opts.mapId ? `/mind-maps/${opts.mapId}/pending-reviews` : '/reviews/pending';
      items = await api('GET', path);
      render();
    } catch (e) {
      reportError(e);
      fill(list, el('li', { class: 'muted' }, 'The reviews could not be loaded. ',
        el('button', { type: 'button', class: 'secondary', onclick: reload }, 'Try again')));
    }
  }

  function render() {
    count.textContent = String(items.length);
    count.setAttribute('aria-label', `${items.length} due`);
    fill(list, items.map(item));
    if (!items.length) list.append(el('li', { class: 'muted empty' }, 'Nothing is due now. Reviews come back as their intervals pass.'));
  }

  function item(node) {
    return recallCard(node, {
      responseType: 'review',
      note: opts.mapTitles && !opts.mapId ? (opts.mapTitles.get(node.mind_map_id) ?? 'A map') : null,
      due: node.next_review_at ? `Due since ${fmtTime(node.next_review_at)}` : 'Due now',
      onRecorded: (r, g) => {
        items = items.filter((n) => n.id !== node.id);
        const next = r.node.next_review_at ? ` Next review ${fmtTime(r.node.next_review_at)}.` : '';
        status.textContent = `${node.label}: recorded as ${g.label}; now ${statusLabel(r.node.mastery_status).toLowerCase()}.${next}`;
        render();
        opts.onAnswered?.(r.node, g);
      },
    });
  }

  reload();
  return { reload };
}

// A concept studied by recall, with no model and nothing generated: the learner writes what
// they know in their own words, opens what the concept covers, and grades themselves
// (Again/Hard/Good/Easy), which is recorded like any answer: it moves mastery and the review
// schedule. `responseType` is `review` for a review that fell due and `teach` for a concept
// studied for the first time. recallCard(node, { responseType, note, due, onRecorded(r, g) })
export function recallCard(node, opts) {
  const answer = el('textarea', { rows: '2', id: `recall-${node.id}`, maxlength: '4000', placeholder: 'Write what you know of it, in your own words' });
  answer.value = localStorage.getItem(DRAFT_KEY(node.id)) ?? '';
  answer.addEventListener('input', () => localStorage.setItem(DRAFT_KEY(node.id), answer.value));
  const reveal = el('details', { class: 'reveal' }, el('summary', {}, 'Check: what the concept covers'),
    el('p', {}, node.description || 'This concept has no description; judge from what you wrote.'));
  const err = el('p', { class: 'form-error', 'aria-live': 'polite' });
  const buttons = GRADES.map((g) => el('button', {
    type: 'button', class: `grade grade-${g.label.toLowerCase()}`, title: g.hint, 'data-quality': g.quality,
    onclick: () => answerWith(g),
  }, g.label));
  const question = `Recall ${node.label}: what is it, and how is it used?`;
  const li = el('li', { class: 'review card', 'data-node-id': node.id },
    el('h3', {}, node.label),
    opts.note ? el('p', { class: 'muted small' }, opts.note) : null,
    el('p', { class: 'muted small' }, opts.due ? `${opts.due} · ` : '', `now ${statusLabel(node.mastery_status).toLowerCase()}`),
    el('label', { for: answer.id }, question), answer, reveal,
    el('p', { class: 'small muted', id: `grade-help-${node.id}` }, 'How well did you know it?'),
    el('div', { class: 'grades', role: 'group', 'aria-labelledby': `grade-help-${node.id}` }, buttons), err);

  async function answerWith(g) {
    const started = performance.now();
    buttons.forEach((b) => { b.disabled = true; });
    err.textContent = '';
    try {
      const text = answer.value.trim();
      // One answer of this node, as it stood, with this grade and text: sent again after a
      // lost reply, it is found rather than recorded twice.
      const r = await api('POST', '/responses', {
        node_id: node.id, mind_map_id: node.mind_map_id, response_type: opts.responseType, quality: g.quality,
        question_text: question, user_answer: text || null,
      }, { idempotencyKey: keyFor(`${opts.responseType}\n${node.id}\n${node.next_review_at ?? node.updated_at}\n${g.quality}\n${text}`) });
      localStorage.removeItem(DRAFT_KEY(node.id));
      hideBanner(); // an earlier failure's message is out of date now
      opts.onRecorded?.(r, g);
      performance.measure('maps:review-answered', { start: started, end: performance.now() });
    } catch (e) {
      // The typed recall stays in the box (and in localStorage); the learner can retry.
      buttons.forEach((b) => { b.disabled = false; });
      err.textContent = e.status === 422 ? `Not recorded: ${e.message}` : 'Not recorded. What you wrote is kept; try again.';
      reportError(e);
    }
  }
  return li;
}
