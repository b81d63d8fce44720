/**
 * Small DOM builders shared by the views. Text always goes in as text nodes (never as
 * HTML), so job output, names and errors cannot inject markup.
 */

export const ACTIVE_STATES = ['queued', 'starting', 'running'];
export const STATES = [...ACTIVE_STATES, 'succeeded', 'failed', 'cancelled'];

/** A new `tag` element: `props` are properties (className, onclick, ...) or, for keys
 *  holding a '-' (data-*, aria-*), attributes; children are nodes or strings. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (key.includes('-')) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const pad = (n) => String(n).padStart(2, '0');

/** "YYYY-MM-DD HH:MM:SS" in local time of unix seconds `t`; "" for none. */
export function formatTime(t) {
  if (t === null || t === undefined) return '';
  const d = new Date(t * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} `
    + `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** "1h 02m 03s" style length of `seconds`. */
export function formatDuration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h) return `${h}h ${pad(m)}m ${pad(s % 60)}s`;
  if (m) return `${m}m ${pad(s % 60)}s`;
  return `${s}s`;
}

/** "12.3 kB" style size of `bytes`. */
export function formatSize(bytes) {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit ? `${value.toFixed(1)} ${units[unit]}` : `${value} B`;
}

/** The colored badge of a job state. */
export function stateBadge(state) {
  return el('span', { className: `state state-${state}`, 'data-state': state }, state);
}
