// js/expr.js: the dim expression evaluator shares the C engine's grammar and Python semantics.
import { evaluateDim, dimSymbols } from '../../js/expr.js';

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
  expect(dimSymbols("Max(a,b)+'c d'*max")).toEqual(['a', 'b', 'c d', 'max']);
  expect(dimSymbols(4)).toEqual([]);
});
