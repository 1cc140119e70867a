// Shared setup of the browser tests and the table benchmark: the repository served by
// examples/web/serve.mjs on an ephemeral port, and Debian's headless chromium driven by
// playwright-core (no browser download). CHROMIUM=/path overrides the browser. Test files
// register tests with test(); tests/browser/demo.test.mjs imports them all and runs runTests().
import { mkdtempSync, rmSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../examples/web/serve.mjs';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

export function findChromium() {
  for (const p of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) {
    if (p && existsSync(p)) return p;
  }
  return null;
}

/** Starts the server and the browser. Returns {base, context, newPage, close, served}. */
export async function start({ viewport = { width: 1440, height: 900 } } = {}) {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('chromium not found: apt-get install -y chromium (or set CHROMIUM)');
  const served = []; // every answer of the server: { path, status, bytes }
  const server = await serve(REPO, 0, { onResponse: (r) => served.push(r) });
  const base = `http://127.0.0.1:${server.address().port}`;
  const profile = mkdtempSync(join(tmpdir(), 'onnx-shapes-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath, headless: true, viewport, args: FLAGS, timeout: 60000,
    });
  } catch (err) {
    server.close();
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }

  /** A page that records console errors and page errors in page.errors. */
  async function newPage({ colorScheme = 'light' } = {}) {
    const page = await context.newPage();
    page.errors = [];
    page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
    page.on('crash', () => page.errors.push('crash'));
    await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' }); // no slide-in mid-screenshot
    return page;
  }

  async function close() {
    await context.close().catch(() => {});
    await new Promise((r) => server.close(r));
    rmSync(profile, { recursive: true, force: true });
  }

  for (const p of context.pages()) await p.close().catch(() => {});
  return { base, context, newPage, close, served };
}

// Section - Page helpers

/** Waits until the page has shown model `name` (body[data-state=ready][data-model=name]). */
export async function waitReady(page, name, timeout = 30000) {
  await page.waitForFunction(
    (n) => document.body.dataset.state === 'ready' && document.body.dataset.model === n
      || document.body.dataset.state === 'error' && document.querySelector('#error-card h2')?.textContent.startsWith(n),
    name, { timeout },
  );
  const st = await page.evaluate(() => document.body.dataset.state);
  if (st === 'error') throw new Error(`page shows an error: ${await page.textContent('#error-card')}`);
}

/** Filters the table to `name` and returns that row's {dims, type, op, size, sizeTitle}, or null. */
/**
 * Gives sizes in the bindings box and waits until the page shows them (the inference worker counts
 * them: examples/web/sizes.js).
 */
export async function bindSizes(page, text) {
  await page.fill('#bindings-text', text);
  await page.press('#bindings-text', 'Enter');
  await sizesShown(page);
}

/** Waits until the sizes of the last binding (the box or a symbol's field) are on the page. */
export const sizesShown = (page) => page.waitForSelector('#bindings-form:not([data-pending])', { state: 'attached' });

export async function row(page, name) {
  await page.fill('#filter', name);
  await page.waitForTimeout(50);
  return page.evaluate((n) => {
    for (const r of document.querySelectorAll('#grid-rows .row')) {
      if (r.querySelector('.vname').textContent !== n) continue;
      return {
        dims: [...r.querySelectorAll('.c-shape .dim')].map((d) => d.textContent),
        shapeText: r.querySelector('.c-shape').textContent,
        type: r.querySelector('.c-type').textContent,
        op: r.querySelector('.c-op .opname')?.textContent ?? '',
        node: r.querySelector('.c-op .nodename')?.textContent ?? '',
        size: r.querySelector('.c-size').textContent,
        sizeTitle: r.querySelector('.c-size').getAttribute('title'),
        v: Number(r.dataset.v),
      };
    }
    return null;
  }, name);
}

// Section - Test registry and runner

export const SHOTS = join(REPO, 'build/screenshots');
export const ctx = { env: null, page: null }; // env: start()'s; page: the current flow's page (screenshots on failure)
const tests = [];

/** Registers a test. There is no skipping: a test whose prerequisite is missing fails. */
export function test(name, fn) {
  tests.push({ name, fn });
}

/** A fresh page on the demo, once the engine is ready. */
export async function openPage({ colorScheme } = {}) {
  const page = await ctx.env.newPage({ colorScheme });
  ctx.page = page;
  await page.goto(`${ctx.env.base}/examples/web/`);
  await engineReady(page);
  return page;
}

/**
 * Waits until the demo page's engine is ready (body[data-engine]); throws at once, with the
 * page's error card, when the engine could not be loaded (the LOAD error) instead of waiting out
 * the timeout.
 */
export async function engineReady(page, timeout = 60000) {
  await page.waitForFunction(() => document.body.dataset.engine || document.body.dataset.state === 'error', null, { timeout });
  if (!await page.evaluate(() => document.body.dataset.engine)) {
    throw new Error(`the page's engine did not load: ${(await page.textContent('#error-card').catch(() => ''))?.trim()}`);
  }
}

/** What the tests need and is missing (the built engine), as sentences; empty when all is there. */
export function missingPrerequisites() {
  const missing = [];
  for (const f of ['dist/onnx_shapes.mjs', 'dist/onnx_shapes.wasm']) {
    if (!existsSync(join(REPO, f))) missing.push(`${f} is missing: the engine is not built (npm run build, or bash .ci/setup.sh)`);
  }
  if (!findChromium()) missing.push('chromium is not installed (apt-get install -y chromium, or set CHROMIUM=/path)');
  return missing;
}

/**
 * Loads the demo page once and waits for its engine (60 s at most): when the engine cannot run
 * in the browser every test would wait out its own timeout, so the run stops here with the cause.
 */
async function engineLoads(env) {
  const page = await env.newPage();
  try {
    await page.goto(`${env.base}/examples/web/`);
    await engineReady(page);
  } finally {
    await page.close().catch(() => {});
  }
}

/** Runs every registered test; prints "N passed, N failed" and sets the exit code. */
export async function runTests() {
  mkdirSync(SHOTS, { recursive: true });
  let passed = 0;
  let failed = 0;
  const stop = (why) => {
    console.log(`cannot run the browser tests: ${why}`);
    console.log(`0 passed, ${tests.length} failed`);
    process.exit(1);
  };
  const missing = missingPrerequisites();
  if (missing.length) stop(missing.join('; '));
  try {
    ctx.env = await start();
  } catch (err) {
    stop(`cannot start the browser: ${err.message}`);
  }
  try {
    await engineLoads(ctx.env);
  } catch (err) {
    await ctx.env.close();
    stop(err.message.split('\n')[0]);
  }
  // BROWSER_TESTS=regex runs only the matching tests (while working on the page); the others are
  // reported as not run, which .ci/run counts as failures (it never sets BROWSER_TESTS).
  const only = process.env.BROWSER_TESTS ? new RegExp(process.env.BROWSER_TESTS) : null;
  let notRun = 0;
  try {
    for (const t of tests) {
      if (only && !only.test(t.name)) {
        notRun++;
        continue;
      }
      const t0 = Date.now();
      try {
        await t.fn();
        passed++;
        console.log(`ok    ${t.name} (${Date.now() - t0} ms)`);
      } catch (err) {
        failed++;
        console.log(`FAIL  ${t.name}\n      ${String(err.stack || err).split('\n').slice(0, 6).join('\n      ')}`);
        const p = ctx.page;
        if (p && !p.isClosed()) await p.screenshot({ path: join(SHOTS, `fail-${tests.indexOf(t)}.png`) }).catch(() => {});
      }
    }
  } finally {
    await ctx.env.close();
  }
  writeFileSync(join(SHOTS, 'README.txt'), `Screenshots of tests/browser/*.test.mjs: ${readdirSync(SHOTS).filter((f) => f.endsWith('.png')).join(', ')}\n`);
  console.log(`${passed} passed, ${failed} failed${notRun ? `, ${notRun} skipped (BROWSER_TESTS)` : ''}`);
  process.exitCode = failed ? 1 : 0;
}
