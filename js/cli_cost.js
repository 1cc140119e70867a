// --cost for the command line (README "Cost"): a table by op type (nodes, MACs, FLOPs) and the
// totals, in units a person reads (2.1 GMACs, 12.4 M params, 46.7 MB); with --bind every count the
// sizes decide is a number and the table is sorted by MACs, without it the counts are expressions
// of the model's sizes. With --json, one object holding `cost` exactly as result.cost() gives it.
import { columnWidths, layoutRow, outputWidth } from './cli_table.js';
import { escapeControls, escapeJson, wrapLine } from './cli_text.js';

const PREFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'];

/** 1813561344 -> ['1.814', 'G']: four significant digits and an SI prefix (exact below 1000). */
export function siNumber(v) {
  if (typeof v === 'bigint') v = Number(v); // past 2^53 only the leading digits are shown
  if (v < 1000) return [String(v), ''];
  let k = 0;
  while (v >= 1000 && k < PREFIXES.length - 1) {
    v /= 1000;
    k++;
  }
  return [v.toFixed(v >= 100 ? 1 : v >= 10 ? 2 : 3), PREFIXES[k]];
}

const isNumber = (v) => typeof v === 'number' || typeof v === 'bigint';

/**
 * A count with its unit, "1.814 GMACs", "46.75 MB" (or, for a word unit, "11.69 M params"); an
 * expression is printed as it is, an unknown count as "?".
 */
export function withUnit(v, unit) {
  if (v === null || v === undefined) return '?';
  if (!isNumber(v)) return `${v} ${unit.trim()}`;
  const [n, prefix] = siNumber(v);
  if (unit.startsWith(' ')) return prefix ? `${n} ${prefix}${unit}` : `${n}${unit}`;
  return `${n} ${prefix}${unit}`;
}

const compareCounts = (a, b) => {
  if (!isNumber(a) || !isNumber(b)) return isNumber(a) ? -1 : isNumber(b) ? 1 : 0;
  return a > b ? -1 : a < b ? 1 : 0;
};

/** JSON with BigInts as decimal strings (as --bind prints byte sizes past 2^53). */
const json = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? String(x) : x), 2);

/**
 * Prints the cost of `result` (inferred with { cost: true }) to `out` (line by line); `bound` is
 * --bind's { given, derived, unbound } (or null), `boundLines` the lines that say them.
 */
export function printCost(out, result, bound, asJson, boundLines) {
  const bindings = bound?.given ?? null;
  const cost = result.cost(bindings ? { bindings } : undefined);
  if (asJson) {
    const o = { cost };
    if (bound) {
      o.bindings = {
        given: Object.fromEntries(bound.given),
        derived: Object.fromEntries(bound.derived.map(([k, v, from]) => [k, { value: v, from }])),
        unbound: bound.unbound,
      };
    }
    if (result.definitions?.length) o.definitions = result.definitions;
    out.block(escapeJson(json(o)));
    return;
  }
  const groups = Object.entries(cost.byOpType);
  if (bindings) groups.sort(([ka, a], [kb, b]) => compareCounts(a.macs, b.macs) || compareCounts(a.flops, b.flops) || (ka < kb ? -1 : 1));
  const head = ['op type', 'nodes', 'MACs', 'FLOPs'];
  // Escaped before the layout: an ESC is 1 character raw, 4 as \x1b (a size's name can hold one).
  const rows = groups.map(([key, g]) => [key, String(g.nodes), withUnit(g.macs, 'MACs'), withUnit(g.flops, 'FLOPs')].map(escapeControls));
  const t = cost.total;
  rows.push(['total', String(cost.nodes.length), withUnit(t.macs, 'MACs'), withUnit(t.flops, 'FLOPs')].map(escapeControls));
  const width = outputWidth();
  const widths = columnWidths(head, rows, width, [0.3, 0.08, 0.3]);
  for (const l of layoutRow(head, widths, width)) out.line(l);
  for (const r of rows) for (const l of layoutRow(r, widths, width, 3)) out.line(l);
  const para = (text) => {
    for (const l of wrapLine(escapeControls(text), width)) out.line(l);
  };
  para(`params: ${withUnit(t.params, ' params')} (${withUnit(t.weightBytes, 'B')} of weights)`);
  const peak = t.activationPeakBytes;
  para(`activation peak: ${peak === null ? (bindings ? '? (a live size is not decided by these sizes)' : 'depends on the sizes (give them with --bind)') : withUnit(peak, 'B')}`);
  for (const u of cost.uncounted) para(`uncounted: ${u.opType} (${u.nodes} node${u.nodes === 1 ? '' : 's'}): ${u.reason}`);
  for (const { name, expr } of bindings ? [] : result.definitions ?? []) para(`where ${name} = ${expr}`);
  for (const l of boundLines) para(l);
}
