/**
 * The scalars view: one chart per tag with the selected runs overlaid, smoothing
 * (smoothing.js), log-scale y, x as step, relative or wall time, CSV/JSON downloads.
 * Charts load as they come into view; live polling asks each visible series for its
 * point count and fetches it again only when the count grew.
 */
import { apiUrl, getJSON } from './api.js';
import { el, fileName, fill, makeCard, note, tagGroups } from './cards.js';
import { LazyCards } from './lazy.js';
import { smooth } from './smoothing.js';
import { runColor, tagsOf } from './state.js';

const MAX_POINTS = 1000;
const lazy = new LazyCards();
const series = new Map(); // "run\ntag" -> {total, step, wall_time, value}
const settings = { smoothing: 0.6, logY: false, x: 'step' };

const key = (run, tag) => `${run}\n${tag}`;

async function fetchSeries(run, tag) {
  const data = await getJSON('api/scalars', { run, tag, max_points: MAX_POINTS });
  series.set(key(run, tag), data);
  return data;
}

function xValues(data) {
  if (settings.x === 'wall') return data.wall_time.map((t) => new Date(t * 1000));
  if (settings.x === 'relative') {
    const start = data.wall_time.length ? data.wall_time[0] : 0;
    return data.wall_time.map((t) => t - start);
  }
  return data.step;
}

const SPARSE_POINTS = 20;  // series of at most this many points show their points
const X_TITLES = { step: 'step', relative: 'relative time (s)', wall: 'wall time' };

function traces(runs, tag) {
  const out = [];
  const smoothing = settings.smoothing;
  for (const run of runs) {
    const data = series.get(key(run, tag));
    if (!data) continue;
    const color = runColor(run);
    const x = xValues(data);
    const hover = `${run}<br>step %{customdata}<br>%{y:.6g}<extra></extra>`;
    // a line alone draws nothing for one point, and little for a few far apart: mark them
    const sparse = data.value.length <= SPARSE_POINTS;
    out.push({
      type: 'scatter', mode: sparse ? 'lines+markers' : 'lines', name: run, legendgroup: run,
      x, y: data.value, marker: { color, size: 6 },
      customdata: data.step, hovertemplate: hover, meta: { run, role: 'raw' },
      line: { color, width: smoothing > 0 ? 1 : 1.5 }, opacity: smoothing > 0 ? 0.3 : 1,
      showlegend: smoothing === 0,
    });
    if (smoothing > 0) {
      out.push({
        type: 'scatter', mode: 'lines', name: run, legendgroup: run, x,
        y: smooth(data.value, smoothing), customdata: data.step, hovertemplate: hover,
        meta: { run, role: 'smoothed' }, line: { color, width: 2 },
      });
    }
  }
  return out;
}

function draw(card) {
  const { tag, runs } = card.scalar;
  const chart = card.querySelector('.chart');
  const data = traces(runs, tag);
  const layout = {
    height: 260, margin: { l: 55, r: 12, t: runs.length > 1 ? 28 : 8, b: 40 },
    showlegend: runs.length > 1, hovermode: 'closest',
    legend: { orientation: 'h', x: 0, y: 1, yanchor: 'bottom' },
    xaxis: { title: { text: X_TITLES[settings.x] }, type: settings.x === 'wall' ? 'date' : 'linear' },
    yaxis: { type: settings.logY ? 'log' : 'linear', exponentformat: 'e' },
  };
  Plotly.react(chart, data, layout, { displaylogo: false, responsive: true });
  const points = data.filter((t) => t.meta.role === 'raw').map((t) => t.y.length);
  card.dataset.points = points.reduce((a, b) => a + b, 0);
  card.dataset.smoothing = settings.smoothing;
  card.dataset.state = 'ready';
}

/** Draws `card` from the series fetched before (a rebuilt card) or fetches them. */
async function load(card) {
  const { tag, runs } = card.scalar;
  await Promise.all(runs.filter((run) => !series.has(key(run, tag)))
    .map((run) => fetchSeries(run, tag)));
  draw(card);
}

/** Fetches again the series of `card` whose point count grew; redraws if any did. */
async function refresh(card) {
  const { tag, runs } = card.scalar;
  let grew = false;
  await Promise.all(runs.map(async (run) => {
    const old = series.get(key(run, tag));
    const probe = await getJSON('api/scalars', { run, tag, max_points: 2 });
    if (!old || probe.total > old.total) {
      await fetchSeries(run, tag);
      grew = true;
    }
  }));
  card.stale = false;
  if (grew) draw(card);
}

function downloads(tag, runs) {
  const links = runs.flatMap((run) => ['csv', 'json'].map((format) => el('a', {
    className: 'download', href: apiUrl('api/scalars', { run, tag, format }),
    download: fileName(run, tag) + '.' + format, dataset: { run, format },
    textContent: `${run} ${format.toUpperCase()}`,
  })));
  return el('div', { className: 'downloads' }, el('span', { textContent: 'download:' }), links);
}

function buildCard({ tag, runs }) {
  const { card, body } = makeCard('scalar', tag, null, { tag, runs: runs.join('\n') });
  card.scalar = { tag, runs };
  body.append(el('div', { className: 'chart' }), downloads(tag, runs));
  lazy.watch(card, load, (shown) => { if (shown.stale) refresh(shown).catch(() => {}); });
  return card;
}

function readSettings() {
  settings.smoothing = Number(document.getElementById('smoothing').value);
  document.getElementById('smoothing-value').textContent = settings.smoothing.toFixed(2);
  settings.logY = document.getElementById('log-y').checked;
  settings.x = document.querySelector('input[name="x-axis"]:checked').value;
}

export const scalarsView = {
  id: 'scalars',
  title: 'Scalars',
  kind: 'scalars',

  /** Wires the sidebar's scalar settings: a change redraws the loaded charts from the
   *  series already fetched. */
  init(pane) {
    const redraw = () => {
      readSettings();
      for (const card of pane.querySelectorAll('.scalar-card')) {
        if (card.lazy && card.lazy.loaded && card.dataset.state === 'ready') draw(card);
      }
    };
    for (const id of ['smoothing', 'log-y']) {
      document.getElementById(id).addEventListener('input', redraw);
      document.getElementById(id).addEventListener('change', redraw);
    }
    for (const radio of document.querySelectorAll('input[name="x-axis"]')) {
      radio.addEventListener('change', redraw);
    }
    readSettings();
  },

  /** Rebuilds one card per shown tag; charts load as their cards come into view. */
  render(pane) {
    lazy.reset();
    const tags = tagsOf('scalars');
    if (!tags.length) {
      fill(pane, note('No scalars for the selected runs and tag filter.'));
      return;
    }
    fill(pane, tagGroups('scalars', tags, buildCard));
  },

  /** Live update: visible charts ask for their point counts; cards out of view are
   *  marked stale and checked when they come back. */
  async poll(pane) {
    const visible = new Set(lazy.visibleCards());
    for (const card of pane.querySelectorAll('.scalar-card')) {
      if (card.lazy && card.lazy.loaded && !visible.has(card)) card.stale = true;
    }
    await Promise.all([...visible].map((card) => refresh(card).catch(() => {})));
  },
};
