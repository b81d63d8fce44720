/**
 * The page's entry point: the tabs (one view per kind of data), loading runs and tags,
 * and live polling. Each view is an object {id, title, kind, init?(pane), render(pane),
 * poll(pane), shown?(pane)}; a view is rendered when its tab is open and something it
 * shows changed, and polled while its tab is open.
 */
import { getJSON } from './api.js';
import { el, note } from './cards.js';
import { renderRuns, initSidebar } from './runs.js';
import { onChange, setRunsAndTags, tagsOf } from './state.js';
import { scalarsView } from './scalars.js';
import { histogramsView } from './histograms.js';
import { imagesView } from './images.js';
import { audioView } from './audio.js';
import { textView } from './text.js';
import { prCurvesView } from './pr_curves.js';
import { hparamsView } from './hparams.js';
import { embeddingsView } from './embeddings.js';
import { programView } from './program.js';

const VIEWS = [scalarsView, histogramsView, imagesView, audioView, textView, prCurvesView,
  hparamsView, embeddingsView, programView];
const params = new URLSearchParams(window.location.search);
const POLL_MS = Math.max(500, Number(params.get('poll')) || 5000);

const panes = new Map();   // view id -> pane element
const dirty = new Set();   // views to render again when shown
let active = null;
let polling = false;

async function render(view) {
  const pane = panes.get(view.id);
  dirty.delete(view.id);
  try {
    await view.render(pane);
  } catch (error) {
    pane.replaceChildren(note(`Could not load: ${error.message || error}`));
  }
}

function updateTabs() {
  for (const view of VIEWS) {
    if (!view.kind) continue;
    const count = tagsOf(view.kind).length;
    const tab = document.querySelector(`.tab[data-tab="${view.id}"]`);
    tab.querySelector('.tab-count').textContent = count ? String(count) : '';
    tab.classList.toggle('empty', count === 0);
  }
}

function open(id) {
  const view = VIEWS.find((v) => v.id === id) || VIEWS[0];
  active = view;
  for (const [viewId, pane] of panes) pane.hidden = viewId !== view.id;
  for (const tab of document.querySelectorAll('.tab')) {
    tab.classList.toggle('active', tab.dataset.tab === view.id);
    tab.setAttribute('aria-selected', String(tab.dataset.tab === view.id));
  }
  for (const section of document.querySelectorAll('[data-for-tab]')) {
    section.hidden = section.dataset.forTab !== view.id;
  }
  history.replaceState(null, '', `#${view.id}`);
  if (dirty.has(view.id)) render(view);
  else if (view.shown) view.shown(panes.get(view.id));
}

function everythingChanged() {
  updateTabs();
  for (const view of VIEWS) dirty.add(view.id);
  if (active) render(active);
}

async function loadRunsAndTags() {
  const [runs, tags] = await Promise.all([getJSON('api/runs'), getJSON('api/tags')]);
  const changed = setRunsAndTags(runs, tags);
  if (changed) renderRuns();
  return changed;
}

async function showWarnings() {
  const box = document.getElementById('warnings');
  const warnings = await getJSON('api/warnings');
  box.hidden = !warnings.length;
  box.textContent = `${warnings.length} warning(s)`;
  box.title = warnings.slice(-20).map((w) => `${w.run}: ${w.message}`).join('\n');
}

async function poll() {
  if (polling) return;
  polling = true;
  const status = document.getElementById('status');
  try {
    if (await loadRunsAndTags()) everythingChanged();
    else if (active && !dirty.has(active.id)) await active.poll(panes.get(active.id));
    status.hidden = true;
    await showWarnings().catch(() => {});
  } catch (error) {
    status.hidden = false;
    status.textContent = `server unreachable: ${error.message || error}`;
  } finally {
    polling = false;
    document.body.dataset.polls = Number(document.body.dataset.polls || 0) + 1;
  }
}

function buildTabs() {
  const nav = document.getElementById('tabs');
  const main = document.getElementById('panes');
  for (const view of VIEWS) {
    const tab = el('button', { type: 'button', className: 'tab', role: 'tab',
      dataset: { tab: view.id } }, view.title, el('span', { className: 'tab-count' }));
    tab.addEventListener('click', () => open(view.id));
    nav.append(tab);
    const pane = el('section', { className: 'pane', id: `pane-${view.id}`, hidden: true,
      dataset: { tab: view.id } });
    main.append(pane);
    panes.set(view.id, pane);
    if (view.init) view.init(pane);
    dirty.add(view.id);
  }
}

function start() {
  buildTabs();
  initSidebar();
  onChange(() => everythingChanged());
  document.getElementById('reload').addEventListener('click', () => poll().then(everythingChanged));
  // The first view opens once runs and tags are known (or the server failed to answer).
  poll().finally(() => open(window.location.hash.slice(1) || 'scalars'));
  setInterval(() => {
    if (document.getElementById('live').checked) poll();
  }, POLL_MS);
}

start();
