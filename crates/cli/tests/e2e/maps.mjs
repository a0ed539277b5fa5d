// The Maps view in Chromium, on a 30-node map that web_e2e/maps.rs planned and partly
// learned "days ago" (MAP_ID; REVIEW_LABEL is one of its due reviews): the map is drawn with
// every node and the next concept highlighted; a concept's history opens by click and by
// keyboard; a due review is answered in place (it leaves the list, its node changes
// status); "Start a topic" on this server, which has no model, offers the outline instead;
// a pasted outline drawn as a map, one of its concepts studied by recall to a scheduled
// review, and the same outline again offered the map it already made.
// Screenshots at desktop and phone width. Measures, in the page (performance.now()): the
// render from navigation to nodes drawn, the time from a click to the history shown, and the
// time to record a review. The last line printed is a JSON report for web_e2e.rs.
import { launchChromium, failed, finish, onPhone } from './harness.mjs';

const base = process.env.BASE_URL;
// The one-time link `pathwise serve` printed: the first page signs in with it.
const signin = process.env.SIGNIN_URL;
const artifacts = process.env.ARTIFACTS;
const mapId = process.env.MAP_ID;
const reviewLabel = process.env.REVIEW_LABEL;
const timeout = 15000;

const browser = await launchChromium();
const report = { ok: false, steps: [] };
let page;
const step = (name) => report.steps.push(name);
const check = (cond, what) => { if (!cond) throw new Error(`expected: ${what}`); };
// The page's own measures (performance.measure in maps.js / reviews.js), in ms.
const measure = (p, name) => p.evaluate((n) => {
  const all = performance.getEntriesByName(n, 'measure');
  const last = all[all.length - 1];
  return last ? { start: last.startTime, duration: last.duration } : null;
}, name);
const round = (v) => Math.round(v * 10) / 10;
// Whether the whole drawing is in its box, nothing scrolled out of sight.
const fitted = (p) => p.evaluate(() => {
  const box = document.querySelector('.dag-scroll');
  return { fits: box.scrollWidth <= box.clientWidth + 1 && box.scrollHeight <= box.clientHeight + 1,
    box: [box.clientWidth, box.clientHeight], drawing: [box.scrollWidth, box.scrollHeight],
    zoom: document.querySelector('.zoom-label').textContent };
});

// Whether the map at fit can be read: its labels on screen about the size of the page's body
// text, and the next concept's ring inside the box (a map too big to read whole is shown in
// part, around the next concept, and scrolls).
const readableNow = (p) => p.evaluate(() => {
  const svg = document.querySelector('svg.dag');
  const scale = svg.width.baseVal.value / svg.viewBox.baseVal.width;
  const label = parseFloat(getComputedStyle(svg.querySelector('g.node text.label')).fontSize) * scale;
  const body = parseFloat(getComputedStyle(document.body).fontSize);
  const box = document.querySelector('.dag-scroll').getBoundingClientRect();
  const ring = svg.querySelector('.next-ring')?.getBoundingClientRect();
  const ringInView = !!ring && ring.width > 0 && ring.left >= box.left - 1 && ring.right <= box.right + 1
    && ring.top >= box.top - 1 && ring.bottom <= box.bottom + 1;
  return { ok: label >= 0.8 * body && ringInView, label_px: Math.round(label * 10) / 10, body_px: body, ring_in_view: ringInView,
    zoom: document.querySelector('.zoom-label').textContent };
});
// The map refits (and scrolls to the next concept) after the window changes, a frame or
// more later on a busy machine: readable within a few seconds, else the last reading.
async function readable(p) {
  let last;
  for (let i = 0; i < 50; i++) {
    last = await readableNow(p);
    if (last.ok) return last;
    await p.waitForTimeout(100);
  }
  return last;
}
// Whether the page keeps the navigation in view (nothing scrolls the document itself).
const navInView = (p) => p.evaluate(() => document.scrollingElement.scrollTop === 0
  && document.querySelector('.topbar').getBoundingClientRect().top === 0
  && document.documentElement.scrollHeight <= window.innerHeight + 1);

function watch(p, errors) {
  p.on('pageerror', (e) => errors.push(String(e)));
  p.on('console', (m) => {
    // A refused request (the expected 503) is logged by Chromium as a resource error; page
    // code errors are what this catches.
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
  });
}

const pageErrors = [];
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(timeout);
  watch(page, pageErrors);
  if (process.env.SCENARIO === 'loop') await learningLoop(page);
  else await mapView(page, pageErrors);
  if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
  report.ok = true;
} catch (e) {
  if (pageErrors.length) report.page_errors = pageErrors;
  await failed(report, e, page, 'maps');
}
await finish(report, browser);

// A topic round the loop with the fake model (web_e2e/maps.rs scripts its replies):
// diagnostic question answered, diagnostic finished early, map planned, concept taught,
// quiz answered, nothing due yet; a reload finds the topic where it was.
async function learningLoop(page) {
  await page.goto(`${signin}#/maps`);
  await page.getByLabel('Topic', { exact: true }).fill('Graphs');
  await page.getByLabel(/^Goal/).fill('shortest paths');
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await page.getByRole('heading', { name: 'Graphs' }).waitFor();
  await page.getByRole('button', { name: 'Start the diagnostic' }).click();
  const body = page.locator('.flow-step');
  await body.getByText('Which is true of Paths?').waitFor();
  await body.getByRole('button', { name: 'Answer' }).click();
  await body.getByText('Choose one of the answers first.').waitFor();
  await body.getByRole('radio', { name: 'right' }).check();
  await body.getByRole('button', { name: 'Answer' }).click();
  // The grade names the question it answers and sits outside the next question's card.
  const last = page.locator('.flow-last-answer');
  await last.getByText('Correct', { exact: true }).waitFor();
  await last.getByText('Which is true of Paths?').waitFor();
  await body.getByText('Which is true of Trees?').waitFor();
  check(!(await body.getByText('Correct', { exact: true }).count()), 'no grade on the card of the next question');
  await body.getByText('1 question answered.').waitFor();
  await page.screenshot({ path: `${artifacts}/maps-loop-graded-desktop.png`, fullPage: false });
  step('diagnostic question answered; its grade apart from the next question');
  await body.getByRole('button', { name: 'Finish the diagnostic now' }).click();
  await body.getByRole('button', { name: 'Plan my map' }).click();
  await body.getByText('Your map has 3 concepts and 2 prerequisite links.').waitFor();
  check(!(await last.count()) || !(await last.innerText()).trim(), 'no grade left from the diagnostic once the step moved on');
  step('planned');
  await body.getByRole('button', { name: 'Teach me the first concept' }).click();
  await body.getByText('Vertices are the points of a graph.').waitFor();
  await body.getByText('Edges join two of them.').waitFor();
  await page.screenshot({ path: `${artifacts}/maps-loop-desktop.png`, fullPage: false });
  step('taught');
  await body.getByRole('button', { name: 'Quiz me' }).click();
  await body.getByText('Which is true of Vertices?').waitFor();
  await body.getByRole('radio', { name: 'right' }).check();
  await body.getByRole('button', { name: 'Answer' }).click();
  await last.getByText('Correct', { exact: true }).waitFor();
  await last.getByText('Which is true of Vertices?').waitFor();
  check((await page.locator('.stepper li[aria-current="step"]').innerText()).includes('Review'), 'the loop is at review');
  step('quiz answered');
  await body.getByRole('button', { name: 'Review what is due' }).click();
  await body.getByText(/Nothing to review now; the next review is due/).waitFor();
  step('nothing due yet');
  await page.reload();
  await page.locator('.flow-step').getByRole('button', { name: 'Next concept' }).waitFor();
  step('reload resumed the loop');
  await page.getByRole('link', { name: 'Open the map' }).click();
  await page.waitForFunction(() => document.querySelectorAll('svg.dag g.node').length === 3);
  const vertices = page.locator('svg.dag g.node', { hasText: 'Vertices' });
  check(/Learning, mastery 80%/.test(await vertices.getAttribute('aria-label')), 'the quizzed concept is being learned, on the map');
  check((await fitted(page)).fits, 'the small map opens fitted');
  await page.screenshot({ path: `${artifacts}/maps-loop-map.png`, fullPage: false });
  step('the map shows the progress');

  // "Study this next" on a concept of a topic's map: the topic's loop teaches it.
  await page.locator('svg.dag g.node', { hasText: 'Edges' }).click();
  const details = page.locator('.node-details');
  await details.getByText('It builds on Vertices, not mastered yet: start with Vertices.').waitFor();
  await vertices.click();
  await details.getByRole('heading', { name: 'Vertices' }).waitFor();
  await details.getByRole('button', { name: 'Study this next' }).click();
  await page.getByText('Vertices, once more: the points that edges join.').waitFor();
  await page.locator('.flow-step').getByRole('heading', { name: 'Vertices' }).waitFor();
  check(/#\/maps\/topic\/[^/]+$/.test(page.url()), `the address is the topic's again: ${page.url()}`);
  check((await page.locator('.stepper li[aria-current="step"]').innerText()).includes('Teach'), 'the loop is teaching');
  await page.screenshot({ path: `${artifacts}/maps-loop-study-desktop.png`, fullPage: false });
  step('study this next: the topic teaches the concept chosen');
}

async function mapView(page, pageErrors) {
  // ---- the map, from a fresh navigation
  await page.goto(`${signin}#/maps/${mapId}`);
  const nodes = page.locator('svg.dag g.node');
  await page.waitForFunction(() => document.querySelectorAll('svg.dag g.node').length >= 30);
  report.nodes_drawn = await nodes.count();
  check(report.nodes_drawn === 30, `30 nodes drawn, got ${report.nodes_drawn}`);
  const render = await measure(page, 'maps:render');
  check(render, 'the page measured its render');
  report.render_from_navigation_ms = round(render.start + render.duration);
  report.render_in_view_ms = round(render.duration);
  report.edges_drawn = await page.locator('svg.dag path.edge').count();
  check(report.edges_drawn >= 29, 'edges drawn');
  step('30-node map drawn');
  // Thirty concepts are too many to read whole in the box: the map opens readable (labels
  // about the body text's size) around the next concept, says the rest scrolls, and stays
  // so when the window changes size; zoomed out it is whole, and Fit makes it readable again.
  const opened = await readable(page);
  check(opened.ok, `the map opens readable, the next concept in view: ${JSON.stringify(opened)}`);
  report.readable_desktop = opened;
  check(await page.locator('.fit-note').isVisible(), 'a note says the rest of the map scrolls');
  await page.setViewportSize({ width: 1000, height: 700 });
  await page.waitForFunction(() => document.querySelector('.dag-scroll').clientWidth < 700);
  check((await readable(page)).ok, 'readable again after a resize');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForFunction(() => document.querySelector('.dag-scroll').clientWidth > 700);
  check((await readable(page)).ok, 'readable again after a resize back');
  for (let i = 0; i < 4; i++) await page.getByRole('button', { name: 'Zoom out' }).click();
  check((await fitted(page)).fits, 'zoomed out, the whole map is in the box');
  check(!(await page.locator('.fit-note').isVisible()), 'no note once zoomed');
  await page.getByRole('button', { name: 'Fit the whole map' }).click();
  check((await readable(page)).ok, 'Fit makes it readable again');
  await page.screenshot({ path: `${artifacts}/maps-readable-desktop.png`, fullPage: false });
  step('the map opens readable, on opening and on resize');

  // Every node's status in words, the legend, and the next concept highlighted (and it is
  // the server's next node).
  const labels = await nodes.evaluateAll((gs) => gs.map((g) => g.getAttribute('aria-label')));
  check(labels.every((l) => /: (Not started|Diagnosed|Learning|Reviewing|Mastered), mastery \d+%/.test(l)), 'each node says its status');
  for (const word of ['Not started', 'Diagnosed', 'Learning', 'Reviewing', 'Mastered', 'Next to learn']) {
    await page.locator('.legend').getByText(word, { exact: false }).first().waitFor();
  }
  const next = page.locator('svg.dag g.node.next');
  check((await next.count()) === 1, 'exactly one next node');
  const nextId = await next.getAttribute('data-node-id');
  const serverNext = await page.evaluate(async (id) => {
    const r = await fetch(`/api/mind-maps/${id}/next-node`, { headers: { Authorization: `Bearer ${localStorage.getItem('pw.token')}` } });
    return (await r.json()).node?.id;
  }, mapId);
  check(nextId === serverNext, `the highlighted node is the server's next node (${nextId} vs ${serverNext})`);
  check(/next to learn/.test(await next.getAttribute('aria-label')), 'the next node says so');
  check((await page.locator('svg.dag g.node.st-mastered').count()) === 3, 'three mastered nodes');
  check((await page.locator('svg.dag g.node.due').count()) === 3, 'three nodes due for review');
  step('next node highlighted, statuses in words');

  // ---- a concept's details and history: click (measured), then keyboard
  const root = page.locator('svg.dag g.node', { hasText: 'Python programming' });
  await root.click();
  const details = page.locator('.node-details');
  await details.getByRole('heading', { name: 'Python programming' }).waitFor();
  await details.locator('.history-list li').first().waitFor();
  check((await details.locator('.history-list li').count()) === 4, 'four answers in the root\'s history');
  await details.locator('svg.qchart circle').nth(3).waitFor();
  const hist = await measure(page, 'maps:history-shown');
  report.click_to_history_ms = round(hist.duration);
  step('history opened by click');
  const strings = page.locator('svg.dag g.node', { hasText: 'Strings' });
  await strings.focus();
  await page.keyboard.press('Enter');
  await details.getByRole('heading', { name: 'Strings' }).waitFor();
  await details.getByText('Review due').waitFor();
  step('details opened from the keyboard');

  // "Study this next" on a concept whose prerequisites are not mastered offers the first
  // concept on the way to it that is ready.
  await page.locator('svg.dag g.node', { hasText: 'Recursion' }).click();
  await details.getByRole('heading', { name: 'Recursion' }).waitFor();
  await details.getByText('It builds on Functions, not mastered yet: start with Booleans.').waitFor();
  check(await details.getByRole('button', { name: 'Study Booleans next' }).isVisible(), 'the ready concept on the way is offered');
  await page.screenshot({ path: `${artifacts}/maps-study-desktop.png`, fullPage: false });
  step('a blocked concept offers what to study first');

  // ---- a due review answered in place
  const reviews = page.locator('.map-side .reviews li.review');
  await reviews.first().waitFor();
  check((await reviews.count()) === 3, 'three reviews due');
  const item = reviews.filter({ has: page.getByRole('heading', { name: reviewLabel, exact: true }) });
  await item.getByRole('textbox').fill('Integers and floats, with arithmetic');
  const node = page.locator('svg.dag g.node', { hasText: reviewLabel }).first();
  check(/Learning/.test(await node.getAttribute('aria-label')), `${reviewLabel} starts as learning`);
  // The connection drops on the first try: the page says so and keeps what was typed.
  await page.route('**/api/responses', (route) => route.abort('internetdisconnected'));
  await item.getByRole('button', { name: 'Good' }).click();
  await item.getByText('Not recorded. What you wrote is kept; try again.').waitFor();
  check((await item.getByRole('textbox').inputValue()) === 'Integers and floats, with arithmetic', 'the recall text is kept');
  await page.getByRole('alert').getByText(/reach the server/).waitFor();
  await page.unroute('**/api/responses');
  step('a lost connection keeps the answer');
  await item.getByRole('button', { name: 'Good' }).click();
  await item.waitFor({ state: 'detached' });
  check((await reviews.count()) === 2, 'the answered review left the list');
  await page.waitForFunction((label) => [...document.querySelectorAll('svg.dag g.node')]
    .some((g) => g.textContent.includes(label) && g.classList.contains('st-reviewing') && !g.classList.contains('due')), reviewLabel);
  check(/Reviewing/.test(await node.getAttribute('aria-label')), 'its node now says reviewing');
  await page.locator('.map-side [aria-live]').getByText(`${reviewLabel}: recorded as Good`).waitFor();
  const rev = await measure(page, 'maps:review-answered');
  report.review_answer_ms = round(rev.duration);
  await node.click();
  await details.getByText('Answer: Integers and floats, with arithmetic').waitFor();
  step('review answered in place; node recoloured');
  // The open concept is in the address: a reload shows it again.
  check(page.url().includes('/node/'), 'the selected concept is in the URL');
  await page.reload();
  await page.locator('.node-details').getByRole('heading', { name: reviewLabel, exact: true }).waitFor();
  await page.locator('svg.dag g.node.selected', { hasText: reviewLabel }).waitFor();
  step('reload kept the open concept');

  // Responsiveness with the map on screen: a burst of node selections.
  const burst = await page.evaluate(async () => {
    const gs = [...document.querySelectorAll('svg.dag g.node')];
    const t0 = performance.now();
    for (const g of gs) g.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await new Promise((r) => requestAnimationFrame(() => r()));
    return performance.now() - t0;
  });
  report.select_all_30_nodes_ms = round(burst);
  await page.locator('svg.dag g.node').first().click();
  await page.screenshot({ path: `${artifacts}/maps-desktop.png`, fullPage: false });
  step('desktop screenshot');

  // A map with no topic behind it: "Study this next" opens a learning session on the
  // concept, its matching skills chosen, ready to start.
  await page.goto(`${base}/#/maps/${mapId}`);
  await page.waitForFunction(() => document.querySelectorAll('svg.dag g.node').length >= 30);
  await page.locator('svg.dag g.node', { hasText: 'Strings' }).click();
  await details.getByRole('heading', { name: 'Strings', exact: true }).waitFor();
  await details.getByRole('button', { name: 'Study this next' }).click();
  await page.waitForURL(/#\/sessions$/);
  await page.getByRole('tab', { name: 'Learning', selected: true }).waitFor();
  await page.locator('.study-from-map').getByText('Strings', { exact: true }).waitFor();
  check((await page.locator('#learn-map').inputValue()) === mapId, 'the map is chosen');
  check((await page.locator('.concept').count()) === 1, 'only that concept');
  await page.locator('.concept .chip').first().waitFor();
  report.study_skills = await page.locator('.concept .chip span').allTextContents();
  await page.getByRole('button', { name: 'Start learning' }).click();
  await page.waitForURL(/#\/sessions\/.+/);
  await page.locator('form.widget').waitFor();
  await page.locator('.sess-text', { hasText: 'Let\'s practise Strings.' }).waitFor();
  await page.screenshot({ path: `${artifacts}/maps-study-session-desktop.png`, fullPage: false });
  step('study this next: a learning session on the concept');

  // A learning session with a wrong answer offers to practise the concept missed: a new
  // learning session on that concept alone, with its skills.
  await page.goto(`${base}/#/sessions`);
  await page.getByRole('tab', { name: 'Learning' }).click();
  await page.locator('#learn-map').selectOption(mapId);
  const operators = page.locator('.concept', { hasText: 'Arithmetic operators' });
  await operators.locator('select').selectOption('MATH.ARITH.ADD.1DIGIT');
  await page.locator('#learn-items').fill('2');
  await page.getByRole('button', { name: 'Start learning' }).click();
  await page.waitForURL(/#\/sessions\/.+/);
  const learningId = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/sessions\//, ''));
  for (let n = 1; n <= 2; n++) {
    const widget = page.locator(`form.widget[data-item-number="${n}"]`);
    await widget.waitFor();
    const prompt = (await widget.locator('.widget-prompt').textContent()).trim();
    const [, a, b] = prompt.match(/(\d+)\s*\+\s*(\d+)/);
    const labels = (await widget.locator('label.option').allTextContents()).map((t) => t.trim());
    const right = labels.indexOf(String(Number(a) + Number(b)));
    await widget.getByRole('radio').nth(n === 1 ? (right + 1) % labels.length : right).check();
    await widget.getByRole('button', { name: 'Submit answer' }).click();
    await widget.waitFor({ state: 'detached' });
  }
  const learned = page.locator('section.sess-results');
  await learned.getByText('1 of 2 items right.').waitFor();
  await learned.getByText('You missed 1 answer: practise it again in a new session.').waitFor();
  await learned.getByRole('button', { name: 'Practise what you missed' }).click();
  await page.waitForURL((u) => !u.hash.endsWith(learningId));
  await page.locator('form.widget').waitFor();
  const practiceView = await page.evaluate(async (id) => {
    const r = await fetch(`/api/session/${id}`, { headers: { Authorization: `Bearer ${localStorage.getItem('pw.token')}` } });
    return r.json();
  }, decodeURIComponent(new URL(page.url()).hash.replace(/^#\/sessions\//, '')));
  const concepts = Object.values(practiceView.config.item_templates);
  check(practiceView.session_type === 'learning' && concepts.length === 1 && concepts[0][0] === 'MATH.ARITH.ADD.1DIGIT',
    `a learning session on the concept missed: ${JSON.stringify(practiceView.config)}`);
  check(practiceView.title === 'Practice: Arithmetic operators', `titled by the concept: ${practiceView.title}`);
  await page.locator('.sess-text', { hasText: 'Let\'s practise Arithmetic operators.' }).waitFor();
  await page.screenshot({ path: `${artifacts}/maps-learning-practice-desktop.png`, fullPage: false });
  step('a learning session: practise what you missed');

  // ---- a course's map: a concept per unit of the course, no more, counted the same in
  // the map, the list and the tutor; "Study this next" on a unit asks the course's tutor
  // for a drill on it, and the tutor shows its tiers in words ("not yet").
  const units = Number(process.env.COURSE_UNITS);
  await page.goto(`${base}/#/maps/${process.env.COURSE_MAP_ID}`);
  await page.waitForFunction(() => document.querySelectorAll('svg.dag g.node').length > 0);
  check((await page.locator('svg.dag g.node').count()) === units, `a node per unit (${units})`);
  await page.locator('.map-summary').getByText(`0 of ${units} mastered`).waitFor();
  // A course's map counts its units' tiers beside the mastery, as the tutor does.
  await page.locator('.map-summary .tier-counts').getByText(`Tiers earned: 0 bronze · 0 silver · 0 gold, of ${units} units`).waitFor();
  check((await readable(page)).ok, `the course map opens readable: ${JSON.stringify(await readable(page))}`);
  await page.screenshot({ path: `${artifacts}/maps-course-desktop.png`, fullPage: false });
  const entry = page.locator('svg.dag g.node.next');
  const entryLabel = (await entry.locator('text.label').textContent()).trim();
  await entry.click();
  await details.getByRole('button', { name: 'Study this next' }).click();
  await page.waitForURL(/#\/tutor$/);
  await page.locator('.timeline .card').first().waitFor();
  report.course_study_card = (await page.locator('.timeline .card').last().innerText()).slice(0, 200);
  await page.locator('.badge.tier-none', { hasText: 'not yet' }).first().waitFor();
  const badges = await page.locator('.badge[class*="tier-"]').allTextContents();
  check(badges.every((b) => ['not yet', 'bronze', 'silver', 'gold'].includes(b.trim())), `tiers in words: ${badges.join(', ')}`);
  check(!(await page.getByText(`of ${units + 1}`).count()), 'no count of one more than the units');
  await page.screenshot({ path: `${artifacts}/maps-course-tutor-desktop.png`, fullPage: false });
  report.course_entry = entryLabel;
  step('a course map: a node per unit; study a unit with the tutor');

  // ---- the list page: maps with progress, topics, reviews; start a topic with no model
  await page.goto(`${base}/#/maps`);
  await page.locator('.map-item', { hasText: 'Python programming' }).getByText(/3 of 30 mastered/).waitFor();
  await page.locator('.map-item', { hasText: process.env.COURSE_TITLE }).getByText(`0 of ${units} mastered`).waitFor();
  await page.locator('.map-item .badge', { hasText: 'Active' }).first().waitFor();
  await page.locator('.maps-side .reviews li.review').nth(1).waitFor();
  check((await page.locator('.maps-side .reviews li.review').count()) === 2, 'two reviews left on the list page');
  await page.screenshot({ path: `${artifacts}/maps-list-desktop.png`, fullPage: false });
  // No model here: "Start a topic" offers the outline instead of a form that could only be
  // refused, in the learner's words (no setting, route or tool name).
  const offline = page.locator('.start-offline');
  await offline.getByText(/Paste the topic.s outline below instead/).waitFor();
  check((await page.getByLabel('Topic', { exact: true }).count()) === 0, 'no topic form without a model');
  const words = await page.locator('main, body').first().innerText();
  check(!/PATHWISE_|llm_base_url|\/api\/|_generate/.test(words), 'no settings, routes or tool names on the page');
  await page.screenshot({ path: `${artifacts}/maps-topic-desktop.png`, fullPage: false });
  step('without a model, a topic starts from an outline');

  const outline = '# Graph algorithms\n- Graphs\n  - Shortest paths (45 min)\n- Traversal\n';
  await page.getByLabel('Outline', { exact: true }).fill(outline);
  await page.getByRole('button', { name: 'Make the map' }).click();
  await page.waitForURL(/#\/maps\/[0-9a-f-]{36}$/);
  await page.waitForFunction(() => document.querySelectorAll('svg.dag g.node').length === 4);
  const outlineMap = page.url();
  step('a pasted outline drawn as a map');

  // Studied offline by recall: the concept, an answer in the learner's own words, what the
  // concept covers, a self-grade; the node moves and a review is scheduled.
  const outlineDetails = page.locator('.node-details');
  // The topic itself comes first: every concept of the outline builds on it.
  await page.locator('svg.dag g.node', { hasText: 'Graph algorithms' }).click();
  await outlineDetails.getByRole('heading', { name: 'Graph algorithms', exact: true }).waitFor();
  await outlineDetails.getByRole('button', { name: 'Study this next' }).click();
  const recall = outlineDetails.locator('.recall-study li.review');
  await recall.getByLabel(/Recall Graph algorithms/).fill('Procedures on vertices and edges: searching, shortest paths.');
  await recall.getByText('Check: what the concept covers').click();
  await page.screenshot({ path: `${artifacts}/maps-recall-desktop.png`, fullPage: false });
  await recall.getByRole('button', { name: 'Good', exact: true }).click();
  const done = outlineDetails.locator('.recall-done');
  await done.getByText(/Recorded as Good: Graph algorithms is now learning\. It comes back for review/).waitFor();
  const studied = page.locator('svg.dag g.node', { hasText: 'Graph algorithms' });
  check(/Learning/.test(await studied.getAttribute('aria-label')), 'the node moved on the map');
  await outlineDetails.getByText(/Next review/).waitFor();
  check(!/not scheduled/.test(await outlineDetails.locator('dl.facts').innerText()), 'a review is scheduled');
  await page.screenshot({ path: `${artifacts}/maps-recall-recorded-desktop.png`, fullPage: false });
  step('an outline concept studied by recall, offline, to a scheduled review');
  await page.goto(`${base}/#/maps`);
  await page.getByLabel('Outline', { exact: true }).fill(outline);
  await page.getByRole('button', { name: 'Make the map' }).click();
  await page.locator('#outline-err').getByText(/You have a map for “Graph algorithms” already/).waitFor();
  await page.getByRole('button', { name: 'Keep both' }).waitFor();
  await page.getByRole('link', { name: 'Open it' }).click();
  await page.waitForURL(outlineMap);
  step('the same outline again offered the map it made');

  // The Learning tab with no skill to attach: the outline's map studied by recall, each
  // concept ready to learn in turn, and a summary at the end.
  await page.goto(`${base}/#/sessions`);
  await page.getByRole('tab', { name: 'Learning' }).click();
  await page.locator('#learn-map option', { hasText: 'Graph algorithms' }).waitFor({ state: 'attached' });
  await page.selectOption('#learn-map', { label: 'Graph algorithms' });
  await page.locator('.concepts .concept').first().waitFor();
  await page.getByRole('button', { name: 'Start learning' }).click();
  const run = page.locator('.recall-study li.review').first();
  await run.getByLabel(/Recall Graph algorithms/).fill('Searching and measuring graphs.');
  await page.screenshot({ path: `${artifacts}/sessions-recall-desktop.png`, fullPage: false });
  // The same card at phone width: the answer box and the four ratings within the width.
  await page.setViewportSize({ width: 390, height: 844 });
  await run.getByRole('button', { name: 'Easy', exact: true }).waitFor();
  check(await page.evaluate(() => document.documentElement.scrollWidth <= 392), 'the recall card fits a phone');
  await page.screenshot({ path: `${artifacts}/sessions-recall-phone.png`, fullPage: false });
  await page.setViewportSize({ width: 1280, height: 900 });
  await run.getByRole('button', { name: 'Hard', exact: true }).click();
  await page.locator('.recall-study .recall-done', { hasText: /Graph algorithms: recorded as Hard/ }).waitFor();
  await page.locator('.recall-summary').getByText(/You studied \d+ concepts? by recall/).waitFor();
  await page.screenshot({ path: `${artifacts}/sessions-recall-done-desktop.png`, fullPage: false });
  report.learning_recall = await page.locator('.recall-summary').innerText();
  step('the Learning tab studies an outline map by recall, with no skill attached');

  // ---- phone width: the same learner, the map pannable and a node opened by touch
  const small = await onPhone(browser, page, timeout);
  watch(small, pageErrors);
  await small.goto(`${base}/#/maps/${mapId}`);
  await small.waitForFunction(() => document.querySelectorAll('svg.dag g.node').length >= 30);
  const onPhoneFit = await readable(small);
  check(onPhoneFit.ok, `the map is readable on the phone, the next concept in view: ${JSON.stringify(onPhoneFit)}`);
  report.readable_phone = onPhoneFit;
  check(await small.evaluate(() => document.documentElement.scrollWidth <= 392), 'the page itself does not scroll sideways');
  await small.screenshot({ path: `${artifacts}/maps-phone.png`, fullPage: false });
  // Turned sideways, it is fitted to the new width.
  await small.setViewportSize({ width: 844, height: 390 });
  await small.waitForFunction(() => document.querySelector('.dag-scroll').clientWidth > 500);
  check((await readable(small)).ok, 'readable again in landscape');
  await small.screenshot({ path: `${artifacts}/maps-phone-landscape.png`, fullPage: false });
  await small.setViewportSize({ width: 390, height: 844 });
  await small.waitForFunction(() => document.querySelector('.dag-scroll').clientWidth < 400);
  await small.getByRole('button', { name: 'Zoom in' }).tap();
  await small.getByRole('button', { name: 'Zoom in' }).tap();
  await small.locator('svg.dag g.node.next').tap();
  await small.locator('.node-details .history').waitFor();
  check(await navInView(small), 'opening a concept on the phone leaves the navigation in view');
  await small.locator('.node-details').getByRole('button', { name: /^Study .* next$/ }).waitFor();
  await small.locator('.node-details').screenshot({ path: `${artifacts}/maps-study-phone.png` });
  await small.goto(`${base}/#/maps/${process.env.COURSE_MAP_ID}`);
  await small.locator('.map-summary').getByText(`0 of ${units} mastered`).waitFor();
  await small.locator('.map-summary .tier-counts').waitFor();
  check((await readable(small)).ok, `the course map is readable on the phone: ${JSON.stringify(await readable(small))}`);
  await small.screenshot({ path: `${artifacts}/maps-course-phone.png`, fullPage: false });
  await small.goto(`${base}/#/maps`);
  await small.locator('.maps-side .reviews li.review').first().waitFor();
  check(await small.evaluate(() => document.documentElement.scrollWidth <= 392), 'the list page fits the phone');
  await small.screenshot({ path: `${artifacts}/maps-list-phone.png`, fullPage: false });
  step('phone width');
}
