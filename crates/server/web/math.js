// math.js: the single place that turns LaTeX into DOM. A placeholder (the source in
// math-styled monospace) is shown at once; the server renders the LaTeX as MathML
// (POST /api/math, batched per animation frame) and the browser draws it natively. If the
// server cannot read a snippet, its source stays.
import { api } from './api.js';

const pending = new Map(); // latex+display -> [placeholder elements]
let scheduled = false;

export function renderMath(latex, display = false) {
  const c = document.createElement('code');
  c.className = display ? 'math display' : 'math';
  c.textContent = latex;
  const key = `${display ? 'D' : 'I'}${latex}`;
  if (!pending.has(key)) pending.set(key, []);
  pending.get(key).push(c);
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(flush);
  }
  return c;
}

async function flush() {
  scheduled = false;
  const batch = [...pending.entries()];
  pending.clear();
  for (const display of [false, true]) {
    const items = batch.filter(([k]) => k.startsWith(display ? 'D' : 'I'));
    if (!items.length) continue;
    try {
      const reply = await api('POST', '/math', { latex: items.map(([k]) => k.slice(1)), display });
      reply.items.forEach((r, i) => {
        if (!r.mathml) return;
        for (const placeholder of items[i][1]) {
          const holder = document.createElement('span');
          holder.className = display ? 'math display' : 'math';
          holder.innerHTML = r.mathml; // MathML from our own server, rendered from LaTeX
          holder.title = items[i][0].slice(1);
          placeholder.replaceWith(holder);
        }
      });
    } catch {
      // The source stays readable; nothing else to do.
    }
  }
}

// Text with inline $...$ or \(...\) (and $$...$$ / \[...\]) → fragment of text and math nodes.
export function renderText(text) {
  const frag = document.createDocumentFragment();
  // Inline $…$ as pandoc reads it: no space just inside the dollars and no digit right
  // after the closing one, so prices ("$5 and $3") stay text.
  const re = /\$\$([^$]+)\$\$|\\\[([\s\S]+?)\\\]|\$(?=\S)([^$\n]*?\S)\$(?!\d)|\\\(([\s\S]+?)\\\)/g;
  let last = 0, m;
  while ((m = re.exec(text ?? ''))) {
    if (m.index > last) frag.append(text.slice(last, m.index));
    const display = m[1] !== undefined || m[2] !== undefined;
    frag.append(renderMath(m[1] ?? m[2] ?? m[3] ?? m[4], display));
    last = re.lastIndex;
  }
  if (last < (text ?? '').length) frag.append(text.slice(last));
  return frag;
}
