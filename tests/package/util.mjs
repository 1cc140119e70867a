// Shared by the package tests: a tiny check runner, child processes, and "the package as users get
// it" — `npm pack` of the repository installed into a fresh project outside it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const MODEL = join(REPO, 'examples/models/tiny_decoder.onnx');

// Section - Checks

/** A list of named checks; run() prints each and "N passed, N failed", and returns the exit code. */
export function checks() {
  const list = [];
  let passed = 0;
  let failed = 0;
  return {
    add(name, fn) { list.push({ name, fn }); },
    async run() {
      for (const { name, fn } of list) {
        const t0 = Date.now();
        try {
          const note = await fn();
          passed++;
          console.log(`ok   ${name} (${Date.now() - t0} ms)${note ? ` — ${note}` : ''}`);
        } catch (err) {
          failed++;
          console.log(`FAIL ${name} (${Date.now() - t0} ms)\n     ${String(err?.stack ?? err).split('\n').join('\n     ')}`);
        }
      }
      console.log(`${passed} passed, ${failed} failed`);
      return failed ? 1 : 0;
    },
  };
}

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

export function assertEqual(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

// Section - Processes

/**
 * Runs a command; returns { status, stdout, stderr, ms }. The environment is the caller's minus
 * anything that could make Node find modules outside the project (NODE_PATH, NODE_OPTIONS).
 */
export function run(cmd, args, { cwd, env = {}, input, timeout = 300000 } = {}) {
  const base = { ...process.env };
  delete base.NODE_PATH;
  delete base.NODE_OPTIONS;
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd, env: { ...base, ...env }, input, encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error, ms: Date.now() - t0 };
}

/** run(), throwing with the output when it does not exit 0. */
export function runOk(cmd, args, opts) {
  const r = run(cmd, args, opts);
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ''}\n${r.stdout}\n${r.stderr}`.trim());
  }
  return r;
}

// Section - The packed package

/** A fresh temporary folder (outside the repository); remove() deletes it unless KEEP_TMP=1. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  assert(!dir.startsWith(REPO + sep), `temp dir ${dir} is inside the repository`);
  return { dir, remove: () => { if (!process.env.KEEP_TMP) rmSync(dir, { recursive: true, force: true }); } };
}

/** `npm pack` of the repository into `dest`: { tarball, files: [path...], size, unpackedSize, ms }. */
export function pack(dest) {
  mkdirSync(dest, { recursive: true });
  const r = runOk('npm', ['pack', '--json', '--pack-destination', dest], { cwd: REPO });
  const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')));
  return {
    tarball: join(dest, info.filename),
    files: info.files.map((f) => f.path).sort(),
    size: info.size,
    unpackedSize: info.unpackedSize,
    ms: r.ms,
  };
}

/**
 * Makes `dir` an npm project (package.json with `pkg` merged in) and installs `specs` into it.
 * The package has no dependencies, so --offline works for the tarball; registry packages fall back
 * to a normal install. Returns { ms, offline }.
 */
export function installInto(dir, specs, { pkg = {}, dev = false } = {}) {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) {
    writeFileSync(manifest, `${JSON.stringify({ name: 'onnx-shapes-consumer', version: '1.0.0', private: true, ...pkg }, null, 2)}\n`);
  }
  const args = ['install', '--no-audit', '--no-fund', '--no-package-lock', ...(dev ? ['--save-dev'] : []), ...specs];
  let r = run('npm', [...args, '--offline'], { cwd: dir });
  if (r.status === 0) return { ms: r.ms, offline: true };
  r = runOk('npm', [...args, '--fetch-retries=1', '--fetch-timeout=30000'], { cwd: dir });
  return { ms: r.ms, offline: false };
}

/** node_modules folders Node could search from `dir` other than dir/node_modules. */
export function strayNodeModules(dir) {
  const found = [];
  for (let d = dirname(resolve(dir)); ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules'))) found.push(join(d, 'node_modules'));
    if (dirname(d) === d) break;
  }
  return found;
}

export const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));

// Section - Browser

/**
 * Headless Debian chromium through playwright-core (tests/browser/harness.mjs finds it; CHROMIUM
 * overrides). Returns { open(url) → page, close() }; page.errors collects console errors, page
 * errors, crashes, failed requests and HTTP errors (>= 400); page.warnings the console warnings
 * (Emscripten's "wasm streaming compile failed" fallback, for one, is only a warning).
 */
export async function browser() {
  const [{ chromium }, { findChromium }] = await Promise.all([import('playwright-core'), import('../browser/harness.mjs')]);
  const executablePath = findChromium();
  if (!executablePath) throw new Error('chromium not found: apt-get install -y chromium (or set CHROMIUM)');
  const b = await chromium.launch({
    executablePath,
    headless: true,
    timeout: 60000,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  return {
    async open(url) {
      const page = await b.newPage();
      page.errors = [];
      page.warnings = [];
      page.on('console', (m) => {
        if (m.type() === 'error') page.errors.push(`console: ${m.text()}`);
        if (m.type() === 'warning') page.warnings.push(m.text());
      });
      page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
      page.on('crash', () => page.errors.push('crash'));
      page.on('response', (r) => { if (r.status() >= 400) page.errors.push(`HTTP ${r.status()} ${r.url()}`); });
      page.on('requestfailed', (r) => page.errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
      await page.goto(url);
      return page;
    },
    close: () => b.close(),
  };
}

/** Waits for body[data-state] to be 'ready' or 'error'; returns { state, text: #out's text }. */
export async function pageResult(page, timeout = 30000) {
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { timeout });
  return page.evaluate(() => ({ state: document.body.dataset.state, text: document.querySelector('#out').textContent }));
}
