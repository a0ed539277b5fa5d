// What can go wrong around the tutor, in Chromium: voice input (record with a fake
// microphone, transcribed by the fake model server, checked in the composer, then sent), a
// lost connection, a server error and an expired token, none of which loses what the learner
// typed; then the figures: the first load's size (as sent, compressed, and unpacked) and
// the workspace's responsiveness with a 200-message thread. The last line printed is a JSON
// report for web_e2e.rs.
import { launchChromium, failed, finish } from './harness.mjs';

const base = process.env.BASE_URL;
// The one-time link `pathwise serve` printed: the first page signs in with it.
const signin = process.env.SIGNIN_URL;
const artifacts = process.env.ARTIFACTS;
const transcript = process.env.TRANSCRIPT;
const timeout = 15000;

const browser = await launchChromium(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream']);
const report = { ok: false, steps: [] };
let page;
const step = (name) => report.steps.push(name);
const messages = () => page.locator('.timeline article.msg');
const composer = () => page.getByLabel('Message to the tutor');
const send = () => page.getByRole('button', { name: 'Send', exact: true }).click();
const banner = () => page.locator('#banner');

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['microphone'], { origin: base });
  page = await context.newPage();
  page.setDefaultTimeout(timeout);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));

  // ---- first load: every file of the page, as sent and as unpacked
  const loaded = [];
  page.on('response', (r) => { if (new URL(r.url()).pathname.match(/^\/($|assets\/)/)) loaded.push(r); });
  await page.goto(signin);
  await page.getByRole('button', { name: /New session/ }).waitFor();
  await page.waitForLoadState('networkidle');
  let sent = 0, unpacked = 0;
  for (const r of loaded) {
    sent += (await r.request().sizes()).responseBodySize;
    unpacked += (await r.body()).length;
    if (!/gzip|br|zstd/.test((await r.allHeaders())['content-encoding'] ?? '')) throw new Error(`${r.url()} was sent uncompressed`);
  }
  report.first_load = { files: loaded.length, sent_bytes: sent, unpacked_bytes: unpacked };
  if (unpacked >= 300 * 1024) throw new Error(`the first load is ${unpacked} bytes unpacked (target < 300 KB)`);
  step('first load measured');

  await page.getByRole('button', { name: /New session/ }).click();
  await page.getByRole('button', { name: /Arithmetic to linear equations/ }).click();
  await composer().waitFor();
  step('session started');

  // ---- voice: record, transcribe, check in the composer (nothing sent yet), then send
  const voice = page.getByRole('button', { name: 'Voice' });
  await voice.click();
  await page.getByRole('button', { name: /^Stop \d/ }).waitFor();
  await page.waitForTimeout(1500);
  await page.getByRole('button', { name: /^Stop \d/ }).click();
  await page.getByText(/check it, correct it if needed, then press Send/).waitFor();
  if ((await composer().inputValue()) !== transcript) throw new Error(`composer holds "${await composer().inputValue()}"`);
  if ((await messages().count()) !== 0) throw new Error('a transcript was sent without the learner');
  await send();
  await page.locator('.timeline article.msg.user').getByText(transcript).waitFor();
  await page.locator('.timeline article.msg.assistant').first().waitFor();
  step('voice transcribed, confirmed, sent');

  // ---- a lost connection keeps the typed message and says how to recover
  const typed = 'What is the place value of 7 in 3,742?';
  await composer().fill(typed);
  await context.setOffline(true);
  await send();
  await banner().getByText(/Can.t reach the server/).waitFor();
  if ((await composer().inputValue()) !== typed) throw new Error('the typed message was lost offline');
  await context.setOffline(false);
  step('offline: banner, text kept');

  // ---- a server error: its message is shown, the text is kept
  await page.route('**/api/tutor/threads/*/turn', (route) => route.fulfill({ status: 500, contentType: 'application/json',
    body: JSON.stringify({ error: { code: 'internal', message: 'the server failed; the error is logged', details: {} } }) }));
  await send();
  await banner().getByText(/the server failed; the error is logged/).waitFor();
  if ((await composer().inputValue()) !== typed) throw new Error('the typed message was lost on a server error');
  await page.unroute('**/api/tutor/threads/*/turn');
  step('server error: banner, text kept');

  // ---- an expired token: sign in again, the text is still there, and sending works
  await page.evaluate(() => localStorage.setItem('pw.token', 'pw_expired'));
  await send();
  await page.getByText(/no longer valid/).waitFor();
  await page.getByLabel('Learner token').fill(process.env.LOCAL_TOKEN);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await composer().waitFor();
  if ((await composer().inputValue()) !== typed) throw new Error('the typed message was lost when signing in again');
  const before = await messages().count();
  await send();
  await messages().nth(before + 1).waitFor();
  if (await composer().inputValue()) throw new Error('the composer kept a message that was sent');
  step('expired token: signed in again, text kept and sent');

  // ---- a 200-message thread: open it, then a turn with all of it in the page
  const token = await page.evaluate(() => localStorage.getItem('pw.token'));
  const call = async (method, path, body) => {
    const r = await fetch(`${base}/api${path}`, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body && JSON.stringify(body) });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  const thread = await call('POST', '/tutor/threads', { courseId: 'MATH-FOUNDATIONS', title: 'A long conversation' });
  for (let i = 0; i < 100; i++) await call('POST', `/tutor/threads/${thread.id}/turn`, { messageText: `Question ${i + 1}: what is ${i} times 7?`, clientEvent: { type: 'NONE' } });
  await page.evaluate((id) => localStorage.setItem('pw.thread', id), thread.id);
  const opening = Date.now();
  await page.reload();
  await page.locator('.timeline article.msg').nth(199).waitFor();
  report.thread_200 = { open_ms: Date.now() - opening, messages: await messages().count() };
  if (report.thread_200.messages !== 200) throw new Error(`${report.thread_200.messages} messages shown, not 200`);
  const t0 = Date.now();
  await composer().fill('One more question about place value');
  await send();
  await messages().nth(201).waitFor();
  report.thread_200.turn_ms = Date.now() - t0;
  // Input latency with the long thread in the page: a key press to the next frame.
  report.thread_200.keypress_to_frame_ms = await page.evaluate(async () => {
    const area = document.getElementById('composer-input');
    area.focus();
    const samples = [];
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      area.value += 'x';
      area.dispatchEvent(new Event('input'));
      await new Promise((resolve) => requestAnimationFrame(() => resolve()));
      samples.push(performance.now() - start);
    }
    samples.sort((a, b) => a - b);
    return Math.round(samples[10] * 10) / 10;
  });
  report.thread_200.dom_nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  await page.screenshot({ path: `${artifacts}/tutor-200-messages.png` });
  step('200-message thread');

  if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
  report.ok = true;
} catch (e) {
  await failed(report, e, page, 'resilience');
}
await finish(report, browser);
