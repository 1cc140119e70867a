#!/usr/bin/env node
// Prints the element type and symbolic shape of every value of an ONNX model.
//   node examples/node/infer.mjs model.onnx
import { readFile } from 'node:fs/promises';
import { init, ShapeInferenceError } from '../../js/index.js';

const path = process.argv[2];
if (!path) {
  console.error('usage: node examples/node/infer.mjs model.onnx');
  process.exit(2);
}

const formatType = (t) => {
  if (!t) return '?';
  switch (t.kind) {
    case 'tensor':
      return `${t.elemType ?? '?'} ${t.dims ? `[${t.dims.map((d) => d ?? '?').join(', ')}]` : '[*]'}`;
    case 'sequence':
      return `sequence<${formatType(t.elem)}>`;
    case 'optional':
      return `optional<${formatType(t.elem)}>`;
    case 'map':
      return `map<${t.keyType}, ${formatType(t.value)}>`;
    default:
      return t.kind;
  }
};

try {
  const engine = await init();
  const result = engine.inferShapes(await readFile(path));
  const rows = result.names().map((name) => {
    const node = result.nodes[result.producers[name]];
    return [name, node ? node.opType : '', formatType(result.getShape(name))];
  });
  const width = [0, 1].map((c) => Math.max(...rows.map((r) => r[c].length), 5));
  console.log(`${'value'.padEnd(width[0])}  ${'op'.padEnd(width[1])}  type and shape`);
  for (const [name, op, type] of rows) console.log(`${name.padEnd(width[0])}  ${op.padEnd(width[1])}  ${type}`);
  for (const d of result.diagnostics) console.log(`note: ${d.code}: ${d.message}`);
} catch (err) {
  if (!(err instanceof ShapeInferenceError)) throw err;
  console.error(`error: ${err.code}${err.node ? ` at node '${err.node}'` : ''}: ${err.message}`);
  process.exit(1);
}
