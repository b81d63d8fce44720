/**
 * Incremental loading: a card's content is fetched only when the card comes near the
 * viewport, at most a few cards at a time. Views register cards with watch(); live
 * polling asks visibleCards() which cards are worth refreshing.
 */

const MAX_LOADING = 4;

export class LazyCards {
  /** `margin`: how far outside the viewport a card counts as near (CSS length). */
  constructor(margin = '200px') {
    this.visible = new Set();
    this.queue = [];
    this.loading = 0;
    this.observer = new IntersectionObserver((entries) => this.seen(entries),
      { rootMargin: margin });
  }

  /** Watches `card`: load(card) runs once, when it first comes near the viewport;
   *  onShow(card), if given, each later time it comes back into view. */
  watch(card, load, onShow) {
    card.lazy = { load, onShow, loaded: false };
    card.dataset.state = 'waiting';
    this.observer.observe(card);
  }

  /** Forgets every card (before a view rebuilds its cards). */
  reset() {
    this.observer.disconnect();
    this.visible.clear();
    this.queue = [];
  }

  /** Cards near the viewport whose content has been loaded. */
  visibleCards() {
    return [...this.visible].filter((card) => card.lazy && card.lazy.loaded && card.isConnected);
  }

  seen(entries) {
    for (const entry of entries) {
      const card = entry.target;
      if (!entry.isIntersecting) {
        this.visible.delete(card);
        continue;
      }
      this.visible.add(card);
      if (!card.lazy.loaded && !card.lazy.queued) {
        card.lazy.queued = true;
        this.queue.push(card);
      } else if (card.lazy.loaded && card.lazy.onShow) {
        card.lazy.onShow(card);
      }
    }
    this.pump();
  }

  pump() {
    while (this.loading < MAX_LOADING && this.queue.length) {
      const card = this.queue.shift();
      if (!card.isConnected) continue;
      this.loading += 1;
      card.dataset.state = 'loading';
      Promise.resolve()
        .then(() => card.lazy.load(card))
        .then(() => {
          if (card.dataset.state === 'loading') card.dataset.state = 'ready';
        })
        .catch((error) => showError(card, error))
        .finally(() => {
          card.lazy.loaded = true;
          this.loading -= 1;
          this.pump();
        });
    }
  }
}

/** Marks `card` failed and shows the error's message in it. */
export function showError(card, error) {
  card.dataset.state = 'error';
  let note = card.querySelector('.card-error');
  if (!note) {
    note = document.createElement('p');
    note.className = 'card-error';
    card.appendChild(note);
  }
  note.textContent = String(error && error.message ? error.message : error);
}
