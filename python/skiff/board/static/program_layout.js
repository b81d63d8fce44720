/**
 * The program view's layout, free of the DOM: for one block, which ops feed which (an
 * edge from the op that last wrote a variable, before the reader in program order, to
 * each op reading it) and a layered placement (an op sits one layer below the deepest
 * op it reads from). Variables the block reads but does not write come from outside.
 */

/** Every variable name in an op's slots ({slot: [names]}), in slot order; empty names
 *  (an output nobody asked for) are left out. */
export function argNames(slots) {
  return Object.values(slots || {}).flat().filter((name) => name);
}

/** The indices of the blocks an op runs (the body of while, the branch of
 *  conditional_block, their grads); empty for other ops. */
export function subBlocksOf(op) {
  if (Array.isArray(op.sub_blocks)) return op.sub_blocks.filter((b) => Number.isInteger(b) && b >= 0);
  const one = Number.isInteger(op.sub_block) ? op.sub_block : op.attrs && op.attrs.sub_block;
  return Number.isInteger(one) && one >= 0 ? [one] : [];
}

/** Whether an op belongs to the backward pass. */
export function isGrad(op) {
  return op.grad === true || /_grad$/.test(op.type);
}

/** Whether an op updates parameters (an optimizer: it reads Param and writes ParamOut). */
export function isOptimizer(op) {
  return Boolean(op.inputs && op.inputs.Param && op.outputs && op.outputs.ParamOut);
}

/** The description ({dtype, shape, persistable}) of `name` as block `idx` sees it:
 *  declared there or in a block enclosing it; null when unknown. */
export function findVar(program, idx, name) {
  let at = idx;
  const seen = new Set();
  while (at >= 0 && !seen.has(at)) {
    seen.add(at);
    const block = program.blocks.find((b) => b.idx === at);
    if (!block) return null;
    if (block.vars && block.vars[name]) return block.vars[name];
    at = block.parent;
  }
  return null;
}

/** "float32[-1, 4]" for a tensor's description; other kinds of variable are named by
 *  their kind ("step_scopes", "tensor_array<float32[-1, 4]>"). */
export function describeVar(info) {
  if (!info) return '?';
  const shape = Array.isArray(info.shape) ? `[${info.shape.join(', ')}]` : '';
  const tensor = `${info.dtype || '?'}${shape}`;
  if (!info.kind || info.kind === 'tensor') return tensor;
  return info.kind === 'step_scopes' ? info.kind : `${info.kind}<${tensor}>`;
}

/** Layout of `block`: {layers: [[op index, ...], ...] top to bottom, layerOf: [...],
 *  edges: [{from, to, vars: [...]}] (one per pair of ops), outer: [names read from
 *  outside the block]}. */
export function layoutBlock(block) {
  const lastWriter = new Map();
  const layerOf = [];
  const edgeByPair = new Map();
  const outer = new Set();
  block.ops.forEach((op, i) => {
    let layer = 0;
    for (const name of new Set(argNames(op.inputs))) {
      const writer = lastWriter.get(name);
      if (writer === undefined) {
        outer.add(name);
        continue;
      }
      layer = Math.max(layer, layerOf[writer] + 1);
      const pair = `${writer}>${i}`;
      if (!edgeByPair.has(pair)) edgeByPair.set(pair, { from: writer, to: i, vars: [] });
      edgeByPair.get(pair).vars.push(name);
    }
    layerOf[i] = layer;
    for (const name of argNames(op.outputs)) lastWriter.set(name, i);
  });
  const layers = [];
  layerOf.forEach((layer, i) => {
    while (layers.length <= layer) layers.push([]);
    layers[layer].push(i);
  });
  return { layers, layerOf, edges: [...edgeByPair.values()], outer: [...outer] };
}
