// Readability of the dims onnx-shapes prints (issue 16): a viewer shows these strings, so exact is not
// enough. For every tensor value of a result, each dim that is an expression string is counted:
// `plusMinus` dims that print "+-" (a subtraction written as adding a negative), `over80` and `over200`
// dims longer than 80 and 200 characters. The limits the exporter tests hold the engine to:
// no "+-", at most 1% of the symbolic dims over 80 characters, none over 200.
export const LIMITS = { plusMinus: 0, over80Fraction: 0.01, over200: 0 };

/** Counts of one inference result (an engine result: names() and getShape()). */
export function dimReadability(result) {
  const r = { symbolic: 0, plusMinus: 0, over80: 0, over200: 0, longest: 0, examples: [] };
  for (const name of result.names()) {
    const t = result.getShape(name);
    if (!t || t.kind !== 'tensor' || !t.dims) continue;
    for (const d of t.dims) {
      if (typeof d !== 'string') continue;
      r.symbolic++;
      const bad = d.includes('+-') || d.length > 80;
      if (d.includes('+-')) r.plusMinus++;
      if (d.length > 80) r.over80++;
      if (d.length > 200) r.over200++;
      r.longest = Math.max(r.longest, d.length);
      if (bad && r.examples.length < 5) r.examples.push(`${name}: ${d}`);
    }
  }
  return r;
}

/** The sum of several dimReadability results (examples: the first few of each). */
export function addReadability(list) {
  const total = { symbolic: 0, plusMinus: 0, over80: 0, over200: 0, longest: 0, examples: [] };
  for (const r of list) {
    for (const k of ['symbolic', 'plusMinus', 'over80', 'over200']) total[k] += r[k];
    total.longest = Math.max(total.longest, r.longest);
    total.examples.push(...r.examples.slice(0, 2));
  }
  return total;
}

/** Problems of a total against LIMITS (empty when readable). */
export function readabilityProblems(r) {
  const problems = [];
  if (r.plusMinus > LIMITS.plusMinus) problems.push(`${r.plusMinus} dims print "+-"`);
  if (r.over80 > LIMITS.over80Fraction * r.symbolic) {
    problems.push(`${r.over80} of ${r.symbolic} symbolic dims are over 80 characters (limit 1%)`);
  }
  if (r.over200 > LIMITS.over200) problems.push(`${r.over200} dims are over 200 characters`);
  return problems;
}

export function formatReadability(r) {
  const pct = r.symbolic ? ((100 * r.over80) / r.symbolic).toFixed(2) : '0.00';
  return `readability: ${r.symbolic} symbolic dims, ${r.plusMinus} print "+-", ${r.over80} (${pct}%) over 80 ` +
    `characters, ${r.over200} over 200, longest ${r.longest}`;
}
