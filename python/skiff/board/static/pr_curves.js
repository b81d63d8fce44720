/**
 * The PR curves view: for each run and tag, precision against recall at one step,
 * chosen with a step slider (the latest step first).
 */
import { getJSON } from './api.js';
import { el, fill, makeCard, note, runChip, stepSlider, tagGroups } from './cards.js';
import { LazyCards } from './lazy.js';
import { pairsOf, runColor } from './state.js';

const lazy = new LazyCards();

function draw(card, entry) {
  const chart = card.querySelector('.chart');
  const n = entry.precision.length;
  const thresholds = entry.precision.map((_, i) => (n > 1 ? i / (n - 1) : 0));
  const trace = {
    type: 'scatter', mode: 'lines+markers', x: entry.recall, y: entry.precision,
    customdata: thresholds, line: { color: runColor(card.dataset.run), width: 2 },
    marker: { size: 4 }, name: `step ${entry.step}`, meta: { step: entry.step },
    hovertemplate: 'recall %{x:.3f}<br>precision %{y:.3f}<br>threshold %{customdata:.3f}<extra></extra>',
  };
  const layout = {
    height: 300, margin: { l: 55, r: 12, t: 8, b: 40 }, showlegend: false,
    xaxis: { title: { text: 'recall' }, range: [0, 1.02] },
    yaxis: { title: { text: 'precision' }, range: [0, 1.02] },
  };
  Plotly.react(chart, [trace], layout, { displaylogo: false, responsive: true });
  card.dataset.step = entry.step;
}

async function fetchEntries(card) {
  const entries = await getJSON('api/pr_curves', { run: card.dataset.run, tag: card.dataset.tag });
  return entries.slice().sort((a, b) => a.step - b.step);
}

async function load(card) {
  const entries = await fetchEntries(card);
  card.entries = entries;
  card.dataset.count = entries.length;
  if (!entries.length) {
    Plotly.purge(card.querySelector('.chart'));
    card.querySelector('.chart').replaceChildren(note('no PR curves'));
    return;
  }
  card.slider = stepSlider(entries, (entry) => draw(card, entry));
  card.querySelector('.card-body').prepend(card.slider);
}

async function refresh(card) {
  const entries = await fetchEntries(card);
  const before = card.entries || [];
  if (entries.length === before.length
      && entries.every((e, i) => e.step === before[i].step)) return;
  card.entries = entries;
  card.dataset.count = entries.length;
  if (card.slider && entries.length) card.slider.update(entries);
  else await load(card);
}

function buildCard({ run, tag }) {
  const { card, body } = makeCard('pr', tag, null, { tag, run });
  card.querySelector('.card-header').append(runChip(run, runColor(run)));
  body.append(el('div', { className: 'chart' }));
  lazy.watch(card, load);
  return card;
}

export const prCurvesView = {
  id: 'pr_curves',
  title: 'PR curves',
  kind: 'pr_curves',
  render(pane) {
    lazy.reset();
    const pairs = pairsOf('pr_curves');
    if (!pairs.length) {
      fill(pane, note('No PR curves for the selected runs and tag filter.'));
      return;
    }
    fill(pane, tagGroups('pr_curves', pairs, buildCard));
  },
  async poll() {
    await Promise.all(lazy.visibleCards().map((card) => refresh(card).catch(() => {})));
  },
};
