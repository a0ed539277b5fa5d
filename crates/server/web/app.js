// app.js: boot: sign-in (a one-time link from `pathwise serve`, or a pasted learner token), sign-out,
// 401 recovery, and routing between views via location.hash (#/tutor, #/sessions,
// #/maps, #/progress, #/material; a view may take more path after its name, e.g. #/maps/<id>).
import { api, token, setUnauthorizedHandler, ApiError, NetworkError } from './api.js';
import { el, showBanner, hideBanner, reportError } from './ui.js';

const main = document.getElementById('main');
// Each view's modules load when it is first opened, so the first page stays small.
const views = {
  tutor: () => import('./tutor.js').then((m) => m.mountTutor),
  sessions: () => import('./sessions.js').then((m) => m.mountSessions),
  maps: () => import('./maps.js').then((m) => m.mountMaps),
  progress: () => import('./progress.js').then((m) => m.mountProgress),
  material: () => import('./author.js').then((m) => m.mountMaterial),
};
let config = null;

document.getElementById('banner-close').addEventListener('click', hideBanner);
document.getElementById('signout-btn').addEventListener('click', () => {
  token.clear();
  hideBanner();
  showSignIn();
});
setUnauthorizedHandler(() => {
  token.clear();
  showBanner('Your sign-in is no longer valid (expired or wrong token). Sign in again; what you typed is kept.');
  showSignIn();
});
window.addEventListener('hashchange', route);

async function boot() {
  try {
    const link = await signInByLink();
    let me = link?.me ?? null;
    if (!me && token.get()) me = await api('GET', '/me', undefined, { quiet401: true }).catch((e) => { if (e instanceof ApiError && e.status === 401) return null; throw e; });
    if (!me) { token.clear(); showSignIn(link?.problem); return; }
    await enter(me);
  } catch (e) {
    reportError(e);
    main.replaceChildren(el('div', { class: 'pad' }, el('p', {}, 'The workspace could not start.'),
      el('button', { type: 'button', class: 'primary', onclick: boot }, 'Retry')));
  }
}

// A one-time link printed by `pathwise serve` (/?signin=<code>) signs the local learner in;
// the code leaves the address bar at once, so it is neither bookmarked nor shared.
async function signInByLink() {
  const params = new URLSearchParams(location.search);
  const code = params.get('signin');
  if (!code) return null;
  params.delete('signin');
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
  try {
    const local = await api('POST', '/workspace/signin', { code }, { auth: false, quiet401: true });
    token.set(local.token);
    return { me: { name: local.name } };
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      return { problem: 'This sign-in link was used already: each link signs in once. Open the newest link that pathwise serve printed, or paste your token.' };
    }
    if (e instanceof ApiError && e.status === 404) {
      return { problem: 'This server signs no one in by link here. Paste your learner token.' };
    }
    throw e;
  }
}

async function enter(me) {
  config = await api('GET', '/workspace/config');
  document.getElementById('brand').textContent = config.name && config.name.toLowerCase() !== 'pathwise' ? `Pathwise · ${config.name}` : 'Pathwise';
  document.getElementById('who').textContent = me.name ?? '';
  document.getElementById('signout-btn').hidden = false;
  route();
}

function route() {
  if (!config) return;
  const [, name, rest] = location.hash.match(/^#\/(\w+)\/?(.*)$/) ?? [];
  if (!views[name]) { if (location.hash !== '#/tutor') { history.replaceState(null, '', '#/tutor'); } }
  const view = views[name] ?? views.tutor;
  const current = views[name] ? name : 'tutor';
  document.querySelectorAll('#nav a').forEach((a) => a.setAttribute('aria-current', a.getAttribute('href') === `#/${current}` ? 'page' : 'false'));
  // The phone drawers' buttons belong to the tutor view; it shows them again.
  document.querySelectorAll('#menu-btn, #info-btn').forEach((b) => { b.hidden = true; });
  const routed = location.hash;
  view().then((mount) => {
    if (location.hash !== routed) return;
    main.dispatchEvent(new Event('pw:leave')); // the view on screen stops its streams and timers
    mount(main, config, decodeURIComponent(rest ?? ''));
  }, (e) => {
    reportError(new NetworkError(`The ${current} view could not be loaded (${e.message}); check the connection and reload.`));
  });
}

function showSignIn(problem) {
  config = null;
  main.dispatchEvent(new Event('pw:leave'));
  document.getElementById('signout-btn').hidden = true;
  document.getElementById('who').textContent = '';
  document.querySelectorAll('#menu-btn, #info-btn').forEach((b) => { b.hidden = true; });
  const input = el('input', { id: 'token-input', type: 'password', autocomplete: 'off', placeholder: 'pw_…', required: true, spellcheck: 'false' });
  const err = el('p', { class: 'form-error', 'aria-live': 'polite' }, problem ?? '');
  const submit = el('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = el('form', { class: 'signin card', onsubmit: async (e) => {
    e.preventDefault();
    const t = input.value.trim();
    if (!/^pw_/.test(t)) { err.textContent = 'A learner token starts with pw_.'; return; }
    submit.disabled = true; err.textContent = '';
    try {
      const me = await api('GET', '/me', undefined, { token: t, quiet401: true });
      token.set(t);
        hideBanner();
      await enter(me);
    } catch (ex) {
      if (ex instanceof ApiError && ex.status === 401) err.textContent = 'That token was not accepted. Check it and try again.';
      else reportError(ex);
    } finally { submit.disabled = false; }
  } },
  el('h1', {}, 'Sign in'),
  el('p', { class: 'muted' }, 'Paste your learner token (it starts with pw_). Ask whoever runs this Pathwise server for one.'),
  el('p', { class: 'muted' }, 'On the computer running Pathwise, open the sign-in link that ', el('code', {}, 'pathwise serve'),
    ' printed, or paste the token from the ', el('code', {}, 'local-token'), ' file in its data directory.'),
  el('label', { for: 'token-input' }, 'Learner token'), input, err,
  el('div', { class: 'card-actions' }, submit));
  main.replaceChildren(el('div', { class: 'center' }, form));
  input.focus();
}

boot();
