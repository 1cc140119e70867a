#!/usr/bin/env node
// onnx-shapes command line: prints the element type and symbolic shape of every value of an
// ONNX model. Run `onnx-shapes --help` for usage. Exit codes: 0 success, 1 ShapeInferenceError
// (one line naming the code and node) or, with --strict, a node whose inputs contradict its
// operator (the first such node), 2 usage error.
import { readFileSync, writeFileSync } from 'node:fs';
import { init, ShapeInferenceError } from './index.js';
import { evaluateDim, symbolsOf } from './expr.js';

const USAGE = `usage: onnx-shapes [options] MODEL.onnx     (MODEL "-" reads standard input)

  --json              print the whole result as JSON
  --bind k=v,k=v      evaluate every shape for these symbol values (batch=1,seq=128)
  --events NAME       print how value NAME got its shape (the event log)
  --write OUT.onnx    write the model with value_info filled in
  --prefill           treat the model's value_info entries as declared shapes too
  --stream            decode with the streaming decoder (weights are never loaded)
  --strict            fail (exit 1) at the first node whose inputs contradict its operator
  -h, --help          this help
  -v, --version       the version`;

class UsageError extends Error {}

function parseArgs(argv) {
  const o = { bind: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '-h' || a === '--help') o.help = true;
    else if (a === '-v' || a === '--version') o.version = true;
    else if (a === '--json') o.json = true;
    else if (a === '--prefill') o.prefill = true;
    else if (a === '--stream') o.stream = true;
    else if (a === '--strict') o.strict = true;
    else if (a === '--write') o.write = value();
    else if (a === '--events') o.events = value();
    else if (a === '--bind') o.bind = parseBindings(value());
    else if (a.startsWith('--')) throw new UsageError(`unknown option ${a}`);
    else if (o.model === undefined) o.model = a;
    else throw new UsageError(`unexpected argument ${a}`);
  }
  if (!o.help && !o.version && o.model === undefined) throw new UsageError('no model given');
  return o;
}

function parseBindings(text) {
  const b = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(.+?)\s*=\s*(-?\d+)$/.exec(part);
    if (!m) throw new UsageError(`--bind expects name=integer pairs, got "${part}"`);
    b[m[1]] = Number(m[2]);
  }
  return b;
}

function formatType(t, bind) {
  if (!t) return '?';
  switch (t.kind) {
    case 'tensor': {
      if (!t.dims) return `${t.elemType ?? '?'} [*]`;
      const show = (d) => {
        if (!bind) return d ?? '?';
        const v = evaluateDim(d, bind);
        return v ?? d ?? '?';
      };
      // A known integer content (value as shape) follows the shape: int64 [4] = [N, 3, H, W].
      const value = t.value ? ` = [${t.value.map(show).join(', ')}]` : '';
      return `${t.elemType ?? '?'} [${t.dims.map(show).join(', ')}]${value}`;
    }
    case 'sequence': return `sequence<${formatType(t.elem, bind)}>`;
    case 'optional': return `optional<${formatType(t.elem, bind)}>`;
    case 'map': return `map<${t.keyType}, ${formatType(t.value, bind)}>`;
    default: return t.kind;
  }
}

const ELEM_BYTES = { float: 4, double: 8, float16: 2, bfloat16: 2, int8: 1, uint8: 1, int16: 2, uint16: 2,
  int32: 4, uint32: 4, int64: 8, uint64: 8, bool: 1, complex64: 8, complex128: 16 };

function byteSize(t, bind) {
  if (!t || t.kind !== 'tensor' || !t.dims || !(t.elemType in ELEM_BYTES)) return null;
  let n = 1;
  for (const d of t.dims) {
    const v = evaluateDim(d, bind);
    if (v === null) return null;
    n *= v;
  }
  return n * ELEM_BYTES[t.elemType];
}

function printTable(result, bind) {
  const rows = result.names().map((name) => {
    const node = result.nodes[result.producers[name]];
    const t = result.getShape(name);
    const row = [name, node ? node.opType : '', formatType(t, bind)];
    if (bind) {
      const b = byteSize(t, bind);
      row.push(b === null ? '' : String(b));
    }
    return row;
  });
  const head = bind ? ['value', 'op', 'type and shape', 'bytes'] : ['value', 'op', 'type and shape'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]))).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
  // Names declared on outputs for sizes inference computed: the table shows the sizes.
  for (const [label, expr] of Object.entries(result.constraints?.labels ?? {})) {
    console.log(`label: ${label} = ${expr}`);
  }
  for (const d of result.diagnostics) {
    console.log(`note: ${d.code}${d.node ? ` (node '${d.node}', ${d.opType})` : ''}: ${d.message}`);
  }
}

function printEvents(result, name) {
  const t = result.getShape(name);
  if (!t) throw new UsageError(`'${name}' is not a value of this model`);
  console.log(`${name}: ${formatType(t, null)}`);
  const index = result.producers[name];
  const producer = result.nodes[index];
  if (producer) console.log(`  produced by node ${index} '${producer.name}' (${producer.opType})`);
  // Constraints and renames matter when they mention a symbol of the final shape.
  const symbols = new Set((t.dims ?? []).flatMap((d) => symbolsOf(d)));
  const mentions = (detail) => {
    for (const side of detail.split(/ -> | == | <= /)) {
      try {
        if (symbolsOf(side).some((s) => symbols.has(s))) return true;
      } catch {
        // not an expression (a type): no match
      }
    }
    return false;
  };
  for (const e of result.events ?? []) {
    const relevant = e.value === name
      || (e.kind === 'node' && e.nodeIndex === index && e.path === '')
      || ((e.kind === 'constraint' || e.kind === 'rename') && mentions(e.detail));
    if (!relevant) continue;
    const where = e.node ? ` node ${e.nodeIndex} '${e.node}' (${e.opType})` : '';
    console.log(`  ${e.kind}${where}${e.path ? ` in ${e.path}` : ''}: ${e.detail}`);
  }
}

async function main(argv) {
  let o;
  try {
    o = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`onnx-shapes: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (o.help) {
    console.log(USAGE);
    return 0;
  }
  const engine = await init();
  if (o.version) {
    console.log(engine.version);
    return 0;
  }
  const options = { prefillValueInfo: !!o.prefill, events: o.events !== undefined };
  try {
    let result;
    if (o.stream && o.model !== '-' && !o.write && typeof engine.inferShapesFromPath === 'function') {
      result = engine.inferShapesFromPath(o.model, options);
    } else {
      let bytes;
      try {
        bytes = readFileSync(o.model === '-' ? 0 : o.model);
      } catch (err) {
        console.error(`onnx-shapes: cannot read ${o.model}: ${err.message}`);
        return 2;
      }
      result = engine.inferShapes(bytes, options);
    }
    if (o.strict && result.firstError) {
      const e = result.firstError;
      const where = `node ${e.nodeIndex}${e.node ? ` '${e.node}'` : ''} (${e.opType})${e.path ? ` in ${e.path}` : ''}`;
      console.error(`onnx-shapes: ${e.code} at ${where}: ${e.message}`);
      return 1;
    }
    if (o.write) {
      if (typeof result.toModel !== 'function') throw new UsageError('this build cannot write models');
      writeFileSync(o.write, result.toModel());
    }
    if (o.events !== undefined) printEvents(result, o.events);
    else if (o.json) console.log(JSON.stringify(result, null, 2));
    else printTable(result, o.bind);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`onnx-shapes: ${err.message}`);
      return 2;
    }
    if (!(err instanceof ShapeInferenceError)) throw err;
    console.error(`onnx-shapes: ${err.code}${err.node ? ` at node '${err.node}'` : ''}: ${err.message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
