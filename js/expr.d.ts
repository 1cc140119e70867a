// Types for onnx-shapes/expr (js/expr.js): parses and evaluates the dim expressions of a result
// ('past_seq+seq', '(H+1)//2', "Max('batch size',1)") for given symbol values.

import type { Dim } from './index.js';

/**
 * The value of an integer dim: a number, or a BigInt when it is past 2^53 (Number.MAX_SAFE_INTEGER),
 * where a number could not hold it exactly. Dims are int64: nothing beyond that range is a value.
 */
export type DimValue = number | bigint;

/** Symbol values (numbers or BigInts): a plain object ({ batch: 1, seq: 128 }) or a Map. */
export type DimBindings =
  | Readonly<Record<string, DimValue | null | undefined>>
  | ReadonlyMap<string, DimValue | null | undefined>;

export type DimFunction =
  | 'Max' | 'Min' | 'CeilDiv' | 'Broadcast' | 'Floor' | 'Ceil' | 'Round' | 'Trunc' | 'Float';
export type DimOperator = '+' | '-' | '*' | '//' | '%' | '/';

/** A token of an expression; `s` is its source text. */
export type DimToken =
  | { t: 'int'; v: DimValue; s: string }
  | { t: 'float'; v: number; s: string }
  | { t: 'sym'; v: string; s: string }
  | { t: 'fn'; v: DimFunction; s: string }
  | { t: 'op'; v: DimOperator; s: string }
  | { t: '(' | ')' | ','; v: '(' | ')' | ','; s: string };

/** A parsed expression; `float` is true for a float32-valued node (README "Sizes computed in float"). */
export type DimExpr = (
  | { k: 'int'; v: DimValue }
  | { k: 'float'; v: number }
  | { k: 'sym'; v: string }
  | { k: 'neg'; a: DimExpr }
  | { k: 'bin'; op: DimOperator; a: DimExpr; b: DimExpr }
  | { k: 'fn'; f: DimFunction; args: DimExpr[] }
) & { float: boolean };

/** Splits an expression into tokens. @throws {SyntaxError} on a character outside the grammar. */
export function tokenize(src: string): DimToken[];

/** Parses an expression. @throws {SyntaxError} when `src` is not an expression. */
export function parse(src: string): DimExpr;

/** parse(), cached by source text. @throws {SyntaxError} when `src` is not an expression. */
export function parseCached(src: string): DimExpr;

/**
 * Evaluates a parsed expression (Python floor semantics for // and %, exact integers: a BigInt past
 * 2^53; float32 rounding after every float operation, which returns a number); null when a symbol
 * is unbound (a symbol bound past int64 has no value either). @throws {TypeError} when a symbol
 * used is bound to anything but an integer (1.5, '3', NaN). @throws {RangeError} on division by zero, a Broadcast of two different sizes, an
 * integer (final or on the way) outside int64, or Floor/Ceil/Round/Trunc of NaN, an infinity or a
 * value outside int64.
 */
export function evaluate(tree: DimExpr, env: DimBindings): DimValue | null;

/** evaluate() on a dim (number, expression string or null); null when unknown or unbound. Throws as evaluate(). */
export function evalDim(dim: Dim, env: DimBindings): DimValue | null;

/**
 * The value of one dim for `bindings`: a number, or an exact BigInt past 2^53. null when the dim
 * is unknown, a symbol it uses is unbound, or the expression is undefined there (division by zero,
 * Broadcast of two different sizes, an integer outside int64, which no dim can be). With a
 * result's `definitions`, its names (floor_1, size_2) evaluate through them.
 *
 * It evaluates the expression and nothing more: it does not check that the model runs at these
 * sizes. A result's shapes are inferred assuming it does (its requirements hold, its sizes are
 * sizes), so outside `result.domain` a dim may evaluate to a number, even a negative one, that
 * means nothing. `result.evaluate(bindings)` checks the sizes first (every requirement, relation and
 * dim) and names the first one they break (a RequirementError).
 * @throws {SyntaxError} when `dim` is a string that is not an expression.
 * @throws {TypeError} when a symbol it uses is bound to anything but an integer.
 */
export function evaluateDim(dim: Dim, bindings: DimBindings, definitions?: readonly DimDefinition[]): DimValue | null;

/**
 * A named derived size of a result (`result.definitions`): `name` stands for `expr`, an expression
 * over the graph's symbols and earlier names.
 */
export interface DimDefinition {
  readonly name: string;
  readonly expr: string;
}

/**
 * A copy of `bindings` (same kind) with each definition evaluated in order and bound; a name whose
 * definition cannot be evaluated there is bound to null. Names already bound keep their value.
 */
export function bindDefinitions<B extends DimBindings>(bindings: B, definitions: readonly DimDefinition[] | null | undefined): B;

/**
 * The expression with each name of `definitions` replaced by its definition in parentheses.
 * @throws {RangeError} when an expansion would pass 2^20 characters (names that each use the one
 *   before twice double at each).
 */
export function expandDefinitions<D extends Dim>(src: D, definitions: readonly DimDefinition[] | null | undefined): D;

/**
 * The inverse of expandDefinitions: `src` with every subterm whose value is, as integer arithmetic,
 * a definition's expression (sums and products in any order, CeilDiv(a,d) as (a+d-1)//d) printed as
 * that name, the rest of the text byte for byte (`w*Floor(1.5*h)` -> `w*floor_1`). For texts
 * printed before the names were chosen (result.events). A number, null, a malformed string or one
 * without such a subterm is returned as it is.
 */
export function nameDefinitions<D extends Dim>(src: D, definitions: readonly DimDefinition[] | null | undefined): D;

/**
 * nameDefinitions on each expression of a free text (an event's detail: every run without white
 * space or brackets, split at its top-level commas, that parses); other words are kept.
 */
export function nameDefinitionsIn(text: string, definitions: readonly DimDefinition[] | null | undefined): string;

/** The symbols of an expression, each name of `definitions` replaced by the symbols of its definition. */
export function symbolsThrough(src: Dim, definitions: readonly DimDefinition[] | null | undefined): string[];

/** The symbols of an expression in order of first appearance ([] for a number, null or a malformed string). */
export function symbolsOf(src: Dim): string[];

/** A symbol as the engine prints it: identifiers bare, any other name single-quoted with \' and \\ escapes. */
export function printSymbol(name: string): string;

/**
 * Parses bindings text such as `batch=1, seq=128, 'batch size'=2` (values may be integer
 * expressions) into a Map; `errors` lists the parts that are not name=size.
 */
export function parseBindings(text: string): { map: Map<string, DimValue>; errors: string[] };
