// The event log behind "Why this shape", kept in the inference worker (worker.js): the page asks
// for what one panel shows (a value's events, the renames and constraints that mention its
// symbols) and gets those alone. A 100k-node model's log is 23-32 MB of JSON: crossing to the
// page and parsed there on the first panel, it took the page's thread one task of 0.4-0.7 s CPU.
import { printSymbol } from '../../js/expr.js';

/** At most this many events of one value cross (the panel lists them all up to here). */
const VALUE_EVENTS = 100;
/** At most this many renames and constraints that mention the value's symbols. */
const SYMBOL_EVENTS = 50;

const reEscape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The log `events` (the engine's result.events) as what a panel asks of it: `forValue(key, syms)`
 * gives { events (about value `key`, path + name, in order), count (of them all), anchored
 * (one is an anchor: the declared shape was reconciled), symbolEvents (renames and constraints
 * that mention one of `syms`, not among the value's own) }. The index by value is made on the
 * first question.
 */
export function eventLog(events) {
  let byValue = null;
  const symbolRe = new Map();
  const mentions = (text, sym) => {
    let re = symbolRe.get(sym);
    if (!re) symbolRe.set(sym, (re = new RegExp(`(^|[^A-Za-z0-9_'])${reEscape(printSymbol(sym))}($|[^A-Za-z0-9_'])`)));
    return re.test(text);
  };
  return {
    count: events.length,
    forValue(key, syms) {
      if (!byValue) {
        byValue = new Map();
        for (const e of events) {
          if (!e || typeof e !== 'object' || !e.value) continue;
          const k = (e.path || '') + e.value;
          const list = byValue.get(k);
          if (list) list.push(e);
          else byValue.set(k, [e]);
        }
      }
      const own = byValue.get(key) ?? [];
      const symbolEvents = [];
      if (syms.length) {
        const ownSet = new Set(own);
        for (const e of events) {
          if (!e || (e.kind !== 'constraint' && e.kind !== 'rename') || ownSet.has(e)) continue;
          const text = String(e.detail ?? '');
          if (syms.some((s) => mentions(text, s))) symbolEvents.push(e);
          if (symbolEvents.length >= SYMBOL_EVENTS) break;
        }
      }
      return { events: own.slice(0, VALUE_EVENTS), count: own.length, anchored: own.some((e) => e.kind === 'anchor'), symbolEvents };
    },
  };
}
