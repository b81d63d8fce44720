/**
 * The job service's JSON API, as the page calls it. The token lives in localStorage
 * (signIn / signOut); every call carries it as `Authorization: Bearer TOKEN`, except the
 * log stream, which takes it as ?token= (EventSource cannot set headers). URLs are
 * relative to the page, so the service also works behind a path prefix.
 */

const TOKEN_KEY = 'skiff.cloud.token';

/** An answer other than 2xx: `status` is the HTTP status (0: the service is unreachable),
 *  the message is the service's {"error": ...} text. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function token() {
  return localStorage.getItem(TOKEN_KEY) || '';
}

export function signIn(value) {
  localStorage.setItem(TOKEN_KEY, value);
}

export function signOut() {
  localStorage.removeItem(TOKEN_KEY);
}

function withQuery(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** The Response of `path` (relative, e.g. "api/jobs"), or an ApiError. */
async function send(path, { method = 'GET', body, params } = {}) {
  let response;
  try {
    response = await fetch(withQuery(path, params), {
      method, body, cache: 'no-store', headers: { Authorization: `Bearer ${token()}` },
    });
  } catch (e) {
    throw new ApiError(0, `cannot reach the service: ${e.message}`);
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      const answer = await response.json();
      if (answer && answer.error) message = answer.error;
    } catch (_) { /* not JSON: keep the status line */ }
    throw new ApiError(response.status, message);
  }
  return response;
}

async function json(path, options) {
  return (await send(path, options)).json();
}

/** {"name", "admin"} of the token's user. */
export const whoami = () => json('api/whoami');

/** The jobs, newest first; `state` is a comma-separated list of states, `user` a name
 *  (an admin's filter). */
export async function jobs({ state, user, limit = 200 } = {}) {
  return (await json('api/jobs', { params: { state, user, limit } })).jobs;
}

/** The job with its "events" (state changes and notes). */
export const job = (id) => json(`api/jobs/${id}`);

export const cancel = (id) => json(`api/jobs/${id}/cancel`, { method: 'POST' });

/** Submits a job: `spec` (an object, see spec.py) and `archive` (a Blob: .tar.gz or .zip
 *  of the job's directory, or null); returns the queued job. */
export function submit(spec, archive, archiveName = 'work.tar.gz') {
  const form = new FormData();
  form.append('spec', new Blob([JSON.stringify(spec)], { type: 'application/json' }));
  if (archive) form.append('archive', archive, archiveName);
  return json('api/jobs', { method: 'POST', body: form });
}

/** The URL of skiff board on job `id`'s board_logdir (the service starts it on demand). */
export async function board(id) {
  return (await json(`api/jobs/${id}/board`, { method: 'POST' })).url;
}

export async function artifacts(id) {
  return (await json(`api/jobs/${id}/artifacts`)).files;
}

/** The kept file `path` of job `id` as a Blob (the download carries the token). */
export async function artifact(id, path) {
  const quoted = path.split('/').map(encodeURIComponent).join('/');
  return (await send(`api/jobs/${id}/artifacts/${quoted}`)).blob();
}

/** The URL of the job's live log (Server-Sent Events from line `first` on). */
export function logStreamUrl(id, first = 0) {
  return withQuery(`api/jobs/${id}/log/stream`, { token: token(), first: first || null });
}
