// --events NAME for the command line: how one value got its shape, from the event log. The value's
// own events (seeded, set, declared, replaced), its producing node, and the constraints and
// renames that mention a symbol of its shape; a constraint that was later rejected (a declared
// name that would have restricted the inputs: ANCHOR_CONFLICT) says so.
import { nameDefinitionsIn, symbolsOf } from './expr.js';

/** "node 16 'kv_cache_k' (Concat) in loop/body/", or '' for an event of no node. */
function nodeText(index, name, opType, path) {
  if (index === undefined || index === null || index < 0) return '';
  return `node ${index}${name ? ` '${name}'` : ''}${opType ? ` (${opType})` : ''}${path ? ` in ${path}` : ''}`;
}

const PHRASES = {
  seed: 'graph input',
  node: 'inferred',
  set: 'set',
  anchor: 'anchor',
  constraint: 'constraint',
  rename: 'rename',
  replace: 'replaced',
  requirement: 'requirement',
  assume: 'assume',
};

/** Whether `key` names a value of the model, whatever its type: a node writes or reads it, or a graph has it. */
function isValue(result, key) {
  if (typeof key !== 'string' || key === '') return false;
  if (result.producer?.(key) || result.consumers?.(key)?.length) return true;
  if (result.inputs?.includes(key) || result.outputs?.includes(key)) return true;
  return Object.values(result.subgraphs ?? {}).some((g) => g.inputs.includes(key) || g.outputs.includes(key));
}

/**
 * What --events prints for value `key`, as data: { value, type (null when unknown), producer,
 * events: [{ kind, node, nodeIndex, opType, path, detail, rejected? }] }, or null when the model
 * has no such value.
 */
export function explainValue(result, key) {
  const type = result.getShape(key);
  if (!type && !isValue(result, key)) return null;
  const where = result.subgraphValues?.[key] ?? { path: '', name: key };
  const ref = result.producer?.(key) ?? null;
  const producer = ref ? { index: ref.index, name: ref.node.name, opType: ref.node.opType, path: ref.path } : null;
  // Constraints and renames matter when they mention a symbol of the final shape.
  const symbols = new Set();
  for (const d of [...(type?.dims ?? []), ...(Array.isArray(type?.value) ? type.value : [])]) {
    if (typeof d === 'string') for (const s of symbolsOf(d)) symbols.add(s);
  }
  const mentions = (detail) => detail.split(/ -> | == | <= /).some((side) => symbolsOf(side).some((s) => symbols.has(s)));
  const kept = new Set((result.constraints?.equal ?? []).map(([a, b]) => `${a} == ${b}`));
  const conflicts = (result.diagnostics ?? []).filter((d) => d.code === 'ANCHOR_CONFLICT');
  const events = [];
  for (const e of result.events ?? []) {
    const own = e.value === where.name && e.path === where.path;
    const byProducer = producer && e.kind === 'node' && e.nodeIndex === producer.index && e.path === producer.path;
    const related = (e.kind === 'constraint' || e.kind === 'rename' || e.kind === 'requirement') && mentions(e.detail);
    // (an `assume` event, a Min/Max the facts decided, is the value's own: its producer's)
    if (!own && !byProducer && !related) continue;
    const out = { kind: e.kind, node: e.node, nodeIndex: e.nodeIndex, opType: e.opType, path: e.path, detail: e.detail };
    if (e.kind === 'constraint' && e.detail.includes(' == ') && !kept.has(e.detail)) {
      // Dropped after it was recorded: the diagnostic that says why names both sides.
      const [a, b] = e.detail.split(' == ');
      const why = conflicts.find((d) => d.message.includes(a) && d.message.includes(b));
      out.rejected = why ? `${why.code}: ${why.message}` : 'dropped from result.constraints';
    }
    events.push(out);
  }
  return { value: key, type, producer, events };
}

/**
 * The lines of --events: `present_key: float [...]`, then one line per event. The log is written
 * before the result's sizes are named (`definitions`): its expressions are printed with the names
 * the table prints (`w*floor_1`, not `w*Floor(1.5*h)`), and `where` lines define those used.
 */
export function eventLines(explained, formatType, definitions = []) {
  const lines = [`${explained.value}: ${formatType(explained.type)}`];
  const p = explained.producer;
  if (p) lines.push(`  produced by ${nodeText(p.index, p.name, p.opType, p.path)}`);
  else lines.push('  a graph input, an initializer or a body input: no node produces it');
  for (const e of explained.events) {
    const at = nodeText(e.nodeIndex, e.node, e.opType, e.path);
    const phrase = PHRASES[e.kind] ?? e.kind;
    const rejected = e.rejected ? ` (rejected: ${e.rejected})` : '';
    lines.push(`  ${phrase}${at ? ` at ${at}` : e.path ? ` in ${e.path}` : ''}: ${nameDefinitionsIn(e.detail, definitions)}${rejected}`);
  }
  // the names the lines use, and those their definitions use, in the definitions' order
  const used = new Set();
  const words = new Set(lines.join(' ').match(/[A-Za-z_][A-Za-z0-9_]*/g));
  for (let i = definitions.length - 1; i >= 0; i--) {
    const { name, expr } = definitions[i];
    if (!words.has(name) && !used.has(name)) continue;
    used.add(name);
    for (const s of symbolsOf(expr)) used.add(s);
  }
  for (const { name, expr } of definitions) if (used.has(name)) lines.push(`  where ${name} = ${expr}`);
  return lines;
}
