/**
 * Views of logged media (images, audio): one card per run and tag with a step slider
 * over the entries the server keeps (a reservoir of the latest ones per tag).
 */
import { apiUrl, getJSON } from './api.js';
import { el, fill, makeCard, note, runChip, stepSlider, tagGroups } from './cards.js';
import { LazyCards } from './lazy.js';
import { pairsOf, runColor } from './state.js';

/** A view for `kind` whose list comes from `listPath` and each entry's bytes from
 *  `itemPath`; show(holder, url, entry) puts the entry's element in the card. */
export function mediaView({ id, title, kind, listPath, itemPath, show }) {
  const lazy = new LazyCards();

  function sorted(entries) {
    return entries.map((entry, i) => ({ index: i, ...entry })).sort((a, b) => a.step - b.step);
  }

  async function load(card) {
    const { run, tag, holder } = card.media;
    const entries = sorted(await getJSON(listPath, { run, tag }));
    card.media.entries = entries;
    if (!entries.length) {
      holder.replaceChildren(note(`no ${kind}`));
      return;
    }
    card.media.slider = stepSlider(entries, (entry) => {
      show(holder, apiUrl(itemPath, { run, tag, index: entry.index }), entry);
      card.dataset.step = entry.step;
    });
    card.querySelector('.card-body').prepend(card.media.slider);
    card.dataset.count = entries.length;
  }

  async function refresh(card) {
    const { run, tag, slider } = card.media;
    const entries = sorted(await getJSON(listPath, { run, tag }));
    const before = card.media.entries || [];
    const changed = entries.length !== before.length
      || entries.some((e, i) => e.step !== before[i].step || e.index !== before[i].index);
    if (!changed) return;
    card.media.entries = entries;
    card.dataset.count = entries.length;
    if (slider && entries.length) slider.update(entries);
    else await load(card);
  }

  function buildCard({ run, tag }) {
    const { card, body } = makeCard(kind, tag, null, { tag, run });
    card.querySelector('.card-header').append(runChip(run, runColor(run)));
    const holder = el('div', { className: `${kind}-holder` });
    body.append(holder);
    card.media = { run, tag, holder, entries: null, slider: null };
    lazy.watch(card, load);
    return card;
  }

  return {
    id,
    title,
    kind,
    render(pane) {
      lazy.reset();
      const pairs = pairsOf(kind);
      if (!pairs.length) {
        fill(pane, note(`No ${kind} for the selected runs and tag filter.`));
        return;
      }
      fill(pane, tagGroups(kind, pairs, buildCard));
    },
    async poll() {
      await Promise.all(lazy.visibleCards().map((card) => refresh(card).catch(() => {})));
    },
  };
}
