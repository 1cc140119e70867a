// The command line (js/cli.js): output formats, bindings, provenance, stdin, exit codes.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { REPO } from './helpers.js';
import { graph, model, node } from './onnx_builder.js';

const CLI = join(REPO, 'js', 'cli.js');
const DECODER = join(REPO, 'examples', 'models', 'tiny_decoder.onnx');
const CNN = join(REPO, 'examples', 'models', 'cnn_dynamic.onnx');
const cli = (args, input, env) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', input, env: { ...process.env, ...env }, timeout: 300_000 });

function varint(n) {
  const out = [];
  for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
  out.push(n);
  return Buffer.from(out);
}
const lengthField = (field, bytes) => Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);

/** model() for many nodes, fast: each NodeProto is written once and the fields concatenated. */
function bigModel({ inputs, outputs, nodes }) {
  const g = Buffer.concat([...nodes.map((n) => lengthField(1, node(n))), graph({ inputs, outputs })]);
  const opset = Buffer.concat([lengthField(1, Buffer.alloc(0)), Buffer.from([0x10, 17])]); // domain '', version 17
  return Buffer.concat([Buffer.from([0x08, 8]), lengthField(7, g), lengthField(8, opset)]); // ir_version 8
}

test('prints a table of every value', () => {
  const r = cli([DECODER]);
  expect(r.status).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines[0]).toMatch(/^value\s+op\s+type and shape$/);
  expect(r.stdout).toMatch(/^present_key\s+Concat\s+float \[batch, 4, total_seq, 16\]$/m);
  expect(r.stdout).toMatch(/^logits\s+MatMul\s+float \[batch, seq, 100\]$/m);
});

test('--bind evaluates shapes and byte sizes', () => {
  const r = cli([CNN, '--bind', 'N=2,H=224,W=224']);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^c1\s+Conv\s+float \[2, 8, 112, 112\]\s+802816$/m);
  expect(r.stdout).toMatch(/^logits\s+MatMul\s+float \[2, 10\]\s+80$/m);
});

test('--json prints the whole result', () => {
  const r = cli([CNN, '--json']);
  expect(r.status).toBe(0);
  const j = JSON.parse(r.stdout);
  expect(j.values.c1.dims).toEqual(['N', 8, '(H+1)//2', '(W+1)//2']);
  expect(j.diagnostics).toEqual([]);
});

test('--events explains a value', () => {
  const r = cli([DECODER, '--events', 'present_key']);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/produced by node \d+ 'kv_cache_k' \(Concat\)/);
  expect(r.stdout).toMatch(/constraint: past_seq\+seq == total_seq/);
  expect(r.stdout).toMatch(/rename: past_seq\+seq -> total_seq/);
  expect(cli([DECODER, '--events', 'no_such_value']).status).toBe(2);
});

test('reads - from standard input', () => {
  const r = cli(['-'], readFileSync(CNN));
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^logits\s+MatMul\s+float \[N, 10\]$/m);
});

test('exit codes: 1 invalid model, 2 usage error, 3 file error, 4 limit exceeded', () => {
  const oneLine = (r, status, pattern) => {
    expect(r.status).toBe(status);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
  };
  oneLine(cli(['-'], Buffer.from([0xff, 0xff, 0xff])), 1, /^onnx-shapes: PARSE_ERROR: /);
  expect(cli([]).status).toBe(2);
  expect(cli(['--bogus', CNN]).status).toBe(2);
  expect(cli([CNN, '--bind', 'N']).status).toBe(2);
  expect(cli([CNN, '--max-bytes', '12Q']).status).toBe(2);
  expect(cli([CNN, '--write', '-', '--json']).status).toBe(2);
  oneLine(cli(['/no/such/file.onnx']), 3, /^onnx-shapes: cannot read \/no\/such\/file\.onnx: ENOENT: no such file or directory$/m);
  oneLine(cli([tmpdir()]), 3, /^onnx-shapes: cannot read .*: it is a directory$/m);
  oneLine(cli(['--stream', tmpdir()]), 3, /it is a directory$/m);
  // Over --max-bytes: standard input, and a regular file that --write reads whole.
  oneLine(cli(['-', '--max-bytes', '1K'], readFileSync(CNN)), 4, /^onnx-shapes: LIMIT_EXCEEDED: standard input is larger than 1024 bytes/);
  oneLine(cli([CNN, '--max-bytes', '1K', '--write', join(tmpdir(), 'never.onnx')]), 4, /over the 1024 that --write reads/);
  expect(cli(['--help']).status).toBe(0);
});

test('a failed --write is a file error in one line, never a stack trace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-cli-'));
  try {
    const cases = [['/dev/full', /ENOSPC/], [dir, /EISDIR/], [join(dir, 'no', 'such', 'dir.onnx'), /ENOENT/]];
    for (const [out, why] of cases) {
      const r = cli([CNN, '--write', out]);
      expect(r.status).toBe(3);
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(why)]);
      expect(r.stderr).toMatch(/^onnx-shapes: cannot write /);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--write - puts the model on standard output, and nothing else', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-cli-'));
  try {
    const r = spawnSync(process.execPath, [CLI, CNN, '--write', '-'], { cwd: dir, timeout: 300_000 });
    expect(r.status).toBe(0);
    expect(readdirSync(dir)).toEqual([]); // no file named '-'
    const engine = await init();
    expect(Buffer.compare(r.stdout, Buffer.from(engine.inferShapes(readFileSync(CNN)).toModel()))).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a reader that leaves early (| head) ends the CLI quietly, with exit 3', () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-cli-'));
  try {
    const n = 20_000; // a table of ~600 KB, well over a pipe's buffer
    const nodes = Array.from({ length: n }, (_, i) => ({ op: 'Relu', inputs: [i ? `v${i - 1}` : 'x'], outputs: [`v${i}`] }));
    const path = join(dir, 'chain.onnx');
    writeFileSync(path, bigModel({ inputs: [{ name: 'x', elemType: 'float', dims: ['N', 4] }], outputs: [`v${n - 1}`], nodes }));
    const r = spawnSync('sh', ['-c', '{ "$1" "$2" "$3"; echo "exit=$?" >&2; } | head -c 100 > /dev/null', 'sh', process.execPath, CLI, path],
      { encoding: 'utf8', timeout: 300_000 });
    expect(r.stderr).toBe('exit=3\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--stream reads a FIFO (which has no size) to its end', () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-cli-'));
  let writer = null;
  try {
    const fifo = join(dir, 'model.fifo');
    expect(spawnSync('mkfifo', [fifo], { timeout: 60_000 }).status).toBe(0);
    // The writer blocks until the CLI opens the FIFO: it runs beside the CLI, with its own time
    // limit, and is killed below whatever happened (a CLI that exits before opening the FIFO
    // would leave it blocked forever).
    writer = spawn('sh', ['-c', 'exec cat "$1" > "$2"', 'sh', CNN, fifo], { stdio: 'ignore', timeout: 300_000, killSignal: 'SIGKILL' });
    const r = spawnSync(process.execPath, [CLI, '--stream', fifo], { encoding: 'utf8', timeout: 300_000 });
    expect(r.error?.message ?? null).toBeNull();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^logits\s+MatMul\s+float \[N, 10\]$/m);
  } finally {
    writer?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('onnx-shapes /dev/zero ends by itself, at once, with bounded memory', async () => {
  // The child reports its peak resident set on exit; a watchdog kills it past 1 GiB or 60 s, so a
  // regression (reading /dev/zero whole) fails this test instead of exhausting the machine. The
  // peak is VmHWM, that of the child's own memory since exec: getrusage's maxRSS (Node's
  // resourceUsage) keeps, across fork and exec, the peak of the Jest worker that spawned it.
  const report = 'data:text/javascript,import{readFileSync}from"node:fs";process.on("exit",()=>process.stderr.write(`maxRSS=${/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status","utf8"))[1]}\\n`))';
  const child = spawn(process.execPath, ['--import', report, CLI, '/dev/zero'], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000, killSignal: 'SIGKILL' });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const started = Date.now();
  const watchdog = setInterval(() => {
    let rss = 0;
    try {
      rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]);
    } catch { /* gone */ }
    if (rss > 1024 * 1024 || Date.now() - started > 60_000) child.kill('SIGKILL');
  }, 50);
  const status = await new Promise((resolve) => child.on('close', (code) => resolve(code)));
  clearInterval(watchdog);
  expect(stderr).toMatch(/^onnx-shapes: PARSE_ERROR: .* at byte \d+$/m);
  expect(status).toBe(1);
  const maxRSS = Number(/maxRSS=(\d+)/.exec(stderr)[1]); // KiB
  expect(maxRSS).toBeLessThan(256 * 1024);
  expect(Date.now() - started).toBeLessThan(20_000);
});

test('a 150k-value model prints its whole table', () => {
  // A chain of Relus: every value is [N, 4] (Relu keeps its input's shape).
  const n = 150_000;
  const nodes = new Array(n);
  for (let i = 0; i < n; i++) nodes[i] = { op: 'Relu', inputs: [i ? `v${i - 1}` : 'x'], outputs: [`v${i}`] };
  const bytes = bigModel({ inputs: [{ name: 'x', elemType: 'float', dims: ['N', 4] }], outputs: [`v${n - 1}`], nodes });
  const r = spawnSync(process.execPath, [CLI, '-', '--bind', 'N=3'], { input: bytes, encoding: 'utf8', maxBuffer: 1 << 30, timeout: 300_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const lines = r.stdout.split('\n');
  expect(lines.pop()).toBe('');
  expect(lines).toHaveLength(1 + (n + 1) + 1);
  expect(lines[1]).toMatch(/^x +float \[3, 4\] +48$/);
  for (let i = 0; i < n; i++) { // graph order, each 3*4 floats of 4 bytes
    if (!/^v\d+ +Relu +float \[3, 4\] +48$/.test(lines[2 + i]) || !lines[2 + i].startsWith(`v${i} `)) {
      throw new Error(`row ${2 + i}: ${lines[2 + i]}`);
    }
  }
  expect(lines.at(-1)).toBe('bound: N=3');
}, 60_000);

test('--write writes the model with value_info filled in', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-cli-'));
  try {
    const out = join(dir, 'out.onnx');
    const r = cli([CNN, '--write', out]);
    expect(r.status).toBe(0);
    const engine = await init();
    const again = engine.inferShapes(readFileSync(out), { prefillValueInfo: true });
    expect(again.getShape('c1').dims).toEqual(['N', 8, '(H+1)//2', '(W+1)//2']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an output label shows the computed size in the table and names it below', () => {
  // torch labels dims it was given no name for: <Op><output>_dim_<k>, <output>_dynamic_axes_<k>.
  const bytes = model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: ['batch', 4, 'seq'] }],
    outputs: [{ name: 'y', elemType: 'float', dims: ['Reluy_dim_0', 4, 'y_dynamic_axes_2'] }],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
  });
  const r = cli(['-'], Buffer.from(bytes));
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^y\s+Relu\s+float \[batch, 4, seq\]$/m);
  expect(r.stdout).toMatch(/^label: Reluy_dim_0 = batch$/m);
  expect(r.stdout).toMatch(/^label: y_dynamic_axes_2 = seq$/m);
  const j = JSON.parse(cli(['-', '--json'], Buffer.from(bytes)).stdout);
  expect(j.constraints.labels).toEqual({ Reluy_dim_0: 'batch', y_dynamic_axes_2: 'seq' });
  expect(j.constraints.equal).toEqual(expect.arrayContaining([['Reluy_dim_0', 'batch'], ['seq', 'y_dynamic_axes_2']]));
});

describe('long value names', () => {
  const long = `${'very_long_subgraph_scope/'.repeat(9)}value`; // 230 characters
  const medium = 'm'.repeat(40);
  const bytes = Buffer.from(model({
    inputs: [{ name: 'x', elemType: 'float', dims: ['N', 4] }],
    outputs: ['y'],
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: [long] },
      { op: 'Tanh', inputs: [long], outputs: [medium] },
      { op: 'Sigmoid', inputs: [medium], outputs: ['y'] },
    ],
  }));

  /**
   * Checks the table fits `width`: every line is at most that long. A name too long for its column
   * is on a line of its own (cut after a '/' into lines of the width, the rest indented, when even
   * the line cannot hold it), its row going on below, aligned.
   */
  const fits = (lines, width) => {
    const first = lines.findIndex((l) => l.startsWith('very_long_subgraph_scope/'));
    expect(first).toBeGreaterThan(0);
    let row = first;
    while (lines[row + 1].startsWith('  ') && !/^ +Relu/.test(lines[row + 1])) row++;
    expect(lines.slice(first, row + 1).map((l) => l.trim()).join('')).toBe(long);
    for (const l of lines.slice(first, row)) expect(l).toMatch(/\/$/);
    expect(lines[row + 1]).toMatch(/^ +Relu +float \[N, 4\]$/);
    expect(lines[row + 1].indexOf('Relu')).toBe(lines[0].indexOf('op'));
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
    expect(lines).toContainEqual(expect.stringMatching(/^y +Sigmoid +float \[N, 4\]$/));
    return lines.includes(medium); // wrapped too
  };

  test('without a terminal the table is laid out for $COLUMNS, or 120 columns', () => {
    for (const [env, width] of [[{ COLUMNS: '60' }, 60], [{ COLUMNS: '' }, 120]]) {
      const r = cli(['-'], bytes, env);
      expect(r.status).toBe(0);
      expect(fits(r.stdout.trimEnd().split('\n'), width)).toBe(width < 100);
    }
  });

  test('on a terminal the table is laid out for its width', () => {
    // script(1) gives the CLI a pseudo-terminal of 50 columns.
    const dir = mkdtempSync(join(tmpdir(), 'osi-cli-'));
    try {
      const path = join(dir, 'long.onnx');
      writeFileSync(path, bytes);
      const command = `stty cols 50 rows 20; COLUMNS= "${process.execPath}" "${CLI}" "${path}"`;
      const r = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
      expect(r.status).toBe(0);
      const lines = r.stdout.split('\r\n').filter((l) => l.length > 0);
      expect(fits(lines.slice(lines.findIndex((l) => l.startsWith('value'))), 50)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--bind', () => {
  const table = (r) => {
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout;
  };

  test('sizes the constraints decide are derived (past_seq + seq gives total_seq, and back)', () => {
    // present_key is [batch, 4, total_seq, 16] and the model says past_seq+seq == total_seq.
    const fwd = table(cli([DECODER, '--bind', 'batch=2,past_seq=3,seq=7']));
    expect(fwd).toMatch(/^present_key\s+Concat\s+float \[2, 4, 10, 16\]\s+5120$/m); // 2*4*10*16 floats
    expect(fwd).toMatch(/^attention_mask\s+int64 \[2, 10\]\s+160$/m);
    expect(fwd).toMatch(/^derived: total_seq=10 \(past_seq\+seq == total_seq\)$/m);
    const back = table(cli([DECODER, '--bind', 'batch=2,total_seq=10,seq=7']));
    expect(back).toMatch(/^past_key\s+float \[2, 4, 3, 16\]\s+1536$/m);
    expect(back).toMatch(/^derived: past_seq=3 /m);
    expect(back).not.toMatch(/^unbound/m);
  });

  test('the size derived is the one not given: past_seq and total_seq give seq, and past_seq stays as given', () => {
    // past_seq+seq == total_seq is solved for seq, the one symbol without a size; solving it for
    // past_seq (the first symbol of the sum) would derive nothing and drop the given past_seq.
    const out = table(cli([DECODER, '--bind', 'batch=2,past_seq=5,total_seq=8']));
    expect(out).toMatch(/^derived: seq=3 \(past_seq\+seq == total_seq\)$/m);
    expect(out).toMatch(/^past_key\s+float \[2, 4, 5, 16\]\s+2560$/m); // 2*4*5*16 floats
    expect(out).toMatch(/^present_key\s+Concat\s+float \[2, 4, 8, 16\]\s+4096$/m);
    expect(out).toMatch(/^input_ids\s+int64 \[2, 3\]\s+48$/m);
    expect(out).not.toMatch(/^unbound/m);
    const j = JSON.parse(table(cli([DECODER, '--json', '--bind', 'batch=2,past_seq=5,total_seq=8'])));
    expect(j.bindings).toEqual({
      given: { batch: 2, past_seq: 5, total_seq: 8 },
      derived: { seq: { value: 3, from: 'past_seq+seq == total_seq' } },
      unbound: [],
    });
  });

  test('a declared label can be bound: the size it names gets its value', () => {
    const bytes = Buffer.from(model({
      inputs: [{ name: 'x', elemType: 'float', dims: ['batch', 4, 'seq'] }],
      outputs: [{ name: 'y', elemType: 'float', dims: ['Reluy_dim_0', 4, 'y_dynamic_axes_2'] }],
      nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
    }));
    const out = table(cli(['-', '--bind', 'Reluy_dim_0=2,y_dynamic_axes_2=5'], bytes));
    expect(out).toMatch(/^y\s+Relu\s+float \[2, 4, 5\]\s+160$/m);
    expect(out).toMatch(/^x\s+float \[2, 4, 5\]\s+160$/m);
  });

  test('a name the model does not have is a warning; a negative size or a contradiction an error', () => {
    const unknown = cli([CNN, '--bind', 'N=1,HH=5']);
    expect(unknown.status).toBe(0);
    expect(unknown.stderr).toBe('onnx-shapes: warning: --bind names HH, which this model does not have (ignored)\n');
    expect(unknown.stdout).toMatch(/^unbound: H, W$/m);
    const negative = cli([CNN, '--bind', 'N=-1']);
    expect(negative.status).toBe(2);
    expect(negative.stderr).toMatch(/^onnx-shapes: --bind expects name=size pairs .*"N=-1"/);
    const contradiction = cli([DECODER, '--bind', 'past_seq=3,seq=7,total_seq=11']);
    expect(contradiction.status).toBe(2);
    expect(contradiction.stdout).toBe('');
    expect(contradiction.stderr).toMatch(/^onnx-shapes: --bind: these sizes are impossible for this model: the model says past_seq\+seq == total_seq, but at these sizes past_seq\+seq is 10 and total_seq is 11/);
    expect(contradiction.stderr.trim().split('\n')).toHaveLength(1);
    const none = cli([DECODER, '--bind', 'seq=7,total_seq=5']); // past_seq would be -2
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no size of past_seq meets/);
  });

  test('--json --bind evaluates the values and says which sizes were used', () => {
    const j = JSON.parse(table(cli([DECODER, '--json', '--bind', 'batch=2,past_seq=3,seq=7'])));
    expect(j.values.present_key.dims).toEqual([2, 4, 10, 16]);
    expect(j.bytes.present_key).toBe(5120);
    expect(j.bindings).toEqual({
      given: { batch: 2, past_seq: 3, seq: 7 },
      derived: { total_seq: { value: 10, from: 'past_seq+seq == total_seq' } },
      unbound: [],
    });
    const plain = JSON.parse(table(cli([DECODER, '--json'])));
    expect(plain.values.present_key.dims).toEqual(['batch', 4, 'total_seq', 16]);
    expect(plain.bindings).toBeUndefined();
  });
});

describe('--events', () => {
  test('--json prints the explanation as JSON', () => {
    const r = cli([DECODER, '--events', 'present_key', '--json']);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.value).toBe('present_key');
    expect(j.type.dims).toEqual(['batch', 4, 'total_seq', 16]);
    expect(j.producer).toEqual({ index: expect.any(Number), name: 'kv_cache_k', opType: 'Concat', path: '' });
    expect(j.events).toContainEqual(expect.objectContaining({ kind: 'constraint', detail: 'past_seq+seq == total_seq' }));
  });

  test('one line per event, the node named once', () => {
    const r = cli([DECODER, '--events', 'present_key']);
    expect(r.stdout).not.toMatch(/node node/);
    expect(r.stdout).toMatch(/^  inferred at node \d+ 'kv_cache_k' \(Concat\): ai\.onnx:Concat opset \d+$/m);
    expect(r.stdout).toMatch(/^  set at node \d+ 'kv_cache_k' \(Concat\): float\[batch,4,past_seq\+seq,16\]$/m);
  });

  test('a constraint that was rejected says so', () => {
    // Two unrelated outputs declared with one name L: L == batch is kept, L == seq rejected.
    const bytes = Buffer.from(model({
      inputs: [{ name: 'a', elemType: 'float', dims: ['batch', 4] }, { name: 'b', elemType: 'float', dims: ['seq', 4] }],
      outputs: [{ name: 'ra', elemType: 'float', dims: ['L', 4] }, { name: 'rb', elemType: 'float', dims: ['L', 4] }],
      nodes: [{ op: 'Relu', inputs: ['a'], outputs: ['ra'] }, { op: 'Relu', inputs: ['b'], outputs: ['rb'] }],
    }));
    const rb = cli(['-', '--events', 'rb'], bytes, { COLUMNS: '1000' }); // the long line unwrapped
    expect(rb.status).toBe(0);
    expect(rb.stdout).toMatch(/^  constraint: L == seq \(rejected: ANCHOR_CONFLICT: .*\)$/m);
    const ra = cli(['-', '--events', 'ra'], bytes);
    expect(ra.stdout).toMatch(/^  constraint: L == batch$/m);
  });

  test('a value inside a subgraph has its producer and its events', () => {
    const r = cli([join(REPO, 'examples', 'models', 'control_flow.onnx'), '--events', 'loop/body/acc_out']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^loop\/body\/acc_out: float \[N, 4\]$/m);
    expect(r.stdout).toMatch(/^  produced by node 1 'accumulate' \(Add\) in loop\/body\/$/m);
    expect(r.stdout).toMatch(/^  set at node 1 'accumulate' \(Add\) in loop\/body\/: float\[N,4\]$/m);
  });
});

describe('the table', () => {
  const CONTROL = join(REPO, 'examples', 'models', 'control_flow.onnx');
  const keys = (out) => out.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0]);

  test('values come in graph order: inputs, initializers, then each node\'s outputs after its bodies', () => {
    const r = cli([CONTROL]);
    expect(r.status).toBe(0);
    expect(keys(r.stdout)).toEqual([
      'x', 'steps', 'true', 'zero', 'total', 'positive',
      'branch/then_branch/then_out', 'branch/else_branch/else_out', 'y',
      'loop/body/i', 'loop/body/cond_in', 'loop/body/acc_in', 'loop/body/cond_out', 'loop/body/acc_out', 'loop/body/row',
      'acc', 'rows',
    ]);
    // A value inside a body shows the op of the node that writes it.
    expect(r.stdout).toMatch(/^loop\/body\/acc_out\s+Add\s+float \[N, 4\]$/m);
  });

  test('--sort name sorts by name', () => {
    const r = cli([CONTROL, '--sort', 'name']);
    expect(r.status).toBe(0);
    const k = keys(r.stdout);
    expect(k).toEqual([...k].sort());
    expect(k).toHaveLength(17);
    expect(cli([CONTROL, '--sort', 'size']).status).toBe(2);
  });

  test('? is an unknown dim or type, [*] an unknown rank, = [...] a known content', () => {
    const bytes = Buffer.from(model({
      inputs: [
        { name: 'x', elemType: 'float', dims: ['N', 4] },
        { name: 's', elemType: 'int64', dims: [2] },
        { name: 'k', elemType: 'int64', dims: ['K'] },
      ],
      outputs: ['r', 'q', 'sh'],
      nodes: [
        { op: 'Reshape', inputs: ['x', 's'], outputs: ['r'] }, // 2 dims fed at run time
        { op: 'Reshape', inputs: ['x', 'k'], outputs: ['q'] }, // K dims fed at run time
        { op: 'Shape', inputs: ['x'], outputs: ['sh'] },
      ],
    }));
    const r = cli(['-'], bytes);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^r\s+Reshape\s+float \[\?, \?\]$/m);
    expect(r.stdout).toMatch(/^q\s+Reshape\s+float \[\*\]$/m);
    expect(r.stdout).toMatch(/^sh\s+Shape\s+int64 \[2\] = \[N, 4\]$/m);
  });
});
