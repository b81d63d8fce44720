/**
 * Draws a program's blocks as graphs in HTML and SVG: each op a node (its type and the
 * variables it writes, with dtype and shape), laid out in layers (program_layout.js),
 * edges drawn in an SVG behind the nodes; an op running a block (while,
 * conditional_block, their grads) holds that block as a nested, collapsible graph.
 */
import { el } from './cards.js';
import {
  argNames, describeVar, findVar, isGrad, isOptimizer, layoutBlock, subBlocksOf,
} from './program_layout.js';

const SVG = 'http://www.w3.org/2000/svg';
const MAX_ATTR_TEXT = 80;

function opKind(op) {
  if (subBlocksOf(op).length) return isGrad(op) ? 'control-grad' : 'control';
  if (isGrad(op)) return 'grad';
  return isOptimizer(op) ? 'optimizer' : 'forward';
}

function slotLines(program, idx, slots) {
  return Object.entries(slots || {}).filter(([, names]) => names.some(Boolean))
    .map(([slot, names]) => `  ${slot}: ${names.filter(Boolean).map(
      (name) => `${name} ${describeVar(findVar(program, idx, name))}`).join(', ')}`);
}

function tooltip(program, idx, op, i) {
  const attrs = Object.entries(op.attrs || {}).map(([k, v]) => {
    const text = JSON.stringify(v);
    return `  ${k} = ${text.length > MAX_ATTR_TEXT ? `${text.slice(0, MAX_ATTR_TEXT)}…` : text}`;
  });
  return [`${op.type} (block ${idx}, op ${i})`, 'inputs:', ...slotLines(program, idx, op.inputs),
    'outputs:', ...slotLines(program, idx, op.outputs),
    ...(attrs.length ? ['attributes:', ...attrs] : [])].join('\n');
}

function varLabel(program, idx, name) {
  const info = findVar(program, idx, name);
  return el('div', { className: 'op-var', dataset: { var: name, dtype: info ? info.dtype : '' },
    title: `${name}: ${describeVar(info)}` },
  el('span', { className: 'var-name', textContent: name }),
  el('span', { className: 'var-type', textContent: describeVar(info) }));
}

function opNode(program, idx, op, i, depth) {
  const kind = opKind(op);
  const node = el('div', {
    className: `op-node op-${kind}`, title: tooltip(program, idx, op, i),
    dataset: { opType: op.type, opIndex: i, block: idx, kind },
  }, el('div', { className: 'op-type', textContent: op.type }),
  el('div', { className: 'op-vars' }, argNames(op.outputs).map((n) => varLabel(program, idx, n))));
  for (const sub of subBlocksOf(op)) {
    const block = program.blocks.find((b) => b.idx === sub);
    const details = el('details', { className: 'sub-graph', open: true,
      dataset: { subBlock: sub, opType: op.type } },
    el('summary', { textContent: `${op.type} body: block ${sub} (${block ? block.ops.length : 0} ops)` }));
    if (block && depth < 32) details.append(blockGraph(program, sub, depth + 1));
    node.append(details);
  }
  return node;
}

/** The graph of block `idx` of `program` (the JSON the server gives), nested blocks
 *  included; call drawEdges(root) once it is in the page. */
export function blockGraph(program, idx, depth = 0) {
  const block = program.blocks.find((b) => b.idx === idx);
  const layout = layoutBlock(block);
  const graph = el('div', { className: 'block-graph', dataset: { block: idx, depth } });
  graph.layout = layout;
  if (depth > 0 && layout.outer.length) {
    graph.append(el('div', { className: 'block-inputs' }, 'reads from outside: ',
      layout.outer.map((name) => varLabel(program, idx, name))));
  }
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'edges');
  graph.append(svg);
  layout.layers.forEach((ops, layer) => {
    graph.append(el('div', { className: 'layer', dataset: { layer } },
      ops.map((i) => opNode(program, idx, block.ops[i], i, depth))));
  });
  if (!block.ops.length) graph.append(el('p', { className: 'note', textContent: 'no ops' }));
  return graph;
}

function edgePath(svg, from, to, graphBox) {
  const a = from.getBoundingClientRect();
  const b = to.getBoundingClientRect();
  const x1 = a.left + a.width / 2 - graphBox.left;
  const y1 = a.bottom - graphBox.top;
  const x2 = b.left + b.width / 2 - graphBox.left;
  const y2 = b.top - graphBox.top;
  const bend = Math.max(16, (y2 - y1) / 2);
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`);
  path.setAttribute('marker-end', 'url(#program-arrow)');
  svg.append(path);
  return path;
}

/** (Re)draws the edges of every visible block graph under `root`; collapsed ones are
 *  skipped and drawn when they open. */
export function drawEdges(root, program) {
  for (const graph of root.querySelectorAll('.block-graph')) {
    const svg = graph.querySelector(':scope > svg.edges');
    svg.replaceChildren();
    const box = graph.getBoundingClientRect();
    if (box.width === 0 || !graph.layout) continue;
    svg.setAttribute('width', graph.scrollWidth);
    svg.setAttribute('height', graph.scrollHeight);
    const nodes = new Map();
    for (const node of graph.querySelectorAll(':scope > .layer > .op-node')) {
      nodes.set(Number(node.dataset.opIndex), node);
    }
    const idx = Number(graph.dataset.block);
    for (const edge of graph.layout.edges) {
      const path = edgePath(svg, nodes.get(edge.from), nodes.get(edge.to), box);
      path.setAttribute('class', 'edge');
      path.dataset.vars = edge.vars.join(' ');
      path.dataset.from = edge.from;
      path.dataset.to = edge.to;
      const title = document.createElementNS(SVG, 'title');
      title.textContent = edge.vars.map(
        (name) => `${name}: ${describeVar(findVar(program, idx, name))}`).join('\n');
      path.append(title);
    }
  }
}

/** An SVG holding the arrowhead marker the edges use (put once in the page). */
export function arrowDefs() {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'program-defs');
  svg.setAttribute('width', 0);
  svg.setAttribute('height', 0);
  svg.innerHTML = '<defs><marker id="program-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
    + 'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
    + '<path d="M0,0 L10,5 L0,10 z" class="arrow-head"/></marker></defs>';
  return svg;
}
