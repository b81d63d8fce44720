/**
 * The text view: for each run and tag, the logged texts newest first, shown as plain
 * text (never parsed as HTML).
 */
import { getJSON } from './api.js';
import { el, fill, makeCard, note, runChip, tagGroups } from './cards.js';
import { LazyCards } from './lazy.js';
import { pairsOf, runColor } from './state.js';

const lazy = new LazyCards();

function show(card, entries) {
  const list = card.querySelector('.text-entries');
  const newest = entries.slice().sort((a, b) => b.step - a.step);
  list.replaceChildren(...newest.map((entry) => el('div',
    { className: 'text-entry', dataset: { step: entry.step } },
    el('div', { className: 'text-step', textContent: `step ${entry.step}` }),
    el('pre', { className: 'text-value', textContent: entry.text }))));
  if (!entries.length) list.replaceChildren(note('no text'));
  card.text = entries;
  card.dataset.count = entries.length;
}

async function load(card) {
  show(card, await getJSON('api/text', { run: card.dataset.run, tag: card.dataset.tag }));
}

async function refresh(card) {
  const entries = await getJSON('api/text', { run: card.dataset.run, tag: card.dataset.tag });
  const before = card.text || [];
  const same = entries.length === before.length
    && entries.every((e, i) => e.step === before[i].step && e.text === before[i].text);
  if (!same) show(card, entries);
}

function buildCard({ run, tag }) {
  const { card, body } = makeCard('text', tag, null, { tag, run });
  card.querySelector('.card-header').append(runChip(run, runColor(run)));
  body.append(el('div', { className: 'text-entries' }));
  lazy.watch(card, load);
  return card;
}

export const textView = {
  id: 'text',
  title: 'Text',
  kind: 'text',
  render(pane) {
    lazy.reset();
    const pairs = pairsOf('text');
    if (!pairs.length) {
      fill(pane, note('No text for the selected runs and tag filter.'));
      return;
    }
    fill(pane, tagGroups('text', pairs, buildCard, 'list'));
  },
  async poll() {
    await Promise.all(lazy.visibleCards().map((card) => refresh(card).catch(() => {})));
  },
};
