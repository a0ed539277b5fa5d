// The workspace in Firefox (Debian's firefox-esr, driven over WebDriver BiDi by
// puppeteer-core): signed in by itself, a tutor session with a drill checked, and every
// view opened at desktop and phone width without a script error. The last line printed is
// a JSON report for web_e2e.rs.
import puppeteer from 'puppeteer-core';

const base = process.env.BASE_URL;
// The one-time link `pathwise serve` printed: the first page signs in with it.
const signin = process.env.SIGNIN_URL;
const artifacts = process.env.ARTIFACTS;
const timeout = 20000;

const browser = await puppeteer.launch({
  browser: 'firefox',
  executablePath: process.env.FIREFOX,
  headless: true,
  protocolTimeout: 60000,
});
const report = { ok: false, steps: [] };
let page;
const step = (name) => report.steps.push(name);
const text = (s) => `::-p-text(${s})`;

try {
  page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  await page.setViewport({ width: 1280, height: 900 });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  report.user_agent = await browser.userAgent();

  await page.goto(signin);
  await page.locator(text('+ New session')).click();
  step('signed in');
  await page.locator(text('Arithmetic to linear equations')).click();
  await page.locator('#composer-input').fill('A drill on place value and whole numbers, please');
  await page.locator('form.composer button[type=submit]').click();
  const answer = await page.waitForSelector('section.card.drill input.answer:not([disabled])');
  await page.waitForSelector('section.card.drill math'); // the LaTeX as MathML, which Firefox draws natively
  await answer.type('42');
  await page.locator('section.card.drill button.primary').click();
  await page.waitForSelector(`section.card.drill ${text('Correct')}`);
  step('drill checked');
  await page.screenshot({ path: `${artifacts}/firefox-tutor.png` });

  for (const view of ['sessions', 'maps', 'progress']) {
    await page.goto(`${base}/#/${view}`);
    await page.waitForSelector(`#nav a[href="#/${view}"][aria-current="page"]`);
    await page.waitForSelector('#main h1, #main h2');
    await new Promise((r) => setTimeout(r, 300)); // let the view's first requests settle
    await page.screenshot({ path: `${artifacts}/firefox-${view}.png` });
    step(`${view} view`);
  }

  await page.setViewport({ width: 390, height: 844 });
  await page.goto(`${base}/#/tutor`);
  await page.waitForSelector('section.card.drill');
  await page.locator('#menu-btn').click();
  await page.waitForSelector('#sidebar.open');
  await new Promise((r) => setTimeout(r, 400)); // the drawer slides in
  await page.screenshot({ path: `${artifacts}/firefox-phone.png` });
  step('phone width');

  if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
  report.ok = true;
} catch (e) {
  report.error = String(e && e.stack || e);
  await page?.screenshot({ path: `${artifacts}/firefox-failure.png` }).catch(() => {});
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
process.exit(report.ok ? 0 : 1);
