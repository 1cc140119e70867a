#!/usr/bin/env node
// The audit's planted bugs, made reproducible (issue 31): each is a small, realistic change to the
// engine, the JS wrapper or the CLI that a test must catch. The tool copies the working tree
// (tracked and untracked files, not ignored ones) to a scratch folder, builds it there once, checks
// that the chosen tests pass on the unchanged copy, then for each bug: applies it, rebuilds what it
// touches, runs the tests, reports which fail, and takes the bug out again. The working tree is
// only read.
//
//   node tests/tools/planted_bugs.mjs [--only id,id] [--all-jest] [--keep] [--scratch DIR]
//
// Tests run for every bug: all of ctest (native build, both decoders; about 10 s) when the bug is
// in C, plus the Jest suites listed with it (its `jest`); --all-jest runs every Jest suite for
// every bug instead (about 4 minutes each). A C bug checked by Jest also rebuilds the wasm module.
// A bug whose text is no longer found in the source fails the run: update the bug with the code.
// Exit status 1 when a bug makes no test fail (or the unchanged copy fails its tests).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SHARED = process.env.OSI_SHARED_DIR || resolve(REPO, '../shared');

/**
 * The bugs. `edit`: [file, text found exactly once, its replacement]. `jest`: the suites run for
 * it besides ctest (a JS bug runs only those).
 */
export const BUGS = [
  {
    id: 'pool-ceil',
    what: 'pooling with ceil_mode keeps a last window that starts in the end padding',
    edit: ['src/ops/window.c', '    out = osi_expr_min(s, out, starts);', '    (void)starts;'],
  },
  {
    id: 'concat-negative-axis',
    what: "Concat's negative axis counted from rank - 1 (axis -1 is the second to last)",
    edit: ['src/ops/shape_ops.c', 'if (!osi_norm_axis(osi_attr_int(ctx, "axis", 0), rank, &axis))',
      'if (!osi_norm_axis(osi_attr_int(ctx, "axis", 0) < 0 ? osi_attr_int(ctx, "axis", 0) - 1 : osi_attr_int(ctx, "axis", 0), rank, &axis))'],
  },
  {
    id: 'reshape-allowzero',
    what: 'Reshape copies the input dim for a 0 entry even with allowzero=1',
    edit: ['src/ops/shape_ops.c', '    if (c == 0 && !allowzero) {', '    if (c == 0) {'],
  },
  {
    id: 'nested-floordiv',
    what: '(x//d1 + e)//d rewritten as (x + e)//(d1*d), e not scaled by d1',
    edit: ['src/expr/expr_simplify.c',
      'OsiExpr num = osi_expr_add(s, x, osi_expr_mul(s, osi_expr_const(s, d1), osi_expr_sub(s, a, m)));',
      'OsiExpr num = osi_expr_add(s, x, osi_expr_sub(s, a, m));'],
  },
  {
    id: 'broadcast-of-one',
    what: 'a dim of 1 broadcast against another gives the 1',
    edit: ['src/ops/helpers.c', '  if (kb && cb == 1) return a;', '  if (kb && cb == 1) return b;'],
  },
  {
    id: 'slice-negative-end',
    what: 'a Slice with a negative step clamps a finite negative end to 0 instead of -1 (x[5:-20:-1] of 10 gives 5)',
    edit: ['src/ops/indexing.c', ': ec < 0 ? osi_expr_max(s, osi_expr_add(s, dim, end), minus1)',
      ': ec < 0 ? osi_expr_max(s, osi_expr_add(s, dim, end), osi_expr_const(s, 0))'],
  },
  {
    id: 'slice-negative-start',
    what: 'a Slice with a negative step clamps its start to the dim instead of dim - 1 (x[20::-1] of 10 gives 11)',
    edit: ['src/ops/indexing.c', '                       : osi_expr_min(s, start, last);', '                       : osi_expr_min(s, start, dim);'],
  },
  {
    id: 'if-merge-polarity',
    what: "an If's merged dim takes then_branch's size where the condition is false",
    edit: ['src/ops/controlflow.c',
      'if (osi_expr_equal_where(s, cond, 1, a, cands[i]) && osi_expr_equal_where(s, cond, 0, b, cands[i]))',
      'if (osi_expr_equal_where(s, cond, 0, a, cands[i]) && osi_expr_equal_where(s, cond, 1, b, cands[i]))'],
    jest: ['tests/js/exporters.test.js'],
  },
  {
    id: 'nanopb-dims',
    what: 'the nanopb decoder drops a dim_value (the dim reads as unknown)',
    edit: ['src/decode/npb_types.c', '  a->dim->which = OSI_MB_DIM_VALUE;\n', ''],
  },
  {
    id: 'stale-getshape',
    what: "engine.getShape() keeps answering from the first result instead of the latest",
    edit: ['js/index.js', '    this.#last = result;\n    return result;', '    this.#last ??= result;\n    return result;'],
    jest: ['tests/js/api.test.js'],
  },
  {
    id: 'bind-derivation',
    what: "--bind solves a relation for its first symbol, one already given (past_seq=5,total_seq=8 derives no seq and drops past_seq)",
    edit: ['js/bindings.js', '  const s = free[0];\n  const at = (v) =>', '  const s = symbolsOf(text)[0];\n  const at = (v) =>'],
    jest: ['tests/js/cli.test.js'],
  },
  {
    id: 'label-policy',
    what: "a declared output label ranks above a size computed from the inputs (the label shown where the engine computed the size)",
    edit: ['src/infer/constraints.c',
      '  if (from_inputs(r, e)) return 2;\n  if (symbol && names_has(r->preferred, name)) return 3;',
      '  if (symbol && names_has(r->preferred, name)) return 2;\n  if (from_inputs(r, e)) return 3;'],
    jest: ['tests/js/exporters.test.js'],
  },
  {
    id: 'matmul-inner-dim',
    what: "MatMul's inner-dim check removed",
    edit: ['src/ops/helpers.c',
      '  OsiStatus rs = osi_op_require_eq(ctx, "MatMul inner dims", bd[br - 2], wb, ad[ar - 1], wa);\n',
      '  (void)wa;\n  (void)wb;\n  OsiStatus rs = OSI_OK;\n'],
    jest: ['tests/js/shape_checking.test.js'],
  },
];

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : null);
const only = value('--only')?.split(',') ?? null;
const allJest = flag('--all-jest');
const MINUTE = 60_000;

function sh(cmd, argv, { cwd, timeout, env = {} }) {
  const t0 = Date.now();
  const r = spawnSync(cmd, argv, {
    cwd, encoding: 'utf8', timeout, maxBuffer: 512 << 20, killSignal: 'SIGKILL',
    env: { ...process.env, OSI_SHARED_DIR: SHARED, NODE_OPTIONS: '', ...env },
  });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}`, s: (Date.now() - t0) / 1000 };
}

function must(what, r) {
  if (!r.ok) {
    console.error(`${what} failed:\n${r.out.split('\n').slice(-40).join('\n')}`);
    process.exit(2);
  }
  console.log(`${what}: ${r.s.toFixed(0)} s`);
}

/** The scratch copy: the working tree's files, build/deps (the fetched runtimes), node_modules linked. */
function makeScratch() {
  const base = value('--scratch') ?? mkdtempSync(join(tmpdir(), 'osi-planted-'));
  const dir = join(base, 'repo');
  mkdirSync(dir, { recursive: true });
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO, encoding: 'utf8', timeout: MINUTE,
  }).stdout.split('\0').filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(REPO, f))) continue; // deleted in the working tree
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(REPO, f), join(dir, f));
  }
  cpSync(join(REPO, 'build/deps'), join(dir, 'build/deps'), { recursive: true });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  if (!existsSync(join(base, 'shared'))) symlinkSync(SHARED, join(base, 'shared'));
  return { base, dir };
}

const buildNative = (dir) => sh('cmake', ['--build', 'build', '-j2'], { cwd: dir, timeout: 60 * MINUTE });
const buildWasm = (dir) => sh('cmake', ['--build', 'build-wasm', '-j2'], { cwd: dir, timeout: 60 * MINUTE });

/** Names of the ctest tests that failed (or all of them as one line when ctest did not report). */
function ctest(dir) {
  const r = sh('ctest', ['--test-dir', 'build', '-j2', '--timeout', '600'], { cwd: dir, timeout: 60 * MINUTE });
  const list = r.out.match(/The following tests FAILED:\n([\s\S]*?)(\n\n|$)/)?.[1] ?? '';
  const failed = [...list.matchAll(/^\s*\d+ - (\S+)/gm)].map((m) => `ctest ${m[1]}`);
  if (!r.ok && !failed.length) failed.push(`ctest did not finish: ${r.out.split('\n').slice(-3).join(' ')}`);
  return { failed, s: r.s };
}

/** Names of the Jest tests that failed in `files` (every suite when null). */
function jest(dir, files) {
  const out = join(dir, 'build', 'planted-jest.json');
  rmSync(out, { force: true });
  const r = sh(process.execPath, [join(dir, 'node_modules/jest/bin/jest.js'), '--ci', '--json', `--outputFile=${out}`, ...(files ?? [])],
    { cwd: dir, timeout: 60 * MINUTE, env: { NODE_OPTIONS: '--experimental-vm-modules --no-warnings' } });
  if (!existsSync(out)) return { failed: [`jest did not report: ${r.out.split('\n').slice(-5).join(' ')}`], s: r.s };
  const report = JSON.parse(readFileSync(out, 'utf8'));
  const failed = [];
  for (const suite of report.testResults) {
    const rel = suite.name.slice(dir.length + 1);
    const bad = suite.assertionResults.filter((a) => a.status === 'failed');
    for (const a of bad) failed.push(`jest ${rel}: ${a.fullName}`);
    if (suite.status === 'failed' && !bad.length) failed.push(`jest ${rel}: the suite failed to run`);
  }
  return { failed, s: r.s };
}

function edit(dir, [file, from, to]) {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  const n = text.split(from).length - 1;
  if (n !== 1) throw new Error(`${file}: the bug's text is found ${n} times (not once): update the bug in tests/tools/planted_bugs.mjs`);
  writeFileSync(path, text.replace(from, to));
  return () => writeFileSync(path, text);
}

async function main() {
  const bugs = BUGS.filter((b) => !only || only.includes(b.id));
  if (!bugs.length) throw new Error(`no bug named ${only}; the bugs: ${BUGS.map((b) => b.id).join(', ')}`);
  // Every bug's text is there before anything is built.
  for (const b of bugs) {
    const text = readFileSync(join(REPO, b.edit[0]), 'utf8');
    if (text.split(b.edit[1]).length !== 2) throw new Error(`${b.id}: its text is not found exactly once in ${b.edit[0]}: update the bug`);
  }
  const { base, dir } = makeScratch();
  console.log(`scratch copy: ${dir}`);
  const isC = (b) => b.edit[0].startsWith('src/');
  const jestFor = (b) => (allJest ? null : b.jest ?? []);
  const needsWasm = bugs.some((b) => !isC(b) || allJest || (b.jest ?? []).length);
  must('configure native', sh('cmake', ['-S', '.', '-B', 'build', '-DCMAKE_BUILD_TYPE=Release'], { cwd: dir, timeout: 10 * MINUTE }));
  must('build native', buildNative(dir));
  if (needsWasm) {
    must('configure wasm', sh('emcmake', ['cmake', '-S', '.', '-B', 'build-wasm', '-DCMAKE_BUILD_TYPE=Release',
      '-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node'], { cwd: dir, timeout: 10 * MINUTE }));
    must('build wasm', buildWasm(dir));
  }

  // The unchanged copy passes what will be run: a failure below is then the bug's.
  const baseline = [];
  if (bugs.some(isC)) baseline.push(...ctest(dir).failed);
  const suites = allJest ? null : [...new Set(bugs.flatMap((b) => b.jest ?? []))];
  if (suites === null || suites.length) baseline.push(...jest(dir, suites).failed);
  if (baseline.length) {
    console.error(`the unchanged copy already fails:\n  ${baseline.join('\n  ')}`);
    process.exit(2);
  }
  console.log('unchanged copy: the tests pass');

  const report = [];
  for (const b of bugs) {
    const undo = edit(dir, b.edit);
    const failed = [];
    try {
      if (isC(b)) {
        must(`${b.id}: build native`, buildNative(dir));
        failed.push(...ctest(dir).failed);
      }
      const files = jestFor(b);
      if (files === null || files.length) {
        if (isC(b)) must(`${b.id}: build wasm`, buildWasm(dir));
        failed.push(...jest(dir, files).failed);
      }
    } finally {
      undo();
    }
    report.push({ id: b.id, what: b.what, failed });
    console.log(`${failed.length ? 'caught' : 'MISSED'}  ${b.id}: ${b.what}\n  ${failed.length} failing tests${failed.length ? `:\n    ${failed.slice(0, 12).join('\n    ')}${failed.length > 12 ? `\n    ... ${failed.length - 12} more` : ''}` : ''}`);
  }
  // Builds stay in step with the (restored) sources if the scratch copy is kept.
  if (flag('--keep')) {
    buildNative(dir);
    if (needsWasm) buildWasm(dir);
    console.log(`kept: ${base}`);
  } else {
    rmSync(base, { recursive: true, force: true });
  }
  const missed = report.filter((r) => !r.failed.length);
  console.log(`\n${report.length - missed.length} of ${report.length} planted bugs caught${missed.length ? `; missed: ${missed.map((r) => r.id).join(', ')}` : ''}`);
  process.exit(missed.length ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
