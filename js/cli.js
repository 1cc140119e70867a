#!/usr/bin/env node
// onnx-shapes command line: prints the element type and symbolic shape of every value of an
// ONNX model. Run `onnx-shapes --help` for usage; EXIT below is the exit code of every outcome
// (README "Command line"). What is read is bounded: a regular file of 8 MiB or more streams from
// disk with its weights skipped; any other input (stdin, a pipe, FIFO or device) is kept in memory
// up to --max-bytes, and its decoding starts as it is read, so bytes that are no model stop it
// early (`onnx-shapes /dev/zero` ends at the first byte).
import { closeSync, fstatSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { init, RequirementError, ShapeInferenceError } from './index.js';
import { evaluateDim, printSymbol } from './expr.js';
import { parseBindArgument, relationText, resolveBindings } from './cli_bind.js';
import { printCost } from './cli_cost.js';
import { eventLines, explainValue } from './cli_events.js';
import { columnWidths, formatType, layoutRow, outputWidth, valueRows } from './cli_table.js';
import { escapeControls, escapeJson, wrapLine } from './cli_text.js';

/** Exit codes, one per kind of outcome. */
const EXIT = Object.freeze({
  OK: 0,
  INVALID_MODEL: 1, // the engine rejected the model (ShapeInferenceError: PARSE_ERROR, CYCLE, ...)
  USAGE: 2, // the command line is wrong (an unknown option, a missing value, --events of no value)
  FILE: 3, // the model cannot be read, or the output written (missing, a directory, no permission, disk full)
  LIMIT: 4, // a limit was hit: the input is over --max-bytes, or the engine's LIMIT_EXCEEDED / NOMEM
  STRICT: 5, // --strict: a node's inputs contradict its operator (result.firstError)
  INTERNAL: 70, // a bug in onnx-shapes (the message has the stack): please report it
});

/** The most a regular file may be for the CLI to read it whole (below, it streams from disk). */
const STREAM_FROM_DISK_BYTES = 8 * 1024 * 1024;
const DEFAULT_MAX_BYTES = 2 ** 31;
const MAX_MAX_BYTES = 2 ** 32 - 1;

const USAGE = `usage: onnx-shapes [options] MODEL.onnx     (MODEL "-" reads standard input)

  --json              print the whole result as JSON
  --bind k=v,k=v      evaluate every shape for these sizes (batch=1,seq=128); sizes the
                      model's constraints decide from them are derived
  --cost              print MACs, FLOPs, parameters and memory by op type and in total
                      (expressions of the sizes; numbers with --bind; --json: as JSON)
  --sort graph|name   list values in graph order (default) or by name
  --events NAME       print how value NAME got its shape (the event log; --json: as JSON)
  --write OUT.onnx    write the model with value_info filled in ("-": standard output)
  --prefill           treat the model's value_info entries as declared shapes too
  --stream            decode with the streaming decoder (weights are never loaded)
  --strict            fail (exit 5) at the first node whose inputs contradict its operator
  --max-bytes N       most bytes read into memory from stdin, a pipe or device, or for
                      --write (default 2G; suffixes K, M, G are powers of 1024)
  -h, --help          this help
  -v, --version       the version

exit codes: 0 success, 1 invalid model, 2 usage error, 3 file error (cannot read the
model or write the output), 4 limit exceeded, 5 a broken node (--strict), 70 internal error`;

/** A failure with its exit code (EXIT) and a one-line message (argument errors add the usage). */
class CliError extends Error {
  constructor(message, exitCode, { showUsage = false } = {}) {
    super(message);
    this.exitCode = exitCode;
    this.showUsage = showUsage;
  }
}
const usageError = (message) => new CliError(message, EXIT.USAGE);
const argumentError = (message) => new CliError(message, EXIT.USAGE, { showUsage: true });

/** "ENOENT: no such file or directory" out of Node's "ENOENT: no such file or directory, open 'x'". */
function reason(err) {
  const message = typeof err?.message === 'string' ? err.message : String(err);
  return /^[A-Z][A-Z0-9_]*: [^,]*/.exec(message)?.[0] ?? message;
}

/** A warning on stderr: the run goes on. */
function warn(text) {
  try {
    writeAll(2, `onnx-shapes: warning: ${escapeControls(text)}\n`);
  } catch { /* stderr is gone */ }
}

// Section - Arguments

function parseArgs(argv) {
  const o = { bind: null, maxBytes: DEFAULT_MAX_BYTES };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw argumentError(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '-h' || a === '--help') o.help = true;
    else if (a === '-v' || a === '--version') o.version = true;
    else if (a === '--json') o.json = true;
    else if (a === '--cost') o.cost = true;
    else if (a === '--prefill') o.prefill = true;
    else if (a === '--stream') o.stream = true;
    else if (a === '--strict') o.strict = true;
    else if (a === '--write') o.write = value();
    else if (a === '--events') o.events = value();
    else if (a === '--bind') o.bind = parseBindArgument(value(), argumentError);
    else if (a === '--sort') o.sort = parseSort(value());
    else if (a === '--max-bytes') o.maxBytes = parseSize(value());
    else if (a.startsWith('--')) throw argumentError(`unknown option ${a}`);
    else if (o.model === undefined) o.model = a;
    else throw argumentError(`unexpected argument ${a}`);
  }
  if (!o.help && !o.version && o.model === undefined) throw argumentError('no model given');
  if (o.write === '-' && (o.json || o.events !== undefined || o.cost)) {
    throw argumentError('--write - puts the model on standard output: it cannot go with --json, --events or --cost');
  }
  if (o.cost && o.events !== undefined) throw argumentError('--cost and --events print different things: give one');
  return o;
}

function parseSort(text) {
  if (text !== 'graph' && text !== 'name') throw argumentError(`--sort expects graph or name, got "${text}"`);
  return text;
}

/** "2G", "64M", "512K" or a byte count. */
function parseSize(text) {
  const m = /^(\d+)([KMG]?)$/i.exec(text.trim());
  const n = m ? Number(m[1]) * 1024 ** ' KMG'.indexOf(m[2].toUpperCase() || ' ') : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_MAX_BYTES) {
    throw argumentError(`--max-bytes expects a size from 1 to ${MAX_MAX_BYTES} bytes (e.g. 64M), got "${text}"`);
  }
  return n;
}

// Section - Reading and writing

/**
 * The result for the model named on the command line. A regular file under 8 MiB (or any, with
 * --write, which needs the bytes) is read whole; a bigger one streams from disk; anything else is
 * read as it comes through inferShapesFromPath (bounded by --max-bytes).
 */
function inferModel(engine, o, options) {
  const name = o.model === '-' ? 'standard input' : o.model;
  const fileError = (err) => new CliError(`cannot read ${name}: ${reason(err)}`, EXIT.FILE);
  let fd = 0;
  try {
    if (o.model !== '-') fd = openSync(o.model, 'r');
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new CliError(`cannot read ${name}: it is a directory`, EXIT.FILE);
    const opts = { ...options, decoder: o.stream ? 'nanopb' : undefined };
    if (stats.isFile() && (o.write || (!o.stream && stats.size < STREAM_FROM_DISK_BYTES))) {
      if (stats.size > o.maxBytes) {
        throw new CliError(`${name} has ${stats.size} bytes, over the ${o.maxBytes} that --write reads into memory `
          + '(--max-bytes)', EXIT.LIMIT);
      }
      let bytes;
      try {
        bytes = readFileSync(fd);
      } catch (err) {
        throw fileError(err);
      }
      return engine.inferShapes(bytes, opts);
    }
    return engine.inferShapesFromPath(fd, { ...opts, maxBytes: o.maxBytes, name });
  } catch (err) {
    if (err instanceof CliError || err instanceof ShapeInferenceError) throw err;
    if (typeof err?.code === 'string' && typeof err?.syscall === 'string') throw fileError(err);
    throw err;
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

/** writeSync until all of `data` is written (a non-blocking descriptor may take it in parts). */
function writeAll(fd, data) {
  let bytes = typeof data === 'string' ? Buffer.from(data) : data;
  while (bytes.length > 0) {
    let n;
    try {
      n = writeSync(fd, bytes);
    } catch (err) {
      if (err?.code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      continue;
    }
    bytes = bytes.subarray(n);
  }
}

/**
 * Standard output, written in 64 KiB blocks (a line at a time would be a system call per row).
 * A line shows its control characters escaped (js/cli_text.js); a block is text of our own.
 */
class Output {
  #text = '';

  line(s) {
    this.block(escapeControls(s));
  }

  block(s) {
    this.#text += `${s}\n`;
    if (this.#text.length >= 65536) this.flush();
  }

  flush() {
    if (this.#text) writeAll(1, this.#text);
    this.#text = '';
  }
}

function writeModel(path, bytes) {
  try {
    if (path === '-') writeAll(1, bytes);
    else writeFileSync(path, bytes);
  } catch (err) {
    if (err?.code === 'EPIPE') throw err;
    throw new CliError(`cannot write ${path === '-' ? 'standard output' : path}: ${reason(err)}`, EXIT.FILE);
  }
}

// Section - Printing

const ELEM_BYTES = { float: 4, double: 8, float16: 2, bfloat16: 2, int8: 1, uint8: 1, int16: 2, uint16: 2,
  int32: 4, uint32: 4, int64: 8, uint64: 8, bool: 1, complex64: 8, complex128: 16 };

/** The byte size of a tensor at these sizes (exact, BigInt), or null. */
function byteSize(t, env) {
  if (!t || t.kind !== 'tensor' || !t.dims || !(t.elemType in ELEM_BYTES)) return null;
  let n = BigInt(ELEM_BYTES[t.elemType]);
  for (const d of t.dims) {
    const v = evaluateDim(d, env);
    if (typeof v === 'bigint') n *= v;
    else if (Number.isSafeInteger(v)) n *= BigInt(v);
    else return null;
  }
  return n;
}

/** A dim at these sizes: its value when every symbol has one, else the dim itself. */
const boundDim = (env) => (d) => evaluateDim(d, env) ?? d;

/** The lines that say which sizes the shapes were evaluated with. */
function bindingLines(bound) {
  const pairs = (list) => list.map(([k, v]) => `${printSymbol(k)}=${v}`).join(', ');
  const lines = [`bound: ${pairs([...bound.given])}`];
  if (bound.derived.length) {
    lines.push(`derived: ${bound.derived.map(([k, v, from]) => `${printSymbol(k)}=${v} (${from})`).join(', ')}`);
  }
  if (bound.unbound.length) lines.push(`unbound: ${bound.unbound.map(printSymbol).join(', ')}`);
  return lines;
}

/** "(node 6 'conv', Conv)": where a fact of the domain comes from. */
function factSource(f) {
  if (!f) return '';
  if (f.nodeIndex === null) return ' (a graph input)';
  return ` (node ${f.nodeIndex}${f.node ? ` '${f.node}'` : ''}, ${f.opType}${f.path ? ` in ${f.path}` : ''})`;
}

/**
 * The domain under the table: "runs for time >= 400 (node 6 'conv', Conv)" per graph-input symbol
 * the model restricts, "runs where ..." per other relation.
 */
function domainLines(domain) {
  const lines = [];
  for (const [sym, r] of Object.entries(domain?.symbols ?? {})) {
    const name = printSymbol(sym);
    const sources = [...new Set([factSource(r.minBy), factSource(r.maxBy)])].join('');
    if (r.max === undefined && r.min > 0) lines.push(`runs for ${name} >= ${r.min}${sources}`);
    else if (r.max !== undefined && r.min === r.max) lines.push(`runs for ${name} = ${r.min}${sources}`);
    else if (r.max !== undefined) lines.push(`runs for ${r.min} <= ${name} <= ${r.max}${sources}`);
  }
  for (const f of domain?.relations ?? []) lines.push(`runs where ${relationText(f.lhs, f.relation, f.rhs)}${factSource(f)}`);
  return lines;
}

function printTable(out, result, o, bound) {
  const show = bound ? (d) => evaluateDim(d, bound.env) ?? d ?? '?' : (d) => d ?? '?';
  const rows = valueRows(result, o.sort).map(([key, op]) => {
    const t = result.getShape(key);
    const row = [escapeControls(key), escapeControls(op), escapeControls(formatType(t, show))];
    if (bound) row.push(String(byteSize(t, bound.env) ?? ''));
    return row;
  });
  const head = bound ? ['value', 'op', 'type and shape', 'bytes'] : ['value', 'op', 'type and shape'];
  const width = outputWidth();
  const widths = columnWidths(head, rows, width, bound ? [0.3, 0.15, 0.4] : [0.4, 0.2]);
  for (const l of layoutRow(head, widths, width)) out.line(l);
  for (const r of rows) {
    for (const l of layoutRow(r, widths, width, 2)) out.line(l);
  }
  const para = (text) => {
    for (const l of wrapLine(escapeControls(text), width)) out.line(l);
  };
  // Named sizes the dims use (result.definitions), in order: with --bind, their values too.
  for (const { name, expr } of result.definitions ?? []) {
    const v = bound ? evaluateDim(name, bound.env) : null;
    para(`where ${name} = ${expr}${v === null ? '' : ` = ${v}`}`);
  }
  if (bound) for (const l of bindingLines(bound)) para(l);
  // Names declared on outputs for sizes inference computed: the table shows the sizes.
  for (const [label, expr] of Object.entries(result.constraints?.labels ?? {})) {
    para(`label: ${label} = ${expr}`);
  }
  // Where the model runs (the shapes assume it): the sizes it needs.
  for (const l of domainLines(result.domain)) para(l);
  for (const d of result.diagnostics) {
    para(`note: ${d.code}${d.node ? ` (node '${d.node}', ${d.opType})` : ''}: ${d.message}`);
  }
}

/**
 * --json: the result as it is, or with --bind every dim and known content evaluated where its
 * symbols have sizes, plus `bindings` (given, derived, unbound) and `bytes` (key -> byte size).
 */
function printJson(out, result, bound) {
  if (!bound) {
    out.block(escapeJson(JSON.stringify(result, null, 2)));
    return;
  }
  const dim = boundDim(bound.env);
  const seen = new Map(); // values share their type objects: each is evaluated once
  const bindType = (t) => {
    if (!t || typeof t !== 'object') return t;
    let b = seen.get(t);
    if (b === undefined) {
      b = { ...t };
      if (Array.isArray(t.dims)) b.dims = t.dims.map(dim);
      if (Array.isArray(t.value)) b.value = t.value.map(dim);
      else if (t.value) b.value = bindType(t.value);
      if (t.elem) b.elem = bindType(t.elem);
      seen.set(t, b);
    }
    return b;
  };
  const values = {};
  const bytes = {};
  for (const [key, t] of Object.entries(result.values)) {
    values[key] = bindType(t);
    const n = byteSize(t, bound.env);
    if (n !== null) bytes[key] = n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : String(n);
  }
  const bindings = {
    given: Object.fromEntries(bound.given),
    derived: Object.fromEntries(bound.derived.map(([k, v, from]) => [k, { value: v, from }])),
    unbound: bound.unbound,
  };
  out.block(escapeJson(JSON.stringify({ ...result, values, bindings, bytes }, null, 2)));
}

/** --events NAME: text, or the same as JSON with --json. */
function printEvents(out, result, key, json) {
  const explained = explainValue(result, key);
  if (!explained) throw usageError(`'${key}' is not a value of this model`);
  if (json) {
    out.block(escapeJson(JSON.stringify(explained, null, 2)));
    return;
  }
  // An event's detail quotes whole types and expressions: past the width it wraps, indented
  // under the event's own text.
  const width = outputWidth();
  for (const line of eventLines(explained, (t) => formatType(t, (d) => d ?? '?'), result.definitions ?? [])) {
    for (const l of wrapLine(escapeControls(line), width, '      ')) out.line(l);
  }
}

/**
 * --bind: the sizes, derived ones too; warns of names the model does not have, fails on sizes
 * outside what the model runs on (result.evaluate: a relation, a requirement, the domain, a dim).
 */
function bindSizes(result, given) {
  try {
    result.evaluate(given);
  } catch (err) {
    // A size no dim can have, or a named size given as one: what the argument says is wrong.
    if (err instanceof TypeError || err instanceof RangeError) {
      throw new CliError(`--bind: ${err.message.replace(/^onnx-shapes: evaluate: /, '')}`, EXIT.USAGE);
    }
    if (!(err instanceof RequirementError)) throw err;
    throw new CliError(`--bind: these sizes are impossible for this model: ${err.message}`, EXIT.USAGE);
  }
  const { env, derived, unknown, unbound } = resolveBindings(result, given);
  if (unknown.length) {
    warn(`--bind names ${unknown.map(printSymbol).join(', ')}, which this model does not have (ignored)`);
  }
  return { given, env, derived, unbound };
}

// Section - Main

async function run(argv, out) {
  const o = parseArgs(argv);
  if (o.help) {
    out.block(USAGE);
    return EXIT.OK;
  }
  const engine = await init();
  if (o.version) {
    out.line(engine.version);
    return EXIT.OK;
  }
  if (o.write === '-' && process.stdout.isTTY) {
    throw usageError('--write - would put binary protobuf on the terminal: redirect standard output');
  }
  const options = { prefillValueInfo: !!o.prefill, events: o.events !== undefined, cost: !!o.cost };
  const result = inferModel(engine, o, options);
  if (o.strict && result.firstError) {
    const e = result.firstError;
    const where = `node ${e.nodeIndex}${e.node ? ` '${e.node}'` : ''} (${e.opType})${e.path ? ` in ${e.path}` : ''}`;
    throw new CliError(`${e.code} at ${where}: ${e.message}`, EXIT.STRICT);
  }
  if (o.write) writeModel(o.write, result.toModel());
  if (o.write === '-') return EXIT.OK;
  if (o.events !== undefined) {
    if (o.bind) warn('--bind does not apply to --events (the event log is symbolic)');
    printEvents(out, result, o.events, o.json);
    return EXIT.OK;
  }
  const bound = o.bind ? bindSizes(result, o.bind) : null;
  if (o.cost) {
    printCost(out, result, bound, o.json, bound ? bindingLines(bound) : []);
    return EXIT.OK;
  }
  if (o.json) printJson(out, result, bound);
  else printTable(out, result, o, bound);
  return EXIT.OK;
}

/** The exit code of a failure, after its one-line message on stderr. */
function report(err) {
  const say = (text, usage = false) => {
    try {
      writeAll(2, `onnx-shapes: ${escapeControls(text)}\n${usage ? `${USAGE}\n` : ''}`);
    } catch { /* stderr is gone too */ }
  };
  if (err instanceof CliError) {
    say(err.message, err.showUsage);
    return err.exitCode;
  }
  if (err instanceof ShapeInferenceError) {
    say(`${err.code}${err.node ? ` at node '${err.node}'` : ''}: ${err.message}`);
    if (err.code === 'IO_ERROR') return EXIT.FILE;
    if (err.code === 'LIMIT_EXCEEDED' || err.code === 'NOMEM') return EXIT.LIMIT;
    return EXIT.INVALID_MODEL;
  }
  if (err?.code === 'EPIPE') return EXIT.FILE; // the reader of the output went away: nothing to say
  // The stack's own line breaks stay; any other control character is escaped.
  const stack = String(err?.stack ?? err).split('\n').map(escapeControls).join('\n');
  try {
    writeAll(2, `onnx-shapes: internal error (a bug in onnx-shapes: please report it): ${stack}\n`);
  } catch { /* stderr is gone too */ }
  return EXIT.INTERNAL;
}

async function main(argv) {
  const out = new Output();
  try {
    const code = await run(argv, out);
    out.flush();
    return code;
  } catch (err) {
    try {
      out.flush(); // what was printed before the failure (a usage error prints nothing before)
    } catch { /* EPIPE: reported below */ }
    return report(err);
  }
}

process.exitCode = await main(process.argv.slice(2));
