// The command line on hostile and wide models (issue 30 items 8 and 14, issue 29 item 5): names,
// op types, dims and paths holding terminal control sequences print escaped, never raw, in every
// text the CLI prints (--json stays exact JSON); a FIFO over --max-bytes is named by its path; at
// 80 columns no line of a real export's table or events overflows (a torchvision Faster R-CNN,
// exported here by torch); a value whose type is unknown is listed and can be explained with --events.
import { jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from './helpers.js';
import { model } from './onnx_builder.js';

const CLI = join(REPO, 'js', 'cli.js');
jest.setTimeout(120000); // a few CLI runs per test; this is for a machine under load
const cli = (args, input, env) => spawnSync(process.execPath, [CLI, ...args], {
  encoding: 'utf8', input, env: { ...process.env, COLUMNS: '', ...env }, maxBuffer: 256 * 1024 * 1024, timeout: 300_000,
});

// Every control character a terminal acts on, and the invisible ones that reorder text; '\n' only
// as the end of a line.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const noRawControl = (text) => {
  const m = RAW_CONTROL.exec(text);
  expect(m === null ? null : `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 40))}`).toBeNull();
};

describe('control characters in names, types, dims and paths print escaped', () => {
  const CLEAR = '\u001b[2J\u001b[H';
  const TITLE = '\u001b]0;pwned\u0007';
  const FORGED = 'x\rspoofed_line  Relu  float [1, 2, 3]';
  const names = { clear: `a${CLEAR}`, title: `t${TITLE}`, forged: FORGED, lf: 'line\nbreak', csi: 'c\u009b31m', bidi: 'r\u202eevil', del: 'd\u007f' };
  const bytes = Buffer.from(model({
    inputs: [{ name: names.clear, elemType: 'float', dims: [`N${CLEAR}`, 4] }],
    outputs: [names.del],
    nodes: [
      { op: 'Relu', name: `node${TITLE}`, inputs: [names.clear], outputs: [names.title] },
      { op: 'Tanh', inputs: [names.title], outputs: [names.forged] },
      { op: 'Sigmoid', inputs: [names.forged], outputs: [names.lf] },
      { op: 'Neg', inputs: [names.lf], outputs: [names.csi] },
      { op: `Evil${CLEAR}Op`, domain: `com.x${TITLE}`, inputs: [names.csi], outputs: [names.bidi] }, // unknown: a note
      { op: 'Relu', inputs: [names.csi], outputs: [names.del] },
    ],
  }));
  let dir;
  let path;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'osi-cli-ctl-'));
    path = join(dir, 'evil.onnx');
    writeFileSync(path, bytes);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the table, its notes, --sort name, --bind and its warnings', () => {
    for (const args of [[path], [path, '--sort', 'name'], [path, '--bind', 'zz=3']]) {
      const r = cli(args);
      expect(r.status).toBe(0);
      noRawControl(r.stdout);
      noRawControl(r.stderr);
      expect(r.stdout).toContain('a\\x1b[2J\\x1b[H');
      expect(r.stdout).toContain('x\\rspoofed_line  Relu  float [1, 2, 3]');
      expect(r.stdout).not.toMatch(/^spoofed_line/m);
      expect(r.stdout).toContain('r\\u202eevil');
    }
    const bind = cli([path, '--bind', `k${TITLE}=3`]); // no such size can be named: a usage error
    expect(bind.status).toBe(2);
    noRawControl(bind.stderr);
    expect(bind.stderr).toContain('k\\x1b]0');
  });

  test('--events, for a value and for one the model does not have', () => {
    const r = cli([path, '--events', names.forged]);
    expect(r.status).toBe(0);
    noRawControl(r.stdout);
    expect(r.stdout.split('\n')[0]).toBe("x\\rspoofed_line  Relu  float [1, 2, 3]: float ['N\\x1b[2J\\x1b[H', 4]");
    const missing = cli([path, '--events', `nothing${CLEAR}`]);
    expect(missing.status).toBe(2);
    noRawControl(missing.stderr);
    expect(missing.stderr).toContain("'nothing\\x1b[2J\\x1b[H' is not a value");
  });

  test('errors and paths', () => {
    const paths = [join(dir, `no${TITLE}such\n.onnx`), join(dir, `evil${CLEAR}`)];
    writeFileSync(paths[1], Buffer.from([0x08, 0x01, 0xff]));
    for (const p of paths) {
      const r = cli([p]);
      expect(r.status === 1 || r.status === 3).toBe(true);
      noRawControl(r.stderr);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(cli([paths[0]]).stderr).toContain('no\\x1b]0;pwned\\x07such\\n.onnx');
    const usage = cli([`--bogus${CLEAR}`]);
    expect(usage.status).toBe(2);
    noRawControl(usage.stderr);
  });

  test('--json stays exact JSON: every name intact, no raw control character', () => {
    for (const args of [[path, '--json'], [path, '--json', '--bind', 'zz=2'], [path, '--json', '--events', names.csi]]) {
      const r = cli(args);
      expect(r.status).toBe(0);
      noRawControl(r.stdout.replace(/\n/g, ''));
      const j = JSON.parse(r.stdout);
      if (j.values) {
        for (const n of Object.values(names)) if (n !== names.bidi) expect(Object.keys(j.values)).toContain(n);
        expect(j.nodes[4].outputs).toEqual([names.bidi]); // of an unknown op: no type
      } else {
        expect(j.value).toBe(names.csi);
      }
    }
  });
});

test('invisible characters (a BOM, zero-width, soft hyphen, tags) print escaped in the table; --json keeps them', () => {
  // Two names that differ by a character that prints as nothing looked the same in the table
  // ('\ufeffx' and 'x'); JSON, read by programs, keeps every name as it is.
  const BOM = '\ufeffx';
  const ZW = 'y\u200bz';
  const TAG = 'w\u{e0041}';
  const SOFT = 'so\u00adft';
  const dir = mkdtempSync(join(tmpdir(), 'osi-cli-bom-'));
  try {
    const path = join(dir, 'bom.onnx');
    writeFileSync(path, Buffer.from(model({
      inputs: [{ name: 'x', elemType: 'float', dims: ['N', 4] }, { name: BOM, elemType: 'float', dims: [`M\u2060`, 4] }],
      outputs: [ZW, TAG, SOFT],
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: [ZW] },
        { op: 'Relu', inputs: [BOM], outputs: [TAG] },
        { op: 'Relu', name: 'n\ufeff', inputs: [BOM], outputs: [SOFT] },
      ],
    })));
    const r = cli([path]);
    expect(r.status).toBe(0);
    const rows = r.stdout.split('\n');
    expect(rows).toContainEqual(expect.stringMatching(/^\\ufeffx +float \['M\\u2060', 4\]$/));
    expect(rows).toContainEqual(expect.stringMatching(/^y\\u200bz +Relu +float \[N, 4\]$/));
    expect(rows).toContainEqual(expect.stringMatching(/^w\\u\{e0041\} +Relu +float \['M\\u2060', 4\]$/));
    expect(rows).toContainEqual(expect.stringMatching(/^so\\xadft +Relu/));
    expect(r.stdout).not.toMatch(/[\ufeff\u200b\u00ad\u2060]|\u{e0041}/u);
    const ev = cli([path, '--events', SOFT]);
    expect(ev.status).toBe(0);
    expect(ev.stdout.split('\n')[0]).toBe("so\\xadft: float ['M\\u2060', 4]");
    expect(ev.stdout).not.toMatch(/[\ufeff\u00ad\u2060]/u);
    const j = cli([path, '--json']);
    expect(j.status).toBe(0);
    const values = JSON.parse(j.stdout).values;
    for (const n of [BOM, ZW, TAG, SOFT]) expect(Object.keys(values)).toContain(n);
    expect(values[TAG].dims).toEqual(["'M\u2060'", 4]); // quoted: not an identifier
    expect(j.stdout).toContain(BOM); // as JSON.stringify writes it: the character itself
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('over --max-bytes, a FIFO is named by the path given', () => {
  const dir = mkdtempSync(join(tmpdir(), 'osi-cli-'));
  try {
    const fifo = join(dir, 'model.fifo');
    const big = join(dir, 'big.onnx');
    writeFileSync(big, Buffer.from(model({
      inputs: [{ name: 'x', elemType: 'float', dims: ['N', 4] }],
      outputs: ['y'],
      nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'], name: 'n'.repeat(5000) }],
    })));
    expect(spawnSync('mkfifo', [fifo], { timeout: 60_000 }).status).toBe(0);
    const r = spawnSync('sh', ['-c', 'cat "$1" > "$2" 2>/dev/null & "$3" "$4" --max-bytes 1K "$2"', 'sh', big, fifo, process.execPath, CLI],
      { encoding: 'utf8', timeout: 300_000 });
    expect(r.status).toBe(4);
    expect(r.stderr).toMatch(new RegExp(`^onnx-shapes: LIMIT_EXCEEDED: ${fifo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is larger than 1024 bytes`));
    expect(r.stderr).not.toMatch(/file descriptor/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Section - Width

/** Faster R-CNN (torchvision 0.14, random weights), exported by torch 1.13 at opset 17; cached in build/. */
function fasterRcnn() {
  const gen = join(REPO, 'tests/exporters/make_torchvision.py');
  const h = createHash('sha256');
  for (const f of [gen, join(REPO, 'tests/exporters/make_models.py')]) h.update(readFileSync(f));
  const hash = h.digest('hex').slice(0, 16);
  const want = 'detection_faster_rcnn_op17_list.onnx';
  // The torchvision differential's cache (the same generators, the same hash) has it once it has run.
  const shared = join(REPO, 'build', 'torchvision', hash, want);
  if (existsSync(shared)) return shared;
  const dir = join(REPO, 'build', 'cli_width', hash);
  if (!existsSync(join(dir, want))) {
    const tmp = `${dir}.tmp-${process.pid}`;
    const r = spawnSync('/usr/bin/python3', [gen, tmp, want.replace(/\.onnx$/, '')], { encoding: 'utf8', timeout: 1_800_000 });
    if (r.status !== 0) throw new Error(`make_torchvision.py failed (python3-torch and python3-torchvision are needed):\n${r.stderr}`);
    mkdirSync(join(REPO, 'build', 'cli_width'), { recursive: true });
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  }
  return join(dir, want);
}

describe('at 80 columns', () => {
  test('no line of a Faster R-CNN export\'s table overflows; long shapes wrap inside their column', () => {
    const path = fasterRcnn();
    for (const args of [[path], [path, '--bind', 'batch=1,height=480,width=640']]) {
      const r = cli(args, undefined, { COLUMNS: '80' });
      expect(r.status).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      const over = lines.filter((l) => l.length > 80);
      expect(over.slice(0, 3)).toEqual([]);
      const wide = cli(args, undefined, { COLUMNS: '100000' }).stdout.split('\n');
      const longest = wide.reduce((a, l) => Math.max(a, l.length), 0);
      expect(longest).toBeGreaterThan(160); // the export has long shapes (twice the width): the test means something
      // Every line starts at a column: a row's name (0), the rest of a cut name (2), a wrapped
      // note (4), the op column (the rest of a row after a long name), or the type column (a
      // shape's next part, aligned).
      const starts = new Set([0, 2, 4, lines[0].indexOf('op'), lines[0].indexOf('type and shape')]);
      const indents = new Map();
      for (const l of lines) {
        const n = l.length - l.trimStart().length;
        indents.set(n, (indents.get(n) ?? 0) + 1);
      }
      expect([...indents.keys()].filter((n) => !starts.has(n))).toEqual([]);
      expect(indents.get(lines[0].indexOf('type and shape'))).toBeGreaterThan(10); // shapes wrapped
      console.log(`Faster R-CNN at 80 columns (${args.length > 1 ? '--bind' : 'symbolic'}): ${lines.length} lines, `
        + `none over 80; at 100000 columns the longest is ${longest}`);
    }
  }, 600000);

  test('--events wraps its long lines under the event, the text all there', () => {
    const path = fasterRcnn();
    // The value with the widest table row (a long shape and contents), and the detections' outputs.
    const rows = cli([path], undefined, { COLUMNS: '100000' }).stdout.split('\n').slice(1)
      .filter((l) => /^\S/.test(l) && !/^(where|label:|note:|bound:|derived:|unbound:) /.test(l));
    const widest = rows.reduce((a, l) => (l.length > a.length ? l : a), '').split(' ')[0];
    let longest = 0;
    for (const value of [widest, 'boxes', 'scores']) {
      const wide = cli([path, '--events', value], undefined, { COLUMNS: '100000' });
      const narrow = cli([path, '--events', value], undefined, { COLUMNS: '80' });
      expect(narrow.status).toBe(0);
      expect(narrow.stdout.split('\n').filter((l) => l.length > 80)).toEqual([]);
      expect(narrow.stdout.replace(/\s+/g, '')).toBe(wide.stdout.replace(/\s+/g, ''));
      for (const l of narrow.stdout.split('\n')) if (l) expect(l).toMatch(/^(\S|  \S|      \S)/);
      longest = Math.max(longest, ...wide.stdout.split('\n').map((l) => l.length));
    }
    expect(longest).toBeGreaterThan(100); // the events have long lines: the test means something
  }, 600000);

  test('a long shape wraps after its commas, aligned under its column; the text is all there', () => {
    const dims = Array.from({ length: 12 }, (_, i) => `dimension_number_${i}`);
    const bytes = Buffer.from(model({
      inputs: [{ name: 'x', elemType: 'float', dims }],
      outputs: ['y'],
      nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
    }));
    const lines = cli(['-'], bytes, { COLUMNS: '80' }).stdout.trimEnd().split('\n');
    const col = lines[0].indexOf('type and shape');
    const y = lines.findIndex((l) => l.startsWith('y '));
    const part = [lines[y].slice(col)];
    for (let i = y + 1; i < lines.length && lines[i].startsWith(' '.repeat(col)); i++) part.push(lines[i].slice(col));
    expect(part.length).toBeGreaterThan(2);
    expect(part.join(' ')).toBe(`float [${dims.join(', ')}]`);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
  });
});

test('--cost and the domain lines: dim names holding ESC/OSC and a long node name stay within 80 columns, escaped', () => {
  const H = 'H\u001b]0;pwned\u0007';
  const W = 'W\u001b[31mred\u001b[0m';
  const N = 'N\u001b[2J';
  const node = `conv_${'x'.repeat(75)}`;
  const bytes = Buffer.from(model({
    inputs: [{ name: 'x', elemType: 'float', dims: [N, 3, H, W] }, { name: 'w', elemType: 'float', dims: [8, 3, 5, 5] }],
    outputs: ['y'],
    nodes: [{ op: 'Conv', name: node, inputs: ['x', 'w'], outputs: ['y'] }],
  }));
  for (const args of [['-'], ['-', '--cost'], ['-', '--cost', '--bind', 'zz=1']]) {
    const r = cli(args, bytes, { COLUMNS: '80' });
    expect(r.status).toBe(0);
    noRawControl(r.stdout);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    // the text is all there: the domain line names the node whole, the table the escaped names
    const flat = lines.map((l) => l.trim()).join('');
    if (args.includes('--cost')) {
      expect(lines[0]).toMatch(/^op type +nodes +MACs +FLOPs$/);
      expect(flat).toContain("600*'H\\x1b]0;pwned\\x07'*'N\\x1b[2J'*'W\\x1b[31mred\\x1b[0m'");
    } else {
      expect(flat).toContain(`runs for 'H\\x1b]0;pwned\\x07' >= 5(node 0 '${node}', Conv)`);
    }
  }
});

describe('a value whose type is unknown', () => {
  const bytes = Buffer.from(model({
    inputs: [{ name: 'x', elemType: 'float', dims: ['N', 4] }],
    outputs: ['y'],
    nodes: [
      { op: 'Mystery', domain: 'com.example', name: 'mystery', inputs: ['x'], outputs: ['M'] },
      { op: 'Relu', inputs: ['M'], outputs: ['y'] },
    ],
  }));

  test('is in the table, its type ?', () => {
    for (const args of [['-'], ['-', '--sort', 'name']]) {
      const r = cli(args, bytes);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^M +Mystery +\?$/m);
    }
  });

  test('--events M explains it; --json too', () => {
    const r = cli(['-', '--events', 'M'], bytes);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('M: ?');
    expect(r.stdout).toMatch(/produced by node 0 'mystery' \(Mystery\)/);
    const j = JSON.parse(cli(['-', '--events', 'M', '--json'], bytes).stdout);
    expect(j).toMatchObject({ value: 'M', type: null, producer: { name: 'mystery', opType: 'Mystery' } });
    expect(cli(['-', '--events', 'nothing'], bytes).status).toBe(2);
  });
});
