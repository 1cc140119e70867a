// examples/web/event_log.js: the event log "Why this shape" reads, kept in the page's worker: a
// value's own events in the engine's order, and the renames and constraints that mention its
// symbols (not its own again), each list bounded.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { init } from '../../js/index.js';
import { eventLog } from '../../examples/web/event_log.js';
import { REPO } from './helpers.js';

let engine;
beforeAll(async () => {
  engine = await init();
});

test('tiny_decoder: present_key\'s events are the log\'s entries about it, in order; its symbols\' constraints apart', () => {
  const { events } = engine.inferShapes(readFileSync(join(REPO, 'examples/models/tiny_decoder.onnx')), { events: true });
  const log = eventLog(events);
  expect(log.count).toBe(events.length);
  const own = events.filter((e) => e.value === 'present_key' && !e.path);
  expect(own.length).toBeGreaterThan(0);
  const got = log.forValue('present_key', ['total_seq', 'past_seq', 'seq']);
  expect(got.events).toEqual(own);
  expect(got.count).toBe(own.length);
  expect(got.anchored).toBe(own.some((e) => e.kind === 'anchor'));
  for (const e of got.symbolEvents) {
    expect(['constraint', 'rename']).toContain(e.kind);
    expect(own).not.toContain(e);
    expect(String(e.detail)).toMatch(/total_seq|past_seq|(^|[^A-Za-z0-9_'])seq($|[^A-Za-z0-9_'])/);
  }
  // the constraint past_seq+seq == total_seq is recorded somewhere in the log
  expect(got.symbolEvents.length).toBeGreaterThan(0);
  expect(log.forValue('no such value', [])).toEqual({ events: [], count: 0, anchored: false, symbolEvents: [] });
});
