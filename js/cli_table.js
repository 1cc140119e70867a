// The command line's table: a row per value (name, producing op, type and shape, and byte size
// when symbols are bound), then the labels and the diagnostics. Every step is one pass over the
// rows, so a 150k-value model prints like a small one. Padded columns are capped so the table fits
// the terminal: a cell longer than its column is printed whole and the rest of its row continues
// on the next line, aligned (a name stays whole, so it can still be searched for).

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

/** The line(s) of one row: a cell wider than its column ends the line, the row goes on below. */
export function layoutRow(cells, widths) {
  const lines = [];
  let line = '';
  let indent = 0;
  for (let c = 0; c < cells.length; c++) {
    const cell = cells[c];
    if (c === cells.length - 1) {
      line += cell;
      break;
    }
    if (cell.length > widths[c] && c + 1 < cells.length) {
      lines.push(line + cell);
      indent += widths[c] + GAP.length;
      line = ' '.repeat(indent);
      continue;
    }
    line += cell.padEnd(widths[c]) + GAP;
    indent += widths[c] + GAP.length;
  }
  lines.push(line.trimEnd());
  return lines;
}

/**
 * The values to list, each with the op of the node that writes it ('' for none): in graph order
 * (graph inputs, then values no node writes, such as initializers, then every node's outputs in
 * node order, a node's subgraph bodies just before its own outputs), or sorted by name. Only
 * values with a known type, each once.
 */
export function valueRows(result, sort) {
  const names = result.names();
  const opOf = (key) => result.producer?.(key)?.node.opType ?? result.nodes[result.producers[key]]?.opType ?? '';
  if (sort === 'name') return names.map((key) => [key, opOf(key)]);
  const known = new Set(names);
  const seen = new Set();
  const walked = [];
  const add = (list, key, op) => {
    if (key !== null && known.has(key) && !seen.has(key)) {
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
  return [...inputs, ...rest, ...walked];
}
