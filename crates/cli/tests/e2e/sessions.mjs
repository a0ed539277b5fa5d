// Sessions in Chromium. (1) An evaluation to its score: the learner starts the library's
// arithmetic quiz from the page, sees the timer, answers every item through the choice
// widget (the right answer computed here from the item's text; items 2 and 5 answered
// wrongly on purpose), and the score shown equals both the count this script expects and
// the results the server holds. (2) A reload in the middle of a session: the same pending
// item comes back, the answer typed but not sent is still in the box, and the timer goes
// on counting down from the server's start time. (3) With the connection lost, an answer
// is not sent, the page says so and keeps it until it can be. Screenshots:
// sessions-desktop.png, sessions-phone.png, sessions-score.png. The last line printed is
// a JSON report for web_e2e.rs.
import { launchChromium, failed, finish, onPhone } from './harness.mjs';

const base = process.env.BASE_URL;
// The one-time link `pathwise serve` printed: the first page signs in with it.
const signin = process.env.SIGNIN_URL;
const artifacts = process.env.ARTIFACTS;
const timeout = 15000;
const WRONG_ON_PURPOSE = new Set([2, 5]);

const browser = await launchChromium();
const report = { ok: false, steps: [] };
let page;
const step = (name) => report.steps.push(name);
const pageErrors = [];

// "What is 41 + 27?" / "Find the difference: 83 - 19" -> 68 / 64
function solve(prompt) {
  const m = prompt.match(/(\d+)\s*([+\-−×÷])\s*(\d+)/);
  if (!m) throw new Error(`no arithmetic in "${prompt}"`);
  const [a, op, b] = [Number(m[1]), m[2], Number(m[3])];
  return { '+': a + b, '-': a - b, '−': a - b, '×': a * b, '÷': a / b }[op];
}

// The session as the server holds it, read with the page's own sign-in.
const sessionState = (p, id) => p.evaluate(async (sid) => {
  const r = await fetch(`/api/session/${sid}`, { headers: { Authorization: `Bearer ${localStorage.getItem('pw.token')}` } });
  return r.json();
}, id);
const timerSeconds = async (p) => Number(await p.locator('.sess-timer').getAttribute('data-seconds'));
const sessionId = (p) => decodeURIComponent(new URL(p.url()).hash.replace(/^#\/sessions\//, ''));

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(timeout);
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // A failed request is a page error unless the browser made it on its own (the icon).
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) pageErrors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });

  // ---- (1) an evaluation to its score
  const started = Date.now();
  await page.goto(`${signin}#/sessions`);
  await page.getByRole('tab', { name: 'Evaluation' }).waitFor();
  await page.getByRole('radio', { name: /Arithmetic quiz: addition and subtraction/ }).check();
  report.first_load_ms = Date.now() - started;
  step('assessments listed');
  await page.getByRole('button', { name: 'Start evaluation' }).click();
  await page.waitForURL(/#\/sessions\/.+/);
  const evalId = sessionId(page);
  const timer = page.locator('.sess-timer');
  await timer.waitFor();
  const firstTimer = await timer.textContent();
  if (!/^\d+:\d\d left$/.test(firstTimer)) throw new Error(`timer reads "${firstTimer}"`);
  report.timer_at_start = firstTimer;
  step('timer visible');

  let total = null, expectedCorrect = 0, answered = 0;
  for (let n = 1; total === null || n <= total; n++) {
    const widget = page.locator(`form.widget[data-item-number="${n}"]`);
    await widget.waitFor();
    const progress = await page.locator('.sess-progress').textContent();
    const m = progress.match(/Item (\d+) of (\d+)/);
    if (!m || Number(m[1]) !== n) throw new Error(`progress reads "${progress}" at item ${n}`);
    total = Number(m[2]);
    const prompt = (await widget.locator('.widget-prompt').textContent()).trim();
    const right = String(solve(prompt));
    const labels = (await widget.locator('label.option').allTextContents()).map((t) => t.trim());
    const rightIndex = labels.indexOf(right);
    if (rightIndex < 0) throw new Error(`"${prompt}": ${right} is not among ${labels.join(', ')}`);
    const pick = WRONG_ON_PURPOSE.has(n) ? (rightIndex + 1) % labels.length : rightIndex;
    if (pick === rightIndex) expectedCorrect += 1;
    await widget.getByRole('radio').nth(pick).check();
    if (n === 3) await page.screenshot({ path: `${artifacts}/sessions-desktop.png`, fullPage: false });
    await widget.getByRole('button', { name: 'Submit answer' }).click();
    await widget.waitFor({ state: 'detached' });
    answered += 1;
  }
  step(`answered ${answered} items, ${expectedCorrect} right`);

  const results = page.locator('section.sess-results');
  await results.waitFor();
  const shown = (await results.locator('.sess-score').textContent()).trim();
  const percentShown = (await results.locator('.score-percent').textContent()).trim();
  const server = await sessionState(page, evalId);
  const r = server.results;
  if (server.status !== 'completed' || !r) throw new Error(`the session is ${server.status}: ${JSON.stringify(server)}`);
  if (shown !== `${r.score} / ${r.max_score}`) throw new Error(`the page shows ${shown}; the server says ${r.score} / ${r.max_score}`);
  if (percentShown !== `(${r.percent}%)`) throw new Error(`the page shows ${percentShown}; the server says ${r.percent}%`);
  if (r.items_correct !== expectedCorrect || r.items_answered !== answered) {
    throw new Error(`expected ${expectedCorrect} of ${answered} right; the server scored ${r.items_correct} of ${r.items_answered}`);
  }
  const wrongRows = await results.locator('.sess-items li.bad').count();
  if (wrongRows !== answered - expectedCorrect) throw new Error(`${wrongRows} items are marked wrong`);
  if (await timer.isVisible()) throw new Error('the timer still shows after the end');
  report.score_shown = shown;
  report.server_results = { score: r.score, max_score: r.max_score, percent: r.percent, items_correct: r.items_correct };
  await results.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${artifacts}/sessions-score.png`, fullPage: true });
  step('score equals the server results');

  // ---- (1b) practise what you missed: the two items answered wrong come back as fresh
  // items of the same skills, in a session of their own
  await results.getByText(`You missed 2 items: practise them again in a new session.`).waitFor();
  await results.getByText(`${expectedCorrect} of ${answered} items correct.`).waitFor();
  await results.getByRole('button', { name: 'Practise what you missed' }).click();
  await page.waitForURL((u) => !u.hash.endsWith(evalId));
  const practiceId = sessionId(page);
  const practice = await sessionState(page, practiceId);
  if (practice.config.missed_in !== evalId || practice.title !== `Practice: ${server.title}`) throw new Error(`the practice is ${JSON.stringify(practice)}`);
  for (let n = 1; n <= 2; n++) {
    const widget = page.locator(`form.widget[data-item-number="${n}"]`);
    await widget.waitFor();
    const progress = await page.locator('.sess-progress').textContent();
    if (progress !== `Item ${n} of 2`) throw new Error(`the practice's progress reads "${progress}"`);
    const prompt = (await widget.locator('.widget-prompt').textContent()).trim();
    const labels = (await widget.locator('label.option').allTextContents()).map((t) => t.trim());
    await widget.getByRole('radio').nth(labels.indexOf(String(solve(prompt)))).check();
    await widget.getByRole('button', { name: 'Submit answer' }).click();
    await widget.waitFor({ state: 'detached' });
  }
  const practised = page.locator('section.sess-results');
  await practised.getByText('2 of 2 items correct.').waitFor();
  await practised.getByText('Nothing missed, so nothing to practise again.').waitFor();
  if (await practised.getByRole('button', { name: 'Practise what you missed' }).count()) throw new Error('nothing to practise, yet offered');
  await page.screenshot({ path: `${artifacts}/sessions-practice-desktop.png`, fullPage: true });
  report.practice = { id: practiceId, items: 2 };
  step('practised what was missed');

  // ---- (2) a reload in the middle of a session resumes it
  await page.goto(`${base}/#/sessions`);
  // Python basics presents its items in a fixed order, all written in the code editor.
  await page.getByRole('radio', { name: /Python basics/i }).check();
  await page.getByRole('button', { name: 'Start evaluation' }).click();
  await page.waitForURL(/#\/sessions\/.+/);
  const netId = sessionId(page);
  if (netId === evalId) throw new Error('no new session');
  const box = page.locator('form.widget[data-item-number="1"]');
  await box.waitFor();
  if ((await box.getAttribute('data-tool')) !== 'present_code_editor') throw new Error('the Python quiz did not open in the code editor');
  const callId = await box.getAttribute('data-call-id');
  const prompt = await box.locator('.widget-prompt').textContent();
  const typed = 'def solve(text):\n    return len(text)  # not sent yet';
  await box.getByRole('textbox').fill(typed);
  const before = await timerSeconds(page);
  await page.waitForTimeout(2200);
  await page.reload();
  const again = page.locator('form.widget');
  await again.waitFor();
  if ((await again.getAttribute('data-call-id')) !== callId) throw new Error('a different item after the reload');
  if ((await again.locator('.widget-prompt').textContent()) !== prompt) throw new Error('a different prompt after the reload');
  const kept = await again.getByRole('textbox').inputValue();
  if (kept !== typed) throw new Error(`the typed answer reads "${kept}" after the reload`);
  await page.locator('.sess-timer').waitFor();
  const after = await timerSeconds(page);
  const state = await sessionState(page, netId);
  if (!(after < before && after > 0)) throw new Error(`the timer went from ${before} s to ${after} s over a reload`);
  if (Math.abs(after - state.time_remaining_seconds) > 2) throw new Error(`the timer shows ${after} s; the server says ${state.time_remaining_seconds} s`);
  if (state.pending?.tool_call_id !== callId) throw new Error('the server waits on another call');
  report.reload = { timer_before: before, timer_after: after, server_seconds_left: state.time_remaining_seconds };
  step('reload resumed the same item with the typed answer and the timer');

  // The session is in the list, open sessions first.
  const first = page.locator('.sess-list a').first();
  if ((await first.getAttribute('href')) !== `#/sessions/${netId}`) throw new Error('the open session is not first in the list');
  step('open session listed first');

  // The same learner on a phone, mid-session.
  const small = await onPhone(browser, page, timeout);
  small.on('pageerror', (e) => pageErrors.push(String(e)));
  await small.goto(`${base}/#/sessions/${netId}`);
  await small.locator('form.widget').waitFor();
  if ((await small.getByRole('textbox').inputValue()) !== typed) throw new Error('the typed answer is not on the phone');
  const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 0) throw new Error(`the phone layout is ${overflow}px too wide`);
  await small.screenshot({ path: `${artifacts}/sessions-phone.png`, fullPage: false });
  // The first evaluation's results on the phone, with what to practise.
  await small.goto(`${base}/#/sessions/${evalId}`);
  await small.getByRole('button', { name: 'Practise what you missed' }).waitFor();
  const tooWide = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (tooWide > 0) throw new Error(`the results are ${tooWide}px too wide on the phone`);
  await small.getByRole('button', { name: 'Practise what you missed' }).scrollIntoViewIfNeeded();
  await small.screenshot({ path: `${artifacts}/sessions-results-phone.png`, fullPage: false });
  step('phone width');

  // A lost connection: the answer is not sent, the page says so and keeps it; once the
  // connection is back the same answer goes and the next item comes.
  const number = Number(await again.getAttribute('data-item-number'));
  await context.setOffline(true);
  await again.getByRole('button', { name: 'Submit answer' }).click();
  await again.locator('.form-error').filter({ hasText: "can't reach the server" }).waitFor();
  if ((await again.getByRole('textbox').inputValue()) !== typed) throw new Error('the typed answer was lost with the connection');
  await context.setOffline(false);
  await again.getByRole('button', { name: 'Submit answer' }).click();
  await page.locator(`form.widget[data-item-number="${number + 1}"], section.sess-results`).first().waitFor();
  const sent = await page.locator('.sess-answered').last().textContent();
  if (!sent.includes(typed)) throw new Error(`the log shows "${sent}" as the answer sent`);
  step('an answer kept over a lost connection, then sent');

  // Another reload: the answer sent before comes back in the log, read from the session's
  // conversation, and the next item waits.
  await page.reload();
  await page.locator(`form.widget[data-item-number="${number + 1}"]`).waitFor();
  const replayed = await page.locator('.sess-answered').evaluateAll((items) => items.map((n) => n.textContent));
  if (replayed.length !== number || !replayed[number - 1].includes('return len(text)')) throw new Error(`the log after a reload holds ${JSON.stringify(replayed)}`);
  step('earlier answers shown again after a reload');

  if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
  report.ok = true;
} catch (e) {
  if (pageErrors.length) report.page_errors = pageErrors;
  await failed(report, e, page, 'sessions');
}
await finish(report, browser);
