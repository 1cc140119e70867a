// js/expr.js: the dim expression evaluator shares the C engine's grammar and Python semantics.
import { bindDefinitions, evalDim, evaluateDim, expandDefinitions, symbolsOf, symbolsThrough } from '../../js/expr.js';

test('Python floor division and modulo', () => {
  expect(evaluateDim('-7//2', {})).toBe(-4);
  expect(evaluateDim('7//-2', {})).toBe(-4);
  expect(evaluateDim('-7%3', {})).toBe(2);
  expect(evaluateDim('7%-3', {})).toBe(-2);
  expect(evaluateDim('CeilDiv(7,2)', {})).toBe(4);
  expect(evaluateDim('CeilDiv(-7,2)', {})).toBe(-3);
});

test('precedence, unary minus, functions in any case, quoted names', () => {
  expect(evaluateDim('a+b*c', { a: 1, b: 2, c: 3 })).toBe(7);
  expect(evaluateDim('a-(b-c)', { a: 1, b: 2, c: 3 })).toBe(2);
  expect(evaluateDim('-(a+b)//2', { a: 1, b: 2 })).toBe(-2);
  expect(evaluateDim('max(a,b,3)', { a: 1, b: 2 })).toBe(3);
  expect(evaluateDim('MIN(a,b)', { a: 1, b: 2 })).toBe(1);
  expect(evaluateDim("'batch size'*2", { 'batch size': 4 })).toBe(8);
  expect(evaluateDim("'it\\'s'+1", { "it's": 1 })).toBe(2);
  expect(evaluateDim('Max', { Max: 5 })).toBe(5);
});

test('Broadcast, unknowns and unbound symbols', () => {
  expect(evaluateDim('Broadcast(x,1)', { x: 4 })).toBe(4);
  expect(evaluateDim('Broadcast(1,x)', { x: 4 })).toBe(4);
  expect(evaluateDim('Broadcast(x,y)', { x: 4, y: 4 })).toBe(4);
  expect(evaluateDim('Broadcast(x,y)', { x: 4, y: 3 })).toBeNull();
  expect(evaluateDim('x//y', { x: 4, y: 0 })).toBeNull();
  expect(evaluateDim('seq', {})).toBeNull();
  expect(evaluateDim(null, {})).toBeNull();
  expect(evaluateDim(7, {})).toBe(7);
  expect(evaluateDim('N', new Map([['N', 3]]))).toBe(3);
  expect(() => evaluateDim('a+', {})).toThrow(SyntaxError);
});

test('symbols of an expression', () => {
  expect(symbolsOf("Max(a,b)+'c d'*max")).toEqual(['a', 'b', 'c d', 'max']);
  expect(symbolsOf(4)).toEqual([]);
});

describe('evalDim on the forms the engine prints', () => {
  const env = { N: 7, seq: 3, past_seq: 4, 'batch size': 2 };
  test.each([
    ['N', 7], [5, 5], ['past_seq+seq', 7], ['2*N+1', 15], ['(N+1)//2', 4], ['-N//2', -4], ['N%3', 1],
    ['-N%3', 2], ['-2*-N', 14], ['N-seq-past_seq', 0], ["'batch size'*3", 6], ['Max(N,seq,9)', 9],
    ['Min(N,seq)', 3], ['CeilDiv(N,2)', 4], ['CeilDiv(-N,2)', -3], ['Broadcast(1,seq)', 3],
    ['Broadcast(seq,seq,1)', 3], ['(N-1)//2*2+1', 7],
  ])('%s', (expr, value) => {
    expect(evalDim(expr, env)).toBe(value);
  });
  test('unbound symbols give null; undefined expressions throw RangeError', () => {
    expect(evalDim('M+1', env)).toBeNull();
    expect(() => evalDim('Broadcast(N,seq)', env)).toThrow(RangeError);
    expect(() => evalDim('N//(seq-3)', env)).toThrow(RangeError);
    expect(() => evalDim('N+', env)).toThrow(SyntaxError);
    expect(symbolsOf("Max(a,'b c')+CeilDiv(d,2)")).toEqual(['a', 'b c', 'd']);
  });
});

// A result's named sizes: each definition over the symbols and earlier names (values by hand).
describe('definitions', () => {
  const defs = [
    { name: 'floor_1', expr: 'Floor(1.5*h)' },
    { name: 'size_2', expr: "CeilDiv(floor_1,32)*'w x'" },
    { name: 'size_3', expr: 'Broadcast(size_2,n)' },
  ];

  test('evaluated in order, each from the bindings and earlier names', () => {
    // h = 97: Floor(145.5) = 145; CeilDiv(145, 32) = 5; times 'w x' = 3: 15
    expect(evaluateDim('size_2+1', { h: 97, 'w x': 3 }, defs)).toBe(16);
    expect(evaluateDim('2*floor_1', new Map([['h', 97]]), defs)).toBe(290);
    const env = bindDefinitions({ h: 97, 'w x': 3 }, defs);
    expect(env).toEqual({ h: 97, 'w x': 3, floor_1: 145, size_2: 15, size_3: null });
    expect(bindDefinitions(new Map([['h', 2]]), defs).get('floor_1')).toBe(3);
  });

  test('an unbound symbol or an undefined definition leaves the name unbound, not a guess', () => {
    expect(evaluateDim('floor_1', { w: 3 }, defs)).toBe(null);
    // Broadcast(15, 4) has no value: size_3 is null, and so is a dim that uses it
    expect(evaluateDim('size_3', { h: 97, 'w x': 3, n: 4 }, defs)).toBe(null);
    expect(evaluateDim('size_3', { h: 97, 'w x': 3, n: 1 }, defs)).toBe(15);
  });

  test('names expanded to their definitions give the same value; symbols through the names', () => {
    const text = expandDefinitions('size_2-floor_1', defs);
    expect(text).toBe("(CeilDiv((Floor(1.5*h)),32)*'w x')-(Floor(1.5*h))");
    expect(evaluateDim(text, { h: 97, 'w x': 3 })).toBe(15 - 145);
    expect(symbolsThrough('size_3+k', defs)).toEqual(['h', 'w x', 'n', 'k']);
    expect(symbolsThrough('floor_1', [])).toEqual(['floor_1']);
    expect(expandDefinitions(7, defs)).toBe(7);
  });
});
