// Shared paths and checks for the Jest suites (not a test file: see testMatch in package.json).
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** ../shared beside the checkout, or OSI_SHARED_DIR (.ci/shared_dir.sh sets it for clones made elsewhere). */
export const SHARED = process.env.OSI_SHARED_DIR || resolve(REPO, '../shared');
/** The ONNX backend test data. */
export const BACKEND = join(SHARED, 'onnx-backend');

/**
 * A file or folder of the shared test data (`../shared`, or OSI_SHARED_DIR), which must be there:
 * a missing one throws, so a suite that would run nothing fails instead of passing.
 */
export function sharedPath(...parts) {
  const p = join(SHARED, ...parts);
  if (!existsSync(p)) {
    throw new Error(`${p} is absent: the tests read the ONNX backend tests and spec from ../shared ` +
      '(set OSI_SHARED_DIR; see .ci/shared_dir.sh)');
  }
  return p;
}

/** sharedPath under onnx-backend/. */
export const backendPath = (...parts) => sharedPath('onnx-backend', ...parts);

/**
 * [{ name, path, outputs }]: light/*.onnx (outputs: [their *_output_0.pb]) and simple/* /model.onnx
 * (outputs: test_data_set_0/output_<k>.pb in order). Throws when the data is absent.
 */
export function backendModels() {
  const lightDir = backendPath('light');
  const light = readdirSync(lightDir)
    .filter((f) => f.endsWith('.onnx'))
    .sort()
    .map((f) => ({
      name: `light/${f}`,
      path: join(lightDir, f),
      outputs: [backendPath('light', f.replace(/\.onnx$/, '_output_0.pb'))],
    }));
  const simpleDir = backendPath('simple');
  const simple = readdirSync(simpleDir)
    .sort()
    .map((d) => {
      const data = backendPath('simple', d, 'test_data_set_0');
      const outputs = readdirSync(data)
        .filter((f) => /^output_\d+\.pb$/.test(f))
        .sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0]))
        .map((f) => join(data, f));
      return { name: `simple/${d}`, path: backendPath('simple', d, 'model.onnx'), outputs };
    });
  if (light.length < 5 || simple.length < 5) throw new Error(`too few backend models in ${BACKEND}`);
  return [...light, ...simple];
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

/** What fn throws (null when it returns). */
export function thrown(fn) {
  try {
    fn();
    return null;
  } catch (err) {
    return err;
  }
}
