/**
 * The embeddings view: pick a logged embedding, a projection (PCA or t-SNE, computed by
 * the server) and 2 or 3 dimensions; the points are drawn as a scatter coloured by
 * label, with each point's label on hover.
 */
import { getJSON } from './api.js';
import { el, fill, note } from './cards.js';
import { selectedRuns } from './state.js';

const MAX_LEGEND_LABELS = 30;
let list = [];
let choice = { key: null, method: 'pca', dims: 2 };

const keyOf = (e) => `${e.run}\n${e.tag}`;

function select(name, options, value, onChange) {
  const box = el('select', { name, dataset: { role: name } },
    options.map(([v, text]) => el('option', { value: v, textContent: text, selected: v === value })));
  box.addEventListener('change', () => onChange(box.value));
  return el('label', { className: 'control' }, `${name} `, box);
}

function traces(points, labels, dims) {
  const type = dims === 3 ? 'scatter3d' : 'scatter';
  const make = (indices, name, withLegend) => {
    const t = { type, mode: 'markers', name, showlegend: withLegend,
      x: indices.map((i) => points[i][0]), y: indices.map((i) => points[i][1]),
      text: indices.map((i) => (labels ? String(labels[i]) : `#${i}`)),
      hovertemplate: '%{text}<extra></extra>', marker: { size: dims === 3 ? 3 : 6 } };
    if (dims === 3) t.z = indices.map((i) => points[i][2]);
    return t;
  };
  const all = points.map((_, i) => i);
  const distinct = labels ? [...new Set(labels.map(String))] : [];
  if (!labels || distinct.length > MAX_LEGEND_LABELS) return [make(all, 'points', false)];
  return distinct.map((label) => make(all.filter((i) => String(labels[i]) === label), label, true));
}

async function plot(holder, status) {
  const entry = list.find((e) => keyOf(e) === choice.key);
  if (!entry) return;
  holder.dataset.state = 'loading';
  status.textContent = `computing ${choice.method === 'tsne' ? 't-SNE' : 'PCA'}…`;
  const data = await getJSON('api/embedding',
    { run: entry.run, tag: entry.tag, method: choice.method, dims: choice.dims });
  // (t-SNE of a large embedding runs on a sample: the server says so in `note`)
  status.textContent = `${data.points.length} points${data.note ? ` (${data.note})` : ''}`;
  const layout = { height: 560, margin: { l: 40, r: 10, t: 10, b: 30 }, hovermode: 'closest',
    legend: { itemsizing: 'constant' } };
  await Plotly.react(holder, traces(data.points, data.labels, choice.dims), layout,
    { displaylogo: false, responsive: true });
  Object.assign(holder.dataset, { points: data.points.length, run: entry.run, tag: entry.tag,
    method: choice.method, dims: choice.dims, state: 'ready' });
}

function draw(pane) {
  const chosen = new Set(selectedRuns());
  const shown = list.filter((e) => chosen.has(e.run));
  if (!shown.length) {
    fill(pane, note('No embeddings in the selected runs.'));
    return;
  }
  if (!shown.some((e) => keyOf(e) === choice.key)) choice.key = keyOf(shown[0]);
  const holder = el('div', { className: 'chart embedding-chart', id: 'embedding-chart' });
  const status = note('');
  const replot = () => plot(holder, status).catch((error) => {
    holder.dataset.state = 'error';
    status.textContent = String(error.message || error);
  });
  const controls = el('div', { className: 'controls' },
    select('embedding', shown.map((e) => [keyOf(e),
      `${e.tag} (${e.run}, ${e.shape[0]}×${e.shape[1]})`]), choice.key,
    (v) => { choice.key = v; replot(); }),
    select('method', [['pca', 'PCA'], ['tsne', 't-SNE']], choice.method,
      (v) => { choice.method = v; replot(); }),
    select('dims', [['2', '2-D'], ['3', '3-D']], String(choice.dims),
      (v) => { choice.dims = Number(v); replot(); }));
  fill(pane, el('div', { className: 'card embedding-card' }, controls, status, holder));
  replot();
}

export const embeddingsView = {
  id: 'embeddings',
  title: 'Embeddings',
  kind: null,
  async render(pane) {
    list = await getJSON('api/embeddings');
    draw(pane);
  },
  async poll(pane) {
    const next = await getJSON('api/embeddings');
    if (JSON.stringify(next) !== JSON.stringify(list)) {
      list = next;
      draw(pane);
    }
  },
};
