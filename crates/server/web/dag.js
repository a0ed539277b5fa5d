// dag.js: a layered (Sugiyama-style) layout of a concept DAG, left to right:
// longest-path layers from the prerequisites, dummy points on edges that skip layers,
// barycentre sweeps to reduce crossings, then vertical positions pulled towards each
// node's neighbours. Pure functions: no DOM, so the layout can be reasoned about alone.

// layout(nodes, edges, opts) -> { nodes: Map<id, {x, y, layer}>, edges: [{from, to, points}], width, height }
// nodes: [{id}] in a preferred order (e.g. the learning sequence); edges: [{from, to}] with
// `from` a prerequisite of `to`. Sizes in SVG user units.
export function layout(nodes, edges, opts = {}) {
  const { nodeW = 160, nodeH = 48, layerGap = 70, rowGap = 18, margin = 24 } = opts;
  const ids = nodes.map((n) => n.id);
  const known = new Set(ids);
  const links = edges.filter((e) => known.has(e.from) && known.has(e.to) && e.from !== e.to);
  const layerOf = longestPathLayers(ids, links);

  // Every edge becomes a chain of unit-length segments; dummies stand in the skipped layers.
  const layers = [];
  const put = (id, l) => { (layers[l] ??= []).push(id); };
  ids.forEach((id) => put(id, layerOf.get(id)));
  const up = new Map(), down = new Map(); // neighbours in the layer before / after
  const link = (a, b) => { (down.get(a) ?? down.set(a, []).get(a)).push(b); (up.get(b) ?? up.set(b, []).get(b)).push(a); };
  const chains = links.map((e, i) => {
    const chain = [e.from];
    for (let l = layerOf.get(e.from) + 1; l < layerOf.get(e.to); l++) {
      const d = `\u0000d${i}:${l}`;
      layerOf.set(d, l); put(d, l); chain.push(d);
    }
    chain.push(e.to);
    for (let k = 1; k < chain.length; k++) link(chain[k - 1], chain[k]);
    return { from: e.from, to: e.to, chain };
  });
  for (let l = 0; l < layers.length; l++) layers[l] ??= [];

  orderLayers(layers, up, down);
  const ys = placeRows(layers, up, down, nodeH + rowGap);

  const pos = new Map();
  let maxY = 0;
  layers.forEach((layer, l) => layer.forEach((id) => {
    const p = { x: margin + l * (nodeW + layerGap), y: margin + ys.get(id), layer: l };
    pos.set(id, p); maxY = Math.max(maxY, p.y);
  }));
  const out = new Map(ids.map((id) => [id, pos.get(id)]));
  const routed = chains.map(({ from, to, chain }) => ({
    from, to,
    // Leave the prerequisite on its right side, enter the concept on its left side.
    points: chain.map((id, k) => {
      const p = pos.get(id);
      if (k === 0) return { x: p.x + nodeW, y: p.y + nodeH / 2 };
      if (k === chain.length - 1) return { x: p.x, y: p.y + nodeH / 2 };
      return { x: p.x + nodeW / 2, y: p.y + nodeH / 2 };
    }),
  }));
  return {
    nodes: out, edges: routed,
    width: margin * 2 + Math.max(1, layers.length) * nodeW + Math.max(0, layers.length - 1) * layerGap,
    height: margin * 2 + maxY + nodeH - margin,
    layerCount: layers.length,
  };
}

// Layer = length of the longest prerequisite path into the node (roots are 0), so every
// edge points to a later layer. Kahn's order; a node on a cycle (never from the server,
// which refuses cycles) is put after everything else rather than lost.
export function longestPathLayers(ids, links) {
  const indeg = new Map(ids.map((id) => [id, 0]));
  const out = new Map(ids.map((id) => [id, []]));
  for (const e of links) { indeg.set(e.to, indeg.get(e.to) + 1); out.get(e.from).push(e.to); }
  const layer = new Map(ids.map((id) => [id, 0]));
  const queue = ids.filter((id) => indeg.get(id) === 0);
  const done = new Set();
  while (queue.length) {
    const id = queue.shift();
    done.add(id);
    for (const c of out.get(id)) {
      layer.set(c, Math.max(layer.get(c), layer.get(id) + 1));
      indeg.set(c, indeg.get(c) - 1);
      if (indeg.get(c) === 0) queue.push(c);
    }
  }
  const last = Math.max(0, ...[...done].map((id) => layer.get(id)));
  ids.filter((id) => !done.has(id)).forEach((id) => layer.set(id, last + 1));
  return layer;
}

// Barycentre heuristic: sweep down (order by the mean position of the neighbours before)
// and up (after), keeping the ordering with the fewest crossings seen.
function orderLayers(layers, up, down) {
  let best = layers.map((l) => l.slice());
  let bestCross = crossings(layers, down);
  for (let sweep = 0; sweep < 12 && bestCross > 0; sweep++) {
    const downward = sweep % 2 === 0;
    const range = downward ? [...layers.keys()].slice(1) : [...layers.keys()].slice(0, -1).reverse();
    for (const l of range) {
      const ref = layers[downward ? l - 1 : l + 1];
      const at = new Map(ref.map((id, i) => [id, i]));
      const nbrs = downward ? up : down;
      const bary = new Map(layers[l].map((id, i) => {
        const ps = (nbrs.get(id) ?? []).map((n) => at.get(n)).filter((v) => v !== undefined);
        return [id, ps.length ? ps.reduce((a, b) => a + b, 0) / ps.length : i];
      }));
      // Stable sort: ties keep their current (initially learning-order) place.
      layers[l] = layers[l].map((id, i) => [id, i]).sort((a, b) => bary.get(a[0]) - bary.get(b[0]) || a[1] - b[1]).map((p) => p[0]);
    }
    const c = crossings(layers, down);
    if (c < bestCross) { bestCross = c; best = layers.map((l) => l.slice()); }
  }
  best.forEach((l, i) => { layers[i] = l; });
}

// Number of edge crossings between consecutive layers (pairs of segments that swap order).
export function crossings(layers, down) {
  let total = 0;
  for (let l = 0; l + 1 < layers.length; l++) {
    const at = new Map(layers[l + 1].map((id, i) => [id, i]));
    const segs = [];
    layers[l].forEach((id, i) => (down.get(id) ?? []).forEach((c) => { if (at.has(c)) segs.push([i, at.get(c)]); }));
    for (let a = 0; a < segs.length; a++) {
      for (let b = a + 1; b < segs.length; b++) {
        if ((segs[a][0] - segs[b][0]) * (segs[a][1] - segs[b][1]) < 0) total++;
      }
    }
  }
  return total;
}

// Vertical positions: start stacked, then pull each node towards the mean of its
// neighbours' rows, keeping the layer's order and at least `gap` between nodes.
function placeRows(layers, up, down, gap) {
  const y = new Map();
  const tallest = Math.max(...layers.map((l) => l.length));
  layers.forEach((l) => l.forEach((id, i) => y.set(id, (i + (tallest - l.length) / 2) * gap)));
  for (let pass = 0; pass < 6; pass++) {
    const downward = pass % 2 === 0;
    const order = downward ? [...layers.keys()] : [...layers.keys()].reverse();
    for (const l of order) {
      const layer = layers[l];
      const want = layer.map((id) => {
        const ns = [...(up.get(id) ?? []), ...(down.get(id) ?? [])];
        return ns.length ? ns.reduce((a, n) => a + y.get(n), 0) / ns.length : y.get(id);
      });
      // Keep the order with the minimum gap: resolve overlaps pushing down, and again
      // pushing up, and take the mean (which keeps both the order and the gap).
      const downs = want.slice(), ups = want.slice();
      for (let i = 1; i < downs.length; i++) downs[i] = Math.max(downs[i], downs[i - 1] + gap);
      for (let i = ups.length - 2; i >= 0; i--) ups[i] = Math.min(ups[i], ups[i + 1] - gap);
      layer.forEach((id, i) => y.set(id, (downs[i] + ups[i]) / 2));
    }
  }
  const min = Math.min(...y.values());
  for (const [id, v] of y) y.set(id, v - min);
  return y;
}

// An SVG path through the points, as horizontal-tangent cubic curves.
export function curve(points) {
  let d = `M${r(points[0].x)},${r(points[0].y)}`;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1], b = points[i], mx = (a.x + b.x) / 2;
    d += ` C${r(mx)},${r(a.y)} ${r(mx)},${r(b.y)} ${r(b.x)},${r(b.y)}`;
  }
  return d;
}
const r = (v) => Math.round(v * 10) / 10;
