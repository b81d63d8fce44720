/**
 * A job's page: its header (state, times, exit code, reason, the log's tail when it
 * failed, a cancel button while it is active), what it runs, the timeline of its events
 * (state changes and notes), its artifacts (downloaded with the token) and its live log
 * (log.js). The details are asked again every REFRESH_MS until the job is final.
 */
import * as api from './api.js';
import {
  ACTIVE_STATES, el, formatDuration, formatSize, formatTime, stateBadge,
} from './dom.js';
import { LogView } from './log.js';

const REFRESH_MS = 2000;

function facts(pairs) {
  return el('dl', { className: 'facts' }, pairs.filter(([, v]) => v !== '' && v !== null
    && v !== undefined).map(([k, v]) => [el('dt', {}, k), el('dd', { 'data-fact': k }, v)]));
}

function duration(job) {
  if (!job.started) return '';
  return formatDuration((job.finished ?? Date.now() / 1000) - job.started);
}

function command(spec) {
  const what = spec.script ?? (spec.program ? `skiff run ${spec.program}` : `-m ${spec.module}`);
  return [what, ...spec.args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a)))]
    .join(' ');
}

/** What the job's processes use (sampled by its runner once a second), or nothing yet. */
function usage(u) {
  if (!u) return null;
  const cpu = `${u.cpu_seconds.toFixed(1)} s of CPU`;
  if (u.processes === 0) return `${cpu}, peak ${u.peak_rss_mb} MB`;  // the job's totals
  return `${cpu}, ${u.rss_mb} MB now (peak ${u.peak_rss_mb} MB),` +
    ` ${u.processes} process${u.processes === 1 ? '' : 'es'}`;
}

function header(job, onCancel, onBoard) {
  const active = ACTIVE_STATES.includes(job.state);
  const spec = job.spec;
  // an elastic job: its range, and the workers it runs now while it is active
  const workers = spec.workers[0] === spec.workers[1] ? String(spec.workers[0])
    : spec.workers.join(':') + (active && job.workers ? ` (now ${job.workers})` : '');
  return el('section', { className: 'job-header' },
    el('h1', {}, `Job ${job.id}: ${job.name} `, stateBadge(job.state),
      active && el('button', { id: 'cancel', type: 'button', className: 'danger',
        onclick: onCancel }, 'cancel'),
      spec.board_logdir && el('button', { id: 'board', type: 'button', onclick: onBoard },
        'board')),
    facts([['user', job.user], ['submitted', formatTime(job.submitted)],
      ['started', formatTime(job.started)], ['finished', formatTime(job.finished)],
      ['run time', duration(job)], ['exit code', job.exit_code], ['reason', job.reason],
      ['runs', command(spec)],
      ['workers × processes', `${workers} × ${spec.nproc}`], ['priority', job.priority],
      ['max run time', formatDuration(spec.max_run_time)],
      ['env', Object.entries(spec.env).map(([k, v]) => `${k}=${v}`).join(' ')],
      ['keeps', spec.keep.join(', ')],
      ['resources', usage(job.usage)]]),
    job.state === 'failed' && job.log_tail && el('details', { open: true, className: 'tail' },
      el('summary', {}, 'the end of the log'), el('pre', { id: 'log-tail' }, job.log_tail)));
}

function timeline(job) {
  const items = job.events.map(({ time, kind, detail }) => {
    let what;
    if (kind === 'state') {
      what = [stateBadge(detail.state),
        detail.exit_code !== undefined ? ` exit ${detail.exit_code}` : '',
        detail.reason ? ` — ${detail.reason}` : ''];
    } else if (kind === 'note') {
      what = detail.text;
    } else if (kind === 'membership') {  // an elastic job's world (its runner saw it form)
      what = `world ${detail.epoch} ${detail.change}: ${detail.workers} worker` +
        (detail.workers === 1 ? '' : 's') +
        (detail.step !== undefined ? `, at step ${detail.step}` : '');
    } else if (kind === 'scaling') {  // the autoscaler started or resized the job
      what = (detail.from ? `resized to ${detail.workers} workers (from ${detail.from})`
        : `started with ${detail.workers} workers`) + (detail.reason ? ` — ${detail.reason}` : '');
    } else {
      what = `${kind}: ${JSON.stringify(detail)}`;
    }
    return el('li', { className: `event event-${kind}` },
      el('span', { className: 'time' }, formatTime(time)),
      el('span', { className: 'since hint' }, `+${formatDuration(time - job.submitted)}`),
      el('span', { className: 'what' }, what));
  });
  return el('section', { className: 'timeline' }, el('h2', {}, 'Timeline'),
    el('ol', { id: 'timeline' }, items));
}

async function download(id, path, report) {
  try {
    const url = URL.createObjectURL(await api.artifact(id, path));
    const link = el('a', { href: url, download: path.split('/').pop() });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  } catch (e) {
    report(e);
  }
}

export function show(container, { authFailed }, id) {
  let timer = null;
  let stopped = false;
  let final = false;
  const top = el('div', {}, el('p', { className: 'status' }, 'loading…'));
  const events = el('div');
  const error = el('p', { id: 'job-error', className: 'error', role: 'alert' });
  const files = el('ul', { id: 'artifacts', className: 'artifacts' },
    el('li', { className: 'hint' }, 'listed when the job ends'));
  const report = (e) => { if (!authFailed(e)) error.textContent = e.message; };

  const loadArtifacts = async () => {
    try {
      const list = await api.artifacts(id);
      if (stopped) return;
      files.replaceChildren(...(list.length ? list.map((f) => el('li', {},
        el('a', { href: '#', 'data-path': f.path, onclick: (event) => {
          event.preventDefault();
          download(id, f.path, report);
        } }, f.path), el('span', { className: 'hint' }, ` ${formatSize(f.size)}`)))
        : [el('li', { className: 'hint' }, 'none: a job keeps the paths its spec names (keep)')]));
    } catch (e) {
      if (!stopped) report(e);
    }
  };
  const cancel = async () => {
    if (!window.confirm(`Cancel job ${id}?`)) return;
    try {
      await api.cancel(id);
    } catch (e) {
      report(e);
    }
    refresh();
  };
  const openBoard = async () => {
    const tab = window.open('', '_blank');  // opened now: after the await it is a pop-up
    try {
      const url = await api.board(id);
      if (tab) tab.location = url; else window.location = url;
    } catch (e) {
      if (tab) tab.close();
      report(e);
    }
  };
  const refresh = async () => {
    clearTimeout(timer);
    try {
      const job = await api.job(id);
      if (stopped) return;
      top.replaceChildren(header(job, cancel, openBoard));
      events.replaceChildren(timeline(job));
      error.textContent = '';
      if (!final && !ACTIVE_STATES.includes(job.state)) {
        final = true;
        loadArtifacts();
      }
    } catch (e) {
      if (stopped || authFailed(e)) return;
      error.textContent = e.message;
      if (e.status === 404 || e.status === 403) return;
    }
    if (!final) timer = setTimeout(refresh, REFRESH_MS);
  };

  const log = new LogView(() => refresh());
  container.append(el('p', {}, el('a', { href: '#/jobs' }, '← jobs')), top, error,
    el('h2', {}, 'Log'), log.element, events,
    el('section', {}, el('h2', {}, 'Artifacts'), files));
  refresh();
  log.connect(api.logStreamUrl(id));
  return () => {
    stopped = true;
    clearTimeout(timer);
    log.close();
  };
}
