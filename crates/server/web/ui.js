// ui.js: small DOM helpers, the error banner, the busy lock and countdowns.
import { ApiError, NetworkError } from './api.js';

// el('button', {class: 'primary', onclick: fn}, 'Send')
export function el(tag, attrs = {}, ...kids) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
    else if (k === 'class') n.className = v;
    else if (k === 'text') n.textContent = v;
    else n.setAttribute(k, v === true ? '' : v);
  }
  for (const kid of kids.flat()) if (kid != null && kid !== false) n.append(kid);
  return n;
}

// svgEl('rect', {width: 10}): el for SVG's namespace (attributes set as given).
export function svgEl(tag, attrs = {}, ...kids) {
  const n = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) if (v != null) n.setAttribute(k, v);
  for (const k of kids.flat()) if (k != null) n.append(k);
  return n;
}

// Like node.replaceChildren, but skips null/false (replaceChildren would print "null").
export function fill(node, ...kids) { node.replaceChildren(...kids.flat().filter((k) => k != null && k !== false)); return node; }

export function showBanner(msg, kind = 'error') {
  const b = document.getElementById('banner');
  document.getElementById('banner-text').textContent = msg;
  b.className = `banner ${kind}`;
  b.hidden = false;
}
export function hideBanner() { document.getElementById('banner').hidden = true; }

// Show an error from api(); 401s are handled by app.js (sign-in form).
export function reportError(e) {
  if (e instanceof ApiError && e.status === 401) return;
  if (e instanceof NetworkError) showBanner(e.message);
  else if (e instanceof ApiError) showBanner(`${e.message} (${e.code})`);
  else { console.error(e); showBanner(`Something went wrong in the page: ${e.message}. Reload to recover.`); }
}

// Run an async action with every enabled button in #main disabled (no double sends).
let busy = false;
export const isBusy = () => busy;
// `waitNote`: shown, with the seconds so far, when the action takes more than a moment
// (what it waits for, and how long that can last).
export async function withBusy(fn, waitNote = null) {
  if (busy) return undefined;
  busy = true;
  document.body.classList.add('busy');
  const locked = [...document.querySelectorAll('#main button:not([disabled]), #main input:not([disabled]), #main textarea:not([disabled])')];
  locked.forEach((b) => { b.disabled = true; });
  const stopWaiting = waitNote ? showWait(waitNote) : () => {};
  try { return await fn(); }
  catch (e) { reportError(e); return undefined; }
  finally {
    stopWaiting();
    locked.forEach((b) => { if (b.isConnected && !b.dataset.keepDisabled) b.disabled = false; });
    busy = false;
    document.body.classList.remove('busy');
  }
}

// A status line in #main after two seconds: "Waiting… 12 s. <note>", until stopped.
function showWait(note) {
  const started = Date.now();
  const line = el('p', { class: 'wait-note muted small', role: 'status' });
  const tick = () => { line.textContent = `Waiting… ${Math.floor((Date.now() - started) / 1000)} s. ${note}`; };
  const shown = setTimeout(() => { tick(); document.getElementById('main')?.prepend(line); }, 2000);
  const timer = setInterval(tick, 1000);
  return () => { clearTimeout(shown); clearInterval(timer); line.remove(); };
}

// "18h 12m" / "4m 10s" until an ISO time; '' when past.
export function formatCountdown(iso) {
  const ms = new Date(iso).getTime() - Date.now();
  if (!(ms > 0)) return '';
  const s = Math.floor(ms / 1000), d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  return m ? `${m}m ${s % 60}s` : `${s}s`;
}
export const isFuture = (iso) => !!iso && new Date(iso).getTime() > Date.now();

// Elements with data-until="ISO" get "Available in …" text, refreshed every second;
// data-on-expire callbacks registered via onExpire run once when the time passes.
const expireHooks = new WeakMap();
export function countdown(iso, onDone) {
  const n = el('span', { class: 'countdown', 'data-until': iso });
  if (onDone) expireHooks.set(n, onDone);
  tick(n);
  return n;
}
function tick(n) {
  const left = formatCountdown(n.dataset.until);
  n.textContent = left ? `Available in ${left}` : 'Available now';
  if (!left && expireHooks.has(n)) { const f = expireHooks.get(n); expireHooks.delete(n); f(); }
}
setInterval(() => document.querySelectorAll('[data-until]').forEach(tick), 1000);

// A unit's mastery tier in the learner's words: "not yet" until the first tier is earned.
const TIER_WORDS = { bronze: 'bronze', silver: 'silver', gold: 'gold' };
export const tierLabel = (t) => TIER_WORDS[t] ?? 'not yet';
export const tierBadge = (t) => el('span', { class: `badge tier-${TIER_WORDS[t] ? t : 'none'}` }, tierLabel(t));
// A course's units at each tier, as the tutor's Progress counts them, for Maps and
// Progress beside the concepts mastered (bronze and silver put a unit in review, only gold
// makes it mastered): "Tiers earned: 1 bronze · 0 silver · 0 gold, of 18 units".
export const tierCounts = (t) => el('span', { class: 'tier-counts', 'data-bronze': t.bronze, 'data-silver': t.silver, 'data-gold': t.gold },
  'Tiers earned: ', ['bronze', 'silver', 'gold'].flatMap((k, i) => [i ? ' · ' : '', el('span', { class: `tier-${k}` }, `${t[k]} ${k}`)]),
  `, of ${t.total} units`);

// A concept's mastery status, and a map's status, in the learner's words (the same
// everywhere: maps, reviews, progress).
export const MASTERY_STATUSES = [
  { id: 'unseen', label: 'Not started' },
  { id: 'diagnosed', label: 'Diagnosed' },
  { id: 'learning', label: 'Learning' },
  { id: 'reviewing', label: 'Reviewing' },
  { id: 'mastered', label: 'Mastered' },
];
export const statusLabel = (s) => MASTERY_STATUSES.find((x) => x.id === s)?.label ?? s;
const MAP_STATUS_WORDS = { draft: 'Draft', active: 'Active', completed: 'Completed', abandoned: 'Abandoned' };
export const mapStatusLabel = (s) => MAP_STATUS_WORDS[s] ?? s;

// "1 concept", "0 concepts", "2 answers"; `many` for irregular plurals.
export const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
export const fmtTime = (iso) => (iso ? new Date(iso).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' }) : '');

// The skills whose wording matches a concept's label ("Strings" -> the string skills).
export function skillsFor(label, skills) {
  const words = label.toLowerCase().split(/\W+/).filter((w) => w.length > 3).map((w) => w.replace(/(ing|ion|s)$/, ''));
  return skills.filter((s) => words.some((w) => `${s.title} ${s.domain}`.toLowerCase().includes(w)));
}
