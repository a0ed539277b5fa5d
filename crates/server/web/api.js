// api.js: fetch wrapper for the Pathwise JSON API (bearer token, JSON bodies,
// errors turned into ApiError / NetworkError, a hook for 401s).
const TOKEN_KEY = 'pw.token';

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status; this.code = code; this.details = details;
  }
}
export class NetworkError extends Error {}

let onUnauthorized = () => {};
export function setUnauthorizedHandler(fn) { onUnauthorized = fn; }

export const token = {
  get: () => localStorage.getItem(TOKEN_KEY),
  set: (t) => localStorage.setItem(TOKEN_KEY, t),
  clear: () => localStorage.removeItem(TOKEN_KEY),
};

// A key for a request that records something: sent as Idempotency-Key, so that the same
// action sent again (a retry after a lost connection, a double click) is answered with the
// first reply instead of being recorded twice. A UUIDv7: ordered by time, which the server
// stores more cheaply than random keys (crypto.getRandomValues works outside secure
// contexts too, unlike crypto.randomUUID).
export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ms = Date.now();
  for (let i = 5; i >= 0; i--) { bytes[i] = ms % 256; ms = Math.floor(ms / 256); }
  bytes[6] = (bytes[6] & 0x0f) | 0x70; // version 7
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // the RFC 9562 variant
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// One key per action of the page's lifetime (the same drill with the same answer, say).
const actionKeys = new Map();
export function keyFor(action) {
  if (!actionKeys.has(action)) actionKeys.set(action, newKey());
  return actionKeys.get(action);
}
// Once an action has its answer, doing it again is a new action (a second import of the
// same outline, say): only a retry after a lost connection reuses the key.
export function forgetKey(action) {
  actionKeys.delete(action);
}

// api('GET', '/courses') / api('POST', '/tutor/threads', {...}); opts.auth=false skips the token;
// opts.idempotencyKey is sent as Idempotency-Key; a Blob body (a recording) is sent as it is,
// with its own content type.
export async function api(method, path, body, opts = {}) {
  const headers = { Accept: 'application/json' };
  const t = opts.token ?? token.get();
  if (opts.auth !== false && t) headers.Authorization = `Bearer ${t}`;
  if (opts.idempotencyKey) headers['Idempotency-Key'] = opts.idempotencyKey;
  const raw = body instanceof Blob;
  if (body !== undefined) headers['Content-Type'] = raw ? (body.type || 'application/octet-stream') : 'application/json';
  let res;
  try {
    res = await fetch(`/api${path}`, { method, headers, body: body === undefined || raw ? body : JSON.stringify(body) });
  } catch (e) {
    throw new NetworkError("Can't reach the server — check that pathwise serve is running; your message is kept.");
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!res.ok) {
    const err = data?.error ?? {};
    const e = new ApiError(res.status, err.code ?? `http_${res.status}`, err.message ?? `The server answered ${res.status}.`, err.details ?? null);
    if (res.status === 401 && opts.auth !== false && !opts.quiet401) onUnauthorized(e);
    throw e;
  }
  return data;
}

// A file sent as the request's body with upload progress (fetch reports none): resolves with
// the JSON reply, rejects like api(). onProgress(fraction) hears of the bytes sent.
export function apiUpload(path, file, onProgress = () => {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api${path}`);
    xhr.setRequestHeader('Accept', 'application/json');
    const t = token.get();
    if (t) xhr.setRequestHeader('Authorization', `Bearer ${t}`);
    xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    xhr.upload.onprogress = (e) => { if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total); };
    xhr.onerror = () => reject(new NetworkError("Can't reach the server — check that pathwise serve is running."));
    xhr.onload = () => {
      let data = null;
      try { data = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300) { onProgress(1); resolve(data); return; }
      const err = data?.error ?? {};
      const e = new ApiError(xhr.status, err.code ?? `http_${xhr.status}`, err.message ?? `The server answered ${xhr.status}.`, err.details ?? null);
      if (xhr.status === 401) onUnauthorized(e);
      reject(e);
    };
    xhr.send(file);
  });
}
