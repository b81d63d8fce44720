/**
 * The submit form: a script (a single .py file, packed here into a .tar.gz) or an
 * archive (.tar.gz, .tgz or .zip of the job's directory, with the script's path in it),
 * and the job's options. Arguments are one per line, each line one argument exactly as
 * written (no shell and no quoting: "a b" on a line is one argument with a space).
 * The service's refusals are shown under the form.
 */
import * as api from './api.js';
import { tarGz } from './archive.js';
import { el } from './dom.js';

const ARCHIVE = /\.(tar\.gz|tgz|zip)$/i;
const DURATION = /^(\d+)\s*([smhd]?)$/;
const UNIT_SECONDS = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };

/** The non-empty lines of `text` (a trailing "\r" dropped, nothing else trimmed). */
export function lines(text) {
  return text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
}

/** {NAME: VALUE} of "NAME=VALUE" lines (the value may hold '='); Error otherwise. */
export function parseEnv(text) {
  const env = {};
  for (const line of lines(text)) {
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`env: '${line}' is not NAME=VALUE`);
    env[line.slice(0, at).trim()] = line.slice(at + 1);
  }
  return env;
}

/** Seconds of "90", "90s", "15m", "2h" or "1d"; null for ""; Error otherwise. */
export function parseDuration(text) {
  const value = text.trim();
  if (!value) return null;
  const match = value.match(DURATION);
  if (!match) throw new Error(`max run time: '${value}' is not seconds or N s/m/h/d`);
  return Number(match[1]) * UNIT_SECONDS[match[2]];
}

function integer(label, text) {
  if (!/^-?\d+$/.test(text.trim())) throw new Error(`${label} must be an integer`);
  return Number(text);
}

/** The spec of the form's fields (see spec.py), or an Error naming the field. */
function specOf(form) {
  const f = form.elements;
  const path = f.script.value.trim();
  const spec = {
    // a saved program (.skmodel) runs under skiff run; anything else is a Python script
    [path.endsWith('.skmodel') ? 'program' : 'script']: path,
    args: lines(f.args.value),
    workers: f.workers.value.trim() || '1',
    nproc: integer('processes per worker', f.nproc.value),
    priority: integer('priority', f.priority.value),
    env: parseEnv(f.env.value),
    keep: lines(f.keep.value).map((l) => l.trim()),
  };
  if (!path) throw new Error("script: the path of the script in the archive is needed");
  const name = f.name.value.trim();
  if (name) spec.name = name;
  const maxRunTime = parseDuration(f.max_run_time.value);
  if (maxRunTime !== null) spec.max_run_time = maxRunTime;
  return spec;
}

/** [Blob, file name] of what to upload: the archive as chosen, or a .py packed. */
async function archiveOf(file) {
  if (ARCHIVE.test(file.name)) return [file, file.name];
  const data = await file.arrayBuffer();
  return [await tarGz([{ name: file.name, data }]), 'work.tar.gz'];
}

function field(label, input, hint) {
  return el('label', { className: 'field' }, el('span', { className: 'label' }, label), input,
    hint && el('span', { className: 'hint' }, hint));
}

export function show(container, { authFailed }) {
  const error = el('p', { id: 'submit-error', className: 'error', role: 'alert' });
  const script = el('input', { name: 'script', id: 'submit-script', spellcheck: false });
  const file = el('input', {
    name: 'file', id: 'submit-file', type: 'file', required: true, accept: '.py,.tar.gz,.tgz,.zip',
    onchange: () => {
      const chosen = file.files[0];
      const single = chosen && !ARCHIVE.test(chosen.name);
      script.readOnly = Boolean(single);
      if (single) script.value = chosen.name;
    },
  });
  const text = (name, value = '', extra = {}) => el('input', { name, id: `submit-${name}`, value,
    spellcheck: false, ...extra });
  const area = (name, placeholder) => el('textarea', { name, id: `submit-${name}`, rows: 3,
    placeholder, spellcheck: false });
  const button = el('button', { type: 'submit' }, 'submit');
  const form = el('form', { id: 'submit-form', className: 'submit-form' },
    field('script or archive', file, 'a .py file, or a .tar.gz / .zip of the job\'s directory'),
    field('script path', script,
      'the script (or a saved .skmodel program) inside the archive (set for a .py file)'),
    field('name', text('name', '', { placeholder: 'from the script' })),
    field('arguments', area('args', '--epochs\n3'),
      'one per line, each line one argument as written (no shell, no quoting)'),
    field('workers', text('workers', '1'), 'N, or MIN:MAX for an elastic job'),
    field('processes per worker', text('nproc', '1', { type: 'number', min: 1 })),
    field('priority', text('priority', '0', { type: 'number' }), 'higher runs first'),
    field('max run time', text('max_run_time', '', { placeholder: '24h' }),
      'seconds, or N with s, m, h or d'),
    field('environment', area('env', 'NAME=VALUE'), 'one NAME=VALUE per line'),
    field('keep', area('keep', 'checkpoints'),
      'paths (one per line) kept as artifacts when the job ends'),
    el('div', { className: 'actions' }, button),
    error);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    button.disabled = true;
    try {
      const spec = specOf(form);
      const [archive, archiveName] = await archiveOf(file.files[0]);
      const job = await api.submit(spec, archive, archiveName);
      window.location.hash = `#/jobs/${job.id}`;
    } catch (e) {
      if (!authFailed(e)) error.textContent = e.message;
    } finally {
      button.disabled = false;
    }
  });
  container.append(el('h1', {}, 'Submit a job'), form);
  return () => {};
}
