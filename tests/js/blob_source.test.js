// js/blob_source.js: the reads inferShapesFromFile makes of a File in a worker (FileReaderSync,
// which Node lacks: a stand-in reader records each read). Reads grow while the decoder reads on,
// start small again after a skip, never exceed MAX_READ, and always give the file's bytes.
import { blobReader, MAX_READ } from '../../js/blob_source.js';

const SIZE = 20 << 20;
const bytes = Uint8Array.from({ length: SIZE }, (_, i) => (i * 7 + (i >> 16)) & 0xff);
// What blobReader uses of a Blob: its size and slice(); a slice here is the range it stands for.
const blob = { size: SIZE, slice: (start, end) => ({ start, end: Math.min(end, SIZE) }) };

/** A FileReaderSync stand-in that logs the size of each read. */
function recordingReader(log) {
  return class {
    readAsArrayBuffer({ start, end }) {
      log.push(end - start);
      return bytes.slice(start, end).buffer;
    }
  };
}

const K = 64 << 10;

test('a sequential read grows its reads (64 KiB, 128 KiB, ...) up to MAX_READ, with the right bytes', () => {
  const log = [];
  const read = blobReader(blob, { Reader: recordingReader(log) });
  for (let pos = 0; pos < 12 << 20; pos += K) {
    const got = read(pos, K);
    expect(got.length).toBe(K);
    if (got[0] !== bytes[pos] || got[K - 1] !== bytes[pos + K - 1]) throw new Error(`wrong bytes at ${pos}`);
  }
  // 12 MiB in 64 KiB steps: 64K, 128K, ... 4M, then 4M reads; far fewer than 192 reads of 64 KiB.
  expect(log.slice(0, 7)).toEqual([K, 2 * K, 4 * K, 8 * K, 16 * K, 32 * K, 64 * K]);
  expect(Math.max(...log)).toBe(MAX_READ);
  expect(log.length).toBeLessThan(12);
});

test('after a skip past what was read, reads start at 64 KiB again', () => {
  const log = [];
  const read = blobReader(blob, { Reader: recordingReader(log) });
  read(0, K);
  read(K, K); // sequential: 128 KiB
  expect(read(10 << 20, 100)).toEqual(bytes.subarray(10 << 20, (10 << 20) + 100)); // a skipped payload
  expect(log).toEqual([K, 2 * K, K]);
  // A read inside what was read costs nothing.
  expect(read((10 << 20) + 50, 10)).toEqual(bytes.subarray((10 << 20) + 50, (10 << 20) + 60));
  expect(log).toHaveLength(3);
});

test('the end of the file gives fewer bytes, then none', () => {
  const read = blobReader(blob, { Reader: recordingReader([]) });
  expect(read(SIZE - 10, K)).toEqual(bytes.subarray(SIZE - 10));
  expect(read(SIZE, K).length).toBe(0);
});
