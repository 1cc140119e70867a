// A Chromium trace of what an action makes the page do, for the browser benchmarks: each task's
// wall (dur) and CPU (tdur, thread time) in microseconds. CPU is what a shared machine's load
// barely changes: a task of 10 ms CPU may take 200 ms wall there while it waits for a core.

const TIMELINE = 'disabled-by-default-devtools.timeline';

/**
 * Runs `action` while tracing `cdp`'s page (a CDP session); returns `{ value, events, threadOf }`:
 * what the action returned, every trace event, and `threadOf(e)`, the name of the thread an event
 * ran on ('CrRendererMain' for the page's main thread, 'DedicatedWorker thread' for a worker).
 * `marks`: also record `performance.mark`s (user timing).
 */
export async function recordTrace(cdp, action, { marks = false } = {}) {
  const events = [];
  const onData = (e) => events.push(...e.value);
  cdp.on('Tracing.dataCollected', onData);
  const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  const categories = marks ? `${TIMELINE},blink.user_timing` : TIMELINE;
  await cdp.send('Tracing.start', { categories, transferMode: 'ReportEvents' });
  const value = await action();
  await cdp.send('Tracing.end');
  await complete;
  cdp.off('Tracing.dataCollected', onData);
  const names = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  return { value, events, threadOf: (e) => names.get(`${e.pid}:${e.tid}`) };
}

/** The complete tasks of a trace (RunTask events with their duration). */
export const tasksOf = (events) => events.filter((e) => e.name === 'RunTask' && e.ph === 'X');
