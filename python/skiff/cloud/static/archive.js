/**
 * A job's directory made in the browser: a .tar.gz of a few files (a plain ustar
 * archive, gzip-compressed by the browser's CompressionStream), so a single script can
 * be submitted without packing it first. Names are relative paths of at most 100 bytes.
 *
 *   const blob = await tarGz([{ name: 'train.py', data: await file.arrayBuffer() }]);
 */

const BLOCK = 512;
const encoder = new TextEncoder();

function writeString(header, offset, length, text) {
  const bytes = encoder.encode(text);
  if (bytes.length > length) throw new Error(`'${text}' is longer than ${length} bytes`);
  header.set(bytes, offset);
}

/** `value` as `length - 1` octal digits and a NUL, as tar's numeric fields are. */
function writeOctal(header, offset, length, value) {
  writeString(header, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
}

/** The 512-byte ustar header of a regular file. */
function header(name, size, mtime) {
  if (!name || name.startsWith('/') || name.split('/').includes('..')) {
    throw new Error(`'${name}' is not a relative path inside the job's directory`);
  }
  const h = new Uint8Array(BLOCK);
  writeString(h, 0, 100, name);
  writeOctal(h, 100, 8, 0o644);           // mode
  writeOctal(h, 108, 8, 0);               // uid
  writeOctal(h, 116, 8, 0);               // gid
  writeOctal(h, 124, 12, size);
  writeOctal(h, 136, 12, mtime);
  h.fill(0x20, 148, 156);                 // the checksum counts its own field as spaces
  h[156] = 0x30;                          // typeflag '0': a regular file
  writeString(h, 257, 6, 'ustar\0');
  writeString(h, 263, 2, '00');
  const sum = h.reduce((a, b) => a + b, 0);
  writeString(h, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

/** The bytes of an uncompressed tar of `files` ([{name, data: ArrayBuffer | Uint8Array}]). */
export function tar(files, mtime = Math.floor(Date.now() / 1000)) {
  const parts = [];
  for (const { name, data } of files) {
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    parts.push(header(name, bytes.length, mtime), bytes);
    const rest = bytes.length % BLOCK;
    if (rest) parts.push(new Uint8Array(BLOCK - rest));
  }
  parts.push(new Uint8Array(2 * BLOCK));  // the end: two zero blocks
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** A Blob holding the gzip-compressed tar of `files`. */
export async function tarGz(files, mtime) {
  const stream = new Blob([tar(files, mtime)]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Blob([await new Response(stream).arrayBuffer()], { type: 'application/gzip' });
}
