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
