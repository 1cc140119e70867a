// The bytes of a model file for inferShapesFromPath (Node only: js/index.js loads this module when
// it runs in Node). A regular file has a size and is read with positional reads, so the decoder
// skips its weights without reading them. An input without a size (a pipe, FIFO, socket, or a
// character device such as /dev/zero or a terminal) cannot seek: what the decoder pulls from it is
// kept (a second pass needs it once the end is known), up to a limit, so no input makes the
// process grow without bound. Every failure is a ShapeInferenceError: IO_ERROR for the file
// system, LIMIT_EXCEEDED past the limit.

/** Default limit on what is kept of an input without a size: protobuf's own 2 GiB message limit. */
export const DEFAULT_MAX_BYTES = 2 ** 31;
/** The most a wasm32 decoder can address (src/decode/decode_npb.c) and a Node Buffer can hold. */
export const MAX_MAX_BYTES = 2 ** 32 - 1;

const SKIP_CHUNK = 1 << 20;

/** "ENOENT: no such file or directory" from Node's "ENOENT: no such file or directory, open 'x'". */
function reason(err) {
  const message = typeof err?.message === 'string' ? err.message : String(err);
  return /^[A-Z][A-Z0-9_]*: [^,]*/.exec(message)?.[0] ?? message;
}

/** Reads into buf[offset..offset+len) at `position` (null: the current one), retrying EAGAIN/EINTR. */
function readRetrying(fs, fd, buf, offset, len, position) {
  for (;;) {
    try {
      return fs.readSync(fd, buf, offset, len, position);
    } catch (err) {
      // A non-blocking descriptor (a pipe another process set O_NONBLOCK on) has no data yet:
      // wait for it as a blocking read would.
      if (err?.code !== 'EAGAIN' && err?.code !== 'EINTR') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/**
 * Opens `path` (a string, URL or Buffer, or an open file descriptor, which is neither moved back
 * nor closed) for reading; errors call it `name` when given (the path a descriptor was opened
 * from). The answer:
 * - `size`: the byte count of a regular file, or null for an input without a size;
 * - `read(pos, heap, dst, len)`: copies up to len bytes at offset pos of the input to heap[dst..];
 *   0 at the end (a sizeless input is read in order: the bytes up to pos are read and kept first);
 * - `ended`: a sizeless input's end was reached; `bytes()`: what was kept of it (one Uint8Array);
 * - `close()`.
 */
export function openSource(fs, path, { maxBytes = DEFAULT_MAX_BYTES, name: given, ShapeInferenceError }) {
  const name = given ?? (path === 0 ? 'standard input' : typeof path === 'number' ? `file descriptor ${path}` : String(path));
  const ioError = (err) => new ShapeInferenceError(`cannot read ${name}: ${reason(err)}`, { code: 'IO_ERROR', cause: err });
  const owned = typeof path !== 'number';
  let fd;
  let stats;
  try {
    fd = owned ? fs.openSync(path, 'r') : path;
    stats = fs.fstatSync(fd);
  } catch (err) {
    if (owned && fd !== undefined) fs.closeSync(fd);
    throw ioError(err);
  }
  const close = () => {
    if (owned) fs.closeSync(fd);
  };
  if (stats.isDirectory()) {
    close();
    throw ioError(Object.assign(new Error('EISDIR: illegal operation on a directory'), { code: 'EISDIR' }));
  }
  if (stats.isFile()) {
    return {
      size: stats.size,
      read(pos, heap, dst, len) {
        try {
          return readRetrying(fs, fd, heap, dst, len, pos);
        } catch (err) {
          throw ioError(err);
        }
      },
      close,
    };
  }

  let kept = 0;
  let buf = new Uint8Array(0);
  const source = {
    size: null,
    ended: false,
    /** Reads up to `want` more bytes after the kept ones; 0 at the end of the input. */
    pull(want) {
      if (source.ended) return 0;
      let n;
      try {
        if (kept >= maxBytes) { // at the limit: one more byte means the input is over it
          n = readRetrying(fs, fd, new Uint8Array(1), 0, 1, null);
          if (n > 0) {
            throw new ShapeInferenceError(`${name} is larger than ${maxBytes} bytes, the most read from an input `
              + 'without a size (a pipe, FIFO, socket or device): such an input is kept in memory', { code: 'LIMIT_EXCEEDED' });
          }
        } else {
          want = Math.min(want, maxBytes - kept);
          if (kept + want > buf.length) {
            const grown = new Uint8Array(Math.min(maxBytes, Math.max(2 * buf.length, kept + want, 1 << 20)));
            grown.set(buf.subarray(0, kept));
            buf = grown;
          }
          n = readRetrying(fs, fd, buf, kept, want, null);
        }
      } catch (err) {
        throw err instanceof ShapeInferenceError ? err : ioError(err);
      }
      if (n === 0) source.ended = true;
      kept += n;
      return n;
    },
    read(pos, heap, dst, len) {
      while (kept < pos) { // skipped by the decoder: read past, but keep them for the second pass
        if (source.pull(Math.min(pos - kept, SKIP_CHUNK)) === 0) return 0;
      }
      if (pos < kept) { // not expected (reads go forward), but served from what is kept
        const n = Math.min(len, kept - pos);
        heap.set(buf.subarray(pos, pos + n), dst);
        return n;
      }
      const n = source.pull(len);
      heap.set(buf.subarray(kept - n, kept), dst);
      return n;
    },
    bytes() {
      const all = buf.subarray(0, kept);
      buf = new Uint8Array(0);
      return all;
    },
    close,
  };
  return source;
}
