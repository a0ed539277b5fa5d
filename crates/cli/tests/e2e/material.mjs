// The Material view in Chromium: three files uploaded at once (FILES, one path a line): two
// are read, each with its progress bar run to the end, and a blank one is refused with its
// name. A course drafted from the two ("My network notes"), then reviewed: a unit renamed (the
// graph follows), a unit's passages removed (its problem shown, Publish disabled), that unit
// deleted (the next one, now with nothing leading to it, is flagged) and the next one linked
// to its predecessor (no problems left); the units' questions and drills drafted, a bronze
// key changed to a word its passage lacks (the problem shown) and back; published; taught:
// stuck after two wrong drills, the tutor's concept card cites its passage, which opens in
// the card; a cited passage opened in its document.
// Screenshots: material-uploads.png, material-review.png, material-problems.png,
// material-questions.png, material-computed.png, material-phone.png, tutor-sources.png,
// material-passage.png. The
// last line printed is a JSON report.
import { launchChromium, failed, finish, onPhone } from './harness.mjs';

const signin = process.env.SIGNIN_URL;
const artifacts = process.env.ARTIFACTS;
const files = process.env.FILES.split('\n');
const timeout = 15000;

const browser = await launchChromium();
const report = { ok: false, steps: [], uploads: {} };
let page;
const step = (name) => report.steps.push(name);
const pageErrors = [];
const check = (cond, what) => { if (!cond) throw new Error(`expected: ${what}`); };
const problemsHeading = () => page.locator('#problems-h').textContent();

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(timeout);
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // A refused request is expected only for the blank file.
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().includes('name=blank.md') && !r.url().endsWith('/favicon.ico')) pageErrors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });

  await page.goto(`${signin}#/material`);
  await page.getByRole('heading', { name: 'Your material' }).waitFor();
  step('material view');

  // ---- uploads, each with its progress and outcome
  await page.locator('#upload-input').setInputFiles(files);
  for (const path of files) {
    const name = path.split('/').pop();
    const row = page.locator(`.upload-log li[data-file="${name}"]`);
    await page.waitForFunction((n) => {
      const li = document.querySelector(`.upload-log li[data-file="${n}"]`);
      return li && (li.classList.contains('ok') || li.classList.contains('failed'));
    }, name);
    report.uploads[name] = {
      ok: await row.evaluate((li) => li.classList.contains('ok')),
      progress: await row.locator('progress').evaluate((p) => p.value),
      note: await row.locator('.small').textContent(),
    };
  }
  await page.locator('.doc-list li[data-document="routing.pdf"]').waitFor();
  check(await page.locator('.doc-list li[data-document]').count() === 2, 'two documents listed');
  await page.screenshot({ path: `${artifacts}/material-uploads.png`, fullPage: true });
  step('uploaded');

  // ---- a draft from both
  await page.locator('#draft-title').fill('My network notes');
  await page.getByRole('button', { name: 'Draft an outline' }).click();
  await page.waitForURL(/#\/material\/draft\/.+/);
  await page.locator('.unit-card').first().waitFor();
  const units = await page.locator('.unit-card').count();
  check(units === 6, `six units drafted (got ${units})`);
  // An outline alone is no course: each unit needs a question to earn, so drafting them is
  // the next step (the main button), and Publish waits.
  check(await problemsHeading() === '6 problems to fix', `a fresh outline lists its units without questions (${await problemsHeading()})`);
  check((await page.locator('.problems').textContent()).includes('has no exam question, so no tier can be earned'), 'each unit without a question is named');
  check((await page.locator('.problems .next-step').textContent()).startsWith('Next: draft questions and drills'), 'the next step is said');
  check(await page.getByRole('button', { name: 'Draft questions and drills' }).evaluate((b) => b.classList.contains('primary')), 'drafting questions is the main button');
  check(await page.getByRole('button', { name: 'Publish' }).isDisabled(), 'Publish waits for questions');
  check(await page.locator('.draft-graph g.node').count() === 6, 'the graph draws every unit');
  await page.screenshot({ path: `${artifacts}/material-review.png`, fullPage: true });
  step('drafted');

  // Renamed: saved (version 1), and the graph says so. Units are found by their ids: the
  // documents come in by name (routing.pdf, then subnets.md).
  const card = (id) => page.locator(`.unit-card[data-unit="${id}"]`);
  const masks = card('masks').locator('.unit-head input');
  await masks.fill('Subnet masks');
  await masks.press('Enter');
  await page.getByText(/^Version 1 ·/).waitFor();
  check((await page.locator('.draft-graph g.node[data-unit="masks"] text.label').textContent()).includes('Subnet masks'), 'the graph shows the new title');
  step('renamed');

  // Hosts without its passages: its problem is shown, and Publish waits.
  const hosts = card('hosts');
  while (await hosts.locator('.unit-passages li').count() > 0) {
    const before = await hosts.locator('.unit-passages li').count();
    await hosts.locator('.unit-passages li').first().getByRole('button', { name: 'Remove' }).click();
    await page.waitForFunction((n) => document.querySelector('.unit-card[data-unit="hosts"]').querySelectorAll('.unit-passages li').length === n - 1, before);
  }
  await page.locator('.problems.has-problems').waitFor();
  check((await page.locator('.problems').textContent()).includes("unit 'hosts' has no material"), 'the unit without material is named');
  check(await page.getByRole('button', { name: 'Publish' }).isDisabled(), 'Publish waits for the problems');
  await page.screenshot({ path: `${artifacts}/material-problems.png`, fullPage: true });
  step('problem shown');

  // Deleted: the unit after it has nothing leading to it, until it is linked.
  await page.getByRole('button', { name: 'Delete Hosts' }).click();
  await page.waitForFunction(() => document.querySelectorAll('.unit-card').length === 5);
  await page.waitForFunction(() => document.querySelector('.problems').textContent.includes("unit 'gateways' has no prerequisites"));
  await card('gateways').getByRole('checkbox', { name: 'Subnet masks' }).check();
  await page.waitForFunction(() => !document.querySelector('.problems').textContent.includes('has no prerequisites'));
  // A unit's passages are put in the order it teaches them.
  await card('masks').getByRole('button', { name: 'Move this passage down' }).first().click();
  await page.waitForFunction(() => document.querySelector('.unit-card[data-unit="masks"] .unit-passages li p')?.textContent.startsWith('The mask'));
  report.reordered = await card('masks').locator('.unit-passages li p').first().textContent();
  report.units_after_review = await page.locator('.unit-card').count();
  step('reviewed');

  // Questions and drills from the units' own passages, each citing its passage.
  await page.getByRole('button', { name: 'Draft questions and drills' }).click();
  await page.locator('.unit-card[data-unit="routing"] .question.tier-bronze').waitFor();
  report.questions = await page.locator('.question').count();
  report.drills = await page.locator('.unit-drills li').count();
  check(report.questions >= 3 && report.drills >= 3, 'questions and drills drafted');
  check(await problemsHeading() === 'No problems', 'drafted questions have no problems');
  // A key its passage lacks is a problem on that question; set back, it is gone.
  const bronze = card('routing').locator('.question.tier-bronze');
  const keyIndex = await bronze.locator('input[type=radio]').evaluateAll((rs) => rs.findIndex((r) => r.checked));
  const other = keyIndex === 0 ? 1 : 0;
  await bronze.locator('input[type=radio]').nth(other).check();
  await page.waitForFunction(() => document.querySelector('.problems').textContent.includes('is not in the passage it cites'));
  await page.screenshot({ path: `${artifacts}/material-questions.png`, fullPage: true });
  await card('routing').locator('.question.tier-bronze input[type=radio]').nth(keyIndex).check();
  await page.waitForFunction(() => document.querySelector('#problems-h').textContent === 'No problems');
  step('questions drafted');
  // The notes that work a subnet's first host: its unit gets the blueprint that computes
  // such drills, shown with a question it makes.
  const computed = card('gateways').locator('.unit-blueprints li[data-skill="NET.IP.SUBNET.FIRSTHOST"]');
  await computed.waitFor();
  report.computed = await computed.locator('strong').textContent();
  report.computed_sample = await computed.locator('p.muted').textContent();
  await computed.evaluate((li) => li.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: `${artifacts}/material-computed.png` });

  // A phone sees the same review.
  const phone = await onPhone(browser, page, timeout);
  await phone.goto(page.url());
  await phone.locator('.unit-card').first().waitFor();
  await phone.locator('.question textarea').first().waitFor();
  // The draft editor fits: nothing scrolls sideways, and each question's stem is read whole
  // (its box as tall as its text, within the width).
  const fits = await phone.evaluate(() => {
    const main = document.querySelector('#main');
    const stems = [...document.querySelectorAll('.question textarea')].map((t) => ({
      whole: t.scrollHeight <= t.clientHeight + 2, inside: t.getBoundingClientRect().right <= window.innerWidth + 1 }));
    const wide = [...document.querySelectorAll('#main *')].filter((n) => !n.closest('svg, .dag-scroll') && n.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 5).map((n) => `${n.tagName.toLowerCase()}.${n.className}`);
    return { page: document.documentElement.scrollWidth, main: [main.scrollWidth, main.clientWidth], stems, wide };
  });
  check(fits.page <= 392 && fits.main[0] <= fits.main[1] + 1 && !fits.wide.length, `the draft editor fits the phone: ${JSON.stringify(fits)}`);
  check(fits.stems.length > 0 && fits.stems.every((x) => x.whole && x.inside), `each question's stem is shown whole: ${JSON.stringify(fits.stems)}`);
  await phone.screenshot({ path: `${artifacts}/material-phone.png`, fullPage: true });
  await phone.close();

  // ---- published: a course of the learner's
  await page.getByRole('button', { name: 'Publish' }).click();
  await page.locator('#banner-text', { hasText: 'Published' }).waitFor();
  const courses = await page.evaluate(async () => {
    const r = await fetch('/api/courses', { headers: { Authorization: `Bearer ${localStorage.getItem('pw.token')}` } });
    return r.json();
  });
  const mine = courses.find((c) => c.id === 'MY-NETWORK-NOTES');
  check(mine, 'the published course is listed');
  report.published = { id: mine.id, units: mine.unitCount };
  step('published');

  // ---- taught from it: two wrong drills, then the concept card cites where it comes from
  await page.evaluate(async () => {
    const headers = { Authorization: `Bearer ${localStorage.getItem('pw.token')}`, 'Content-Type': 'application/json' };
    const post = async (path, body) => (await fetch(`/api${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
    const thread = await post('/tutor/threads', { courseId: 'MY-NETWORK-NOTES' });
    for (let i = 0; i < 2; i += 1) {
      const turn = await post(`/tutor/threads/${thread.id}/turn`, { clientEvent: { type: 'REQUEST_DRILL', unitId: 'routing' } });
      const drill = turn.messages.find((m) => m.card?.type === 'DRILL').card;
      await post(`/tutor/threads/${thread.id}/drill/grade`, { unitId: drill.unitId, drill, studentAnswer: 'no idea' });
    }
    await post(`/tutor/threads/${thread.id}/turn`, { clientEvent: { type: 'DRILL_CONTINUE', unitId: 'routing', lastResult: 'incorrect' } });
    localStorage.setItem('pw.thread', thread.id);
  });
  const materialUrl = page.url();
  await page.evaluate(() => { location.hash = '#/tutor'; });
  const concept = page.locator('.card.concept').last();
  await concept.locator('.sources summary').first().click();
  await concept.locator('.passage-text', { hasText: 'router forwards packets' }).waitFor();
  report.cited = await concept.locator('.sources cite').first().textContent();
  await page.screenshot({ path: `${artifacts}/tutor-sources.png` });
  step('taught with citations');
  await page.goto(materialUrl);
  await page.locator('.unit-passages a').first().waitFor();

  // A citation opens its passage in the document.
  const cite = page.locator('.unit-passages a').first();
  const citation = await cite.textContent();
  await cite.click();
  await page.locator('.passage.highlight').waitFor();
  check((await page.locator('.passage.highlight cite').textContent()) === citation, 'the highlighted passage is the one cited');
  await page.screenshot({ path: `${artifacts}/material-passage.png`, fullPage: true });
  step('passage opened');

  if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
  report.ok = true;
} catch (e) {
  await failed(report, e, page, 'material');
}
await finish(report, browser);
