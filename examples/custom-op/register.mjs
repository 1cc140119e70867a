#!/usr/bin/env node
// Teaches onnx-shapes the shapes of operators it has no rule for: two ops of a custom domain
// ('com.example'), registered with engine.registerShapeFunction(domain, opType, fn).
//
//   node examples/custom-op/register.mjs
//
// fn({ domain, opType, opset, node, inputs, attributes }) is called while the engine infers each
// node of that op. `inputs` are the node's input types in the getShape format ({ kind: 'tensor',
// elemType, dims }, or null when omitted/unknown); an integer input whose content the engine knows
// (a Shape output, a constant, ...) also carries it as `value`. `attributes` is a plain object.
// fn returns one type per output, in the same format; dims may be numbers, expression strings over
// the model's symbols ('H//16', '(H//16)*(W//16)') or null. A function that throws makes a
// diagnostic on its node, and inference goes on.
//
// The model is built in memory with the repository's tiny protobuf writer (tests/js/onnx_builder.js).
// In an app that installed the package, import from 'onnx-shapes' instead of '../../js/index.js'.
import { init } from '../../js/index.js';
import { model } from '../../tests/js/onnx_builder.js';

// image float [N, 3, H, W]
//   → com.example.Patchify(patch_size=16) → tokens float [N, (H//16)*(W//16), 3*16*16]
//   → Relu (a built-in op: it carries the custom op's shape on)  → act
//   → Shape                                                      → act_shape (int64 [3], content known)
//   → com.example.ZerosLike(dtype='float16') reads that content  → mask float16 [N, (H//16)*(W//16), 768]
const bytes = model({
  opsets: [{ domain: '', version: 17 }, { domain: 'com.example', version: 1 }],
  inputs: [{ name: 'image', elemType: 'float', dims: ['N', 3, 'H', 'W'] }],
  outputs: ['act', 'mask'],
  nodes: [
    { op: 'Patchify', domain: 'com.example', name: 'patchify', inputs: ['image'], outputs: ['tokens'], attrs: { patch_size: 16 } },
    { op: 'Relu', name: 'relu', inputs: ['tokens'], outputs: ['act'] },
    { op: 'Shape', name: 'shape', inputs: ['act'], outputs: ['act_shape'] },
    { op: 'ZerosLike', domain: 'com.example', name: 'zeros', inputs: ['act_shape'], outputs: ['mask'], attrs: { dtype: 'float16' } },
  ],
});

const engine = await init();

engine.registerShapeFunction('com.example', 'Patchify', ({ inputs: [image], attributes }) => {
  const p = attributes.patch_size ?? 16;
  if (image?.kind !== 'tensor' || image.dims?.length !== 4) return [null]; // unknown output
  const [n, c, h, w] = image.dims;
  // Dims are numbers or expression strings; the engine parses and simplifies them
  // ('(224//16)*(224//16)' becomes 196, 'H//16' stays symbolic). null is an unknown dim.
  const part = (d) => `((${d})//${p})`;
  const count = h === null || w === null ? null : `${part(h)}*${part(w)}`;
  const features = c === null ? null : `${c}*${p * p}`;
  return [{ kind: 'tensor', elemType: image.elemType, dims: [n, count, features] }];
});

engine.registerShapeFunction('com.example', 'ZerosLike', ({ inputs: [shape], attributes }) => {
  // `value` is the known content of an integer input: here the output of Shape, [N, (H//16)*(W//16), 768].
  if (!shape?.value) return [{ kind: 'tensor', elemType: attributes.dtype ?? 'float', dims: null }];
  return [{ kind: 'tensor', elemType: attributes.dtype ?? 'float', dims: shape.value }];
});

const result = engine.inferShapes(bytes);
const show = (t) => (t ? `${t.elemType} [${t.dims ? t.dims.map((d) => d ?? '?').join(', ') : '*'}]` : '?');
for (const name of result.names()) {
  const node = result.nodes[result.producers[name]];
  console.log(`${name.padEnd(10)} ${(node ? `${node.domain ? `${node.domain}.` : ''}${node.opType}` : 'input').padEnd(22)} ${show(result.getShape(name))}`);
}
for (const d of result.diagnostics) console.log(`note: ${d.code}: ${d.message}`);

// Without the registrations the custom ops are UNSUPPORTED_OP diagnostics and their outputs unknown.
engine.clearShapeFunctions();
const plain = engine.inferShapes(bytes);
console.log(`\nwithout registerShapeFunction: tokens ${show(plain.getShape('tokens'))}; ` +
  `${plain.diagnostics.filter((d) => d.code === 'UNSUPPORTED_OP').length} UNSUPPORTED_OP diagnostics`);
