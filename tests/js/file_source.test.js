// inferShapesFromPath on what is not a plain readable file (js/file_source.js): typed errors for a
// missing file or a directory, an open file descriptor, and inputs without a size (FIFOs,
// character devices), which are read in order, bounded by maxBytes, and fail early on bytes that
// are no model.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init, ShapeInferenceError } from '../../js/index.js';
import { REPO } from './helpers.js';
import { model, tensor } from './onnx_builder.js';

let engine;
let dir;
beforeAll(async () => {
  engine = await init();
  dir = mkdtempSync(join(tmpdir(), 'osi-source-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EXAMPLES = ['tiny_decoder', 'cnn_dynamic', 'control_flow'].map((m) => join(REPO, 'examples', 'models', `${m}.onnx`));

/** A model whose last field is a 1 MiB weight, so a streamed read skips to the very end. */
let weightLastBytes;
function weightLast() {
  weightLastBytes ??= model({
    inputs: [{ name: 'x', elemType: 'float', dims: ['N', 256] }],
    outputs: ['y'],
    nodes: [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['y'] }],
    initializers: [tensor({ name: 'w', elemType: 'float', dims: [256, 1024], rawData: new Uint8Array(256 * 1024 * 4).fill(7) })],
  });
  return weightLastBytes;
}

let fifoCount = 0;
/** A FIFO that a child process fills with `bytes` (written to a file first) or the output of `command`. */
function fifo({ bytes, command }) {
  const path = join(dir, `fifo${fifoCount++}`);
  expect(spawnSync('mkfifo', [path], { timeout: 60_000 }).status).toBe(0);
  let writer;
  if (bytes) {
    const file = `${path}.src`;
    writeFileSync(file, bytes);
    writer = spawn('sh', ['-c', 'cat "$1" > "$2"', 'sh', file, path], { stdio: 'ignore', timeout: 300_000, killSignal: 'SIGKILL' });
  } else {
    writer = spawn('sh', ['-c', `${command} > "$1"`, 'sh', path], { stdio: 'ignore', timeout: 300_000, killSignal: 'SIGKILL' });
  }
  writer.on('error', () => {});
  return { path, writer };
}

/** Repeats an unknown varint field of ModelProto (field 100 = 0) forever: valid bytes that never end. */
const ENDLESS = `${JSON.stringify(process.execPath)} -e "const b=Buffer.alloc(3*65536);for(let i=0;i<b.length;i+=3){b[i]=0xa0;b[i+1]=6}`
  + `process.stdout.on('error',()=>process.exit(0));const w=()=>{while(process.stdout.write(b));process.stdout.once('drain',w)};w()"`;

test('a missing file is an IO_ERROR with the fs error as its cause', () => {
  let err;
  try {
    engine.inferShapesFromPath(join(dir, 'nope.onnx'));
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ShapeInferenceError);
  expect(err.code).toBe('IO_ERROR');
  expect(err.message).toMatch(/nope\.onnx: ENOENT/);
  expect(err.cause.code).toBe('ENOENT');
});

test('a directory is an IO_ERROR (EISDIR)', () => {
  expect(() => engine.inferShapesFromPath(dir)).toThrow(expect.objectContaining({ code: 'IO_ERROR', message: expect.stringMatching(/EISDIR/) }));
});

test('an open file descriptor is read from its start and left open', () => {
  const path = join(dir, 'relu.onnx');
  writeFileSync(path, readFileSync(EXAMPLES[1]));
  const fd = openSync(path, 'r');
  try {
    const expected = JSON.stringify(engine.inferShapes(readFileSync(EXAMPLES[1])));
    expect(JSON.stringify(engine.inferShapesFromPath(fd))).toBe(expected);
    expect(JSON.stringify(engine.inferShapesFromPath(fd))).toBe(expected); // not closed
  } finally {
    closeSync(fd);
  }
  expect(() => engine.inferShapesFromPath(-1)).toThrow(TypeError);
  expect(() => engine.inferShapesFromPath(join(dir, 'x'), { maxBytes: 0 })).toThrow(TypeError);
  expect(() => engine.inferShapesFromPath(join(dir, 'x'), { maxBytes: 2 ** 32 })).toThrow(TypeError);
});

test.each([...EXAMPLES.map((p) => [p.split('/').at(-1), () => readFileSync(p)]), ['a weight at the end', weightLast]])(
  'a FIFO gives the same result as the bytes: %s',
  (_name, bytesOf) => {
    const bytes = bytesOf();
    const { path, writer } = fifo({ bytes });
    const r = engine.inferShapesFromPath(path, { events: true });
    writer.kill();
    expect(JSON.stringify(r)).toBe(JSON.stringify(engine.inferShapes(bytes, { events: true })));
    expect(Buffer.compare(Buffer.from(r.toModel()), Buffer.from(engine.inferShapes(bytes).toModel()))).toBe(0);
  },
);

test('a FIFO cut short is a PARSE_ERROR, not a model without a graph', () => {
  const bytes = weightLast();
  const { path, writer } = fifo({ bytes: bytes.subarray(0, bytes.length - 100) });
  expect(() => engine.inferShapesFromPath(path)).toThrow(expect.objectContaining({ code: 'PARSE_ERROR' }));
  writer.kill();
});

test('/dev/zero fails at its first bytes', () => {
  expect(() => engine.inferShapesFromPath('/dev/zero')).toThrow(expect.objectContaining({ code: 'PARSE_ERROR' }));
});

test('an endless input stops at maxBytes with LIMIT_EXCEEDED', () => {
  const { path, writer } = fifo({ command: ENDLESS });
  try {
    expect(() => engine.inferShapesFromPath(path, { maxBytes: 1 << 20 }))
      .toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED', message: expect.stringMatching(/larger than 1048576 bytes/) }));
  } finally {
    writer.kill();
  }
  // The engine is fine afterwards.
  expect(engine.inferShapes(readFileSync(EXAMPLES[1])).getShape('logits').dims).toEqual(['N', 10]);
});

test('an input exactly maxBytes long is read; one byte more is over', () => {
  const bytes = readFileSync(EXAMPLES[0]);
  const ok = fifo({ bytes });
  expect(engine.inferShapesFromPath(ok.path, { maxBytes: bytes.length }).getShape('logits').dims).toEqual(['batch', 'seq', 100]);
  ok.writer.kill();
  const over = fifo({ bytes });
  expect(() => engine.inferShapesFromPath(over.path, { maxBytes: bytes.length - 1 })).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED' }));
  over.writer.kill();
});
