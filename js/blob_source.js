// onnx-shapes: a File or Blob read synchronously for the streaming decoder (FileReaderSync, so
// workers only). Each FileReaderSync read costs a round trip to the browser's file reader (about
// 3 ms on a busy 2-core machine, whatever its size up to a few MiB), so reads grow while the
// decoder reads on (a graph's nodes lie together: 64 KiB, then 128 KiB, ... up to MAX_READ) and
// start small again after it skips a payload (weights are skipped, not read). Memory stays at
// one read of at most MAX_READ bytes.

/** The first read after a skip: the decoder's own buffer size (src/decode/decode_npb.c). */
const MIN_READ = 64 << 10;
/** The largest read: ~40 ms of reading on that machine; one such buffer is held at a time. */
export const MAX_READ = 4 << 20;

/**
 * `read(pos, len)` over `blob`: a Uint8Array of up to `len` bytes at `pos` (fewer only at the end),
 * valid until the next call. Reads that continue where the last one ended double the read size.
 */
export function blobReader(blob, { Reader = globalThis.FileReaderSync } = {}) {
  const reader = new Reader();
  let start = 0;
  let bytes = new Uint8Array(0);
  let next = MIN_READ;
  return (pos, len) => {
    if (pos >= start && pos + len <= start + bytes.length) return bytes.subarray(pos - start, pos - start + len);
    // Sequential when the decoder reads on from the end of what it has (or within it).
    const sequential = pos >= start && pos <= start + bytes.length && bytes.length > 0;
    next = sequential ? Math.min(2 * next, MAX_READ) : MIN_READ;
    const size = Math.max(len, next);
    start = pos;
    bytes = new Uint8Array(reader.readAsArrayBuffer(blob.slice(pos, Math.min(blob.size, pos + size))));
    return bytes.subarray(0, Math.min(len, bytes.length));
  };
}
