// maps.js: the Maps view. #/maps lists the learner's topics (teaching flows), maps and the
// reviews due today, with a form to start a topic; #/maps/<map id> draws one map's concept
// DAG (dag.js) coloured by mastery status, the next concept highlighted, a concept's details
// and answer history beside it, and that map's due reviews answered in place;
// #/maps/topic/<flow id> runs a topic's learning loop (flow.js). A pasted outline becomes a
// map with no language model (POST /mind-maps/outline).
import { api, ApiError, NetworkError, forgetKey, keyFor, newKey } from './api.js';
import { el, fill, svgEl, reportError, fmtTime, withBusy, MASTERY_STATUSES, statusLabel, mapStatusLabel, tierBadge, tierCounts, skillsFor } from './ui.js';
import { layout, curve } from './dag.js';
import { mountReviews, recallCard } from './reviews.js';
import { mountFlow, topicForm, FLOW_STEPS } from './flow.js';

const STATUSES = MASTERY_STATUSES;
const NODE_W = 190, NODE_H = 54;
// A concept's label in the drawing, in SVG units; the map is never fitted smaller than
// shows it at READABLE of the page's body text (on a phone too): a map too big for its box
// at that size is shown in part, around the next concept, and scrolls.
const LABEL_PX = 15, READABLE = 0.85;

// The map view currently on screen, so that a hash change to one of its own concepts
// selects it instead of drawing everything again.
let current = null;

export function mountMaps(root, config, rest) {
  const [first, second, third, fourth] = (rest || '').split('/');
  // #/maps/topic/<flow>/study/<node>: the topic's loop teaches that concept next.
  if (first === 'topic' && second) { current = null; mountFlow(root, second, third === 'study' ? fourth : null, config); return; }
  if (first) {
    if (current?.mapId === first && current.el.isConnected && second === 'node' && third) { current.select(third); return; }
    current = mountMap(root, first, second === 'node' ? third : null);
    return;
  }
  current = null;
  mountIndex(root, config);
}

// ---- #/maps: topics, maps, reviews, start a topic

function mountIndex(root, config = {}) {
  const topics = el('div', { class: 'topics' }, el('p', { class: 'muted' }, 'Loading…'));
  const maps = el('ul', { class: 'map-list' }, el('li', { class: 'muted' }, 'Loading…'));
  const reviews = el('section', { class: 'card reviews-card', 'aria-label': 'Reviews due today' });
  const titles = new Map();
  const page = el('div', { class: 'maps-page' },
    el('section', { class: 'maps-main' },
      el('h1', {}, 'Topics and maps'),
      el('section', { class: 'card', 'aria-labelledby': 'topics-h' }, el('h2', { id: 'topics-h' }, 'Topics in progress'), topics),
      el('section', { class: 'card', 'aria-labelledby': 'maps-h' }, el('h2', { id: 'maps-h' }, 'Your maps'), maps)),
    el('aside', { class: 'maps-side' }, reviews,
      // Without a model nothing can write a topic's map: the outline is the way in.
      config.model
        ? el('section', { class: 'card', 'aria-labelledby': 'start-h' }, el('h2', { id: 'start-h' }, 'Start a topic'), topicForm())
        : el('section', { class: 'card start-offline', 'aria-labelledby': 'start-h' }, el('h2', { id: 'start-h' }, 'Start a topic'),
          el('p', {}, 'Writing a topic\'s map for you needs a language model, and this server has none. Paste the topic\'s outline below instead: its concepts become a map you study by recall, with reviews scheduled as you go.')),
      el('section', { class: 'card', 'aria-labelledby': 'outline-h' }, el('h2', { id: 'outline-h' }, 'Paste an outline'), outlineForm())));
  root.replaceChildren(page);

  (async () => {
    try {
      const [mapPage, flowPage] = await Promise.all([api('GET', '/mind-maps?limit=100'), api('GET', '/flows?limit=100')]);
      if (!page.isConnected) return;
      for (const m of mapPage.items) titles.set(m.id, m.title);
      renderTopics(topics, flowPage.items);
      renderMapList(maps, mapPage.items);
      if (mapPage.total > mapPage.items.length) maps.append(el('li', { class: 'muted small' }, `Showing the newest ${mapPage.items.length} of ${mapPage.total} maps.`));
      mountReviews(reviews, { mapTitles: titles });
    } catch (e) {
      reportError(e);
      fill(maps, el('li', {}, 'Your maps could not be loaded. ', el('button', { type: 'button', class: 'secondary', onclick: () => mountIndex(root) }, 'Try again')));
      fill(topics);
      mountReviews(reviews, { mapTitles: titles });
    }
  })();
}

// An outline (Markdown headings or a nested list) becomes a map; a map the learner has for
// the same topic is offered to open, keep beside the new one, or replace.
function outlineForm() {
  const text = el('textarea', { id: 'outline-input', name: 'outline', rows: '7', spellcheck: 'false',
    placeholder: '# Rust\n- Ownership\n  - Borrowing\n- Traits', 'aria-describedby': 'outline-help outline-err' });
  const err = el('p', { class: 'form-error', id: 'outline-err', 'aria-live': 'polite' });
  const submit = el('button', { type: 'submit', class: 'primary' }, 'Make the map');
  const actions = el('div', { class: 'card-actions' }, submit);
  const send = async (onExisting) => {
    err.textContent = '';
    fill(actions, submit);
    submit.disabled = true;
    const body = { outline: text.value, on_existing: onExisting };
    const action = `outline\n${JSON.stringify(body)}`;
    try {
      const plan = await api('POST', '/mind-maps/outline', body, { idempotencyKey: keyFor(action) });
      forgetKey(action);
      location.hash = `#/maps/${plan.mind_map_id}`;
    } catch (ex) {
      if (!(ex instanceof NetworkError)) forgetKey(action);
      if (ex instanceof ApiError && ex.code === 'map_exists') {
        err.textContent = `You have a map for “${ex.details.title}” already.`;
        fill(actions,
          el('a', { href: `#/maps/${ex.details.mind_map_id}`, class: 'button-link' }, 'Open it'),
          el('button', { type: 'button', class: 'secondary', onclick: () => send('new') }, 'Keep both'),
          el('button', { type: 'button', class: 'secondary danger',
            onclick: () => confirm('Replace that map? Its progress is deleted.') && send('replace') }, 'Replace it'));
      } else if (ex instanceof ApiError && ex.status < 500) err.textContent = `Not made: ${ex.message}`;
      else if (ex instanceof NetworkError) err.textContent = 'Not made: the server cannot be reached. Your outline is kept; try again when it is back.';
      else reportError(ex);
    } finally { submit.disabled = false; }
  };
  return el('form', { class: 'topic-form outline-form', novalidate: true, onsubmit: (e) => {
    e.preventDefault();
    if (!text.value.trim()) { err.textContent = 'Paste or write an outline first.'; text.focus(); return; }
    send('refuse');
  } },
  el('label', { for: 'outline-input' }, 'Outline'), text,
  el('p', { id: 'outline-help', class: 'muted small' },
    'Headings (#, ##) or a nested list (-, 1.): the first line is the topic, and whatever is nested under a concept needs it first. No language model needed.'),
  err, actions);
}

function renderTopics(box, flows) {
  const open = flows.filter((f) => f.status !== 'completed' && f.status !== 'abandoned');
  const done = flows.filter((f) => !open.includes(f));
  const row = (f) => el('li', { class: 'topic' },
    el('a', { href: `#/maps/topic/${f.id}` }, f.topic),
    el('span', { class: `badge flow-${f.status}` }, stepLabel(f.status)),
    f.goal ? el('span', { class: 'muted small block' }, `Goal: ${f.goal}`) : null,
    el('span', { class: 'muted small block' }, `Last step ${fmtTime(f.last_session_at)}`));
  fill(box,
    open.length ? el('ul', { class: 'topic-list' }, open.map(row)) : el('p', { class: 'muted' }, 'No topic in progress. Start one with the form.'),
    done.length ? el('details', {}, el('summary', {}, `Finished or abandoned (${done.length})`), el('ul', { class: 'topic-list' }, done.map(row))) : null);
}
const stepLabel = (status) => FLOW_STEPS.find((s) => s.statuses.includes(status))?.label ?? status;

function renderMapList(list, maps) {
  if (!maps.length) { fill(list, el('li', { class: 'muted' }, 'No maps yet. A topic gets its map when it is planned.')); return; }
  fill(list, maps.map((m) => {
    const progress = el('div', { class: 'map-progress muted small' }, 'Counting…');
    const li = el('li', { class: 'map-item' },
      el('a', { href: `#/maps/${m.id}`, class: 'map-link' }, m.title),
      el('span', { class: `badge map-${m.status}` }, mapStatusLabel(m.status)),
      progress);
    // Progress comes per map; the list shows at once and fills in.
    api('GET', `/mind-maps/${m.id}/mastery-summary`).then((s) => fill(progress, summaryBar(s)))
      .catch(() => { progress.textContent = 'Progress unavailable.'; });
    return li;
  }));
}

// A stacked bar of the status counts, with the same counts as text.
function summaryBar(s) {
  const total = s.total_nodes || 1;
  const bar = el('div', { class: 'stack', 'aria-hidden': 'true' },
    STATUSES.slice().reverse().map((st) => {
      const n = s[`${st.id}_count`] ?? 0;
      return n ? el('span', { class: `seg st-${st.id}`, style: `width:${(100 * n) / total}%` }) : null;
    }));
  const parts = STATUSES.slice(1).map((st) => [st, s[`${st.id}_count`] ?? 0]).filter(([, n]) => n);
  return [bar, el('span', {}, `${s.mastered_count} of ${s.total_nodes} mastered`,
    parts.length ? ` · ${parts.filter(([st]) => st.id !== 'mastered').map(([st, n]) => `${n} ${st.label.toLowerCase()}`).join(', ')}` : ''),
  // A course's map: the tiers its units earned, the tutor's count, beside the mastery.
  s.tiers ? tierCounts(s.tiers) : null];
}

// ---- #/maps/<id>: the DAG, a concept's details and history, the map's reviews

function mountMap(root, mapId, initialNode) {
  const started = performance.now();
  // `fitted`: the drawing is shown whole, and is fitted again when the screen changes size
  // (until the learner zooms).
  const s = { map: null, byId: new Map(), next: null, selected: null, scale: 1, fitted: true, groups: new Map(), flow: null };
  const title = el('h1', {}, 'Map');
  const meta = el('div', { class: 'map-meta' });
  const summary = el('div', { class: 'map-summary small' });
  const scroller = el('div', { class: 'dag-scroll', tabindex: '-1' });
  const live = el('p', { class: 'sr-only', 'aria-live': 'polite' });
  const details = el('section', { class: 'card node-details', 'aria-label': 'Concept details', tabindex: '-1' },
    el('p', { class: 'muted' }, 'Select a concept (click, tap, or Tab to it and press Enter) to see its details and history.'));
  const reviews = el('section', { class: 'card reviews-card', 'aria-label': 'Reviews due today' });
  const zoomLabel = el('span', { class: 'small muted zoom-label', 'aria-live': 'polite' }, '100%');
  const fitNote = el('p', { class: 'small muted fit-note', hidden: true },
    'Part of the map, at a size you can read: drag or scroll to see the rest, or zoom out (−) to see it whole.');
  const toolbar = el('div', { class: 'dag-toolbar' },
    el('div', { class: 'zoom', role: 'group', 'aria-label': 'Zoom' },
      el('button', { type: 'button', class: 'secondary', 'aria-label': 'Zoom out', onclick: () => zoom(s.scale / 1.25) }, '−'),
      el('button', { type: 'button', class: 'secondary', 'aria-label': 'Zoom in', onclick: () => zoom(s.scale * 1.25) }, '+'),
      el('button', { type: 'button', class: 'secondary', 'aria-label': 'Fit the whole map', onclick: fitWhole }, 'Fit'), zoomLabel),
    legend());
  const page = el('div', { class: 'map-page' },
    el('header', { class: 'map-head' }, el('a', { href: '#/maps', class: 'back' }, '← All topics and maps'), title, meta, summary),
    el('section', { class: 'map-canvas card', 'aria-label': 'Concept map' }, toolbar, fitNote, scroller, live),
    el('aside', { class: 'map-side' }, details, reviews));
  root.replaceChildren(page);
  scroller.append(el('p', { class: 'muted pad' }, 'Loading the map…'));
  enablePan(scroller);
  // A fitted map is fitted again when its box changes width or the window its height (a
  // window resized, a phone turned), until the page is left.
  let boxWidth = 0;
  const refit = () => { if (s.fitted && s.svg) fitWhole(); };
  const resized = new ResizeObserver(() => {
    const w = scroller.clientWidth;
    if (Math.abs(w - boxWidth) > 2) refit();
    boxWidth = w;
  });
  resized.observe(scroller);
  window.addEventListener('resize', refit);
  root.addEventListener('pw:leave', () => { resized.disconnect(); window.removeEventListener('resize', refit); }, { once: true });

  const view = { mapId, el: page, select: (id) => select(id) };
  load();
  return view;

  async function load() {
    try {
      const [map, next, sum, flows] = await Promise.all([
        api('GET', `/mind-maps/${mapId}`),
        api('GET', `/mind-maps/${mapId}/next-node`),
        api('GET', `/mind-maps/${mapId}/mastery-summary`),
        api('GET', '/flows?limit=100').catch(() => ({ items: [] })),
      ]);
      if (!page.isConnected) return;
      s.map = map; s.next = next.node?.id ?? null;
      s.flow = flows.items.find((f) => f.mind_map_id === mapId) ?? null;
      map.nodes.forEach((n) => s.byId.set(n.id, n));
      await loadTiers();
      if (!page.isConnected) return;
      renderHead(sum);
      draw();
      performance.measure('maps:render', { start: started, end: performance.now() });
      mountReviews(reviews, { mapId, onAnswered: reviewed });
      const focus = initialNode && s.byId.has(initialNode) ? initialNode : s.next;
      if (focus) reveal(focus);
      if (initialNode && s.byId.has(initialNode)) select(initialNode);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        page.replaceChildren(el('p', { class: 'pad' }, 'There is no such map for you (it may have been deleted). ', el('a', { href: '#/maps' }, 'See your maps')));
        return;
      }
      reportError(e);
      fill(scroller, el('p', { class: 'pad' }, 'The map could not be loaded. ', el('button', { type: 'button', class: 'secondary', onclick: load }, 'Try again')));
    }
  }

  // A course's map shows each unit's tier beside its status: the tier moved the node
  // (bronze and silver put it in review, gold makes it mastered), and the tier says how far.
  async function loadTiers() {
    const courseId = s.map.metadata?.course_id;
    s.tiers = new Map();
    if (!courseId) return;
    try {
      const view = await api('GET', `/tutor/courses/${encodeURIComponent(courseId)}/snapshot`);
      for (const [unit, p] of Object.entries(view.snapshot?.unitProgress ?? {})) {
        if (p.masteryTier && p.masteryTier !== 'none') s.tiers.set(unit, p.masteryTier);
      }
    } catch (e) { if (!(e instanceof ApiError)) reportError(e); }
  }
  function tierOf(n) {
    return (n.metadata?.unit_id && s.tiers?.get(n.metadata.unit_id)) || null;
  }

  function renderHead(sum) {
    title.textContent = s.map.title;
    const goal = s.map.metadata?.goal;
    const next = s.next ? s.byId.get(s.next) : null;
    fill(meta,
      el('span', { class: `badge map-${s.map.status}` }, mapStatusLabel(s.map.status)),
      goal ? el('span', { class: 'muted' }, ` Goal: ${goal}`) : null,
      next ? el('span', {}, ' Next to learn: ', el('button', { type: 'button', class: 'linklike', onclick: () => { reveal(next.id); select(next.id); } }, next.label)) : null,
      s.flow && !['completed', 'abandoned'].includes(s.flow.status)
        ? el('a', { class: 'button-link', href: `#/maps/topic/${s.flow.id}` }, 'Continue learning this topic') : null);
    fill(summary, summaryBar(sum));
  }

  async function refreshHead() {
    try {
      const [next, sum] = await Promise.all([api('GET', `/mind-maps/${mapId}/next-node`), api('GET', `/mind-maps/${mapId}/mastery-summary`)]);
      const was = s.next;
      s.next = next.node?.id ?? null;
      renderHead(sum);
      if (was !== s.next) { paint(was); paint(s.next); }
    } catch (e) { reportError(e); }
  }

  // ---- drawing
  function draw() {
    const nodes = s.map.nodes.slice().sort((a, b) => (a.sequence ?? 1e9) - (b.sequence ?? 1e9));
    if (!nodes.length) { fill(scroller, el('p', { class: 'pad muted' }, 'This map has no concepts yet: a topic gets them when it is planned.')); return; }
    const edges = s.map.edges.map((e) => ({ from: e.parent_node_id, to: e.child_node_id, type: e.edge_type }));
    const L = layout(nodes, edges, { nodeW: NODE_W, nodeH: NODE_H, layerGap: 64, rowGap: 16, margin: 28 });
    s.layout = L;
    const svg = svgEl('svg', { class: 'dag', viewBox: `0 0 ${L.width} ${L.height}`, role: 'group', 'aria-label': `${nodes.length} concepts; prerequisites point right to the concepts that need them` });
    svg.append(svgEl('defs', {}, svgEl('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: '9', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse' },
      svgEl('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }))));
    const edgeLayer = svgEl('g', { class: 'edges', 'aria-hidden': 'true' });
    L.edges.forEach((e, i) => edgeLayer.append(svgEl('path', { d: curve(e.points), class: `edge ${edges[i]?.type === 'related' ? 'related' : ''}`, 'marker-end': 'url(#arrow)', 'data-from': e.from, 'data-to': e.to })));
    const nodeLayer = svgEl('g', { class: 'nodes' });
    s.groups.clear();
    for (const n of nodes) {
      const p = L.nodes.get(n.id);
      const g = svgEl('g', { class: 'node', transform: `translate(${p.x},${p.y})`, tabindex: '0', role: 'button', 'data-node-id': n.id });
      g.addEventListener('click', () => select(n.id));
      g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); select(n.id); } });
      s.groups.set(n.id, g);
      nodeLayer.append(g);
      paint(n.id);
    }
    svg.append(edgeLayer, nodeLayer);
    fill(scroller, svg);
    s.svg = svg;
    // The whole map first; the zoom buttons enlarge it (and the drawing then scrolls).
    fitWhole();
    live.textContent = `${nodes.length} concepts drawn.`;
  }

  // (Re)draw one node's box from its current data: status colour, text, next/selected/due marks.
  function paint(id) {
    const g = id && s.groups.get(id);
    if (!g) return;
    const n = s.byId.get(id);
    const isNext = id === s.next, due = isDue(n);
    g.setAttribute('class', `node st-${n.mastery_status}${isNext ? ' next' : ''}${id === s.selected ? ' selected' : ''}${due ? ' due' : ''}`);
    const tier = tierOf(n);
    g.setAttribute('aria-label', `${n.label}: ${statusLabel(n.mastery_status)}${tier ? `, ${tier} tier` : ''}, mastery ${pct(n.mastery_score)}${due ? ', review due' : ''}${isNext ? ', next to learn' : ''}`);
    g.setAttribute('aria-pressed', String(id === s.selected));
    const kids = [
      svgEl('title', {}, `${n.label}${n.description ? `: ${n.description}` : ''}`),
      isNext ? svgEl('rect', { class: 'next-ring', x: -5, y: -5, width: NODE_W + 10, height: NODE_H + 10, rx: 12 }) : null,
      svgEl('rect', { class: 'box', width: NODE_W, height: NODE_H, rx: 8 }),
      svgEl('rect', { class: 'bar', x: 0, y: NODE_H - 5, width: Math.max(0, Math.min(1, n.mastery_score)) * NODE_W, height: 5, rx: 2 }),
      svgEl('text', { class: 'label', x: 10, y: 22 }, fit(n.label, NODE_W - (tier ? 30 : 18))),
      svgEl('text', { class: 'state', x: 10, y: 42 }, `${statusLabel(n.mastery_status)} · ${tier ? `${tier[0].toUpperCase()}${tier.slice(1)}` : pct(n.mastery_score)}${due ? ' · due' : ''}`),
      tier ? svgEl('circle', { class: `tier-dot tier-${tier}`, cx: NODE_W - 12, cy: 12, r: 6 }, svgEl('title', {}, `${tier} tier`)) : null,
      isNext ? svgEl('g', { class: 'next-tag', transform: `translate(${NODE_W - 52},-14)` },
        svgEl('rect', { width: 50, height: 20, rx: 10 }), svgEl('text', { x: 25, y: 14.5, 'text-anchor': 'middle' }, 'Next')) : null,
    ].filter(Boolean);
    g.replaceChildren(...kids);
  }

  // The scale at which the whole drawing fits the box: its width, and the height the box
  // may take on this screen (its CSS max-height), never larger than 1.5, and never smaller
  // than keeps the labels readable (`whole` says whether the drawing is shown whole).
  function fitScale() {
    if (!s.layout) return { scale: 1, whole: true };
    const style = getComputedStyle(scroller);
    const frame = (a, b) => parseFloat(style[a]) + parseFloat(style[b]);
    const w = scroller.clientWidth - frame('paddingLeft', 'paddingRight');
    const maxH = parseFloat(style.maxHeight);
    const h = (Number.isFinite(maxH) ? maxH : window.innerHeight * 0.7) - frame('borderTopWidth', 'borderBottomWidth') - frame('paddingTop', 'paddingBottom');
    const whole = Math.min(1.5, w / s.layout.width, h / s.layout.height);
    const readable = (READABLE * parseFloat(getComputedStyle(document.body).fontSize)) / LABEL_PX;
    return whole >= readable ? { scale: whole, whole: true } : { scale: readable, whole: false };
  }
  // Fit: the whole map when it can be read whole; else as much as fits at a readable size,
  // scrolled to the concept selected or the next one, with a note that the rest scrolls.
  function fitWhole() {
    const { scale, whole } = fitScale();
    zoom(scale, { fitting: true });
    fitNote.hidden = whole;
    if (!whole) { const at = s.selected ?? s.next; if (at) reveal(at); }
  }
  function zoom(scale, { fitting = false } = {}) {
    if (!s.svg) return;
    s.fitted = fitting;
    s.scale = fitting ? Math.max(0.05, scale) : Math.min(2, Math.max(0.1, scale));
    if (!fitting) fitNote.hidden = true;
    scroller.classList.toggle('fitted', fitting);
    // Down to the pixel, so that a fitted drawing never overflows by rounding.
    s.svg.setAttribute('width', Math.floor(s.layout.width * s.scale));
    s.svg.setAttribute('height', Math.floor(s.layout.height * s.scale));
    zoomLabel.textContent = `${Math.round(s.scale * 100)}%`;
  }
  // Scroll the drawing so that a node is in view (the map may be wider than a phone).
  function reveal(id) {
    const p = s.layout?.nodes.get(id);
    if (!p) return;
    scroller.scrollLeft = Math.max(0, (p.x + NODE_W / 2) * s.scale - scroller.clientWidth / 2);
    scroller.scrollTop = Math.max(0, (p.y + NODE_H / 2) * s.scale - scroller.clientHeight / 2);
  }

  // ---- a concept's details and history
  async function select(id) {
    const n = s.byId.get(id);
    if (!n) return;
    const t0 = performance.now();
    const was = s.selected;
    s.selected = id;
    paint(was); paint(id);
    history.replaceState(null, '', `#/maps/${mapId}/node/${id}`);
    const hist = el('div', { class: 'history', 'aria-busy': 'true' }, el('p', { class: 'muted' }, 'Loading history…'));
    const byLabel = (ids) => ids.map((x) => s.byId.get(x)).filter(Boolean);
    const prereqs = byLabel(s.map.edges.filter((e) => e.child_node_id === id).map((e) => e.parent_node_id));
    const unlocks = byLabel(s.map.edges.filter((e) => e.parent_node_id === id).map((e) => e.child_node_id));
    const chips = (list) => (list.length ? el('ul', { class: 'chips' }, list.map((m) => el('li', {},
      el('button', { type: 'button', class: `chip st-${m.mastery_status}`, onclick: () => { reveal(m.id); select(m.id); } }, m.label, el('span', { class: 'sr-only' }, ` (${statusLabel(m.mastery_status)})`)))))
      : el('p', { class: 'muted small' }, 'None'));
    fill(details,
      el('h2', {}, n.label),
      el('p', {}, el('span', { class: `badge status st-${n.mastery_status}` }, statusLabel(n.mastery_status)),
        tierOf(n) ? [' ', tierBadge(tierOf(n))] : null,
        id === s.next ? el('span', { class: 'badge next-badge' }, 'Next to learn') : null,
        isDue(n) ? el('span', { class: 'badge due-badge' }, 'Review due') : null),
      n.description ? el('p', {}, n.description) : el('p', { class: 'muted' }, 'No description.'),
      studyBlock(n),
      el('dl', { class: 'facts' },
        fact('Mastery', pct(n.mastery_score)),
        fact('Next review', n.next_review_at ? (isDue(n) ? `due (since ${fmtTime(n.next_review_at)})` : fmtTime(n.next_review_at)) : 'not scheduled'),
        fact('Last reviewed', n.last_reviewed_at ? fmtTime(n.last_reviewed_at) : 'never'),
        fact('Repetitions', String(n.repetitions)),
        fact('Place in learning order', n.sequence ? `#${n.sequence}` : '—'),
        n.effort_minutes ? fact('Effort', `${n.effort_minutes} min`) : null),
      el('h3', {}, 'Needs first'), chips(prereqs),
      el('h3', {}, 'Unlocks'), chips(unlocks),
      el('h3', {}, 'History'), hist);
    live.textContent = `Showing ${n.label}.`;
    if (window.innerWidth <= 900) details.scrollIntoView({ block: 'nearest' });
    try {
      const items = await api('GET', `/nodes/${id}/history`);
      if (s.selected !== id) return;
      fill(hist, renderHistory(items));
      hist.removeAttribute('aria-busy');
      performance.measure('maps:history-shown', { start: t0, end: performance.now() });
    } catch (e) {
      reportError(e);
      fill(hist, el('p', {}, 'The history could not be loaded. ', el('button', { type: 'button', class: 'secondary', onclick: () => select(id) }, 'Try again')));
    }
  }

  // ---- "Study this next": the map's topic teaches the concept (its learning loop), the
  // course's tutor drills the unit, or else a learning session practises the concept.
  function studyBlock(n) {
    const box = el('div', { class: 'study' });
    if (n.metadata?.course_root) {
      return fill(box, el('p', { class: 'muted small' }, 'This box stands for the whole course: choose one of its units to study.'));
    }
    if (!['unseen', 'diagnosed', 'learning'].includes(n.mastery_status)) {
      return fill(box, el('p', { class: 'muted small' }, `${statusLabel(n.mastery_status)}: it comes back when a review falls due.`),
        el('button', { type: 'button', class: 'secondary study-next', onclick: () => studyNext(n) }, 'Study this next'));
    }
    const waiting = prerequisitesToLearn(n);
    const first = waiting.length ? readyAncestor(n) : null;
    return fill(box,
      waiting.length ? el('p', { class: 'small study-needs' }, `It builds on ${joinLabels(waiting)}, not mastered yet`,
        first ? [': start with ', el('strong', {}, first.label), '.'] : '.') : null,
      el('button', { type: 'button', class: 'primary study-next', onclick: () => studyNext(first ?? n) },
        first ? `Study ${first.label} next` : 'Study this next'),
      el('p', { class: 'form-error small study-error', 'aria-live': 'polite' }));
  }
  // Prerequisites of `n` not mastered yet, and the first concept on the way to it that is
  // ready to learn (everything it builds on mastered), in learning order.
  function prerequisitesToLearn(n) {
    return s.map.edges.filter((e) => e.child_node_id === n.id && e.edge_type !== 'related')
      .map((e) => s.byId.get(e.parent_node_id)).filter((p) => p && p.mastery_status !== 'mastered');
  }
  function readyAncestor(n) {
    const seen = new Set(), ready = [];
    const walk = (m) => {
      if (seen.has(m.id)) return;
      seen.add(m.id);
      const open = prerequisitesToLearn(m);
      if (!open.length) { if (m.id !== n.id) ready.push(m); return; }
      open.forEach(walk);
    };
    walk(n);
    return ready.sort((a, b) => (a.sequence ?? 1e9) - (b.sequence ?? 1e9))[0] ?? null;
  }

  async function studyNext(n) {
    const error = details.querySelector('.study-error');
    if (error) error.textContent = '';
    const courseId = s.map.metadata?.course_id;
    if (courseId && n.metadata?.unit_id) { await withBusy(() => studyInTutor(courseId, n.metadata.unit_id)); return; }
    const flow = s.flow;
    if (flow && ['planning', 'teaching', 'reviewing'].includes(flow.status) && ['unseen', 'diagnosed', 'learning'].includes(n.mastery_status)) {
      location.hash = `#/maps/topic/${flow.id}/study/${n.id}`;
      return;
    }
    if (flow && flow.status === 'quizzing') {
      if (error) fill(error, `A question is waiting in “${flow.topic}”: answer it first, then study this. `, el('a', { href: `#/maps/topic/${flow.id}` }, 'Go to the question'));
      return;
    }
    // No learning loop to teach it (a pasted outline, a map made by hand): a learning
    // session when skills of the library practise the concept, else studied by recall, here,
    // with no model and nothing to attach.
    const skills = await api('GET', '/library/skills').catch(() => []);
    if (skillsFor(n.label, skills).length) {
      sessionStorage.setItem('pw.learnPreset', JSON.stringify({ map_id: mapId, node_id: n.id }));
      sessionStorage.setItem('pw.sessionTab', 'learning');
      location.hash = '#/sessions';
      return;
    }
    studyByRecall(n);
  }

  function studyByRecall(n) {
    const box = details.querySelector('.study');
    if (!box) return;
    const card = recallCard(n, {
      responseType: ['unseen', 'diagnosed', 'learning'].includes(n.mastery_status) ? 'teach' : 'review',
      onRecorded: (r, g) => {
        reviewed(r.node);
        const next = r.node.next_review_at ? ` It comes back for review ${fmtTime(r.node.next_review_at)}.` : '';
        live.textContent = `${n.label}: recorded as ${g.label}.${next}`;
        const after = s.byId.get(n.id);
        fill(details.querySelector('.study') ?? box, el('p', { class: 'small recall-done', role: 'status' },
          `Recorded as ${g.label}: ${after.label} is now ${statusLabel(after.mastery_status).toLowerCase()}.${next}`),
        s.next && s.next !== n.id
          ? el('button', { type: 'button', class: 'primary study-next', onclick: () => { reveal(s.next); select(s.next); } }, 'Next concept')
          : null);
      },
    });
    fill(box, el('ul', { class: 'reviews recall-study', 'aria-label': `Study ${n.label}` }, card));
    card.querySelector('textarea')?.focus();
  }

  // The course's tutor, in the learner's latest thread on the course (or a new one), asked
  // for a drill on the unit; the Tutor view opens on that thread.
  async function studyInTutor(courseId, unitId) {
    const threads = (await api('GET', '/tutor/threads')).items ?? [];
    const mine = threads.filter((t) => t.courseId === courseId).sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
    const thread = mine[0] ?? await api('POST', '/tutor/threads', { courseId });
    await api('POST', `/tutor/threads/${thread.id}/turn`, { clientEvent: { type: 'REQUEST_DRILL', unitId } },
      { idempotencyKey: newKey() });
    localStorage.setItem('pw.thread', thread.id);
    location.hash = '#/tutor';
  }

  // A review was answered in the list: recolour the node, then refresh what depends on it.
  function reviewed(node) {
    const old = s.byId.get(node.id);
    if (!old) return;
    s.byId.set(node.id, node);
    s.map.nodes = s.map.nodes.map((n) => (n.id === node.id ? node : n));
    paint(node.id);
    if (s.selected === node.id) select(node.id);
    live.textContent = `${node.label} is now ${statusLabel(node.mastery_status)}.`;
    refreshHead();
  }
}

function renderHistory(items) {
  if (!items.length) return el('p', { class: 'muted' }, 'No answers yet.');
  const oldestFirst = items.slice().reverse();
  return [qualityChart(oldestFirst),
    el('ol', { class: 'history-list' }, items.map((r) => el('li', {},
      el('span', { class: `q q${r.quality}` }, `${r.quality}/5`), ' ',
      el('strong', {}, r.response_type), el('span', { class: 'muted small' }, ` · ${fmtTime(r.responded_at)}`),
      el('span', { class: 'block small' }, r.question_text),
      r.user_answer ? el('span', { class: 'block small muted' }, `Answer: ${r.user_answer}`) : null)))];
}

// Quality (0-5) of each answer over time: dots on a line, 3 and up (a pass) filled.
function qualityChart(rs) {
  const W = 280, H = 86, pad = 18;
  const x = (i) => (rs.length === 1 ? W / 2 : pad + (i * (W - 2 * pad)) / (rs.length - 1));
  const y = (q) => H - pad - (q / 5) * (H - 2 * pad);
  const svg = svgEl('svg', { class: 'qchart', viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': `Quality of ${rs.length} answers, oldest to newest: ${rs.map((r) => r.quality).join(', ')} (out of 5)` });
  svg.append(svgEl('line', { x1: pad, x2: W - pad, y1: y(3), y2: y(3), class: 'pass-line' }),
    svgEl('text', { x: 2, y: y(3) + 4, class: 'axis' }, '3'), svgEl('text', { x: 2, y: y(5) + 4, class: 'axis' }, '5'),
    svgEl('text', { x: 2, y: y(0) + 4, class: 'axis' }, '0'));
  if (rs.length > 1) svg.append(svgEl('polyline', { class: 'qline', points: rs.map((r, i) => `${x(i)},${y(r.quality)}`).join(' ') }));
  rs.forEach((r, i) => svg.append(svgEl('circle', { cx: x(i), cy: y(r.quality), r: 4, class: r.quality >= 3 ? 'pass' : 'fail' },
    svgEl('title', {}, `${fmtTime(r.responded_at)}: ${r.response_type}, ${r.quality}/5`))));
  return svg;
}

function legend() {
  return el('ul', { class: 'legend', 'aria-label': 'Legend' },
    STATUSES.map((st) => el('li', {}, el('span', { class: `swatch st-${st.id}`, 'aria-hidden': 'true' }), st.label)),
    el('li', {}, el('span', { class: 'swatch next', 'aria-hidden': 'true' }), 'Next to learn'),
    el('li', {}, el('span', { class: 'swatch due', 'aria-hidden': 'true' }), 'Review due (marked “due”)'));
}

const fact = (k, v) => [el('dt', {}, k), el('dd', {}, v)];
const pct = (v) => `${Math.round((v ?? 0) * 100)}%`;
// The label shortened with an ellipsis to fit `width` px in the node's bold label font
// (measured on a canvas: no layout needed, so nodes can be built before they are shown).
let ruler = null;
function fit(text, width) {
  if (!ruler) {
    ruler = document.createElement('canvas').getContext('2d');
    ruler.font = `600 ${LABEL_PX}px ${getComputedStyle(document.body).fontFamily}`;
  }
  if (ruler.measureText(text).width <= width) return text;
  let n = text.length;
  while (n > 1 && ruler.measureText(`${text.slice(0, n).trimEnd()}…`).width > width) n--;
  return `${text.slice(0, n).trimEnd()}…`;
}
const isDue = (n) => !!n.next_review_at && new Date(n.next_review_at).getTime() <= Date.now();

// "A", "A and B", "A, B and C": the concepts' labels as a list in a sentence.
function joinLabels(list) {
  const labels = list.map((m) => m.label);
  return labels.length < 2 ? labels.join('') : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
}

// Drag with a mouse to pan; touch screens pan by scrolling natively.
function enablePan(box) {
  let from = null;
  box.addEventListener('pointerdown', (e) => {
    if (e.pointerType !== 'mouse' || e.button !== 0 || e.target.closest?.('.node, button')) return;
    from = { x: e.clientX, y: e.clientY, left: box.scrollLeft, top: box.scrollTop };
    box.setPointerCapture(e.pointerId);
    box.classList.add('panning');
  });
  box.addEventListener('pointermove', (e) => {
    if (!from) return;
    box.scrollLeft = from.left - (e.clientX - from.x);
    box.scrollTop = from.top - (e.clientY - from.y);
  });
  const stop = () => { from = null; box.classList.remove('panning'); };
  box.addEventListener('pointerup', stop);
  box.addEventListener('pointercancel', stop);
}
