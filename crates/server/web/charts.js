// charts.js: small hand-drawn SVG charts (no library: the page stays light): a stacked bar
// of counts and a line chart over dates. Each SVG is role="img" with a text label; callers
// also give the numbers as text or a table, so nothing is told by colour or shape alone.
const NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs = {}, ...kids) {
  const n = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v != null && v !== false) n.setAttribute(k, v);
  for (const kid of kids.flat()) if (kid != null && kid !== false) n.append(kid);
  return n;
}
const tip = (text) => svg('title', {}, text);

// 'YYYY-MM-DD' (a UTC calendar day, as snapshots are dated) -> 'Nov 24'.
export function fmtDay(day, opts = { month: 'short', day: 'numeric' }) {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString([], { ...opts, timeZone: 'UTC' });
}
const dayNumber = (day) => Math.round(Date.parse(`${day}T00:00:00Z`) / 86400000);

// stackedBar([{ key, label, count, color }], { title }): one bar, a segment per non-zero
// count, widths in proportion. Stretched to its box (the bar has no text to distort).
export function stackedBar(segments, { title, height = 26 }) {
  const total = segments.reduce((s, x) => s + x.count, 0);
  const bar = svg('svg', { class: 'chart stacked', viewBox: `0 0 1000 ${height}`, preserveAspectRatio: 'none',
    height, role: 'img', 'aria-label': title });
  if (!total) {
    bar.append(svg('rect', { x: 0, y: 0, width: 1000, height, fill: '#e4e7ee' }, tip('No concepts yet')));
    return bar;
  }
  let x = 0;
  for (const s of segments) {
    if (!s.count) continue;
    const width = (s.count / total) * 1000;
    bar.append(svg('rect', { x: x.toFixed(2), y: 0, width: width.toFixed(2), height, fill: s.color,
      class: 'segment', 'data-status': s.key, 'data-count': s.count }, tip(`${s.label}: ${s.count}`)));
    x += width;
  }
  return bar;
}

// lineChart({ points: [{ day: 'YYYY-MM-DD', value: number | null }], min, max, ticks, format,
// width, title, missing }): days placed by date (gaps between snapshots show as gaps in
// time), a line through the known values, a hollow mark on the axis where a value is
// missing (`missing` says why, in its tooltip). Drawn at the pixel width given, so that its
// text keeps its size on a phone.
export function lineChart({ points, min, max, ticks, format, width, height = 230, title, missing = 'no value' }) {
  const m = { top: 14, right: 18, bottom: 34, left: 46 };
  const w = Math.max(260, Math.round(width));
  const plotW = w - m.left - m.right, plotH = height - m.top - m.bottom;
  const chart = svg('svg', { class: 'chart line', width: w, height, viewBox: `0 0 ${w} ${height}`, role: 'img', 'aria-label': title });
  const days = points.map((p) => dayNumber(p.day));
  const first = Math.min(...days), span = Math.max(...days) - first;
  const xOf = (i) => m.left + (span ? ((days[i] - first) / span) * plotW : plotW / 2);
  const yOf = (v) => m.top + plotH - ((Math.min(max, Math.max(min, v)) - min) / (max - min || 1)) * plotH;

  const grid = svg('g', { class: 'grid', 'aria-hidden': 'true' });
  for (const t of ticks) {
    const y = yOf(t).toFixed(1);
    grid.append(svg('line', { x1: m.left, x2: w - m.right, y1: y, y2: y }),
      svg('text', { x: m.left - 8, y, dy: '0.32em', 'text-anchor': 'end', class: 'tick' }, format(t)));
  }
  // Date labels: as many as fit without touching (about 60 px each), always the last.
  const every = Math.max(1, Math.ceil(points.length / Math.max(1, Math.floor(plotW / 60))));
  points.forEach((p, i) => {
    if (i % every && i !== points.length - 1) return;
    if (i !== points.length - 1 && points.length - 1 - i < every) return;
    // Labels at the plot's edges grow inwards, so that none is cut off.
    const x = xOf(i), anchor = x > w - m.right - 24 ? 'end' : x < m.left + 24 && points.length > 1 ? 'start' : 'middle';
    grid.append(svg('text', { x: x.toFixed(1), y: height - m.bottom + 20, 'text-anchor': anchor, class: 'tick' }, fmtDay(p.day)));
  });
  grid.append(svg('line', { class: 'axis', x1: m.left, x2: w - m.right, y1: m.top + plotH, y2: m.top + plotH }),
    svg('line', { class: 'axis', x1: m.left, x2: m.left, y1: m.top, y2: m.top + plotH }));
  chart.append(grid);

  // The line breaks where a value is missing rather than bridging a day with no data.
  let d = '', pen = false;
  points.forEach((p, i) => {
    if (p.value == null) { pen = false; return; }
    d += `${pen ? 'L' : 'M'}${xOf(i).toFixed(1)},${yOf(p.value).toFixed(1)}`;
    pen = true;
  });
  if (d) chart.append(svg('path', { class: 'series', d, fill: 'none' }));
  points.forEach((p, i) => {
    const label = `${fmtDay(p.day, { weekday: 'short', month: 'short', day: 'numeric' })}: ${p.value == null ? missing : format(p.value)}`;
    if (p.value == null) {
      chart.append(svg('circle', { class: 'point missing', cx: xOf(i).toFixed(1), cy: m.top + plotH, r: 4,
        'data-day': p.day, 'data-value': '' }, tip(label)));
    } else {
      chart.append(svg('circle', { class: 'point', cx: xOf(i).toFixed(1), cy: yOf(p.value).toFixed(1), r: 4.5,
        'data-day': p.day, 'data-value': p.value }, tip(label)));
    }
  });
  return chart;
}
