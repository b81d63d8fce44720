/**
 * A job's live log: lines from the service's Server-Sent Events stream appended as they
 * come (at most one DOM update per frame), the view following the tail unless the user
 * scrolled up, and a search box that keeps only the lines holding its text (case
 * insensitive) with the matches marked. Lines go in as text, never as HTML.
 *
 *   const log = new LogView(onEnd);   // onEnd({state, exit_code, reason, lines})
 *   container.append(log.element);
 *   log.connect(api.logStreamUrl(id));
 *   log.close();
 */
import { el } from './dom.js';

const MAX_LINES = 20000;  // older lines leave the view past this many
const AT_BOTTOM_PX = 8;

export class LogView {
  constructor(onEnd) {
    this.onEnd = onEnd;
    this.entries = [];      // [{n, text, node, marked}] in order
    this.pending = [];      // [n, text] not yet shown
    this.next = 0;          // the number of the next line expected
    this.dropped = 0;
    this.query = '';
    this.following = true;
    this.frame = null;
    this.source = null;
    this.box = el('div', { id: 'log', className: 'log', tabIndex: 0 });
    this.box.addEventListener('scroll', () => this.setFollowing(this.atBottom()));
    this.search = el('input', {
      id: 'log-search', type: 'search', placeholder: 'search the log', spellcheck: false,
      oninput: () => this.filter(this.search.value),
    });
    this.count = el('span', { id: 'log-count', className: 'hint' });
    this.status = el('span', { id: 'log-status', className: 'hint' }, 'connecting…');
    this.followButton = el('button', {
      id: 'log-follow', type: 'button', hidden: true,
      onclick: () => { this.setFollowing(true); this.scrollToEnd(); },
    }, 'follow the tail');
    this.element = el('section', { className: 'log-section' },
      el('div', { className: 'log-bar' }, this.search, this.count, this.followButton,
        this.status),
      this.box);
  }

  /** Follows the stream at `url` (the browser resumes a dropped connection from the
   *  last line it got). */
  connect(url) {
    this.source = new EventSource(url);
    this.source.onopen = () => { this.status.textContent = 'live'; };
    this.source.onmessage = (event) => {
      this.pending.push([Number(event.lastEventId), event.data]);
      if (this.frame === null) this.frame = requestAnimationFrame(() => this.flush());
    };
    this.source.addEventListener('end', (event) => {
      this.source.close();
      this.flush();
      const end = JSON.parse(event.data);
      this.status.textContent = `ended: ${end.state}`
        + (end.exit_code === null ? '' : ` (exit ${end.exit_code})`);
      this.element.dataset.ended = end.state;
      this.onEnd(end);
    });
    this.source.onerror = () => {
      const closed = this.source.readyState === EventSource.CLOSED;
      this.status.textContent = closed ? 'the log stream was refused' : 'reconnecting…';
    };
  }

  close() {
    if (this.source) this.source.close();
    if (this.frame !== null) cancelAnimationFrame(this.frame);
  }

  atBottom() {
    const b = this.box;
    return b.scrollHeight - b.scrollTop - b.clientHeight <= AT_BOTTOM_PX;
  }

  scrollToEnd() {
    this.box.scrollTop = this.box.scrollHeight;
  }

  setFollowing(on) {
    this.following = on;
    this.followButton.hidden = on;
  }

  /** Shows the lines that came since the last frame. */
  flush() {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    const fragment = document.createDocumentFragment();
    for (const [n, text] of this.pending) {
      if (n < this.next) continue;  // already shown (a resumed stream)
      this.next = n + 1;
      const entry = { n, text, node: null, marked: false };
      entry.node = el('div', { className: 'line', 'data-n': n },
        el('span', { className: 'n' }, String(n + 1)), el('span', { className: 'text' }, text));
      this.show(entry);
      this.entries.push(entry);
      fragment.append(entry.node);
    }
    this.pending = [];
    this.box.append(fragment);
    const extra = this.entries.length - MAX_LINES;
    if (extra > 0) {
      for (const entry of this.entries.splice(0, extra)) entry.node.remove();
      this.dropped += extra;
    }
    this.updateCount();
    if (this.following) this.scrollToEnd();
  }

  /** Keeps the lines holding `query` (all when empty), marking the matches. */
  filter(query) {
    this.query = query.toLowerCase();
    for (const entry of this.entries) this.show(entry);
    this.updateCount();
    if (this.following) this.scrollToEnd();
  }

  /** Hides or shows one line for the current query, marking its matches. */
  show(entry) {
    const { query } = this;
    const lower = entry.text.toLowerCase();
    const at = query ? lower.indexOf(query) : 0;
    entry.node.hidden = at < 0;
    if (at < 0 || (!query && !entry.marked)) return;
    const text = entry.node.lastChild;
    if (!query || lower.length !== entry.text.length) {  // no marks (or unsafe offsets)
      text.replaceChildren(entry.text);
      entry.marked = false;
      return;
    }
    const parts = [];
    let from = 0;
    for (let i = at; i >= 0; i = lower.indexOf(query, from)) {
      parts.push(entry.text.slice(from, i), el('mark', {}, entry.text.slice(i, i + query.length)));
      from = i + query.length;
    }
    parts.push(entry.text.slice(from));
    text.replaceChildren(...parts);
    entry.marked = true;
  }

  updateCount() {
    const shown = this.query ? this.entries.filter((e) => !e.node.hidden).length : null;
    const total = this.entries.length + this.dropped;
    let text = shown === null ? `${total} lines` : `${shown} of ${total} lines match`;
    if (this.dropped) text += ` (the first ${this.dropped} are no longer shown)`;
    this.count.textContent = text;
  }
}
