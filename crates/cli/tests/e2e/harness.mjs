// harness.mjs: what the Chromium scripts share: the browser launched headless, and the end
// of a run (the report printed as the last line for web_e2e.rs, a screenshot of the page
// where a step failed, the exit status).
import { chromium } from 'playwright-core';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launchChromium(extraArgs = []) {
  return chromium.launch({ executablePath: process.env.CHROMIUM, args: [...ARGS, ...extraArgs] });
}

// Record why a run failed, with the page as it was.
export async function failed(report, error, page, name) {
  report.error = String(error && error.stack || error);
  await page?.screenshot({ path: `${process.env.ARTIFACTS}/${name}-failure.png`, fullPage: true }).catch(() => {});
}

export async function finish(report, browser) {
  await browser.close();
  console.log(JSON.stringify(report));
  process.exit(report.ok ? 0 : 1);
}

// The same learner on a phone: a new page at 390x844 with touch, carrying over what `page`
// keeps in the browser's storage (token, open thread, unsent answers).
export async function onPhone(browser, page, timeout) {
  const saved = await page.evaluate(() => JSON.stringify(localStorage));
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await phone.addInitScript((items) => {
    for (const [k, v] of Object.entries(JSON.parse(items))) localStorage.setItem(k, v);
  }, saved);
  const small = await phone.newPage();
  small.setDefaultTimeout(timeout);
  return small;
}
