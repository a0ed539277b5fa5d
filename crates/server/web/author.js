// author.js: the Material view. A learner's own files uploaded (each with its progress) into
// passages that cite their file, page and headings; courses drafted from them and reviewed
// before they are published: the units as a graph and as cards to rename, reorder, merge
// (by moving passages), delete and re-link, with the draft's problems shown after every edit.
// Routes: #/material, #/material/document/<id>[/<passage>], #/material/draft/<id>.
import { api, apiUpload, ApiError, token } from './api.js';
import { el, fill, svgEl, reportError, showBanner, withBusy, count, fmtTime } from './ui.js';
import { layout, curve } from './dag.js';

const ACCEPT = '.md,.markdown,.txt,.text,.html,.htm,.pdf';
const NODE_W = 170, NODE_H = 44;

export function mountMaterial(root, config, rest) {
  ensureStyles();
  const [kind, id, passage] = (rest || '').split('/');
  if (kind === 'document' && id) return mountDocument(root, id, passage);
  if (kind === 'draft' && id) return mountDraft(root, id);
  return mountIndex(root, config);
}

// The view's own styles, added when it is first opened (the first page stays small).
function ensureStyles() {
  if (document.getElementById('author-css')) return;
  document.head.append(el('link', { id: 'author-css', rel: 'stylesheet', href: '/assets/author.css' }));
}

// ---- #/material: upload, documents, drafts

function mountIndex(root, config) {
  const documents = el('ul', { class: 'doc-list' }, el('li', { class: 'muted' }, 'Loading…'));
  const drafts = el('ul', { class: 'doc-list' }, el('li', { class: 'muted' }, 'Loading…'));
  const draftForm = el('form', { class: 'draft-form' });
  const page = el('div', { class: 'material-page' },
    el('h1', {}, 'Your material'),
    el('p', { class: 'muted' }, 'Your notes, handouts and books become courses of your own: each file is split on its headings into passages that remember their file, page and headings, so that what you are taught can cite them.'),
    el('section', { class: 'card', 'aria-labelledby': 'upload-h' }, el('h2', { id: 'upload-h' }, 'Add files'), uploader(() => refresh())),
    el('div', { class: 'material-cols' },
      el('section', { class: 'card', 'aria-labelledby': 'docs-h' }, el('h2', { id: 'docs-h' }, 'Documents'), documents),
      el('section', { class: 'card', 'aria-labelledby': 'drafts-h' }, el('h2', { id: 'drafts-h' }, 'Course drafts'), draftForm, drafts)));
  root.replaceChildren(page);

  async function refresh() {
    try {
      const [docs, list] = await Promise.all([api('GET', '/author/documents'), api('GET', '/author/drafts')]);
      if (!page.isConnected) return;
      renderDocuments(docs);
      renderDraftForm(docs);
      fill(drafts, list.length ? list.map((d) => el('li', {},
        el('a', { href: `#/material/draft/${d.id}` }, d.title),
        el('span', { class: 'muted small' }, ` ${d.course_id} · ${count(d.units, 'unit')} · edited ${fmtTime(d.updated_at)}`)))
        : el('li', { class: 'muted' }, 'No drafts yet.'));
    } catch (e) { reportError(e); }
  }

  function renderDocuments(docs) {
    fill(documents, docs.length ? docs.map((d) => el('li', { 'data-document': d.name },
      el('a', { href: `#/material/document/${d.id}` }, d.name),
      el('span', { class: 'muted small' }, ` ${d.format}${d.pages ? ` · ${count(d.pages, 'page')}` : ''} · ${count(d.chunk_count, 'passage')}`),
      el('button', { type: 'button', class: 'link-btn', 'aria-label': `Remove ${d.name}`, onclick: () => withBusy(async () => {
        if (!confirm(`Remove ${d.name} and its passages?`)) return;
        await api('DELETE', `/author/documents/${d.id}`);
        await refresh();
      }) }, 'Remove')))
      : el('li', { class: 'muted' }, 'No documents yet: add Markdown, text, HTML or PDF files above.'));
  }

  function renderDraftForm(docs) {
    if (!docs.length) { fill(draftForm, el('p', { class: 'muted small' }, 'Add a document to draft a course from it.')); return; }
    const title = el('input', { id: 'draft-title', required: true, maxlength: 200, placeholder: 'e.g. Networking notes' });
    const picks = docs.map((d) => el('input', { type: 'checkbox', value: d.id, checked: true, 'aria-label': d.name }));
    const byModel = el('input', { type: 'checkbox', id: 'draft-by-model' });
    fill(draftForm,
      el('label', { for: 'draft-title' }, 'Course title'), title,
      el('fieldset', { class: 'doc-picks' }, el('legend', { class: 'small' }, 'From'),
        docs.map((d, i) => el('label', { class: 'small' }, picks[i], ` ${d.name}`))),
      config?.model ? el('label', { class: 'small' }, byModel, ' Let the model group the sections into units and order them') : null,
      el('button', { type: 'submit', class: 'primary' }, 'Draft an outline'),
      el('p', { class: 'muted small' }, 'Units come from the headings, in document order; you review and edit them before anything is published.'));
    draftForm.onsubmit = (e) => {
      e.preventDefault();
      withBusy(async () => {
        const documents = picks.filter((p) => p.checked).map((p) => p.value);
        const view = await api('POST', '/author/drafts', { title: title.value, documents, use_model: byModel.checked });
        if (view.outlined?.refused) showBanner(`The model's outline was refused (${view.outlined.refused}); the headings' outline stands.`, 'info');
        location.hash = `#/material/draft/${view.id}`;
      });
    };
  }

  refresh();
}

// Files picked or dropped, uploaded one after another, each with its progress and outcome.
function uploader(done) {
  const input = el('input', { type: 'file', id: 'upload-input', multiple: true, accept: ACCEPT });
  const log = el('ul', { class: 'upload-log', 'aria-live': 'polite' });
  const zone = el('label', { class: 'drop-zone', for: 'upload-input' },
    el('strong', {}, 'Choose files'), ' or drop them here', el('br'),
    el('span', { class: 'muted small' }, 'Markdown, text, HTML or PDF; a file added again is updated, keeping its unchanged passages.'));
  const send = async (files) => {
    for (const [i, file] of [...files].entries()) {
      const bar = el('progress', { max: 1, value: 0, 'aria-label': `Uploading ${file.name}` });
      const note = el('span', { class: 'small' }, `${i + 1} of ${files.length}: sending…`);
      const row = el('li', { 'data-file': file.name }, el('span', { class: 'file-name' }, file.name), bar, note);
      log.prepend(row);
      try {
        const got = await apiUpload(`/author/documents?name=${encodeURIComponent(file.name)}`, file, (f) => { bar.value = f; if (f >= 1) note.textContent = 'reading…'; });
        row.classList.add('ok');
        note.textContent = got.unchanged ? 'unchanged: already added'
          : `${count(got.chunk_count, 'passage')} (${got.added} new, ${got.kept} kept, ${got.removed} removed)${got.unreadable_pages?.length ? `; pages ${got.unreadable_pages.join(', ')} could not be read` : ''}`;
      } catch (e) {
        row.classList.add('failed');
        note.textContent = e instanceof ApiError ? e.message : String(e.message ?? e);
        if (!(e instanceof ApiError)) reportError(e);
      }
    }
    input.value = '';
    done();
  };
  input.addEventListener('change', () => { if (input.files.length) send(input.files); });
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => { e.preventDefault(); zone.classList.remove('over'); if (e.dataTransfer.files.length) send(e.dataTransfer.files); });
  return el('div', {}, zone, input, log);
}

// ---- #/material/document/<id>: the passages with their citations

function mountDocument(root, id, highlight) {
  const body = el('div', {}, el('p', { class: 'muted' }, 'Loading…'));
  root.replaceChildren(el('div', { class: 'material-page' }, el('p', {}, el('a', { href: '#/material' }, '← Your material')), body));
  api('GET', `/author/documents/${id}`).then((doc) => {
    fill(body,
      el('h1', {}, doc.title || doc.name),
      el('p', { class: 'muted small' }, `${doc.name} · ${doc.format}${doc.pages ? ` · ${count(doc.pages, 'page')}` : ''} · ${count(doc.chunk_count, 'passage')}`),
      el('ol', { class: 'passages' }, doc.chunks.map((c) => el('li', { id: `passage-${c.id}`, class: c.id === highlight ? 'passage highlight' : 'passage' },
        el('cite', {}, c.citation), el('p', {}, c.text)))));
    if (highlight) document.getElementById(`passage-${highlight}`)?.scrollIntoView({ block: 'center' });
  }, (e) => { fill(body, el('p', {}, 'This document could not be read.')); reportError(e); });
}

// ---- #/material/draft/<id>: the review view

function mountDraft(root, id) {
  let view = null;
  const head = el('div', {});
  const problems = el('section', { class: 'card problems', 'aria-labelledby': 'problems-h', 'aria-live': 'polite' });
  const graph = el('div', { class: 'dag-scroll draft-graph' });
  const units = el('ol', { class: 'unit-cards' });
  const actions = el('div', { class: 'card-actions' });
  const page = el('div', { class: 'material-page draft-page' },
    el('p', {}, el('a', { href: '#/material' }, '← Your material')), head, problems,
    el('section', { class: 'card', 'aria-labelledby': 'graph-h' }, el('h2', { id: 'graph-h' }, 'Units and prerequisites'), graph),
    units, actions);
  root.replaceChildren(page);

  const load = async () => { view = await api('GET', `/author/drafts/${id}`); render(); };
  // Every edit is the whole draft with the version it was made from; another editor's
  // change in between comes back as a conflict, and the draft is read again.
  const save = (change) => withBusy(async () => {
    const draft = structuredClone(view.draft);
    change(draft);
    try {
      view = await api('PUT', `/author/drafts/${id}`, { version: view.version, draft });
    } catch (e) {
      if (e instanceof ApiError && e.code === 'version_conflict') {
        showBanner('This draft was changed elsewhere since you opened it; it is shown as it is now. Make your edit again.', 'info');
        await load();
        return;
      }
      throw e;
    }
    render();
  });

  function render() {
    const { draft } = view;
    const passages = new Map(view.passages.map((p) => [p.id, p]));
    fill(head,
      el('h1', {}, draft.title),
      el('div', { class: 'draft-fields' },
        field('Title', draft.title, (v) => save((d) => { d.title = v; }), { maxlength: 200 }),
        field('Course id', draft.course_id, (v) => save((d) => { d.course_id = v; }), { maxlength: 64 })),
      el('p', { class: 'muted small' }, `Version ${view.version} · ${count(draft.units.length, 'unit')} · ${count(view.passages.length, 'passage')}`));
    const drafted = draft.units.some((u) => u.questions?.length || u.drills?.length);
    const gaps = view.gaps ?? [];
    fill(problems, el('h2', { id: 'problems-h' }, view.problems.length ? `${count(view.problems.length, 'problem')} to fix` : 'No problems'),
      view.problems.length
        ? el('ul', {}, view.problems.map((p) => el('li', {}, el('code', {}, p.field), ` ${p.message}`)))
        : el('p', { class: 'muted small' }, gaps.length
          ? 'The draft is a course as it stands, though not every tier can be earned in every unit (below).'
          : 'The draft is a course as it stands, every tier earnable in every unit: export it as a pack or publish it.'),
      !drafted ? el('p', { class: 'small next-step' }, 'Next: draft questions and drills, so that each unit has a bronze, silver and gold question to earn.') : null,
      gaps.length ? el('details', { class: 'gaps' }, el('summary', {}, `${count(gaps.length, 'unit')} short of a tier`),
        el('ul', {}, gaps.map((p) => el('li', {}, el('code', {}, p.field), ` ${p.message}`)))) : null);
    problems.classList.toggle('has-problems', view.problems.length > 0);
    drawGraph(graph, draft.units);
    const skills = new Map((view.skills ?? []).map((s) => [s.skill_id, s]));
    fill(units, draft.units.map((u, i) => unitCard(draft, u, i, passages, skills)));
    // Until its units have questions, drafting them is the next step, not publishing.
    const publishable = view.problems.length === 0;
    fill(actions,
      el('button', { type: 'button', class: publishable ? null : 'primary', onclick: () => withBusy(() => draftUnits(false)) },
        drafted ? 'Draft questions for units without any' : 'Draft questions and drills'),
      view.model_estimate ? el('button', { type: 'button', onclick: () => withBusy(() => draftUnits(true)),
        title: `At most ${view.model_estimate.calls * 2} calls and ${view.model_estimate.max_completion_tokens * 2} reply tokens, if every first proposal is refused` },
      `Draft with the model (${count(view.model_estimate.calls, 'call')}, about ${view.model_estimate.prompt_tokens.toLocaleString()} prompt tokens)`) : null,
      el('button', { type: 'button', disabled: view.problems.length > 0, onclick: () => withBusy(exportPack) }, 'Export pack'),
      el('button', { type: 'button', class: publishable ? 'primary' : null, disabled: !publishable, onclick: () => withBusy(publish) }, 'Publish'));
  }

  function unitCard(draft, u, i, passages, skills) {
    const others = draft.units.filter((o) => o.id !== u.id);
    const problemOf = view.problems.filter((p) => p.field.startsWith(`units[${i}]`));
    return el('li', { class: `card unit-card${problemOf.length ? ' has-problems' : ''}`, 'data-unit': u.id },
      el('div', { class: 'unit-head' },
        el('span', { class: 'unit-no' }, `${i + 1}`),
        field('Title', u.title, (v) => save((d) => { d.units[i].title = v; }), { maxlength: 200, label: `Unit ${i + 1} title` }),
        el('code', { class: 'small muted' }, u.id),
        el('span', { class: 'unit-moves' },
          el('button', { type: 'button', 'aria-label': `Move ${u.title} up`, disabled: i === 0, onclick: () => save((d) => swap(d.units, i, i - 1)) }, '↑'),
          el('button', { type: 'button', 'aria-label': `Move ${u.title} down`, disabled: i === draft.units.length - 1, onclick: () => save((d) => swap(d.units, i, i + 1)) }, '↓'),
          el('button', { type: 'button', class: 'link-btn', 'aria-label': `Delete ${u.title}`, onclick: () => save((d) => {
            d.units.splice(i, 1);
            d.units.forEach((o) => { o.prerequisites = o.prerequisites.filter((p) => p !== u.id); });
          }) }, 'Delete'))),
      problemOf.length ? el('ul', { class: 'unit-problems small' }, problemOf.map((p) => el('li', {}, p.message))) : null,
      el('label', { class: 'small' }, 'Anchor: what the unit is about, in a sentence'),
      textField(u.anchor, (v) => save((d) => { d.units[i].anchor = v; }), `Unit ${i + 1} anchor`),
      el('fieldset', { class: 'prereqs' }, el('legend', { class: 'small' }, 'Learned first'),
        others.length ? others.map((o) => el('label', { class: 'small' },
          el('input', { type: 'checkbox', checked: u.prerequisites.includes(o.id), onchange: (e) => save((d) => {
            const list = d.units[i].prerequisites;
            d.units[i].prerequisites = e.target.checked ? [...list, o.id] : list.filter((p) => p !== o.id);
          }) }), ` ${o.title}`)) : el('span', { class: 'muted small' }, 'No other units.')),
      el('ol', { class: 'unit-passages' }, u.chunks.map((c, j) => {
        const p = passages.get(c);
        return el('li', { class: 'passage' },
          p ? el('a', { href: `#/material/document/${p.document_id}/${p.id}` }, el('cite', {}, p.citation)) : el('cite', {}, 'a passage no longer in your documents'),
          p ? el('p', { class: 'small' }, excerpt(p.text)) : null,
          el('span', { class: 'passage-moves' },
            el('button', { type: 'button', 'aria-label': 'Move this passage up', disabled: j === 0, onclick: () => save((d) => swap(d.units[i].chunks, j, j - 1)) }, '↑'),
            el('button', { type: 'button', 'aria-label': 'Move this passage down', disabled: j === u.chunks.length - 1, onclick: () => save((d) => swap(d.units[i].chunks, j, j + 1)) }, '↓'),
            others.length ? el('select', { 'aria-label': 'Move this passage to', onchange: (e) => { if (e.target.value) save((d) => {
              d.units[i].chunks.splice(j, 1);
              d.units.find((o) => o.id === e.target.value).chunks.push(c);
            }); } }, el('option', { value: '' }, 'Move to…'), others.map((o) => el('option', { value: o.id }, o.title))) : null,
            el('button', { type: 'button', class: 'link-btn', onclick: () => save((d) => { d.units[i].chunks.splice(j, 1); }) }, 'Remove')));
      })),
      questionList(u, i, passages),
      drillList(u, i, passages),
      blueprintList(u, i, passages, skills));
  }

  // A citation that opens the passage in its document.
  const cited = (passages, id) => {
    const p = passages.get(id);
    return p ? el('a', { class: 'small', href: `#/material/document/${p.document_id}/${p.id}` }, el('cite', {}, p.citation))
      : el('cite', { class: 'small' }, 'a passage not in this unit');
  };

  // The unit's exam questions by tier, each with the passage its answer comes from; a tier
  // without one can be written here.
  function questionList(u, i, passages) {
    const questions = u.questions ?? [];
    return el('section', { class: 'unit-questions', 'aria-label': `${u.title}: exam questions` },
      el('h3', { class: 'small' }, 'Exam questions'),
      TIERS.flatMap((tier) => {
        const here = questions.map((q, j) => [q, j]).filter(([q]) => q.tier === tier);
        if (!here.length) {
          return el('p', { class: 'muted small missing-tier' }, `No ${tier} question: a learner earns ${tier} here only with one. `,
            el('button', { type: 'button', class: 'link-btn', disabled: !u.chunks.length, onclick: () => save((d) => {
              (d.units[i].questions ??= []).push({ id: `${u.id}-${tier}`, tier, stem: '', options: ['', ''], correct: 0, memo: '', passage: u.chunks[0] });
            }) }, `Write one`));
        }
        return here.map(([q, j]) => el('div', { class: `question tier-${tier}`, 'data-question': q.id },
          el('p', { class: 'small' }, el('span', { class: `badge ${tier}` }, tier), ' ', cited(passages, q.passage),
            el('button', { type: 'button', class: 'link-btn', onclick: () => save((d) => { d.units[i].questions.splice(j, 1); }) }, 'Delete')),
          textField(q.stem, (v) => save((d) => { d.units[i].questions[j].stem = v; }), `${u.title} ${tier} question`),
          el('ol', { class: 'options' }, q.options.map((o, k) => el('li', {},
            el('input', { type: 'radio', name: `correct-${q.id}-${j}`, checked: k === q.correct, 'aria-label': `Option ${k + 1} is correct`,
              onchange: () => save((d) => { d.units[i].questions[j].correct = k; }) }),
            field('', o, (v) => save((d) => { d.units[i].questions[j].options[k] = v; }), { maxlength: 300, label: `Option ${k + 1}` })))),
          el('p', { class: 'muted small memo' }, q.memo)));
      }));
  }

  function drillList(u, i, passages) {
    const drills = u.drills ?? [];
    if (!drills.length) return el('p', { class: 'muted small' }, 'No drills: the tutor asks the unit\'s drills for practice before its exam.');
    return el('section', { class: 'unit-drills', 'aria-label': `${u.title}: drills` },
      el('h3', { class: 'small' }, 'Drills'),
      el('ul', {}, drills.map((d, j) => el('li', { class: 'small' }, d.stem, ' → ', el('strong', {}, d.answer), ' ', cited(passages, d.passage),
        el('button', { type: 'button', class: 'link-btn', onclick: () => save((x) => { x.units[i].drills.splice(j, 1); }) }, 'Delete')))));
  }

  // Drills computed by a skill blueprint, matched to a computation the unit's material works:
  // what the skill asks, a question it makes, and where the computation is.
  function blueprintList(u, i, passages, skills) {
    const blueprints = u.blueprints ?? [];
    if (!blueprints.length) return null;
    return el('section', { class: 'unit-blueprints', 'aria-label': `${u.title}: computed drills` },
      el('h3', { class: 'small' }, 'Computed drills'),
      el('ul', {}, blueprints.map((b, j) => {
        const skill = skills.get(b.skill_id);
        return el('li', { class: 'small', 'data-skill': b.skill_id },
          el('strong', {}, skill?.statement ?? b.skill_id), ' ', el('code', { class: 'muted' }, b.skill_id),
          skill ? el('p', { class: 'muted' }, 'For example: ', skill.sample) : null,
          el('p', {}, b.example ? `Like ${b.example} in ` : 'From ', cited(passages, b.passage),
            el('button', { type: 'button', class: 'link-btn', onclick: () => save((x) => { x.units[i].blueprints.splice(j, 1); }) }, 'Delete')));
      })));
  }

  async function draftUnits(useModel) {
    view = await api('POST', `/author/drafts/${id}/units`, { version: view.version, use_model: useModel });
    const refused = (view.drafted ?? []).filter((d) => d.refused);
    if (useModel && refused.length) {
      showBanner(`The model's questions for ${refused.map((d) => d.unit_id).join(', ')} were refused (${refused[0].refused}); those units were drafted from their material.`, 'info');
    }
    render();
  }

  async function exportPack() {
    const res = await fetch(`/api/author/drafts/${id}/pack`, { headers: { Authorization: `Bearer ${token.get()}` } });
    if (!res.ok) { await load(); throw new Error('The draft has problems to fix first.'); }
    const link = el('a', { href: URL.createObjectURL(new Blob([await res.text()], { type: 'application/toml' })), download: `${view.draft.course_id}.toml` });
    document.body.append(link); link.click(); link.remove();
  }

  async function publish() {
    const course = await api('POST', `/author/drafts/${id}/publish`, {});
    showBanner(`Published: "${course.title}" is a course of yours (${count(course.unitCount, 'unit')}); the tutor teaches it.`, 'info');
    fill(actions, el('button', { type: 'button', class: 'primary', onclick: () => { location.hash = '#/tutor'; } }, 'Open the Tutor'), ...actions.childNodes);
  }

  load().catch((e) => { fill(head, el('p', {}, 'This draft could not be read.')); reportError(e); });
}

function drawGraph(box, units) {
  if (!units.length) { fill(box, el('p', { class: 'muted' }, 'No units.')); return; }
  const L = layout(units.map((u) => ({ id: u.id })), units.flatMap((u) => u.prerequisites.map((p) => ({ from: p, to: u.id }))),
    { nodeW: NODE_W, nodeH: NODE_H, layerGap: 56, rowGap: 14, margin: 16 });
  const svg = svgEl('svg', { class: 'dag', viewBox: `0 0 ${L.width} ${L.height}`, width: L.width, role: 'img',
    'aria-label': `${units.length} units; arrows point from a unit to the units that need it` });
  svg.append(svgEl('defs', {}, svgEl('marker', { id: 'draft-arrow', viewBox: '0 0 10 10', refX: '9', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse' },
    svgEl('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }))));
  L.edges.forEach((e) => svg.append(svgEl('path', { d: curve(e.points), class: 'edge', 'marker-end': 'url(#draft-arrow)' })));
  units.forEach((u, i) => {
    const p = L.nodes.get(u.id);
    if (!p) return;
    svg.append(svgEl('g', { class: 'node', transform: `translate(${p.x},${p.y})`, 'data-unit': u.id },
      svgEl('rect', { class: 'box', width: NODE_W, height: NODE_H, rx: 8 }),
      svgEl('text', { class: 'label', x: 10, y: 19 }, `${i + 1}. ${u.title.length > 19 ? `${u.title.slice(0, 18)}…` : u.title}`),
      svgEl('text', { class: 'state', x: 10, y: 36 }, count(u.chunks.length, 'passage'))));
  });
  fill(box, svg);
}

function field(label, value, onChange, { maxlength, label: aria } = {}) {
  const input = el('input', { value, maxlength, 'aria-label': aria ?? label });
  input.addEventListener('change', () => { const v = input.value.trim(); if (v && v !== value) onChange(v); else input.value = value; });
  return el('label', { class: 'field small' }, aria ? null : `${label} `, input);
}

// A text shown whole, however long (a question's stem): the box grows with its text (CSS
// field-sizing where the browser has it, else its height set from the text's).
function textField(value, onChange, aria) {
  const area = el('textarea', { rows: 2, class: 'grows', 'aria-label': aria });
  area.value = value;
  area.addEventListener('change', () => { const v = area.value.trim(); if (v !== value) onChange(v); });
  const grow = () => {
    if (CSS.supports?.('field-sizing', 'content') || !area.isConnected || !area.scrollHeight) return;
    area.style.height = 'auto';
    area.style.height = `${area.scrollHeight + 2}px`;
  };
  area.addEventListener('input', grow);
  requestAnimationFrame(grow);
  return area;
}

const TIERS = ['bronze', 'silver', 'gold'];
const swap = (list, a, b) => { [list[a], list[b]] = [list[b], list[a]]; };
const excerpt = (text) => (text.length > 220 ? `${text.slice(0, 219)}…` : text);
