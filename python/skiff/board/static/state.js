/**
 * What every view shares: the runs the server knows, which of them are selected, their
 * tags per kind and the tag filter. Views read it through the functions below and are told
 * of changes through onChange(listener).
 */

// d3's category10, the usual colours of overlaid runs.
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd',
  '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

export const state = {
  runs: [],            // [{name, hparams}] as /api/runs lists them
  selected: new Set(), // names of the runs shown
  tags: {},            // run -> {scalars: [...], histograms: [...], ...}
  filter: null,        // RegExp or null (no filter)
};

const known = new Set(); // runs seen before: new runs start selected, old choices stay
const listeners = new Set();

/** Calls listener(what) after each change; `what` names it ("runs", "selection", "filter"). */
export function onChange(listener) {
  listeners.add(listener);
}

/** Tells every listener that `what` changed. */
export function notify(what) {
  for (const listener of listeners) listener(what);
}

/** Replaces the runs and tags; runs never seen before are selected. Returns whether
 *  anything differs from before. */
export function setRunsAndTags(runs, tags) {
  const before = JSON.stringify([state.runs, state.tags]);
  state.runs = runs;
  state.tags = tags || {};
  for (const run of runs) {
    if (!known.has(run.name)) {
      known.add(run.name);
      state.selected.add(run.name);
    }
  }
  const names = new Set(runs.map((r) => r.name));
  for (const name of [...state.selected]) if (!names.has(name)) state.selected.delete(name);
  return before !== JSON.stringify([state.runs, state.tags]);
}

/** The colour of a run: stable while the list of runs does not change. */
export function runColor(name) {
  const index = state.runs.findIndex((r) => r.name === name);
  return PALETTE[(index < 0 ? 0 : index) % PALETTE.length];
}

/** Sets the tag filter from the user's text (a case-insensitive regular expression);
 *  returns false, leaving no filter, when the text is not a valid expression. */
export function setFilter(text) {
  if (!text) {
    state.filter = null;
    return true;
  }
  try {
    state.filter = new RegExp(text, 'i');
    return true;
  } catch (_) {
    state.filter = null;
    return false;
  }
}

/** The selected runs, in the server's order. */
export function selectedRuns() {
  return state.runs.map((r) => r.name).filter((name) => state.selected.has(name));
}

function tagShown(tag) {
  return !state.filter || state.filter.test(tag);
}

/** The tags of `kind` ("scalars", "images", ...) that pass the filter, sorted, each with
 *  the selected runs holding it: [{tag, runs: [...]}]. */
export function tagsOf(kind) {
  const byTag = new Map();
  for (const run of selectedRuns()) {
    for (const tag of (state.tags[run] && state.tags[run][kind]) || []) {
      if (!tagShown(tag)) continue;
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push(run);
    }
  }
  return [...byTag.keys()].sort().map((tag) => ({ tag, runs: byTag.get(tag) }));
}

/** Each (run, tag) pair of `kind` that is shown, ordered by tag then run. */
export function pairsOf(kind) {
  return tagsOf(kind).flatMap(({ tag, runs }) => runs.map((run) => ({ run, tag })));
}
