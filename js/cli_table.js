// The command line's table: a row per value (name, producing op, type and shape, and byte size
// when symbols are bound), then the labels and the diagnostics. Every step is one pass over the
// rows, so a 150k-value model prints like a small one. Padded columns are capped so the table fits
// the terminal: a name longer than its column is printed on a line of its own and the rest of its
// row continues on the next line, aligned (a name is cut only where it is longer than the line:
// subgraph values of a torch export reach 100 characters); a type and shape longer than its
// column wraps inside it, aligned. No line is longer than the width. Cells come escaped
// (js/cli_text.js).
import { wrapText } from './cli_text.js';

/**
 * A type as the table prints it: `float [N, 3, ?]`; `?` is unknown, `[*]` an unknown rank. A known
 * integer content (value as shape) follows the shape: `int64 [4] = [N, 3, H, W]`.
 */
export function formatType(t, show) {
  if (!t) return '?';
  switch (t.kind) {
    case 'tensor': {
      if (!t.dims) return `${t.elemType ?? '?'} [*]`;
      const value = t.value ? ` = [${t.value.map(show).join(', ')}]` : '';
      return `${t.elemType ?? '?'} [${t.dims.map(show).join(', ')}]${value}`;
    }
    case 'sequence': return `sequence<${formatType(t.elem, show)}>`;
    case 'optional': return `optional<${formatType(t.elem, show)}>`;
    case 'map': return `map<${t.keyType}, ${formatType(t.value, show)}>`;
    default: return String(t.kind);
  }
}

/** The width tables are laid out for: the terminal's, else $COLUMNS, else 120. */
export function outputWidth(stream = process.stdout, env = process.env) {
  if (stream.isTTY && stream.columns > 0) return stream.columns;
  const n = Number(env.COLUMNS);
  return Number.isInteger(n) && n > 0 ? n : 120;
}

const GAP = '  ';

/**
 * Column widths for `rows` (arrays of strings; the last column is never padded): each padded
 * column is as wide as its longest cell, up to a share of `width` (`shares`, one per padded
 * column, fractions of the width with a floor of `minimum` characters).
 */
export function columnWidths(head, rows, width, shares, minimum = 12) {
  const widths = head.slice(0, -1).map((h) => h.length);
  for (const r of rows) {
    for (let c = 0; c < widths.length; c++) {
      if (r[c].length > widths[c]) widths[c] = r[c].length;
    }
  }
  for (let c = 0; c < widths.length; c++) {
    widths[c] = Math.min(widths[c], Math.max(minimum, head[c].length, Math.floor(width * shares[c])));
  }
  return widths;
}

/** The narrowest a wrapped column is made, however little room the terminal leaves it. */
const MIN_WRAP = 16;
const HANG = '  '; // the indent of the rest of a name cut to fit the width

/**
 * The line(s) of one row: a cell wider than its column ends the line (cut to `width` only when
 * even the line cannot hold it, its parts after the first indented by HANG), the row goes on
 * below, aligned; but the cell of column `wrap` (the type and shape) is cut into lines inside its
 * column (the last column: up to `width`), each below the one before, aligned.
 */
export function layoutRow(cells, widths, width = Infinity, wrap = -1) {
  const lines = [];
  let below = [];
  let line = '';
  let indent = 0;
  for (let c = 0; c < cells.length; c++) {
    let cell = cells[c];
    const last = c === cells.length - 1;
    const room = last ? width - indent : widths[c];
    if (c === wrap && cell.length > room) {
      const parts = wrapText(cell, Math.max(MIN_WRAP, room));
      cell = parts[0];
      below = parts.slice(1).map((p) => ' '.repeat(indent) + p);
    }
    if (last) {
      line += cell;
      break;
    }
    if (cell.length > widths[c]) {
      // Alone on its line; cut (after a '/' where it can) only where the line cannot hold it whole.
      const room = Math.max(MIN_WRAP, width - indent);
      const parts = cell.length > room ? wrapText(cell, room, room - HANG.length) : [cell];
      lines.push(line + parts[0]);
      for (let i = 1; i < parts.length; i++) lines.push(' '.repeat(indent) + HANG + parts[i]);
      indent += widths[c] + GAP.length;
      line = ' '.repeat(indent);
      continue;
    }
    line += cell.padEnd(widths[c]) + GAP;
    indent += widths[c] + GAP.length;
  }
  lines.push(line.trimEnd());
  for (const l of below) lines.push(l);
  return lines;
}

/**
 * The values to list, each with the op of the node that writes it ('' for none): in graph order
 * (graph inputs, then values no node writes, such as initializers, then every node's outputs in
 * node order, a node's subgraph bodies just before its own outputs), or sorted by name. Each
 * once; a value whose type is unknown (an output of a custom op) is listed too, its type `?`.
 */
export function valueRows(result, sort) {
  const names = result.names();
  const opOf = (key) => result.producer?.(key)?.node.opType ?? result.nodes[result.producers[key]]?.opType ?? '';
  const seen = new Set();
  const walked = [];
  const add = (list, key, op) => {
    if (typeof key === 'string' && key !== '' && !seen.has(key)) {
      seen.add(key);
      list.push([key, op]);
    }
  };
  const bodies = new Map(); // "<graph path>\0<node index>" -> the paths of that node's bodies
  for (const [path, body] of Object.entries(result.subgraphs ?? {})) {
    const at = `${body.parent}\0${body.node}`;
    if (!bodies.has(at)) bodies.set(at, []);
    bodies.get(at).push(path);
  }
  const inputs = [];
  for (const key of result.inputs ?? []) add(inputs, key, '');
  const walk = (path, nodes) => { // nesting is bounded by the engine (OSI_MAX_SCOPE_DEPTH)
    for (let i = 0; i < nodes.length; i++) {
      for (const b of bodies.get(`${path}\0${i}`) ?? []) {
        const body = result.subgraphs[b];
        for (const key of body.inputs) add(walked, key, '');
        walk(b, body.nodes);
      }
      for (const key of nodes[i].outputs) add(walked, key, nodes[i].opType);
    }
  };
  walk('', result.nodes);
  const rest = [];
  for (const key of names) if (!seen.has(key)) add(rest, key, opOf(key));
  if (sort === 'name') return [...inputs, ...rest, ...walked].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return [...inputs, ...rest, ...walked];
}
