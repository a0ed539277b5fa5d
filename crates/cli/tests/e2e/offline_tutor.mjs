// The whole offline path in Chromium, no model configured: the learner signs in, starts a
// session on the shipped math course, says what they want to learn (the tutor acknowledges
// it), answers the tutor's question, answers two drills right, takes the bronze check the
// policy opens, passes it and sees the tier; the answered cards' buttons are retired, and a
// drill asked for in words is answered from the message box. Drill keys come from the test's own endpoint
// (DRILL_KEYS), exam keys from EXAM_KEYS. Screenshots of each step at desktop width and the
// end at phone width. The last line printed is a JSON report for web_e2e.rs.
import { launchChromium, failed, finish, onPhone } from './harness.mjs';

const signin = process.env.SIGNIN_URL;
const artifacts = process.env.ARTIFACTS;
const drillKeys = process.env.DRILL_KEYS;
const examKeys = JSON.parse(process.env.EXAM_KEYS || '{}');
const timeout = 15000;

const browser = await launchChromium();
const report = { ok: false, steps: [] };
let page;
const step = (name) => report.steps.push(name);
const ensure = (cond, what) => { if (!cond) throw new Error(`expected: ${what}`); };
const shot = (name) => page.screenshot({ path: `${artifacts}/offline-${name}.png`, fullPage: true });
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(timeout);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));

  await page.goto(signin);
  await page.getByRole('button', { name: /New session/ }).click();
  await page.getByRole('button', { name: /Arithmetic to linear equations/ }).click();
  step('session started');

  const say = async (text) => {
    const before = await page.locator('article.msg.assistant').count();
    await page.getByLabel('Message to the tutor').fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('article.msg.assistant').nth(before).waitFor();
  };
  await say('I want to learn place value');
  await page.locator('article.msg.assistant p').getByText(/You asked about Place value and whole numbers/).waitFor();
  const words = await page.locator('#main').innerText();
  for (const internal of ['SnapshotLite', 'MATH-PV', 'undefined', 'null']) {
    if (words.includes(internal)) throw new Error(`the page shows an internal word: ${internal}`);
  }
  await shot('1-asked');
  step('words acknowledged');

  await say('Each place is worth ten times the place to its right');
  let drills = 0;
  for (;;) {
    const drill = page.locator('section.card.drill').last();
    await drill.locator('input.answer:enabled').waitFor();
    const id = await drill.getAttribute('data-drill-id');
    const key = await (await fetch(`${drillKeys}/drill-key/${id}`)).json();
    if (!key.answer) throw new Error(`no key for drill ${id}: ${JSON.stringify(key)}`);
    await drill.getByLabel('Your answer').fill(key.answer);
    await drill.getByRole('button', { name: 'Check Answer' }).click();
    await drill.getByText('Correct', { exact: true }).waitFor();
    drills += 1;
    step(`drill ${drills} right`);
    const check = drill.getByRole('button', { name: 'Take the bronze check' });
    if (await check.count()) {
      await page.locator('.panel-block.exam-check').getByText(/Take the bronze check/).waitFor();
      await shot('2-check-open');
      await check.click();
      break;
    }
    if (drills >= 4) throw new Error('the bronze check did not open after right drills in a row');
    await drill.getByRole('button', { name: 'Continue' }).click();
  }
  step('bronze check asked for');

  const exam = page.locator('section.card.exam').last();
  await exam.waitFor();
  const questionId = await exam.getAttribute('data-question-id');
  await exam.getByRole('radio').nth(examKeys[questionId]).check();
  await exam.getByRole('button', { name: 'Submit' }).click();
  await exam.getByText('Passed', { exact: true }).waitFor();
  await exam.getByText(/Mastery is now/).waitFor();
  const progress = page.locator('ul.progress li').first();
  await progress.getByText(/1 of 18/).waitFor();
  report.tier = (await exam.locator('.badge').last().innerText()).trim().toLowerCase();
  await shot('3-bronze');
  step('bronze earned');

  // Answered cards keep their buttons as a record, disabled: an old "Take the bronze check"
  // or "Continue" cannot be pressed after the learner moved on.
  const firstDrill = page.locator('section.card.drill').first();
  for (const name of ['Continue', 'Try another']) {
    const old = firstDrill.getByRole('button', { name, exact: true });
    if (await old.count()) ensure(await old.isDisabled(), `an answered drill's ${name} is disabled`);
  }
  step('answered cards retired');

  // Words asking for practice get a drill on the unit being learned; its answer typed in the
  // message box answers the drill (never read as a new topic).
  const drillsBefore = await page.locator('section.card.drill').count();
  await say('give me a drill');
  await page.locator('section.card.drill').nth(drillsBefore).waitFor();
  const asked = page.locator('section.card.drill').last();
  const placeholder = await page.getByLabel('Message to the tutor').getAttribute('placeholder');
  ensure(/answer to the drill above/i.test(placeholder), `the message box says where to answer: ${placeholder}`);
  const typedId = await asked.getAttribute('data-drill-id');
  const typedKey = await (await fetch(`${drillKeys}/drill-key/${typedId}`)).json();
  await page.getByLabel('Message to the tutor').fill(typedKey.answer);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await asked.getByText('Correct', { exact: true }).waitFor();
  ensure(!(await page.locator('#main').innerText()).includes('couldn\'t match'), 'the answer was not read as a topic');
  await shot('3b-typed-answer');
  step('a drill answered from the message box');

  const phone = await onPhone(browser, page, timeout);
  await phone.goto(new URL('/', signin).href);
  await phone.locator('section.card.exam').last().getByText('Passed', { exact: true }).waitFor();
  await phone.screenshot({ path: `${artifacts}/offline-4-phone.png`, fullPage: true });
  step('phone');

  if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
  report.ok = true;
} catch (e) {
  await failed(report, e, page, 'offline-tutor');
}
await finish(report, browser);
