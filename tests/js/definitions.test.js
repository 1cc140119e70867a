// Named derived sizes (result.definitions): a size computed in float is one name in every dim that
// uses it, the name is none of the model's symbols, and dims evaluated through the definitions give
// the sizes by hand arithmetic (float32 as onnxruntime computes them), from every decoder and entry
// point, in the library and on the command line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { bindDefinitions, evaluateDim, expandDefinitions, nameDefinitions, nameDefinitionsIn, symbolsThrough } from '../../js/expr.js';
import { REPO } from './helpers.js';
import { model } from './onnx_builder.js';
import { floatSizeParts, namedSizeModel } from './model_parts.js';

// y = ConstantOfShape([Floor(1.5*h), Floor(1.5*h)+w]) with h = x.shape[0], w = x.shape[1], computed
// in float as exporters do (Shape -> Gather -> Cast(float) -> Mul -> Floor -> Cast(int64)). The
// second input has a dim named floor_1, so the name must be another one.
function floatSizeModel() {
  const parts = floatSizeParts();
  return model({
    opset: 17,
    inputs: [{ name: 'x', elemType: 'float', dims: ['h', 'w'] }, { name: 'z', elemType: 'float', dims: ['floor_1'] }],
    outputs: ['y', 'zz'],
    initializers: parts.initializers,
    nodes: [
      ...parts.nodes,
      { op: 'Add', inputs: ['fi1', 'ws'], outputs: ['fw'] },
      { op: 'Concat', inputs: ['fi1', 'fw'], outputs: ['shape'], attrs: { axis: 0 } },
      { op: 'ConstantOfShape', inputs: ['shape'], outputs: ['y'] },
      { op: 'Relu', inputs: ['z'], outputs: ['zz'] },
    ],
  });
}

const byHand = (h, w) => [Math.floor(Math.fround(Math.fround(h) * 1.5)), Math.floor(Math.fround(Math.fround(h) * 1.5)) + w];

let engine;
beforeAll(async () => {
  engine = await init();
});

describe('result.definitions', () => {
  test('a size computed in float is one name, over the graph symbols, no symbol of the model', () => {
    const r = engine.inferShapes(floatSizeModel());
    const y = r.getShape('y').dims;
    expect(Object.isFrozen(r.definitions)).toBe(true);
    expect(r.definitions.length).toBeGreaterThan(0);
    const names = r.definitions.map((d) => d.name);
    for (const n of names) {
      expect(n).toMatch(/^(floor|ceil|round|trunc|size)_[1-9][0-9]*$/);
      expect(['h', 'w', 'floor_1']).not.toContain(n);
    }
    expect(new Set(names).size).toBe(names.length);
    // the float size prints as one name in both dims; its definition is over h only
    const floor = r.definitions.find((d) => d.expr.startsWith('Floor('));
    expect(y[0]).toBe(floor.name);
    expect(y[1]).toContain(floor.name);
    expect(symbolsThrough(y[1], r.definitions).sort()).toEqual(['h', 'w']);
    expect(r.getShape('zz').dims).toEqual(['floor_1']); // the model's own symbol is untouched
    // each definition uses earlier names only
    r.definitions.forEach((d, i) => {
      for (const s of symbolsThrough(d.expr, null)) {
        if (names.includes(s)) expect(names.indexOf(s)).toBeLessThan(i);
      }
    });
  });

  test('dims evaluated through the definitions are the sizes computed by hand', () => {
    const r = engine.inferShapes(floatSizeModel());
    const y = r.getShape('y').dims;
    for (const [h, w] of [[0, 0], [1, 5], [7, 3], [97, 131], [161, 123], [1 << 20, 9]]) {
      const env = { h, w, floor_1: 1000 };
      expect(y.map((d) => evaluateDim(d, env, r.definitions))).toEqual(byHand(h, w));
      expect(y.map((d) => evaluateDim(d, bindDefinitions(env, r.definitions)))).toEqual(byHand(h, w));
      expect(y.map((d) => evaluateDim(expandDefinitions(d, r.definitions), env))).toEqual(byHand(h, w));
    }
    // unbound symbol: null, not a guess
    expect(evaluateDim(y[0], { w: 3 }, r.definitions)).toBe(null);
  });

  test('the same definitions from both decoders and from a file', async () => {
    const bytes = floatSizeModel();
    const a = engine.inferShapes(bytes, { decoder: 'protobuf-c' });
    const b = engine.inferShapes(bytes, { decoder: 'nanopb' });
    expect(b.definitions).toEqual(a.definitions);
    expect(b.getShape('y')).toEqual(a.getShape('y'));
    const dir = mkdtempSync(join(tmpdir(), 'osi-defs-'));
    try {
      const path = join(dir, 'm.onnx');
      writeFileSync(path, bytes);
      {
        const c = await engine.inferShapesFromPath(path);
        expect(c.definitions).toEqual(a.definitions);
        expect(c.getShape('y')).toEqual(a.getShape('y'));
        // the command line: the names after the table, their values with --bind, and in --json
        const cli = (args) => spawnSync(process.execPath, [join(REPO, 'js', 'cli.js'), path, ...args], { encoding: 'utf8', timeout: 300_000 });
        const t = cli([]);
        expect(t.status).toBe(0);
        for (const d of a.definitions) expect(t.stdout).toContain(`where ${d.name} = ${d.expr}\n`);
        const bound = cli(['--bind', 'h=7,w=3,floor_1=2']);
        expect(bound.status).toBe(0);
        const [f, fw] = byHand(7, 3);
        expect(bound.stdout).toMatch(new RegExp(`^y\\s+ConstantOfShape\\s+float \\[${f}, ${fw}\\]`, 'm'));
        const floor = a.definitions.find((d) => d.expr.startsWith('Floor('));
        expect(bound.stdout).toContain(`where ${floor.name} = ${floor.expr} = ${f}\n`);
        const json = JSON.parse(cli(['--json']).stdout);
        expect(json.definitions).toEqual(a.definitions);
        const jb = JSON.parse(cli(['--json', '--bind', 'h=7,w=3,floor_1=2']).stdout);
        expect(jb.values.y.dims).toEqual([f, fw]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('costs print the named sizes too, though they are summed after the names are chosen', () => {
    // Relu(ConstantOfShape([floor, floor + w])): its FLOPs, floor*(floor+w), is an expression the
    // cost model makes after the dims were named; it printed Floor(1.5*h) spelled out.
    const r = engine.inferShapes(namedSizeModel({ tail: [{ op: 'Relu', inputs: ['y'], outputs: ['yr'] }], output: 'yr' }), { cost: true });
    const floor = r.definitions.find((d) => d.expr.startsWith('Floor('));
    expect(floor).toBeDefined();
    const texts = JSON.stringify([r.costModel, r.cost(), r.memoryProfile()]);
    expect(texts).not.toContain('Floor(');
    const relu = r.cost().nodes.find((n) => n.opType === 'Relu');
    expect(typeof relu.flops).toBe('string');
    expect(symbolsThrough(relu.flops, r.definitions).sort()).toEqual(['h', 'w']);
    expect(relu.flops).toContain(floor.name);
    for (const [h, w] of [[0, 0], [1, 5], [7, 3], [1000, 1]]) {
      const [f, fw] = byHand(h, w);
      const bindings = { h, w };
      expect(evaluateDim(relu.flops, bindings, r.definitions)).toBe(f * fw);
      const at = r.cost({ bindings });
      expect(at.nodes.find((n) => n.opType === 'Relu').flops).toBe(f * fw);
      expect(evaluateDim(r.cost().total.flops, bindings, r.definitions)).toBe(at.total.flops);
    }
  });

  test('the event log, written before the names are chosen, is printed with them (--events, the page)', () => {
    // y2 = Flatten(ConstantOfShape([floor, floor + w])): the log's `set` of y2 spelled Floor(1.5*h)
    // three times where the table prints floor_1.
    const bytes = namedSizeModel({ tail: [{ op: 'Flatten', inputs: ['y'], outputs: ['y2'], attrs: { axis: 0 } }], output: 'y2' });
    const r = engine.inferShapes(bytes, { events: true });
    expect(r.definitions).toEqual([{ name: 'floor_1', expr: 'Floor(1.5*h)' }]);
    expect(r.getShape('y2').dims).toEqual([1, 'w*floor_1+floor_1*floor_1']);
    const set = r.events.find((e) => e.kind === 'set' && e.value === 'y2');
    expect(set.detail).toBe('float[1,w*Floor(1.5*h)+Floor(1.5*h)*Floor(1.5*h)]');
    expect(nameDefinitionsIn(set.detail, r.definitions)).toBe('float[1,w*floor_1+floor_1*floor_1]');
    // every event's text: no name spelled out, and each expression's value unchanged
    for (const e of r.events) {
      const named = nameDefinitionsIn(e.detail, r.definitions);
      expect(named).not.toContain('Floor(');
      for (const piece of e.detail.match(/[^\s[\],]+/g) ?? []) {
        const n = nameDefinitions(piece, r.definitions);
        if (n === piece) continue;
        for (const [h, w] of [[0, 0], [7, 3], [1001, 2]]) expect(evaluateDim(n, { h, w }, r.definitions)).toBe(evaluateDim(piece, { h, w }));
      }
    }
    const dir = mkdtempSync(join(tmpdir(), 'osi-events-names-'));
    try {
      const path = join(dir, 'named.onnx');
      writeFileSync(path, bytes);
      const out = spawnSync(process.execPath, [join(REPO, 'js', 'cli.js'), path, '--events', 'y2'], { encoding: 'utf8', timeout: 300_000 });
      expect(out.status).toBe(0);
      expect(out.stdout).toContain('set at node 11 (Flatten): float[1,w*floor_1+floor_1*floor_1]\n  where floor_1 = Floor(1.5*h)\n');
      // --json is the log as recorded
      const json = spawnSync(process.execPath, [join(REPO, 'js', 'cli.js'), path, '--events', 'y2', '--json'], { encoding: 'utf8', timeout: 300_000 });
      expect(JSON.parse(json.stdout).events.find((e) => e.kind === 'set').detail).toBe(set.detail);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('nameDefinitions: a subterm equal to a definition as integer arithmetic is its name; the rest as it is', () => {
    const defs = [{ name: 'floor_1', expr: 'Floor(1.5*h)' }, { name: 'size_2', expr: '16*CeilDiv(floor_1,32)' }, { name: 'size_3', expr: '(w+3)//4' }];
    expect(nameDefinitions('16*CeilDiv(Floor(1.5*h),32)', defs)).toBe('size_2');
    expect(nameDefinitions('16*((Floor(1.5*h)+31)//32)', defs)).toBe('size_2'); // CeilDiv(a,d) is (a+d-1)//d
    expect(nameDefinitions('N*((3+w)//4)+Max(CeilDiv(w,4), 1)', defs)).toBe('N*size_3+Max(size_3, 1)');
    expect(nameDefinitions('((w+3)//4)', defs)).toBe('size_3');
    expect(nameDefinitions("'a b'+Floor(1.5 * h)", defs)).toBe("'a b'+floor_1");
    for (const same of ['(w+2)//4', 'Floor(1.5*w)', 'h', '3', 'Floor(', '', 'w+3']) expect(nameDefinitions(same, defs)).toBe(same);
    expect(nameDefinitions(7, defs)).toBe(7);
    expect(nameDefinitions(null, defs)).toBe(null);
    expect(nameDefinitionsIn("node 3 'Floor(1.5*h)' (Conv) requires 2 <= Floor(1.5*h)-1, [Floor(1.5*h),w]", defs))
      .toBe("node 3 'Floor(1.5*h)' (Conv) requires 2 <= floor_1-1, [floor_1,w]");
  });

  test('a model without float sizes or long dims has none', () => {
    const r = engine.inferShapes(model({
      opset: 17,
      inputs: [{ name: 'x', elemType: 'float', dims: ['N', 'C'] }],
      outputs: ['y'],
      nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
    }));
    expect(r.definitions).toEqual([]);
    expect(r.getShape('y').dims).toEqual(['N', 'C']);
  });
});
