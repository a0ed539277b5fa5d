// A full tutor loop in Chromium: the local learner is signed in by itself, starts a session
// on the shipped math course, asks for practice, answers two drills right (Check Answer ->
// Continue), gets an exam question, answers it wrongly and sees the lockout countdown; the
// page is reloaded and the thread comes back. Screenshots at desktop and phone width. The
// last line printed is a JSON report for web_e2e.rs.
import { launchChromium, failed, finish, onPhone } from './harness.mjs';

const base = process.env.BASE_URL;
// The one-time link `pathwise serve` printed: the first page signs in with it.
const signin = process.env.SIGNIN_URL;
const artifacts = process.env.ARTIFACTS;
const keys = JSON.parse(process.env.EXAM_KEYS || '{}');
const timeout = 15000;

const browser = await launchChromium();
const report = { ok: false, steps: [] };
let page;
const step = (name) => report.steps.push(name);
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(timeout);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));

  const started = Date.now();
  await page.goto(signin);
  await page.getByRole('button', { name: /New session/ }).click();
  if (new URL(page.url()).search !== '') throw new Error(`the sign-in code stays in the address bar: ${page.url()}`);
  report.first_load_ms = Date.now() - started;
  step('signed in');
  // The link signs in once: another browser that opens it again gets the sign-in form, saying why.
  const elsewhere = await browser.newContext();
  const again = await elsewhere.newPage();
  await again.goto(signin);
  await again.getByText(/used already/).waitFor();
  await again.getByLabel('Learner token').waitFor();
  await again.screenshot({ path: `${artifacts}/signin-link-used.png` });
  await elsewhere.close();
  step('the sign-in link signs in once');
  await page.getByRole('button', { name: /Arithmetic to linear equations/ }).click();
  step('session started');

  await page.getByLabel('Message to the tutor').fill('A drill on place value and whole numbers, please');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  for (let i = 0; i < 2; i++) {
    await page.locator('section.card.drill input.answer:enabled').last().waitFor();
    const drill = page.locator('section.card.drill').last();
    if (i === 0) {
      await drill.locator('math').first().waitFor(); // the LaTeX, as MathML from the server
      step('math rendered');
    }
    await drill.getByLabel('Your answer').fill('42');
    await drill.getByRole('button', { name: 'Check Answer' }).click();
    await drill.getByText('Correct', { exact: true }).waitFor();
    await drill.getByRole('button', { name: 'Continue' }).click();
    step(`drill ${i + 1} right`);
  }

  const exam = page.locator('section.card.exam').last();
  await exam.waitFor();
  const questionId = await exam.getAttribute('data-question-id');
  const correct = keys[questionId];
  const wrong = correct === 0 ? 1 : 0;
  await exam.getByRole('radio').nth(wrong).check();
  await exam.getByRole('button', { name: 'Submit' }).click();
  await exam.getByText(/Locked for 24h/).waitFor();
  await exam.getByText(/Available in/).waitFor();
  const submit = exam.locator('button', { hasText: 'Submit' });
  if ((await submit.count()) > 0 && (await submit.first().isEnabled())) throw new Error('Submit stays enabled while locked');
  step('exam locked');
  await page.screenshot({ path: `${artifacts}/tutor-desktop.png`, fullPage: true });

  await page.reload();
  await page.locator('section.card.exam').last().getByText(/Available in/).waitFor();
  // Answered cards come back answered, their answers folded into them as they were live.
  const drills = page.locator('section.card.drill');
  for (let i = 0; i < 2; i++) {
    await drills.nth(i).getByText('Correct', { exact: true }).waitFor();
    if (!(await drills.nth(i).getByLabel('Your answer').isDisabled())) throw new Error('a graded drill is answerable again');
    if ((await drills.nth(i).getByLabel('Your answer').inputValue()) !== '42') throw new Error('a graded drill lost its answer');
  }
  if (await drills.locator('button').count()) throw new Error('a settled drill still offers buttons');
  if (await page.locator('.timeline article.msg.user', { hasText: /^\s*(You said:)?\s*42\s*$/ }).count()) throw new Error('a drill answer shows as a message');
  step('reload resumed the thread, answered cards answered');

  // The same learner on a phone: the page's saved state (token, open thread) carried over.
  const small = await onPhone(browser, page, timeout);
  await small.goto(`${base}/`);
  await small.locator('section.card.exam').last().getByText(/Available in/).waitFor();
  await small.screenshot({ path: `${artifacts}/tutor-phone.png`, fullPage: false });
  step('phone width');

  if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
  report.ok = true;
} catch (e) {
  await failed(report, e, page, 'tutor');
}
await finish(report, browser);
