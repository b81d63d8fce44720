/** The images view: each run and tag's logged images with a step slider (media.js). */
import { el } from './cards.js';
import { mediaView } from './media.js';

export const imagesView = mediaView({
  id: 'images',
  title: 'Images',
  kind: 'images',
  listPath: 'api/images',
  itemPath: 'api/image',
  show(holder, url, entry) {
    let img = holder.querySelector('img');
    if (!img) {
      img = el('img', { className: 'logged-image', alt: 'logged image' });
      holder.append(img, el('div', { className: 'image-size' }));
    }
    img.src = url;
    // Small images are scaled up by a whole factor (drawn pixelated) to be seen.
    const factor = Math.max(1, Math.floor(192 / Math.max(entry.width, entry.height, 1)));
    img.style.width = `${entry.width * factor}px`;
    img.dataset.step = entry.step;
    holder.querySelector('.image-size').textContent = `${entry.width} × ${entry.height}`;
  },
});
