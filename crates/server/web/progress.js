// progress.js: the Progress view. #/progress: every map's progress (the portfolio, each
// map's figures as they are now), this week's digest and the model's usage;
// #/progress/<mapId>: one map's mastery by status, its trend over the last week (or month,
// quarter, year) of nightly snapshots up to today's live figures, and the concepts it
// struggles with (each linking to itself in the Maps view).
import { api, ApiError } from './api.js';
import { el, fill, reportError, withBusy, tierCounts } from './ui.js';
import { stackedBar, lineChart, fmtDay } from './charts.js';
import { ankiCard } from './anki.js';

// Mastery statuses in learning order, with their chart colours (legends repeat them in text).
const STATUSES = [
  { key: 'mastered', label: 'Mastered', color: '#1f7a3d', hint: 'passed three reviews in a row with a high score, or earned gold in a course' },
  { key: 'reviewing', label: 'Reviewing', color: '#2f5bd3', hint: 'learned (a course’s bronze or silver tier), being reviewed at growing intervals' },
  { key: 'learning', label: 'Learning', color: '#d08400', hint: 'being taught and quizzed' },
  { key: 'diagnosed', label: 'Diagnosed', color: '#7a4bd1', hint: 'placed by the diagnostic, not yet taught' },
  { key: 'unseen', label: 'Not started', color: '#a3abba', hint: 'not taught or diagnosed yet' },
];
const MAP_STATUS = { draft: 'Draft', active: 'Active', completed: 'Completed', abandoned: 'Abandoned' };
const REASONS = {
  consecutive_low_quality: 'The last three answers were all rated 2 or lower (out of 5).',
  declining_score: 'The mastery score went down after each of the last three answers.',
};

const pct = (v) => `${Math.round(v * 100)}%`;
const num = (v, digits = 1) => (Math.round(v * 10 ** digits) / 10 ** digits).toString();
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// What the trend chart can follow, read from each snapshot's metrics.
const SERIES = {
  mastery_pct: { label: 'Mastery', long: 'Share of concepts mastered', get: (m) => m.mastery_pct, scale: () => [0, 1, [0, 0.25, 0.5, 0.75, 1]], format: pct },
  mastered_nodes: { label: 'Mastered', long: 'Concepts mastered', get: (m) => m.mastered_nodes, scale: countScale, format: (v) => String(v) },
  retention_rate_7d: { label: 'Retention', long: 'Reviews remembered over the 7 days before (retention)', get: (m) => m.retention_rate_7d, scale: () => [0, 1, [0, 0.25, 0.5, 0.75, 1]], format: pct, missing: 'no reviews in the 7 days before' },
  avg_quality_score: { label: 'Quality', long: 'Average answer quality (0 to 5)', get: (m) => m.avg_quality_score, scale: () => [0, 5, [0, 1, 2, 3, 4, 5]], format: (v) => num(v), missing: 'no answers yet' },
};
function countScale(snapshots) {
  const top = Math.max(1, ...snapshots.map((s) => s.metrics.total_nodes ?? 0), ...snapshots.map((s) => s.metrics.mastered_nodes ?? 0));
  const step = Math.max(1, Math.ceil(top / 4));
  const ticks = [];
  for (let t = 0; t <= top + step - 1; t += step) ticks.push(t);
  return [0, ticks[ticks.length - 1], ticks];
}

// Every mount bumps this; an answer that arrives after the learner moved on (to another
// map, or another view: the page is then out of the document) is dropped.
let generation = 0;
let activePage = null;
let series = 'mastery_pct';
// The trend's window in days (the server takes 1-366), kept while the page is open.
const WINDOWS = [[7, 'week'], [30, 'month'], [90, 'quarter'], [366, 'year']];
let windowDays = 7;
let resizer = null;

export function mountProgress(root, config, rest) {
  const gen = ++generation;
  resizer?.disconnect();
  resizer = null;
  const page = el('div', { class: 'progress-view' });
  activePage = page;
  root.replaceChildren(page);
  const mapId = (rest || '').split('/')[0].trim();
  if (mapId) showMap(page, config, mapId, gen);
  else showPortfolio(page, config, gen);
}

const current = (gen) => gen === generation && activePage.isConnected;
const loading = (text) => el('p', { class: 'muted', role: 'status' }, text);

// A load that failed: the banner says why (reportError), the page offers a retry.
function failed(page, heading, text, retry) {
  fill(page, heading, el('div', { class: 'card pg-empty' }, el('p', {}, text),
    el('div', { class: 'card-actions' }, el('button', { type: 'button', class: 'primary', onclick: retry }, 'Try again'))));
}

// ---- #/progress: the portfolio -------------------------------------------------------------

// `anki` is the import card of the page shown before (its outcome stays on the page when
// an import refreshes the figures).
async function showPortfolio(page, config, gen, anki = null) {
  const heading = el('h1', {}, 'Progress');
  if (!anki) fill(page, heading, loading('Loading your progress…'));
  let portfolio;
  try {
    portfolio = await api('GET', '/me/portfolio');
  } catch (e) {
    if (!current(gen)) return;
    reportError(e);
    failed(page, heading, 'Your progress could not be loaded.', () => showPortfolio(page, config, gen));
    return;
  }
  if (!current(gen)) return;
  const usage = el('section', { class: 'card pg-usage', 'aria-labelledby': 'pg-usage-h' });
  const spacing = el('section', { class: 'card pg-spacing', 'aria-labelledby': 'pg-spacing-h' });
  fill(page, heading,
    el('p', { class: 'muted' }, 'Figures are as of now; every night adds a point to each active map’s trend.'),
    portfolio.maps_total ? [overview(portfolio), mapList(portfolio)] : noMaps(),
    el('div', { class: 'pg-grid' }, digestCard(config, portfolio), spacing,
      anki ?? ankiCard(() => { if (current(gen)) showPortfolio(page, config, gen, page.querySelector('.pg-anki')); }), usage));
  loadSpacing(spacing, gen);
  loadUsage(usage, gen);
}

// A side card read from one route: loading, then shown, or the failure with a retry.
async function loadCard(card, gen, heading, path, failure, show) {
  fill(card, heading, loading('Loading…'));
  let found;
  try {
    found = await api('GET', path);
  } catch (e) {
    if (!current(gen)) return;
    reportError(e);
    fill(card, heading, el('p', {}, failure),
      el('button', { type: 'button', class: 'secondary', onclick: () => loadCard(card, gen, heading, path, failure, show) }, 'Try again'));
    return;
  }
  if (current(gen)) show(found);
}

// How reviews are spaced: the scheduler chosen, and FSRS's parameters for this learner
// (their own once fitted, the defaults until then) with how well they predict them.
function loadSpacing(card, gen) {
  const heading = el('h2', { id: 'pg-spacing-h' }, 'Spacing your reviews');
  return loadCard(card, gen, heading, '/me/preferences', 'Your review settings could not be loaded.',
    (prefs) => showSpacing(card, heading, prefs, gen));
}

function showSpacing(card, heading, prefs, gen) {
  const f = prefs.fsrs;
  const fsrs = prefs.srs_scheduler === 'fsrs';
  const loss = (v) => (v == null ? null : num(v, 3));
  const own = f.parameters === 'fitted';
  const which = own
    ? `FSRS’s parameters are your own: fitted on ${plural(f.fitted_on_reviews, 'review')}${f.initial_stability_only ? ' (the first-answer stabilities only: the rest come with 64 reviews)' : ''} on ${fmtDay(f.fitted_at)}.`
    : `FSRS uses its default parameters: ${f.reason}`;
  const fit = loss(f.log_loss), base = loss(f.default_log_loss);
  const latest = `On your latest ${plural(f.checked_reviews, 'review')}`;
  const how = f.checked_reviews > 0 && base != null
    ? (fit != null
      ? `${latest}, parameters fitted without them reach a log loss of ${fit}, the defaults ${base} (lower predicts you better).`
      : `${latest} the defaults reach a log loss of ${base} (lower predicts you better); too few reviews came before them to check a fit.`)
    : null;
  const act = async (method, path, body) => {
    const next = await api(method, path, body);
    const updated = path.endsWith('/fit') ? { ...prefs, fsrs: next } : next;
    if (card.isConnected) showSpacing(card, heading, updated, gen);
  };
  fill(card, heading,
    el('p', { 'data-scheduler': prefs.srs_scheduler }, fsrs
      ? 'Your reviews are spaced by FSRS, which models how long each memory lasts.'
      : 'Your reviews are spaced by SM-2, the classic schedule. FSRS models how long each memory lasts; choosing it replays your history into it.'),
    el('p', { class: 'pg-fsrs', 'data-parameters': f.parameters }, which),
    how && el('p', { class: 'muted small pg-fsrs-check' }, how),
    el('div', { class: 'card-actions' },
      el('button', { type: 'button', class: 'secondary', onclick: () => withBusy(() => act('PATCH', '/me/preferences', { srs_scheduler: fsrs ? 'sm2' : 'fsrs' })) },
        fsrs ? 'Use SM-2 instead' : 'Use FSRS'),
      el('button', { type: 'button', class: 'secondary', onclick: () => withBusy(() => act('POST', '/me/preferences/fsrs/fit')) },
        'Fit FSRS to my reviews now')));
}

function noMaps() {
  return el('section', { class: 'card pg-empty' },
    el('h2', {}, 'No maps yet'),
    el('p', {}, 'Your progress shows here once you study a topic: start one in the ', el('a', { href: '#/maps' }, 'Maps'),
      ' view (or a session with the ', el('a', { href: '#/tutor' }, 'tutor'), ').'));
}

function overview(p) {
  const attention = p.maps.find((m) => m.map_id === p.needs_attention);
  // Courses' maps: their units' tiers, summed, beside the concepts mastered.
  const tiered = p.maps.filter((m) => m.tiers);
  const tiers = tiered.length ? tiered.reduce((a, { tiers: t }) => ({ bronze: a.bronze + t.bronze, silver: a.silver + t.silver,
    gold: a.gold + t.gold, total: a.total + t.total }), { bronze: 0, silver: 0, gold: 0, total: 0 }) : null;
  return el('section', { class: 'pg-overview', 'aria-label': 'All maps' },
    el('dl', { class: 'pg-stats' },
      stat('Concepts mastered', `${p.mastered_nodes} of ${p.total_nodes}`,
        p.total_nodes ? `${pct(p.mastery_pct)}${p.maps.some((m) => !m.snapshot_date) ? ' · maps with a snapshot' : ''}` : 'no snapshot yet', 'pf-mastered'),
      stat('Retention, last 7 days', p.retention_rate_7d == null ? '—' : pct(p.retention_rate_7d),
        p.review_responses_7d ? `of ${plural(p.review_responses_7d, 'review')} remembered` : 'no reviews this week', 'pf-retention'),
      stat('Active maps', String(p.maps_active), `${p.maps_completed} completed · ${p.maps_total} in all`, 'pf-maps')),
    tiers && el('p', { class: 'pg-tiers', 'data-stat': 'pf-tiers' }, `${tiered.length === 1 ? 'Your course' : 'Your courses'}: `, tierCounts(tiers)),
    // The server names the neediest map even when all go well; worth a line only with struggles.
    attention?.struggling_count > 0 && el('p', { class: 'pg-attention' }, 'Needs the most attention: ',
      el('a', { href: `#/progress/${encodeURIComponent(attention.map_id)}` }, attention.title),
      ` (${plural(attention.struggling_count, 'struggling concept')})`));
}

function stat(label, value, sub, id) {
  return el('div', { class: 'pg-stat', 'data-stat': id },
    el('dt', {}, label), el('dd', {}, el('span', { class: 'pg-value' }, value), sub && el('span', { class: 'pg-sub muted' }, sub)));
}

function mapList(p) {
  return el('section', { 'aria-labelledby': 'pg-maps-h' },
    el('h2', { id: 'pg-maps-h', class: 'pg-h2' }, 'Your maps'),
    el('ul', { class: 'pg-maps' }, p.maps.map((m) => el('li', {},
      el('a', { class: 'pg-map card', href: `#/progress/${encodeURIComponent(m.map_id)}`, 'data-map-id': m.map_id },
        el('span', { class: 'pg-map-head' }, el('strong', { class: 'pg-map-title' }, m.title),
          el('span', { class: `badge map-${m.status}` }, MAP_STATUS[m.status] ?? m.status)),
        m.snapshot_date ? mapFigures(m) : el('span', { class: 'muted small' }, 'No snapshot yet: its figures appear after the first nightly snapshot.'))))));
}

function mapFigures(m) {
  const facts = [
    m.retention_rate_7d == null ? 'no reviews this week' : `retention ${pct(m.retention_rate_7d)}`,
    m.struggling_count ? plural(m.struggling_count, 'struggling concept') : 'none struggling',
    m.estimated_completion_days == null ? null
      : m.estimated_completion_days === 0 ? 'all mastered' : `about ${plural(m.estimated_completion_days, 'day')} to go`,
    `as of ${fmtDay(m.snapshot_date)}`,
  ].filter(Boolean);
  return [
    el('span', { class: 'pg-meter', 'aria-hidden': 'true' }, el('span', { style: `width:${Math.round(m.mastery_pct * 100)}%` })),
    el('span', { class: 'pg-map-mastery' }, `${m.mastered_nodes} of ${plural(m.total_nodes, 'concept')} mastered (${pct(m.mastery_pct)})`),
    m.tiers ? el('span', { class: 'pg-map-tiers small' }, tierCounts(m.tiers)) : null,
    el('span', { class: 'muted small' }, facts.join(' · ')),
  ];
}

// The weekly digest: written by the model when one is configured, so only on request then.
function digestCard(config, portfolio) {
  const body = el('div', { class: 'pg-digest-body', 'aria-live': 'polite' });
  const card = el('section', { class: 'card pg-digest', 'aria-labelledby': 'pg-digest-h' },
    el('h2', { id: 'pg-digest-h' }, 'This week'), body);
  const write = async () => {
    fill(body, loading(config.model ? 'The model is writing your digest…' : 'Loading your digest…'));
    try {
      const digest = await api('GET', '/me/digest');
      if (body.isConnected) showDigest(body, digest);
    } catch (e) {
      fill(body, el('p', {}, 'The digest could not be written.'), button(config.model ? 'Try again' : 'Load it again'));
      throw e;
    }
  };
  const button = (text = 'Write this week’s digest') => el('div', { class: 'card-actions' },
    el('button', { type: 'button', class: 'secondary', onclick: () => withBusy(write) }, text));
  if (!portfolio.maps_total) fill(body, el('p', { class: 'muted' }, 'A weekly digest sums up your maps once you have one.'));
  else if (config.model) fill(body, el('p', { class: 'muted' }, 'A summary of your week, as it would be sent to you. The language model writes it (one model call).'), button());
  else write().catch(reportError);
  return card;
}

function showDigest(body, d) {
  const f = d.facts ?? {};
  const facts = [
    f.streak_days != null && `${plural(f.streak_days, 'day')} in a row`,
    `${plural(f.newly_mastered ?? 0, 'concept')} newly mastered`,
    `${plural(f.reviews_due_next_week ?? 0, 'review')} due next week`,
  ].filter(Boolean);
  fill(body,
    f.week_start && el('p', { class: 'muted small' }, `${fmtDay(f.week_start)} – ${fmtDay(f.week_end)} · ${d.written_by === 'model' ? 'written by the model' : 'from the template'}`),
    el('h3', { class: 'pg-digest-subject' }, d.subject),
    el('p', { class: 'pg-digest-text' }, d.body),
    el('p', { class: 'pg-digest-facts' }, facts.join(' · ')));
}

function loadUsage(card, gen) {
  const heading = el('h2', { id: 'pg-usage-h' }, 'Language model use');
  return loadCard(card, gen, heading, '/me/llm-usage', 'The model’s usage could not be loaded.', (usage) => showUsage(card, heading, usage));
}

function showUsage(card, heading, usage) {
  const t = usage.total;
  if (!t.calls) {
    fill(card, heading, el('p', { class: 'muted' }, 'No calls to the language model for you yet.'));
    return;
  }
  const n = (v) => v.toLocaleString();
  fill(card, heading,
    el('p', {}, `${plural(t.calls, 'call')}: ${n(t.prompt_tokens)} prompt and ${n(t.completion_tokens)} completion tokens.`),
    el('div', { class: 'pg-table-wrap' }, el('table', { class: 'pg-table' },
      el('caption', { class: 'sr-only' }, 'Calls and tokens by operation'),
      el('thead', {}, el('tr', {}, ['What for', 'Calls', 'Prompt', 'Completion'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, usage.by_operation.map((o) => el('tr', {},
        el('th', { scope: 'row' }, o.operation.replaceAll('_', ' ')), el('td', {}, n(o.calls)),
        el('td', {}, n(o.prompt_tokens)), el('td', {}, n(o.completion_tokens))))))));
}

// ---- #/progress/<mapId>: one map -----------------------------------------------------------

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function showMap(page, config, id, gen) {
  const back = el('a', { class: 'pg-back', href: '#/progress' }, '← All maps');
  if (!UUID.test(id)) {
    fill(page, back, el('h1', {}, 'Map not found'), el('div', { class: 'card pg-empty' },
      el('p', {}, `“${id}” is not a map’s address: after #/progress/ comes a map id, a UUID such as 0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b.`),
      el('p', {}, el('a', { href: '#/progress' }, 'Choose one of your maps'))));
    return;
  }
  fill(page, back, el('h1', {}, 'Progress'), loading('Loading the map’s progress…'));
  const path = `/mind-maps/${encodeURIComponent(id)}`;
  let map, summary, analytics, struggles;
  try {
    [map, summary, analytics, struggles] = await Promise.all([
      api('GET', path), api('GET', `${path}/mastery-summary`), api('GET', `${path}/analytics?days=${windowDays}`), api('GET', `${path}/struggles`)]);
  } catch (e) {
    if (!current(gen)) return;
    reportError(e);
    const gone = e instanceof ApiError && (e.status === 404 || e.status === 400 || e.status === 422);
    if (gone) {
      fill(page, back, el('h1', {}, 'Map not found'), el('div', { class: 'card pg-empty' },
        el('p', {}, 'There is no map of yours at this address: it may have been deleted, or the link is incomplete.'),
        el('p', {}, el('a', { href: '#/progress' }, 'See all your maps'))));
    } else {
      failed(page, el('h1', {}, 'Progress'), 'This map’s progress could not be loaded.', () => showMap(page, config, id, gen));
    }
    return;
  }
  if (!current(gen)) return;
  const m = map; // the map's fields sit beside its nodes and edges
  const labels = new Map((map.nodes ?? []).map((n) => [n.id, n.label]));
  const refresh = () => { if (current(gen)) showMap(page, config, id, gen); };
  fill(page, back,
    el('div', { class: 'pg-title' }, el('h1', {}, m.title),
      el('span', { class: `badge map-${m.status}` }, MAP_STATUS[m.status] ?? m.status),
      el('a', { class: 'pg-open', href: `#/maps/${encodeURIComponent(id)}` }, 'Open in Maps')),
    el('div', { class: 'pg-grid' }, masteryCard(summary), strugglesCard(id, struggles)),
    trendCard(analytics, labels, gen, refresh));
}

function masteryCard(s) {
  const segments = STATUSES.map((st) => ({ ...st, count: s[`${st.key}_count`] ?? 0 }));
  const total = s.total_nodes;
  const share = (n) => (total ? pct(n / total) : '0%');
  const title = total
    ? `Concepts by status: ${segments.map((x) => `${x.label} ${x.count}`).join(', ')}, of ${total}.`
    : 'No concepts yet.';
  return el('section', { class: 'card pg-mastery', 'aria-labelledby': 'pg-mastery-h' },
    el('h2', { id: 'pg-mastery-h' }, 'Mastery now'),
    el('dl', { class: 'pg-stats' },
      stat('Mastered', `${s.mastered_count} of ${total}`, total ? share(s.mastered_count) : 'no concepts yet', 'mastered'),
      stat('Average mastery', pct(s.avg_mastery_score), 'mean score of all concepts', 'avg'),
      stat('Struggling', String(s.struggling_node_ids.length), s.struggling_node_ids.length ? 'see below' : 'none', 'struggling')),
    // A course's map: the tiers earned, which the tutor celebrates before anything is mastered.
    s.tiers ? el('p', { class: 'pg-tiers' }, tierCounts(s.tiers),
      el('span', { class: 'muted small block' }, 'Bronze and silver put a unit in review; gold makes it mastered.')) : null,
    total ? [
      stackedBar(segments, { title }),
      el('ul', { class: 'pg-legend' }, segments.map((x) => el('li', { 'data-status': x.key, 'data-count': x.count, title: x.hint },
        el('span', { class: 'pg-swatch', style: `background:${x.color}`, 'aria-hidden': 'true' }),
        el('span', { class: 'pg-legend-label' }, x.label),
        el('span', { class: 'pg-legend-count' }, `${x.count}`),
        el('span', { class: 'muted small' }, share(x.count))))),
    ] : el('p', { class: 'muted' }, 'This map has no concepts yet: add some in the Maps view.'));
}

function strugglesCard(mapId, struggles) {
  // The Maps view opens a map with one concept selected at #/maps/<map>/node/<node>.
  const link = (node) => `#/maps/${encodeURIComponent(mapId)}/node/${encodeURIComponent(node)}`;
  return el('section', { class: 'card pg-struggles', 'aria-labelledby': 'pg-struggles-h' },
    el('h2', { id: 'pg-struggles-h' }, 'Struggling concepts'),
    struggles.length === 0
      ? el('p', { class: 'muted' }, 'None right now. A concept is flagged when its last three answers were all rated 2 or lower, or its score fell with each of them.')
      : el('ul', { class: 'pg-struggle-list' }, struggles.map((s) => el('li', { class: 'pg-struggle', 'data-node-id': s.id },
        el('div', { class: 'pg-struggle-head' }, el('strong', {}, s.label),
          el('span', { class: `badge status-${s.mastery_status}` }, STATUSES.find((x) => x.key === s.mastery_status)?.label ?? s.mastery_status),
          el('span', { class: 'muted small' }, `score ${pct(s.mastery_score)}`)),
        el('ul', { class: 'pg-reasons' }, (s.reasons?.length ? s.reasons : s.reason.split('+')).map((r) => el('li', { 'data-reason': r }, REASONS[r] ?? r))),
        el('a', { href: link(s.id), class: 'small', 'aria-label': `Open ${s.label} in the Maps view` }, 'Open in Maps')))));
}

function trendCard(analytics, labels, gen, refresh) {
  // The nightly snapshots of the window, then today's figures as they are now.
  const snapshots = [...(analytics.snapshots ?? [])].sort((a, b) => a.snapshot_date.localeCompare(b.snapshot_date));
  const span = WINDOWS.find(([d]) => d === windowDays)?.[1] ?? `${windowDays} days`;
  const range = el('select', { 'aria-label': 'Period shown', onchange: (e) => { windowDays = Number(e.target.value); refresh(); } },
    WINDOWS.map(([d, name]) => el('option', { value: String(d), selected: d === windowDays }, `Last ${name}`)));
  const card = el('section', { class: 'card pg-trend', 'aria-labelledby': 'pg-trend-h' },
    el('div', { class: 'pg-card-head' }, el('h2', { id: 'pg-trend-h' }, `Trend over the last ${span}`), range));
  const latest = snapshots[snapshots.length - 1];
  if (!SERIES[series]) series = 'mastery_pct';
  const chartBox = el('div', { class: 'pg-chart' });
  const caption = el('p', { class: 'pg-chart-caption', id: 'pg-chart-caption' });
  const picker = el('fieldset', { class: 'pg-series' }, el('legend', { class: 'sr-only' }, 'Show on the chart'),
    Object.entries(SERIES).map(([key, s]) => el('label', { class: 'pg-series-option' },
      el('input', { type: 'radio', name: 'pg-series', value: key, checked: key === series, onchange: () => { series = key; draw(); } }),
      el('span', {}, s.label))));
  let drawnWidth = 0;
  function draw() {
    const s = SERIES[series];
    const [min, max, ticks] = s.scale(snapshots);
    const points = snapshots.map((x) => ({ day: x.snapshot_date, value: s.get(x.metrics) ?? null }));
    drawnWidth = chartBox.clientWidth || 600;
    const text = `${s.long}, ${points.map((p) => `${fmtDay(p.day)}: ${p.value == null ? s.missing : s.format(p.value)}`).join('; ')}.`;
    caption.textContent = `${s.long} on each snapshot day.`;
    chartBox.replaceChildren(lineChart({ points, min, max, ticks, format: s.format, width: drawnWidth, title: text, missing: s.missing }));
    chartBox.dataset.series = series;
  }
  fill(card, card.firstChild, picker, caption, chartBox,
    snapshots.length === 1 && el('p', { class: 'muted' }, `One snapshot so far (${fmtDay(latest.snapshot_date)}). A trend needs snapshots on two different days: the next is taken tonight.`),
    trendSummary(analytics.trend),
    snapshotTable(snapshots),
    latestFacts(latest, labels));
  // Drawn at its box's pixel width (text keeps its size); redrawn when the box changes.
  requestAnimationFrame(() => { if (current(gen) && card.isConnected) draw(); });
  resizer = new ResizeObserver(() => {
    if (card.isConnected && Math.abs(chartBox.clientWidth - drawnWidth) > 8) draw();
  });
  resizer.observe(chartBox);
  return card;
}

function trendSummary(t) {
  if (!t) return null;
  const word = { improving: 'improving', steady: 'steady', declining: 'declining' };
  const change = (label, c, format, signed) => c && el('li', { class: `trend-${c.direction}` },
    `${label}: ${format(c.from)} → ${format(c.to)} (${signed(c.change)}, ${word[c.direction] ?? c.direction})`);
  const points = (v) => `${v >= 0 ? '+' : '−'}${Math.abs(Math.round(v * 100))} points`;
  const signedCount = (v) => `${v >= 0 ? '+' : '−'}${Math.abs(v)}`;
  const signedQ = (v) => `${v >= 0 ? '+' : '−'}${num(Math.abs(v))}`;
  return el('div', { class: 'pg-trend-summary' },
    el('p', {}, `From ${fmtDay(t.from_date)} to ${fmtDay(t.to_date)}: overall `,
      el('strong', { class: `trend-${t.overall}`, 'data-overall': t.overall }, word[t.overall] ?? t.overall), '.'),
    el('ul', {},
      change('Mastered concepts', t.mastered_nodes, String, signedCount),
      change('Mastery', t.mastery_pct, pct, points),
      change('Retention (7 days)', t.retention_rate_7d, pct, points),
      change('Average answer quality', t.avg_quality_score, num, signedQ)));
}

// The same numbers as the chart, as a table (also what a screen reader reads).
function snapshotTable(snapshots) {
  const dash = (v, f) => (v == null ? '—' : f(v));
  return el('details', { class: 'pg-table-details' }, el('summary', {}, 'The numbers, as a table'),
    el('div', { class: 'pg-table-wrap' }, el('table', { class: 'pg-table pg-snapshots' },
      el('caption', { class: 'sr-only' }, 'Snapshots of this map, oldest first'),
      el('thead', {}, el('tr', {}, ['Day', 'Mastery', 'Mastered', 'Retention (7 days)', 'Average quality', 'Answers', 'Struggling']
        .map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, snapshots.map(({ snapshot_date: day, metrics: m }) => el('tr', { 'data-day': day },
        el('th', { scope: 'row' }, fmtDay(day, { weekday: 'short', month: 'short', day: 'numeric' })),
        el('td', {}, pct(m.mastery_pct)), el('td', {}, `${m.mastered_nodes} of ${m.total_nodes}`),
        el('td', {}, dash(m.retention_rate_7d, pct)), el('td', {}, dash(m.avg_quality_score, num)),
        el('td', {}, String(m.total_quiz_responses)), el('td', {}, String(m.struggling_nodes?.length ?? 0))))))));
}

function latestFacts(latest, labels) {
  const m = latest.metrics;
  const tod = m.time_of_day_distribution ?? {};
  const parts = [['morning', 'Morning'], ['afternoon', 'Afternoon'], ['evening', 'Evening'], ['night', 'Night']];
  const studied = parts.reduce((s, [k]) => s + (tod[k] ?? 0), 0);
  const rows = [
    ['Speed', m.velocity_nodes_per_week ? `${num(m.velocity_nodes_per_week)} concepts mastered a week` : 'nothing mastered yet'],
    ['To finish', m.estimated_completion_days == null ? 'not estimated yet (no speed)' : m.estimated_completion_days === 0 ? 'every concept mastered' : `about ${plural(m.estimated_completion_days, 'day')}`],
    ['Retention, 30 days', m.retention_rate_30d == null ? 'no reviews' : `${pct(m.retention_rate_30d)} of ${plural(m.review_responses_30d ?? 0, 'review')}`],
    ['Answers', `${m.total_quiz_responses} in all; ${plural(m.sessions_this_period, 'study session')} this week`],
    ['Strongest part', m.strongest_subtree ? `${labels.get(m.strongest_subtree) ?? 'a concept no longer in the map'} and what builds on it` : 'not yet'],
    ['Ease', `${num(m.avg_ease_factor, 2)} (SM-2 ease factor; higher means easier to remember)`],
    ['Time of day', studied ? parts.filter(([k]) => tod[k]).map(([k, l]) => `${l}: ${tod[k]} answer${tod[k] === 1 ? '' : 's'}`).join(' · ') : 'no answers this week'],
  ];
  return el('div', { class: 'pg-latest' }, el('h3', {}, `Now: ${fmtDay(latest.snapshot_date, { weekday: 'long', month: 'long', day: 'numeric' })}`),
    el('dl', { class: 'pg-facts' }, rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])));
}
