/** The audio view: a player per run and tag with a step slider (media.js). */
import { el } from './cards.js';
import { mediaView } from './media.js';

export const audioView = mediaView({
  id: 'audio',
  title: 'Audio',
  kind: 'audio',
  listPath: 'api/audio',
  itemPath: 'api/audio_clip',
  show(holder, url, entry) {
    let player = holder.querySelector('audio');
    if (!player) {
      player = el('audio', { controls: true, preload: 'none', className: 'logged-audio' });
      holder.append(player, el('div', { className: 'audio-info' }));
    }
    player.src = url;
    player.dataset.step = entry.step;
    const seconds = entry.sample_rate ? (entry.frames / entry.sample_rate).toFixed(2) : '?';
    holder.querySelector('.audio-info').textContent = `${seconds} s at ${entry.sample_rate} Hz`;
  },
});
