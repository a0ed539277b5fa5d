// The Progress view in Chromium, against a learner whose history web_e2e/progress.rs wrote
// over several days (MAP_ID: daily snapshots, concepts mastered and struggling; FRESH_MAP_ID:
// an active map with no snapshot stored). The script reads the API itself (with the local
// learner's token) and checks that the page shows the same numbers: the portfolio, the
// status bar's segments, every series of the trend chart point by point (the last being
// today's live figures), the struggling concepts with their reasons and Maps links; then
// the digest on request, the fresh map's figures and its one point (today's, live, with no
// snapshot taken), an unknown map, and phone width.
// Screenshots progress-desktop.png, progress-spacing.png (the review spacing card after a
// fit), progress-anki.png (an Anki package imported) and progress-phone.png; the last line printed is a JSON
// report for web_e2e.rs.
import { launchChromium, failed, finish, onPhone } from './harness.mjs';

const base = process.env.BASE_URL;
// The one-time link `pathwise serve` printed: the first page signs in with it.
const signin = process.env.SIGNIN_URL;
const artifacts = process.env.ARTIFACTS;
const mapId = process.env.MAP_ID;
const freshId = process.env.FRESH_MAP_ID;
const snapshotDays = Number(process.env.SNAPSHOT_DAYS);
const timeout = 15000;

const report = { ok: false, steps: [] };
const step = (name) => report.steps.push(name);
const pct = (v) => `${Math.round(v * 100)}%`;
function check(cond, message) { if (!cond) throw new Error(message); }
function same(actual, expected, what) {
  check(JSON.stringify(actual) === JSON.stringify(expected), `${what}: the page shows ${JSON.stringify(actual)}, the API says ${JSON.stringify(expected)}`);
}

// The API as the page sees it, with the local learner's token.
const session = { token: process.env.LOCAL_TOKEN };
async function apiGet(path) {
  const res = await fetch(`${base}/api${path}`, { headers: { Authorization: `Bearer ${session.token}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

// The page scrolls inside #main, so a full-page screenshot needs a viewport as tall as it.
async function shoot(p, name) {
  const size = p.viewportSize();
  const height = await p.evaluate(() => document.querySelector('.topbar').offsetHeight + document.getElementById('main').scrollHeight);
  await p.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
  await p.screenshot({ path: `${artifacts}/${name}` });
  await p.setViewportSize(size);
}

const browser = await launchChromium();
let page;
try {
  const [portfolio, summary, analytics, struggles] = await Promise.all([
    apiGet('/me/portfolio'), apiGet(`/mind-maps/${mapId}/mastery-summary`),
    apiGet(`/mind-maps/${mapId}/analytics`), apiGet(`/mind-maps/${mapId}/struggles`)]);
  const snapshots = [...analytics.snapshots].sort((a, b) => a.snapshot_date.localeCompare(b.snapshot_date));
  check(snapshots.length === snapshotDays, `the API has ${snapshots.length} snapshots, the seed took ${snapshotDays}`);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(timeout);
  const pageErrors = [];
  const unknownMap = '01900000-0000-7000-8000-000000000000';
  // Requests that fail on purpose below (Chromium logs each), and the workspace's missing favicon.
  const expectedFailures = [unknownMap, '/favicon.ico'];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    const url = m.location().url || '';
    if (m.type() === 'error' && !expectedFailures.some((f) => url.includes(f))) pageErrors.push(`console: ${m.text()} (${m.location().url})`);
  });

  // The portfolio.
  const started = Date.now();
  await page.goto(`${signin}#/progress`);
  await page.locator('.pg-maps').waitFor();
  report.portfolio_ms = Date.now() - started;
  same(await page.locator('[data-stat="pf-mastered"] .pg-value').textContent(), `${portfolio.mastered_nodes} of ${portfolio.total_nodes}`, 'concepts mastered across maps');
  same(await page.locator('[data-stat="pf-retention"] .pg-value').textContent(), portfolio.retention_rate_7d == null ? '—' : pct(portfolio.retention_rate_7d), 'retention across maps');
  same(await page.locator('.pg-map').evaluateAll((links) => links.map((a) => a.dataset.mapId)), portfolio.maps.map((m) => m.map_id), 'maps in the portfolio, in order');
  const entry = portfolio.maps.find((m) => m.map_id === mapId);
  same(await page.locator(`.pg-map[data-map-id="${mapId}"] .pg-map-mastery`).textContent(),
    `${entry.mastered_nodes} of ${entry.total_nodes} concepts mastered (${pct(entry.mastery_pct)})`, 'the seeded map\'s line');
  const fresh = portfolio.maps.find((m) => m.map_id === freshId);
  same(await page.locator(`.pg-map[data-map-id="${freshId}"] .pg-map-mastery`).textContent(),
    `0 of ${fresh.total_nodes} concept${fresh.total_nodes === 1 ? '' : 's'} mastered (0%)`, 'the fresh map\'s line, live');
  step('portfolio matches the API');

  // One map: mastery by status.
  const opened = Date.now();
  await page.locator(`.pg-map[data-map-id="${mapId}"]`).click();
  await page.locator('.pg-chart svg circle.point').first().waitFor();
  report.map_view_ms = Date.now() - opened;
  check(page.url().endsWith(`#/progress/${mapId}`), `the address is ${page.url()}`);
  const statuses = ['mastered', 'reviewing', 'learning', 'diagnosed', 'unseen'];
  const segments = await page.locator('svg.stacked rect.segment').evaluateAll((rects) =>
    rects.map((r) => ({ status: r.dataset.status, count: Number(r.dataset.count), width: Number(r.getAttribute('width')) })));
  same(segments.map((s) => [s.status, s.count]), statuses.filter((k) => summary[`${k}_count`] > 0).map((k) => [k, summary[`${k}_count`]]), 'status bar segments');
  for (const s of segments) {
    check(Math.abs(s.width / 1000 - s.count / summary.total_nodes) < 0.001, `the ${s.status} segment is ${s.width}/1000 wide for ${s.count} of ${summary.total_nodes}`);
  }
  same(await page.locator('.pg-legend li').evaluateAll((items) => items.map((li) => [li.dataset.status, Number(li.dataset.count)])),
    statuses.map((k) => [k, summary[`${k}_count`]]), 'status legend');
  same(await page.locator('.pg-mastery [data-stat="mastered"] .pg-value').textContent(), `${summary.mastered_count} of ${summary.total_nodes}`, 'mastered concepts');
  same(await page.locator('.pg-mastery [data-stat="avg"] .pg-value').textContent(), pct(summary.avg_mastery_score), 'average mastery');
  check(summary.mastered_count >= 2, `the seed mastered ${summary.mastered_count} concepts`);
  report.mastered = summary.mastered_count;
  step('mastery chart matches the summary');

  // The trend, every series point by point; higher values drawn higher.
  const series = {
    mastery_pct: (m) => m.mastery_pct, mastered_nodes: (m) => m.mastered_nodes,
    retention_rate_7d: (m) => m.retention_rate_7d, avg_quality_score: (m) => m.avg_quality_score,
  };
  for (const [key, get] of Object.entries(series)) {
    await page.locator(`.pg-series input[value="${key}"]`).check({ force: true });
    await page.locator(`.pg-chart[data-series="${key}"]`).waitFor();
    const points = await page.locator('.pg-chart svg circle').evaluateAll((cs) => cs.map((c) =>
      ({ day: c.dataset.day, value: c.dataset.value === '' ? null : Number(c.dataset.value), cy: Number(c.getAttribute('cy')), missing: c.classList.contains('missing') })));
    same(points.map((p) => [p.day, p.value]), snapshots.map((s) => [s.snapshot_date, get(s.metrics) ?? null]), `trend points of ${key}`);
    const drawn = points.filter((p) => !p.missing);
    for (const a of drawn) for (const b of drawn) {
      if (a.value > b.value) check(a.cy < b.cy, `${key}: ${a.value} (${a.day}) is not drawn above ${b.value} (${b.day})`);
    }
    if (drawn.length > 1) check(await page.locator('.pg-chart svg path.series').count() === 1, `${key}: no line`);
  }
  report.trend_points = snapshots.length;
  same(await page.locator('.pg-snapshots tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.day)), snapshots.map((s) => s.snapshot_date), 'the table of snapshots');
  check(analytics.trend, 'the API has a trend over the seeded days');
  same(await page.locator('[data-overall]').getAttribute('data-overall'), analytics.trend.overall, 'overall direction');
  step('trend chart matches the analytics, every series');

  // A longer window: the month holds the day three weeks ago as well, as the API says.
  const month = await apiGet(`/mind-maps/${mapId}/analytics?days=30`);
  check(month.snapshots.length > snapshots.length, `the month has ${month.snapshots.length} snapshots, the week ${snapshots.length}`);
  await page.getByLabel('Period shown').selectOption('30');
  await page.getByRole('heading', { name: 'Trend over the last month' }).waitFor();
  await page.locator('.pg-chart svg circle').nth(month.snapshots.length - 1).waitFor();
  same(await page.locator('.pg-chart svg circle').evaluateAll((cs) => cs.map((c) => c.dataset.day)),
    month.snapshots.map((x) => x.snapshot_date).sort(), 'the month\'s points');
  report.month_points = month.snapshots.length;
  await page.getByLabel('Period shown').selectOption('7');
  await page.getByRole('heading', { name: 'Trend over the last week' }).waitFor();
  step('a month shown when asked for');

  // Struggling concepts with their reasons and a link to the map.
  const shown = await page.locator('.pg-struggle').evaluateAll((items) => items.map((li) => ({
    id: li.dataset.nodeId, label: li.querySelector('strong').textContent,
    reasons: [...li.querySelectorAll('[data-reason]')].map((r) => r.dataset.reason), href: li.querySelector('a').getAttribute('href') })));
  same(shown.map((s) => [s.id, s.label, s.reasons]), struggles.map((s) => [s.id, s.label, s.reasons]), 'struggling concepts');
  for (const s of shown) same(s.href, `#/maps/${mapId}/node/${s.id}`, `the Maps link of ${s.label}`);
  same(await page.locator('.pg-open').getAttribute('href'), `#/maps/${mapId}`, 'the map\'s Maps link');
  check(struggles.length >= 2, `the seed left ${struggles.length} struggling concepts`);
  report.struggling = struggles.length;
  step('struggling concepts listed with reasons and Maps links');
  // The screenshot: mastery over time, with the table of numbers open.
  await page.locator('.pg-series input[value="mastery_pct"]').check({ force: true });
  await page.getByText('The numbers, as a table').click();
  await page.locator('.pg-snapshots').waitFor();
  await shoot(page, 'progress-desktop.png');

  // The digest, written by the model on request; its call then shows in the usage.
  await page.goto(`${base}/#/progress`);
  await page.getByRole('button', { name: 'Write this week’s digest' }).click();
  await page.locator('.pg-digest-subject', { hasText: 'Your week in Pathwise' }).waitFor();
  await page.locator('.pg-digest').getByText('written by the model').waitFor();
  await page.reload();
  await page.locator('.pg-usage tbody th', { hasText: 'digest' }).waitFor();
  await page.getByRole('button', { name: 'Write this week’s digest' }).click();
  await page.locator('.pg-digest-subject').waitFor();
  await shoot(page, 'progress-portfolio-desktop.png');
  step('digest written on request, its model call counted');

  // Spacing: SM-2 to start with; FSRS chosen from the page, then fitted to the learner's
  // reviews; the page says what the API says (which parameters, and why).
  const spacing = page.locator('.pg-spacing');
  await spacing.locator('[data-scheduler="sm2"]').waitFor();
  await spacing.getByRole('button', { name: 'Use FSRS' }).click();
  await spacing.locator('[data-scheduler="fsrs"]').waitFor();
  same((await apiGet('/me/preferences')).srs_scheduler, 'fsrs', 'the scheduler chosen on the page');
  check((await spacing.locator('.pg-fsrs').textContent()).includes('not fitted yet'), 'parameters fitted before anyone asked');
  await spacing.getByRole('button', { name: 'Fit FSRS to my reviews now' }).click();
  await page.waitForFunction(() => !document.querySelector('.pg-spacing .pg-fsrs')?.textContent.includes('not fitted yet'));
  const fsrs = (await apiGet('/me/preferences')).fsrs;
  check(fsrs.fitted_at, 'the fit asked for on the page was not stored');
  same(await spacing.locator('.pg-fsrs').getAttribute('data-parameters'), fsrs.parameters, 'the parameters in use');
  const said = await spacing.locator('.pg-fsrs').textContent();
  check(fsrs.parameters === 'fitted' ? said.includes(`fitted on ${fsrs.fitted_on_reviews}`) : said.includes(fsrs.reason), `the page says “${said}” of ${JSON.stringify(fsrs)}`);
  report.fsrs = { parameters: fsrs.parameters, reviews: fsrs.reviews, reason: fsrs.reason };
  await spacing.screenshot({ path: `${artifacts}/progress-spacing.png` });
  await spacing.getByRole('button', { name: 'Use SM-2 instead' }).click();
  await spacing.locator('[data-scheduler="sm2"]').waitFor();
  step('reviews spaced by FSRS when chosen, its parameters fitted on request and shown');

  // Anki: a file that is not a package is refused on the card, saying why; a real package
  // (ANKI_PACKAGE, written by genanki) comes in, and the card says what it brought and left.
  const anki = page.locator('.pg-anki');
  expectedFailures.push('/me/anki-import');
  await anki.locator('#anki-input').setInputFiles({ name: 'notes.apkg', mimeType: 'application/octet-stream', buffer: Buffer.from('not a package') });
  await anki.locator('.anki-failed').waitFor();
  check((await anki.locator('.anki-failed').textContent()).includes('not an Anki package'), 'the refusal does not say why');
  if (process.env.ANKI_PACKAGE) {
    const mapsBefore = (await apiGet('/me/portfolio')).maps_total;
    await anki.locator('#anki-input').setInputFiles(process.env.ANKI_PACKAGE);
    await anki.locator('.anki-summary').waitFor();
    const shown = Number(await anki.locator('.anki-summary').getAttribute('data-answers'));
    same(shown, Number(process.env.ANKI_ANSWERS), 'the answers brought in');
    const decks = await anki.locator('.anki-decks a').allTextContents();
    same(decks, ['Languages', 'Languages::French'], 'the decks, each a map');
    await anki.locator('details summary').click();
    check(await anki.locator('[data-reason="manual"]').count() === 1, 'the rows left out are not listed with their reasons');
    same((await apiGet('/me/portfolio')).maps_total, mapsBefore + 2, 'the maps the import made');
    // The figures refresh with the decks' maps, and the card keeps its outcome.
    await page.locator('.pg-map-title', { hasText: 'Languages::French' }).waitFor();
    await anki.locator('.anki-summary').waitFor();
    await anki.screenshot({ path: `${artifacts}/progress-anki.png` });
    report.anki = { answers: shown, decks };
    step('an Anki package imported from the page, a file that is not one refused');
  }

  // A map with no snapshot stored still has today's point: its figures now.
  await page.goto(`${base}/#/progress/${freshId}`);
  await page.locator('.pg-chart svg circle.point').first().waitFor();
  await page.getByText('One snapshot so far').waitFor();
  check(await page.getByRole('button', { name: /snapshot/ }).count() === 0, 'a snapshot button on live figures');
  step('a map without history shows today\'s point');

  // An unknown map: the shared banner says why, the page says what to do.
  await page.goto(`${base}/#/progress/${unknownMap}`);
  await page.getByRole('heading', { name: 'Map not found' }).waitFor();
  check(await page.locator('#banner').isVisible(), 'no banner for the unknown map');
  report.not_found_banner = await page.locator('#banner-text').textContent();
  await page.locator('#banner-close').click();
  await page.goto(`${base}/#/progress/not-a-map`);
  await page.getByText('“not-a-map” is not a map’s address').waitFor();
  check(!(await page.locator('#banner').isVisible()), 'a malformed address went to the server');
  step('unknown map reported; a malformed address explained');

  // A lost connection: the banner says so, the page offers a retry that works once it is back.
  expectedFailures.push(`/mind-maps/${mapId}/analytics`);
  const analyticsUrl = new RegExp(`/api/mind-maps/${mapId}/analytics(\\?|$)`);
  await page.route(analyticsUrl, (r) => r.abort('connectionrefused'));
  await page.goto(`${base}/#/progress/${mapId}`);
  await page.getByText('This map’s progress could not be loaded.').waitFor();
  check(/Can't reach the server/.test(await page.locator('#banner-text').textContent()), 'the banner does not say the server is unreachable');
  await page.unroute(analyticsUrl);
  await page.getByRole('button', { name: 'Try again' }).click();
  await page.locator('.pg-chart svg circle.point').first().waitFor();
  step('lost connection reported, retried');

  // Phone width: the same map, nothing wider than the screen.
  const small = await onPhone(browser, page, timeout);
  small.on('pageerror', (e) => pageErrors.push(String(e)));
  await small.goto(`${base}/#/progress/${mapId}`);
  await small.locator('.pg-chart svg circle.point').first().waitFor();
  const widths = await small.evaluate(() => {
    const main = document.getElementById('main');
    const svgs = [...document.querySelectorAll('.pg-chart svg')].map((s) => s.getBoundingClientRect().right);
    const wide = [...main.querySelectorAll('*')].filter((n) => n.getBoundingClientRect().right > window.innerWidth + 1 && !n.closest('.pg-table-wrap'))
      .map((n) => n.className || n.tagName);
    return { page: document.documentElement.scrollWidth, main: main.scrollWidth, view: window.innerWidth, chartRight: Math.max(...svgs), wide };
  });
  report.phone = widths;
  check(widths.page <= widths.view && widths.main <= widths.view, `wider than the phone: ${JSON.stringify(widths)}`);
  check(widths.chartRight <= widths.view && widths.wide.length === 0, `sticks out at phone width: ${JSON.stringify(widths)}`);
  const phonePoints = await small.locator('.pg-chart svg circle').count();
  check(phonePoints === snapshots.length, `${phonePoints} points at phone width`);
  await shoot(small, 'progress-phone.png');
  // The portfolio's Anki card at phone width: its picker and outcome within the screen.
  await small.goto(`${base}/#/progress`);
  await small.locator('.pg-anki').waitFor();
  const card = await small.locator('.pg-anki').evaluate((c) => c.getBoundingClientRect().right);
  check(card <= widths.view + 1, `the Anki card sticks out at phone width: ${card} > ${widths.view}`);
  await small.locator('.pg-anki').screenshot({ path: `${artifacts}/progress-anki-phone.png` });
  step('phone width');

  // What the Progress page loads: the shell and the view's files, uncompressed.
  report.progress_page_bytes = await small.evaluate(() => performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))
    .filter((e) => !e.name.includes('/api/')).reduce((s, e) => s + (e.decodedBodySize || 0), 0));

  if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
  report.ok = true;
} catch (e) {
  await failed(report, e, page, 'progress');
}
await finish(report, browser);
