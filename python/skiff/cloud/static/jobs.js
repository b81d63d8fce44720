/**
 * The job list: newest first, filtered by state (and, for an admin, by user), asked
 * again every REFRESH_MS. A row opens the job's page.
 */
import * as api from './api.js';
import { ACTIVE_STATES, STATES, el, formatTime, stateBadge } from './dom.js';

const REFRESH_MS = 2000;
// The filters outlive the view, so coming back from a job keeps them.
const filters = { state: '', user: '' };

function row(job) {
  const open = () => { window.location.hash = `#/jobs/${job.id}`; };
  return el('tr', { className: 'job-row', 'data-job': job.id, onclick: open },
    el('td', {}, el('a', { href: `#/jobs/${job.id}` }, String(job.id))),
    el('td', {}, job.name),
    el('td', {}, job.user),
    el('td', {}, stateBadge(job.state)),
    el('td', { className: 'time' }, formatTime(job.submitted)),
    el('td', { className: 'time' }, formatTime(job.started)),
    el('td', { className: 'time' }, formatTime(job.finished)),
    el('td', { className: 'number' }, job.exit_code ?? ''));
}

function stateSelect(onchange) {
  const choices = [['', 'all states'], [ACTIVE_STATES.join(','), 'active'],
    ...STATES.map((s) => [s, s])];
  const select = el('select', { id: 'filter-state', onchange },
    choices.map(([value, label]) => el('option', { value }, label)));
  select.value = filters.state;
  return select;
}

export function show(container, { user, authFailed }) {
  let timer = null;
  let stopped = false;
  let asked = 0;  // the latest request: an older answer arriving late is dropped
  const body = el('tbody');
  const status = el('p', { className: 'status', id: 'jobs-status' });
  const refresh = async () => {
    clearTimeout(timer);
    const ticket = ++asked;
    try {
      const jobs = await api.jobs({ state: filters.state, user: filters.user.trim() });
      if (stopped || ticket !== asked) return;
      body.replaceChildren(...jobs.map(row));
      status.textContent = jobs.length ? '' : 'No jobs.';
      status.classList.remove('error');
    } catch (e) {
      if (stopped || ticket !== asked || authFailed(e)) return;
      status.textContent = e.message;
      status.classList.add('error');
    }
    timer = setTimeout(refresh, REFRESH_MS);
  };
  const userFilter = user.admin && el('input', {
    id: 'filter-user', type: 'search', placeholder: 'user', value: filters.user,
    oninput: (event) => { filters.user = event.target.value; refresh(); },
  });
  const bar = el('div', { className: 'filters' },
    el('label', {}, 'state ', stateSelect((event) => {
      filters.state = event.target.value;
      refresh();
    })),
    userFilter && el('label', {}, 'user ', userFilter),
    el('a', { className: 'button', href: '#/submit' }, 'submit a job'));
  const table = el('table', { className: 'jobs', id: 'jobs' },
    el('thead', {}, el('tr', {}, ['id', 'name', 'user', 'state', 'submitted', 'started',
      'finished', 'exit'].map((h) => el('th', {}, h)))),
    body);
  container.append(el('h1', {}, 'Jobs'), bar, table, status);
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
