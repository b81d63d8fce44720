/**
 * The program view: choose one of the logdir's programs (saved .skmodel files and the
 * graphs a LogWriter added) and see its blocks as graphs (program_graph.js), with a
 * legend of op kinds and buttons to expand or collapse every nested block.
 */
import { getJSON } from './api.js';
import { el, fill, note } from './cards.js';
import { arrowDefs, blockGraph, drawEdges } from './program_graph.js';

let programs = [];
let chosen = null;       // "run\nname"
let current = null;      // {program, root}
let resizeWatch = null;

const keyOf = (p) => `${p.run}\n${p.name}`;

const LEGEND = [
  ['forward', 'forward op'], ['grad', 'gradient op'], ['optimizer', 'optimizer update'],
  ['control', 'control flow (runs a block)'], ['control-grad', 'control flow gradient'],
];

function legend() {
  return el('div', { className: 'program-legend', id: 'program-legend' },
    LEGEND.map(([kind, text]) => el('span', { className: 'legend-item', dataset: { kind } },
      el('span', { className: `legend-swatch op-${kind}` }), text)),
    el('span', { className: 'legend-hint',
      textContent: 'Hover a node or an edge for its variables’ dtype and shape.' }));
}

function summary(program) {
  const ops = program.blocks.reduce((n, b) => n + b.ops.length, 0);
  const parts = [`${program.blocks.length} block(s), ${ops} op(s)`];
  if (program.feeds && program.feeds.length) parts.push(`feeds: ${program.feeds.join(', ')}`);
  if (program.fetches && program.fetches.length) parts.push(`fetches: ${program.fetches.join(', ')}`);
  return el('div', { className: 'program-summary', textContent: parts.join(' · ') });
}

function setAllOpen(root, open) {
  for (const details of root.querySelectorAll('details.sub-graph')) details.open = open;
  drawEdges(root, current.program);
}

async function show(holder) {
  const entry = programs.find((p) => keyOf(p) === chosen);
  holder.dataset.state = 'loading';
  const program = await getJSON('api/program', { run: entry.run, name: entry.name });
  const root = el('div', { className: 'program-graph', id: 'program-graph',
    dataset: { run: entry.run, name: entry.name } }, blockGraph(program, 0));
  current = { program, root };
  holder.replaceChildren(summary(program), root);
  // 'toggle' does not bubble: listen while it is captured on the way down.
  root.addEventListener('toggle', () => drawEdges(root, program), true);
  if (resizeWatch) resizeWatch.disconnect();
  resizeWatch = new ResizeObserver(() => drawEdges(root, program));
  resizeWatch.observe(root);
  drawEdges(root, program);
  holder.dataset.state = 'ready';
}

function draw(pane) {
  if (!programs.length) {
    fill(pane, note('No programs in this logdir (save one as a .skmodel file or log one with add_graph).'));
    return;
  }
  if (!programs.some((p) => keyOf(p) === chosen)) chosen = keyOf(programs[0]);
  const holder = el('div', { className: 'program-holder', id: 'program-holder' });
  const picker = el('select', { id: 'program-select', dataset: { role: 'program' } },
    programs.map((p) => el('option', { value: keyOf(p), selected: keyOf(p) === chosen,
      textContent: p.run === '.' ? p.name : `${p.run}/${p.name}` })));
  const showChosen = () => show(holder).catch((error) => {
    holder.dataset.state = 'error';
    holder.replaceChildren(note(String(error.message || error)));
  });
  picker.addEventListener('change', () => { chosen = picker.value; showChosen(); });
  const button = (id, text, open) => {
    const b = el('button', { type: 'button', id, textContent: text });
    b.addEventListener('click', () => current && setAllOpen(current.root, open));
    return b;
  };
  fill(pane, arrowDefs(), el('div', { className: 'card program-card' },
    el('div', { className: 'controls' }, el('label', { className: 'control' }, 'program ', picker),
      button('program-expand', 'expand all', true), button('program-collapse', 'collapse all', false)),
    legend(), holder));
  showChosen();
}

export const programView = {
  id: 'program',
  title: 'Program',
  kind: null,
  async render(pane) {
    programs = await getJSON('api/programs');
    draw(pane);
  },
  async poll(pane) {
    const next = await getJSON('api/programs');
    if (JSON.stringify(next) !== JSON.stringify(programs)) {
      programs = next;
      draw(pane);
    }
  },
  /** Edges need the laid-out page: redraw them when the tab becomes visible. */
  shown() {
    if (current) drawEdges(current.root, current.program);
  },
};
