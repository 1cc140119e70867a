// The README's claim on ../shared/onnx-backend/{light,pytorch-converted,pytorch-operator}: every
// output exact, no unknown dim. Each model is inferred with its declared output shapes and
// value_info removed (they would fill the answer in), by both decoders; every graph output must
// have the element type and dims of the backend's expected output tensor, and no value of the
// model (inputs, weights, intermediates, outputs) may have an unknown dim or rank. Every, not
// most: these are whole networks on fixed sizes, where nothing depends on the data.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { rewriteModel } from '../checking/onnx_proto.mjs';
import { backendPath } from './helpers.js';
import { elemTypeName, readModelSummary, readTensorHeader } from './onnx_builder.js';

/** [{ name, path, outputs: [expected output tensor files, in order] }] of one set. */
function modelsOf(set) {
  const dir = backendPath(set);
  if (set === 'light') {
    return readdirSync(dir).filter((f) => f.endsWith('.onnx')).sort().map((f) => ({
      name: `light/${f}`, path: join(dir, f), outputs: [join(dir, f.replace(/\.onnx$/, '_output_0.pb'))],
    }));
  }
  return readdirSync(dir).sort().filter((d) => existsSync(join(dir, d, 'model.onnx'))).map((d) => {
    const data = join(dir, d, 'test_data_set_0');
    const outputs = readdirSync(data).filter((f) => /^output_\d+\.pb$/.test(f))
      .sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0])).map((f) => join(data, f));
    return { name: `${set}/${d}`, path: join(dir, d, 'model.onnx'), outputs };
  });
}

const SETS = { light: modelsOf('light'), 'pytorch-converted': modelsOf('pytorch-converted'), 'pytorch-operator': modelsOf('pytorch-operator') };
const models = Object.values(SETS).flat();

/** Values of `result` whose tensor type (inside a sequence or optional) has an unknown rank or dim. */
function unknownDims(result) {
  const out = [];
  for (const name of result.names()) {
    let t = result.getShape(name);
    while (t && (t.kind === 'sequence' || t.kind === 'optional')) t = t.elem;
    if (!t || t.kind !== 'tensor') out.push(`${name}: ${JSON.stringify(t)}`);
    else if (t.dims === null || t.dims.includes(null)) out.push(`${name}: ${JSON.stringify(t.dims)}`);
  }
  return out;
}

let engine;
beforeAll(async () => {
  engine = await init();
});

test('the sets are whole: 9 light, 82 pytorch-converted and 35 pytorch-operator models', () => {
  // The counts of the backend data the claim is about (a missing folder fails in modelsOf).
  expect(Object.fromEntries(Object.entries(SETS).map(([k, v]) => [k, v.length])))
    .toEqual({ light: 9, 'pytorch-converted': 82, 'pytorch-operator': 35 });
});

const cases = models.flatMap((m) => ['protobuf-c', 'nanopb'].map((decoder) => [m.name, decoder, m]));
test.each(cases)('%s (%s): every output exact, no unknown dim', (_name, decoder, m) => {
  const bytes = readFileSync(m.path);
  const summary = readModelSummary(bytes);
  expect(summary.outputs.length).toBe(m.outputs.length);
  const result = engine.inferShapes(rewriteModel(bytes, {}), { decoder });
  const got = summary.outputs.map((out) => ({ out, ...result.getShape(out) }));
  const want = summary.outputs.map((out, k) => {
    const t = readTensorHeader(readFileSync(m.outputs[k]));
    return { out, kind: 'tensor', elemType: elemTypeName(t.dataType), dims: t.dims };
  });
  expect(got.map(({ out, kind, elemType, dims }) => ({ out, kind, elemType, dims }))).toEqual(want);
  expect(unknownDims(result)).toEqual([]);
  expect(result.diagnostics.filter((d) => d.code === 'DATA_DEPENDENT')).toEqual([]);
});
