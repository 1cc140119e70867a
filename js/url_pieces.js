// onnx-shapes: the bytes of a remote file that were fetched (js/url_source.js), at the file's own
// offsets. A Range response is kept as it came (one piece per request, a few per model). A body
// read from start to end (a server that ignores Range) is cut into many small needed spans, one
// per field the walk looks at: those are appended into growing buffers rather than kept one
// Uint8Array per field (5 MiB of two-byte fields were 2.6 million objects and ~1 GB of heap), so
// what is held costs its own bytes, plus a little per gap between them.

/** A growing buffer is never larger than this: beyond, the next bytes start another one. */
const CHUNK_MAX = 16 * 1024 * 1024;
const CHUNK_MIN = 64 * 1024;

/** Byte ranges of one file, [starts[i], starts[i] + lens[i]), sorted and disjoint. */
export class Pieces {
  constructor() {
    this.starts = [];
    this.lens = [];
    this.bufs = []; // bufs[i] holds the piece in its first lens[i] bytes (more is spare room)
    this.at = 0; // the piece read last (reads mostly go forward)
    this.size = 0; // bytes held
  }

  #end(i) {
    return this.starts[i] + this.lens[i];
  }

  /** Index of the piece holding `pos`, or -1. */
  find(pos) {
    const { starts } = this;
    const i = this.at;
    if (i < starts.length && starts[i] <= pos && pos < this.#end(i)) return i;
    if (i + 1 < starts.length && starts[i + 1] <= pos && pos < this.#end(i + 1)) return (this.at = i + 1);
    const found = this.#before(pos);
    if (found < 0 || pos >= this.#end(found)) return -1;
    return (this.at = found);
  }

  /** The last piece starting at or before `pos`, or -1. */
  #before(pos) {
    const { starts } = this;
    let lo = 0, hi = starts.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid] <= pos) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found;
  }

  /** The first position in [pos, end) that no piece holds, or end. */
  firstMissing(pos, end) {
    while (pos < end) {
      const i = this.find(pos);
      if (i < 0) return pos;
      pos = this.#end(i);
    }
    return end;
  }

  /** Start of the first piece after `pos`, or Infinity. */
  nextStart(pos) {
    const i = this.#before(pos) + 1;
    return i < this.starts.length ? this.starts[i] : Infinity;
  }

  /** Where the piece holding byte pos - 1 ends (pos itself when it ends there), or -1. */
  endBefore(pos) {
    const i = pos > 0 ? this.find(pos - 1) : -1;
    return i < 0 ? -1 : this.#end(i);
  }

  /** Keeps `bytes` (not copied) at `start`; they must not overlap a piece. */
  add(start, bytes) {
    if (!bytes.length) return;
    this.#insert(start, bytes, bytes.length);
  }

  /**
   * Copies `bytes` to `start`, which no piece holds: appended to the piece ending there when it has
   * or can grow room, else into a new growing buffer. The bytes must not overlap a piece.
   */
  append(start, bytes) {
    const n = bytes.length;
    if (!n) return;
    const i = start > 0 ? this.find(start - 1) : -1;
    if (i >= 0 && this.#end(i) === start) {
      const len = this.lens[i];
      let buf = this.bufs[i];
      if (len + n > buf.length && len + n <= CHUNK_MAX) {
        const grown = new Uint8Array(Math.min(CHUNK_MAX, Math.max(2 * buf.length, len + n)));
        grown.set(buf.subarray(0, len));
        this.bufs[i] = buf = grown;
      }
      if (len + n <= buf.length) {
        buf.set(bytes, len);
        this.lens[i] = len + n;
        this.size += n;
        return;
      }
    }
    const buf = new Uint8Array(Math.min(CHUNK_MAX, Math.max(CHUNK_MIN, n)));
    if (n <= buf.length) {
      buf.set(bytes);
      this.#insert(start, buf, n);
    } else {
      this.#insert(start, bytes.slice(), n);
    }
  }

  #insert(start, buf, len) {
    let i = this.starts.length;
    while (i > 0 && this.starts[i - 1] > start) i--;
    this.starts.splice(i, 0, start);
    this.lens.splice(i, 0, len);
    this.bufs.splice(i, 0, buf);
    this.size += len;
  }

  /** The byte at `pos`, or -1 when no piece holds it. */
  byte(pos) {
    const i = this.find(pos);
    return i < 0 ? -1 : this.bufs[i][pos - this.starts[i]];
  }

  /** Copies up to `len` bytes at `pos` into `dst` at `at`: as many as one piece holds, 0 when none does. */
  copy(pos, dst, at, len) {
    const i = this.find(pos);
    if (i < 0) return 0;
    const from = pos - this.starts[i];
    const n = Math.min(len, this.lens[i] - from);
    dst.set(this.bufs[i].subarray(from, from + n), at);
    return n;
  }

  /** The bytes at `pos` up to `len` or the end of their piece (a view, not a copy); empty when none holds pos. */
  view(pos, len) {
    const i = this.find(pos);
    if (i < 0) return new Uint8Array(0);
    const from = pos - this.starts[i];
    return this.bufs[i].subarray(from, from + Math.min(len, this.lens[i] - from));
  }
}
