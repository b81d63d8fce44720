/**
 * The histograms view: for each run and tag, the distribution over steps, either as
 * overlaid ridge lines offset by step (TensorBoard's "offset" mode) or as a heatmap of
 * counts (step × value). Bucket i spans (limits[i-1], limits[i]]; the first starts at min.
 */
import { getJSON } from './api.js';
import { el, fill, makeCard, note, runChip, tagGroups } from './cards.js';
import { LazyCards } from './lazy.js';
import { pairsOf, runColor } from './state.js';

const MAX_RIDGES = 40;
const HEATMAP_BINS = 60;
const lazy = new LazyCards();
let mode = 'offset';

/** The buckets of one histogram as {left, right, count}, edges clipped to [min, max]. */
export function buckets(h) {
  const out = [];
  for (let i = 0; i < h.counts.length; i += 1) {
    const left = Math.max(i === 0 ? h.min : h.limits[i - 1], h.min);
    const right = Math.min(h.limits[i], h.max);
    out.push({ left, right: Math.max(right, left), count: h.counts[i] });
  }
  return out;
}

/** At most `n` entries spread evenly over `list`, always keeping the last. */
function spread(list, n) {
  if (list.length <= n) return list;
  const picked = [];
  for (let i = 0; i < n; i += 1) picked.push(list[Math.round((i * (list.length - 1)) / (n - 1))]);
  return picked;
}

function ridgeTraces(entries, color) {
  const shown = spread(entries, MAX_RIDGES);
  const steps = shown.map((h) => h.step);
  const gap = shown.length > 1 ? (steps[steps.length - 1] - steps[0]) / (shown.length - 1) : 1;
  const height = 2.5 * (gap || 1);
  const peak = Math.max(1e-12, ...shown.flatMap((h) => h.counts));
  // Latest first, so that earlier (lower) ridges are drawn over later ones.
  return shown.slice().reverse().flatMap((h) => {
    const parts = buckets(h).filter((b) => b.count > 0 || b.right > b.left);
    if (!parts.length) return [];
    // From the baseline at the left edge, over each bucket's centre, down to the right
    // edge; 'toself' closes the shape along the baseline without stroking it.
    const x = [parts[0].left, ...parts.map((b) => (b.left + b.right) / 2),
      parts[parts.length - 1].right];
    const y = [h.step, ...parts.map((b) => h.step + (b.count / peak) * height), h.step];
    return [{
      type: 'scatter', mode: 'lines', x, y, fill: 'toself', fillcolor: 'rgba(255,255,255,0.85)',
      line: { color, width: 1 }, name: `step ${h.step}`, showlegend: false,
      hovertemplate: `step ${h.step}<br>value %{x:.4g}<extra></extra>`, meta: { step: h.step },
    }];
  });
}

function heatmapTrace(entries) {
  const lo = Math.min(...entries.map((h) => h.min));
  const hi = Math.max(...entries.map((h) => h.max));
  const width = hi > lo ? (hi - lo) / HEATMAP_BINS : 1;
  const centers = Array.from({ length: HEATMAP_BINS }, (_, i) => lo + (i + 0.5) * width);
  const z = entries.map((h) => {
    const row = new Array(HEATMAP_BINS).fill(0);
    for (const b of buckets(h)) {
      const mid = (b.left + b.right) / 2;
      const at = Math.min(HEATMAP_BINS - 1, Math.max(0, Math.floor((mid - lo) / width)));
      row[at] += b.count;
    }
    return row;
  });
  return [{
    type: 'heatmap', x: centers, y: entries.map((h) => h.step), z, colorscale: 'Viridis',
    hovertemplate: 'step %{y}<br>value %{x:.4g}<br>count %{z}<extra></extra>',
  }];
}

function draw(card) {
  const { run, entries } = card.histogram;
  const chart = card.querySelector('.chart');
  if (!entries.length) {
    Plotly.purge(chart);
    chart.replaceChildren(note('no histograms'));
    return;
  }
  const data = mode === 'heatmap' ? heatmapTrace(entries) : ridgeTraces(entries, runColor(run));
  const layout = {
    height: 300, margin: { l: 55, r: 12, t: 8, b: 40 },
    xaxis: { title: { text: 'value' } }, yaxis: { title: { text: 'step' } },
  };
  Plotly.react(chart, data, layout, { displaylogo: false, responsive: true });
  card.dataset.steps = entries.length;
  card.dataset.mode = mode;
}

async function load(card) {
  const { run, tag } = card.histogram;
  const entries = await getJSON('api/histograms', { run, tag });
  card.histogram.entries = entries.slice().sort((a, b) => a.step - b.step);
  draw(card);
}

async function refresh(card) {
  const before = card.histogram.entries || [];
  const { run, tag } = card.histogram;
  const entries = await getJSON('api/histograms', { run, tag });
  const last = entries.length ? entries[entries.length - 1].step : null;
  const lastBefore = before.length ? before[before.length - 1].step : null;
  if (entries.length !== before.length || last !== lastBefore) {
    card.histogram.entries = entries.slice().sort((a, b) => a.step - b.step);
    draw(card);
  }
}

function buildCard({ run, tag }) {
  const { card, body } = makeCard('histogram', tag, null, { tag, run });
  card.querySelector('.card-header').append(runChip(run, runColor(run)));
  card.histogram = { run, tag, entries: null };
  body.append(el('div', { className: 'chart' }));
  lazy.watch(card, load);
  return card;
}

export const histogramsView = {
  id: 'histograms',
  title: 'Histograms',
  kind: 'histograms',

  /** Wires the sidebar's offset/heatmap choice. */
  init(pane) {
    for (const radio of document.querySelectorAll('input[name="histogram-mode"]')) {
      radio.addEventListener('change', () => {
        mode = radio.value;
        for (const card of pane.querySelectorAll('.histogram-card')) {
          if (card.histogram.entries) draw(card);
        }
      });
    }
  },

  render(pane) {
    lazy.reset();
    const pairs = pairsOf('histograms');
    if (!pairs.length) {
      fill(pane, note('No histograms for the selected runs and tag filter.'));
      return;
    }
    fill(pane, tagGroups('histograms', pairs, buildCard));
  },

  async poll() {
    await Promise.all(lazy.visibleCards().map((card) => refresh(card).catch(() => {})));
  },
};
