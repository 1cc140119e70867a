// Shared paths and checks for the Jest suites (not a test file: see testMatch in package.json).
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** ../shared beside the checkout, or OSI_SHARED_DIR (.ci/shared_dir.sh sets it for clones made elsewhere). */
export const SHARED = process.env.OSI_SHARED_DIR || resolve(REPO, '../shared');
/** The ONNX backend test data. */
export const BACKEND = join(SHARED, 'onnx-backend');
export const HAVE_BACKEND = existsSync(join(BACKEND, 'light'));

/** [{ name, path, expected? }]: light/*.onnx (with their *_output_0.pb) and simple/* /model.onnx. */
export function backendModels() {
  if (!HAVE_BACKEND) return [];
  const light = readdirSync(join(BACKEND, 'light'))
    .filter((f) => f.endsWith('.onnx'))
    .sort()
    .map((f) => ({
      name: `light/${f}`,
      path: join(BACKEND, 'light', f),
      expected: join(BACKEND, 'light', f.replace(/\.onnx$/, '_output_0.pb')),
    }));
  const simpleDir = join(BACKEND, 'simple');
  const simple = existsSync(simpleDir)
    ? readdirSync(simpleDir)
      .filter((d) => existsSync(join(simpleDir, d, 'model.onnx')))
      .sort()
      .map((d) => ({ name: `simple/${d}`, path: join(simpleDir, d, 'model.onnx') }))
    : [];
  return [...light, ...simple];
}

/** describe(), or describe.skip() with a console message when ../shared/onnx-backend is absent. */
export function describeWithBackend(title, fn) {
  if (!HAVE_BACKEND) {
    console.warn(`skipping "${title}": ${BACKEND} is absent`);
    return describe.skip(title, fn);
  }
  return describe(title, fn);
}

const KINDS = ['tensor', 'sequence', 'map', 'optional'];

/**
 * Checks that `t` is a well-formed getShape() type; returns a list of problems (empty when fine),
 * so that a failing expect() prints all of them with the value name.
 */
export function typeProblems(t, where = 'type') {
  if (t === null || typeof t !== 'object') return [`${where}: not an object: ${JSON.stringify(t)}`];
  if (!KINDS.includes(t.kind)) return [`${where}: bad kind ${JSON.stringify(t.kind)}`];
  const problems = [];
  const elemTypeOk = (e) => e === null || (typeof e === 'string' && /^[a-z][a-z0-9]*$/.test(e));
  switch (t.kind) {
    case 'tensor':
      if (!elemTypeOk(t.elemType)) problems.push(`${where}: bad elemType ${JSON.stringify(t.elemType)}`);
      if (t.dims !== null && !Array.isArray(t.dims)) problems.push(`${where}: dims neither array nor null`);
      for (const d of t.dims ?? []) {
        const ok = d === null ||
          (typeof d === 'number' && Number.isSafeInteger(d) && d >= 0) ||
          (typeof d === 'string' && d.length > 0 && !/^-?\d+$/.test(d));
        if (!ok) problems.push(`${where}: bad dim ${JSON.stringify(d)} in ${JSON.stringify(t.dims)}`);
      }
      break;
    case 'sequence':
    case 'optional':
      if (t.elem !== null) problems.push(...typeProblems(t.elem, `${where}.elem`));
      break;
    case 'map':
      if (!elemTypeOk(t.keyType) || t.keyType === null) problems.push(`${where}: bad keyType ${t.keyType}`);
      problems.push(...typeProblems(t.value, `${where}.value`));
      break;
    default:
      break;
  }
  return problems;
}
