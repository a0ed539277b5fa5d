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

// api('GET', '/courses') / api('POST', '/tutor/threads', {...}); opts.auth=false skips the token;
// a Blob body (a recording) is sent as it is, with its own content type.
export async function api(method, path, body, opts = {}) {
  const headers = { Accept: 'application/json' };
  const t = opts.token ?? token.get();
  if (opts.auth !== false && t) headers.Authorization = `Bearer ${t}`;
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
