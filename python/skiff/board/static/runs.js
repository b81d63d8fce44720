/**
 * The sidebar's run list (a checkbox and colour per run; "all" and "none") and the tag
 * filter box. Changes go to state.js, which tells the views.
 */
import { el } from './cards.js';
import { notify, runColor, setFilter, state } from './state.js';

/** Redraws the run list from state.runs and state.selected. */
export function renderRuns() {
  const list = document.getElementById('runs');
  if (!state.runs.length) {
    list.replaceChildren(el('li', { className: 'note', textContent: 'no runs yet' }));
    return;
  }
  list.replaceChildren(...state.runs.map((run) => {
    const box = el('input', { type: 'checkbox', checked: state.selected.has(run.name),
      dataset: { run: run.name } });
    box.addEventListener('change', () => {
      if (box.checked) state.selected.add(run.name);
      else state.selected.delete(run.name);
      notify('selection');
    });
    const swatch = el('span', { className: 'swatch' });
    swatch.style.background = runColor(run.name);
    return el('li', { className: 'run', dataset: { run: run.name } },
      el('label', { title: run.name }, box, swatch,
        el('span', { className: 'run-name', textContent: run.name })));
  }));
}

/** Wires the tag filter and the all/none buttons. */
export function initSidebar() {
  const filter = document.getElementById('tag-filter');
  let timer = null;
  filter.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const valid = setFilter(filter.value);
      filter.classList.toggle('invalid', !valid);
      filter.title = valid ? '' : 'not a valid regular expression: showing every tag';
      notify('filter');
    }, 150);
  });
  const selectAll = (on) => {
    state.selected = new Set(on ? state.runs.map((r) => r.name) : []);
    renderRuns();
    notify('selection');
  };
  document.getElementById('runs-all').addEventListener('click', () => selectAll(true));
  document.getElementById('runs-none').addEventListener('click', () => selectAll(false));
}
