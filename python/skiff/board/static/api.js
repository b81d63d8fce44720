/**
 * Access to the board server's JSON API. URLs are relative to the page, so the board
 * also works behind a path prefix. At most MAX_IN_FLIGHT requests run at once; the
 * rest wait in order, so a page with hundreds of charts never floods the server.
 */

const MAX_IN_FLIGHT = 6;
let inFlight = 0;
const waiting = [];

/** The URL of `path` (e.g. "api/scalars") with `params` as its query; null and
 *  undefined values are left out. */
export function apiUrl(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

function acquire() {
  if (inFlight < MAX_IN_FLIGHT) {
    inFlight += 1;
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}

function release() {
  const next = waiting.shift();
  if (next) next();
  else inFlight -= 1;
}

/** GETs `path` with `params` and returns the parsed JSON body; throws an Error carrying
 *  the server's {"error": ...} message (or the HTTP status) when the answer is not 2xx. */
export async function getJSON(path, params) {
  await acquire();
  try {
    const response = await fetch(apiUrl(path, params), { cache: 'no-store' });
    let body = null;
    try {
      body = await response.json();
    } catch (_) {
      body = null;
    }
    if (!response.ok) {
      const message = body && body.error ? body.error : `${response.status} ${response.statusText}`;
      throw new Error(`${path}: ${message}`);
    }
    return body;
  } finally {
    release();
  }
}
