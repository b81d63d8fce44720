/**
 * The hparams view: a table of each selected run's hyperparameters and the last value
 * of its metrics (sortable by clicking a column), and a parallel-coordinates chart
 * with one line per run, coloured by the first metric.
 */
import { getJSON } from './api.js';
import { el, fill, note } from './cards.js';
import { selectedRuns } from './state.js';

let rows = [];         // /api/hparams answer
let sortKey = 'run';
let sortUp = true;

function columns(shown) {
  const hparams = new Set();
  const metrics = new Set();
  for (const row of shown) {
    Object.keys(row.hparams || {}).forEach((k) => hparams.add(k));
    Object.keys(row.metrics || {}).forEach((k) => metrics.add(k));
  }
  return { hparams: [...hparams].sort(), metrics: [...metrics].sort() };
}

function cellValue(row, column) {
  if (column.kind === 'run') return row.run;
  const source = column.kind === 'hparam' ? row.hparams : row.metrics;
  const value = source ? source[column.name] : undefined;
  return value === undefined ? null : value;
}

function compare(a, b) {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

function format(value) {
  if (value === null) return '–';
  if (typeof value === 'number') return String(Number(value.toPrecision(6)));
  return String(value);
}

function table(shown, cols, redraw) {
  const all = [{ kind: 'run', name: 'run', key: 'run' },
    ...cols.hparams.map((name) => ({ kind: 'hparam', name, key: `h:${name}` })),
    ...cols.metrics.map((name) => ({ kind: 'metric', name, key: `m:${name}` }))];
  const column = all.find((c) => c.key === sortKey) || all[0];
  const sorted = shown.slice().sort((a, b) => compare(cellValue(a, column), cellValue(b, column))
    * (sortUp ? 1 : -1));
  const head = el('tr', {}, all.map((c) => {
    const th = el('th', { className: `col-${c.kind}`, dataset: { key: c.key },
      textContent: c.name + (c.key === column.key ? (sortUp ? ' ▲' : ' ▼') : '') });
    th.addEventListener('click', () => {
      sortUp = sortKey === c.key ? !sortUp : true;
      sortKey = c.key;
      redraw();
    });
    return th;
  }));
  const body = sorted.map((row) => el('tr', { dataset: { run: row.run } },
    all.map((c) => el('td', { className: `col-${c.kind}`, textContent: format(cellValue(row, c)) }))));
  return el('table', { id: 'hparams-table', className: 'hparams-table' },
    el('thead', {}, head), el('tbody', {}, body));
}

/** A parcoords dimension for one column: numbers as they are, anything else as the
 *  index of its value among the sorted distinct values (with those values as ticks). */
function dimension(label, values) {
  if (values.every((v) => typeof v === 'number')) return { label, values };
  const distinct = [...new Set(values.map(String))].sort();
  return { label, values: values.map((v) => distinct.indexOf(String(v))),
    tickvals: distinct.map((_, i) => i), ticktext: distinct };
}

function parcoords(holder, shown, cols) {
  const complete = shown.filter((row) => cols.hparams.every((k) => row.hparams[k] !== undefined)
    && cols.metrics.every((k) => typeof row.metrics[k] === 'number'));
  if (complete.length === 0 || cols.hparams.length + cols.metrics.length < 2) {
    holder.replaceChildren(note('Parallel coordinates need runs holding every column.'));
    return;
  }
  const dims = [...cols.hparams.map((k) => dimension(k, complete.map((r) => r.hparams[k]))),
    ...cols.metrics.map((k) => dimension(k, complete.map((r) => r.metrics[k])))];
  const colorBy = cols.metrics.length ? complete.map((r) => r.metrics[cols.metrics[0]])
    : complete.map((_, i) => i);
  const trace = { type: 'parcoords', dimensions: dims,
    line: { color: colorBy, colorscale: 'Viridis', showscale: cols.metrics.length > 0 } };
  const layout = { height: 360, margin: { l: 60, r: 60, t: 50, b: 30 } };
  Plotly.react(holder, [trace], layout, { displaylogo: false, responsive: true })
    .catch((error) => holder.replaceChildren(note(`parallel coordinates: ${error.message || error}`)));
  holder.dataset.lines = complete.length;
}

function draw(pane) {
  const chosen = new Set(selectedRuns());
  const shown = rows.filter((row) => chosen.has(row.run));
  if (!shown.length) {
    fill(pane, note('No hyperparameters logged by the selected runs.'));
    return;
  }
  const cols = columns(shown);
  const chart = el('div', { className: 'chart parcoords-chart', id: 'hparams-parcoords' });
  fill(pane, el('div', { className: 'card hparams-card' }, table(shown, cols, () => draw(pane))),
    el('div', { className: 'card hparams-card' }, chart));
  parcoords(chart, shown, cols);
}

export const hparamsView = {
  id: 'hparams',
  title: 'Hparams',
  kind: null,
  async render(pane) {
    rows = await getJSON('api/hparams');
    draw(pane);
  },
  async poll(pane) {
    const next = await getJSON('api/hparams');
    if (JSON.stringify(next) !== JSON.stringify(rows)) {
      rows = next;
      draw(pane);
    }
  },
};
