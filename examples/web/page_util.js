// The demo page's small helpers: DOM and text escaping, number and byte formats, a colour per
// symbol, expressions as coloured HTML.
import { evalDim, printSymbol, tokenize } from '../../js/expr.js';

export const $ = (id) => document.getElementById(id);

export const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

export const now = () => performance.timeOrigin + performance.now();

const intFormat = new Intl.NumberFormat('en-US'); // one formatter: toLocaleString makes one per call
export const fmtInt = (n) => intFormat.format(n);

/** Bytes per element (null: not a fixed-size type). Sub-byte types count half a byte. */
export const ELEM_BYTES = {
  float: 4, uint8: 1, int8: 1, uint16: 2, int16: 2, int32: 4, int64: 8, bool: 1, float16: 2,
  double: 8, uint32: 4, uint64: 8, complex64: 8, complex128: 16, bfloat16: 2, float8e4m3fn: 1,
  float8e4m3fnuz: 1, float8e5m2: 1, float8e5m2fnuz: 1, float8e8m0: 1, uint4: 0.5, int4: 0.5, float4e2m1: 0.5,
};

export function fmtBytes(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  const s = i === 0 ? String(Math.ceil(v)) : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  return `${i === 0 ? s : s.replace(/\.?0+$/, '')} ${units[i]}`;
}

/**
 * A hue per symbol name. FNV-1a of the name picks one of 12 well-separated hues; when a model is
 * loaded its symbols claim hues in order (assignHues), probing to the next free hue on a clash,
 * so two symbols of one model never share a colour while there are at most 12 of them. The same
 * symbol always has the same colour everywhere on the page.
 */
export const PALETTE = [262, 200, 145, 28, 330, 52, 178, 295, 4, 105, 228, 75];

export const hueCache = new Map();

export function fnv(name) {
  let x = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) { x ^= name.charCodeAt(i); x = Math.imul(x, 0x01000193); }
  return x >>> 0;
}

export function hue(name) {
  let h = hueCache.get(name);
  if (h === undefined) {
    h = PALETTE[fnv(name) % PALETTE.length];
    hueCache.set(name, h);
  }
  return h;
}

/** The palette slots taken by the symbols given colours so far (assignHues). */
const usedSlots = new Set();

/** Colours symbols in order: the first ones a palette slot each; `more` adds to the last call's. */
export function assignHues(names, more = false) {
  if (!more) {
    hueCache.clear();
    usedSlots.clear();
  }
  const used = usedSlots;
  for (const name of names) {
    if (used.size >= PALETTE.length) {
      hueCache.set(name, Math.round(((fnv(name) * 0.618033988749895) % 1) * 360));
      continue;
    }
    let slot = fnv(name) % PALETTE.length;
    while (used.has(slot)) slot = (slot + 1) % PALETTE.length;
    used.add(slot);
    hueCache.set(name, PALETTE[slot]);
  }
}

/** A symbol as a coloured inline chip. */
export const symChip = (name, extra = '') => `<span class="sym" style="--h:${hue(name)}"${extra}>${esc(printSymbol(name))}</span>`;

/** An expression with each symbol coloured. */
export function exprHTML(src) {
  if (typeof src === 'number') return `<span class="num">${src}</span>`;
  if (src === null || src === undefined) return '<span class="unk">?</span>';
  let toks;
  try { toks = tokenize(String(src)); } catch { return esc(src); }
  let out = '';
  for (const t of toks) {
    if (t.t === 'sym') out += `<span class="s" style="--h:${hue(t.v)}">${esc(t.s)}</span>`;
    else if (t.t === 'op') out += `<span class="op">${esc(t.s)}</span>`;
    else if (t.t === ',') out += ', ';
    else out += esc(t.s);
  }
  return out;
}

/** Constraint sides come as strings or numbers; render and evaluate either. */
export function sideValue(side, env) {
  try { return evalDim(typeof side === 'number' ? side : String(side), env); } catch { return NaN; }
}
