// sse.js: a session's server-sent events read with fetch, because EventSource cannot send
// the bearer token. Parses the text/event-stream format itself; resolves when the server
// closes the stream (it does once the session waits for the learner or is over).
import { token, ApiError, NetworkError, api } from './api.js';

// readStream(sessionId, { after, signal, onEvent }) -> 'closed'
// `after` is sent as Last-Event-ID so that nothing already shown is sent again.
export async function readStream(sessionId, { after = null, signal, onEvent }) {
  const headers = { Accept: 'text/event-stream' };
  const t = token.get();
  if (t) headers.Authorization = `Bearer ${t}`;
  if (after != null) headers['Last-Event-ID'] = String(after);
  let res;
  try {
    res = await fetch(`/api/session/${encodeURIComponent(sessionId)}/stream`, { headers, signal, cache: 'no-store' });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new NetworkError("Can't reach the server — check that pathwise serve is running.");
  }
  if (!res.ok) {
    let err = {};
    try { err = (await res.json())?.error ?? {}; } catch { /* not JSON */ }
    const e = new ApiError(res.status, err.code ?? `http_${res.status}`, err.message ?? `The server answered ${res.status}.`, err.details ?? null);
    // Let api.js's central handler show the sign-in form.
    if (res.status === 401) api('GET', '/me').catch(() => {});
    throw e;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replace(/\r\n?/g, '\n');
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = parseBlock(block);
        if (event) onEvent(event);
      }
    }
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new NetworkError('The connection to the server was lost.');
  }
  return 'closed';
}

// One event block -> { id, name, data } (data parsed as JSON when it is JSON); null for a comment.
function parseBlock(block) {
  let id = null, name = 'message';
  const data = [];
  let any = false;
  for (const line of block.split('\n')) {
    if (!line || line.startsWith(':')) continue;
    any = true;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = Number(value);
    else if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  }
  if (!any) return null;
  const text = data.join('\n');
  let parsed = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* plain text */ }
  return { id: Number.isFinite(id) ? id : null, name, data: parsed };
}
