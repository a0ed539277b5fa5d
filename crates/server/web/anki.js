// anki.js: bringing Anki reviews in. A package exported from Anki (.apkg deck or .colpkg
// collection) is uploaded; each deck becomes a map whose concepts are its cards, and the
// review history comes with it (real times and grades). The outcome says what came in,
// what was left out and why; importing the same package again adds only what is new.
import { apiUpload, ApiError } from './api.js';
import { el, fill, reportError, count } from './ui.js';

const REASON_WORDS = {
  manual: 'changed by hand (set due date)',
  rescheduled: 'rescheduled without an answer',
  before_reset: 'from before a card was reset with Forget',
  filtered_without_grade: 'filtered-deck reviews that did not grade the card',
  no_grade: 'with no answer button pressed',
  unknown: 'of a kind Anki does not write',
  card_missing: 'of cards no longer in the collection',
  already_imported: 'brought in by an earlier import',
  future_dated: "dated after this server's clock (a device whose clock was wrong)",
};

// The card on the Progress view; `done` runs after an import that stored something.
export function ankiCard(done) {
  const input = el('input', { type: 'file', id: 'anki-input', accept: '.apkg,.colpkg', class: 'sr-only' });
  const bar = el('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Uploading the Anki package' });
  const outcome = el('div', { class: 'anki-outcome', 'aria-live': 'polite' });
  const pick = el('label', { class: 'button secondary', for: 'anki-input' }, 'Choose an Anki package…');
  const send = async (file) => {
    bar.hidden = false;
    bar.value = 0;
    fill(outcome, el('p', { class: 'muted small', role: 'status' }, `Sending ${file.name}…`));
    try {
      const got = await apiUpload('/me/anki-import', file, (f) => {
        bar.value = f;
        if (f >= 1) fill(outcome, el('p', { class: 'muted small', role: 'status' }, `Reading ${file.name}…`));
      });
      fill(outcome, summary(got));
      if (got.answers_imported || got.concepts_added || got.concepts_updated) done();
    } catch (e) {
      fill(outcome, el('p', { class: 'anki-failed', role: 'alert' }, e instanceof ApiError ? e.message : String(e.message ?? e)));
      if (!(e instanceof ApiError)) reportError(e);
    } finally {
      bar.hidden = true;
      input.value = '';
    }
  };
  input.addEventListener('change', () => { if (input.files.length) send(input.files[0]); });
  return el('section', { class: 'card pg-anki', 'aria-labelledby': 'pg-anki-h' },
    el('h2', { id: 'pg-anki-h' }, 'Bring in your Anki reviews'),
    el('p', {}, 'Export a deck or your collection from Anki (File › Export, .apkg or .colpkg). Each deck becomes a map, each card a concept, and your review history schedules what comes next. Import again later to add new reviews; what you did here is kept.'),
    el('p', { class: 'muted small' }, 'Sounds and images are not brought in: export without media to keep the file small.'),
    el('div', { class: 'card-actions' }, pick, input), bar, outcome);
}

function summary(got) {
  const skipped = got.skipped.filter((s) => s.rows > 0);
  return el('div', { class: 'anki-summary', 'data-answers': got.answers_imported },
    el('p', {}, `Brought in ${count(got.answers_imported, 'answer')} from ${count(got.decks.length, 'deck')} `
      + `(${count(got.concepts_added, 'new concept')}, ${count(got.concepts_updated, 'concept')} updated).`),
    got.decks.length > 0 && el('ul', { class: 'anki-decks' }, got.decks.map((d) => el('li', {},
      el('a', { href: `#/maps/${d.mind_map_id}` }, d.deck),
      ` · ${count(d.cards, 'card')}, ${count(d.answers_imported, 'answer')}${d.created ? ' (new map)' : ''}`))),
    skipped.length > 0 && el('details', {}, el('summary', {}, `${count(skipped.reduce((n, s) => n + s.rows, 0), 'review-log row')} left out`),
      el('ul', {}, skipped.map((s) => el('li', { 'data-reason': s.reason }, `${s.rows} ${REASON_WORDS[s.reason] ?? s.meaning}`)))),
    got.media_files > 0 && el('p', { class: 'muted small' }, `${count(got.media_files, 'media file')} in the package ${got.media_files === 1 ? 'was' : 'were'} left out.`),
    got.warnings.map((w) => el('p', { class: 'muted small anki-warning' }, w)),
    el('p', { class: 'muted small' }, got.fsrs.parameters === 'fitted'
      ? `FSRS’s parameters were fitted on your reviews (${count(got.fsrs.fitted_on_reviews, 'review')}).`
      : `FSRS keeps its default parameters: ${got.fsrs.reason}`));
}
