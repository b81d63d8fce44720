/**
 * Small DOM builders the views share: elements, cards (one chart or list per tag or per
 * run and tag), step sliders and notes.
 */

/** A new element `tag` with `attrs` (className, dataset: {...}, other attributes or
 *  properties) and `children` (nodes or strings). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'className' || key === 'textContent' || key === 'title' || key in node) {
      node[key] = value;
    } else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** A card titled `title` (with an optional `subtitle`, e.g. the run) whose data
 *  attributes are `data`; returns {card, body}. */
export function makeCard(kind, title, subtitle, data) {
  const header = el('div', { className: 'card-header' },
    el('span', { className: 'card-title', textContent: title }),
    subtitle ? el('span', { className: 'card-subtitle', textContent: subtitle }) : null);
  const body = el('div', { className: 'card-body' });
  const card = el('div', { className: `card ${kind}-card`, dataset: data }, header, body);
  return { card, body };
}

/** A run's name as a coloured chip. */
export function runChip(run, color) {
  const chip = el('span', { className: 'run-chip', textContent: run });
  chip.style.setProperty('--run-color', color);
  return chip;
}

/** A slider over `entries` (objects with a `step`) that calls onPick(entry, index) now
 *  for the latest entry and again on each move; returns the element. Its update(list)
 *  swaps in a longer list, following the newest entry if the user was on the last one. */
export function stepSlider(entries, onPick) {
  const input = el('input', { type: 'range', min: 0, step: 1, className: 'step-input' });
  const label = el('span', { className: 'step-label' });
  const box = el('div', { className: 'step-slider', dataset: { role: 'step-slider' } },
    el('span', { textContent: 'step' }), input, label);
  let list = entries;
  const pick = () => {
    const index = Number(input.value);
    const entry = list[index];
    label.textContent = `${entry.step} (${index + 1}/${list.length})`;
    box.dataset.step = entry.step;
    onPick(entry, index);
  };
  box.update = (next) => {
    const atEnd = Number(input.value) === list.length - 1;
    list = next;
    input.max = list.length - 1;
    input.disabled = list.length < 2;
    if (atEnd) input.value = list.length - 1;
    pick();
  };
  input.max = list.length - 1;
  input.value = list.length - 1;
  input.disabled = list.length < 2;
  input.addEventListener('input', pick);
  pick();
  return box;
}

const closedGroups = new Set(); // "kind/prefix" of the tag groups the user closed

/** Cards grouped by their tag's first path component ("train/loss" -> "train"), each
 *  group a collapsible section holding a `layout` ("grid" or "list") of build(item);
 *  items are objects with a `tag`. Groups stay closed across rebuilds once closed. */
export function tagGroups(kind, items, build, layout = 'grid') {
  const groups = new Map();
  for (const item of items) {
    const slash = item.tag.indexOf('/');
    const name = slash > 0 ? item.tag.slice(0, slash) : item.tag;
    if (!groups.has(name)) groups.set(name, []);
    groups.get(name).push(item);
  }
  return [...groups].map(([name, members]) => {
    const key = `${kind}/${name}`;
    const section = el('details', { className: 'tag-group', open: !closedGroups.has(key),
      dataset: { group: name } },
    el('summary', {}, el('span', { className: 'group-name', textContent: name }),
      el('span', { className: 'group-count', textContent: String(members.length) })),
    el('div', { className: layout }, members.map(build)));
    section.addEventListener('toggle', () => {
      if (section.open) closedGroups.delete(key);
      else closedGroups.add(key);
    });
    return section;
  });
}

/** A grey note such as "no images for the selected runs". */
export function note(text) {
  return el('p', { className: 'note', textContent: text });
}

/** Clears `pane` and puts `nodes` in it. */
export function fill(pane, ...nodes) {
  pane.replaceChildren(...nodes.flat().filter(Boolean));
}

/** A download-friendly file name from pieces (run and tag names hold slashes). */
export function fileName(...parts) {
  return parts.join('_').replace(/[^A-Za-z0-9._-]+/g, '_');
}
