// math.js: the single place that turns LaTeX into DOM. For now it shows the
// source as math-styled monospace; swap renderMath for a MathML renderer later.
export function renderMath(latex, display = false) {
  const c = document.createElement('code');
  c.className = display ? 'math display' : 'math';
  c.textContent = latex;
  return c;
}

// Text with inline $...$ or \(...\) (and $$...$$ / \[...\]) → fragment of text and math nodes.
export function renderText(text) {
  const frag = document.createDocumentFragment();
  const re = /\$\$([^$]+)\$\$|\\\[([\s\S]+?)\\\]|\$([^$\n]+)\$|\\\(([\s\S]+?)\\\)/g;
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
