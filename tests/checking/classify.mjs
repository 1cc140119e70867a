// onnxruntime's answer on a case → its label.
//
//   valid             the session was created and the run succeeded
//   rejected-at-load  session creation failed for a reason about shapes
//   rejected-at-run   the run failed for a reason about shapes
//   other             not an answer about shapes (excluded from scoring): the unmutated test itself
//                     fails in onnxruntime, an input onnxruntime-node cannot feed, a crash, a
//                     timeout, or a message matching NON_SHAPE_PATTERNS
//
// A mutant differs from its test only in one dim of one input (and that input's content), so once
// the unmutated test runs, a failure is about that dim, unless onnxruntime says it is a limitation
// of its own: the patterns below are those messages (kept conservative: anything that reads as
// "this build/kernel cannot do it" rather than "these shapes are inconsistent").

export const LABELS = Object.freeze({ V: 'valid', L: 'rejected-at-load', R: 'rejected-at-run', O: 'other' });
export const CODE_OF = Object.freeze(Object.fromEntries(Object.entries(LABELS).map(([k, v]) => [v, k])));

/** Messages that are about onnxruntime's coverage, not about the model's shapes. */
export const NON_SHAPE_PATTERNS = Object.freeze([
  /is not a registered function\/op/, // op or domain unknown to this build
  /Could not find an implementation for/, // no kernel for this op/opset/type
  /Failed to find kernel for/,
  /ValidateOpsetForDomain|Unsupported ONNX opset|opset \d+ is under development/i, // opset newer than the build
  /not implemented|NOT_IMPLEMENTED/i,
  /\b(?:is|are) not supported\b|temporarily not supported|\bonly supports\b/, // kernel limitations
  /Unsupported data type/,
  /\bType Error\b|\[TypeInferenceError\] (?!Graph attribute inferencing failed)/, // types never change in a mutant
  /Exception during initialization/, // kernel constructors check attributes, not input shapes
  /Failed to construct locale/,
  /bad_alloc|out of memory/i,
]);

/** The op onnxruntime names in its message, or null. */
export function opInMessage(error) {
  const m = /Op \((\w+)\)/.exec(error) ??
    /running (\w+) node/.exec(error) ??
    /implementation for (\w+)\(/.exec(error) ??
    /kernel for (\w+)\(/.exec(error);
  return m ? m[1] : null;
}

/** The message without onnxruntime's boilerplate (source paths, C++ signatures), ≤ 160 characters. */
export function shortMessage(error) {
  let s = String(error ?? '');
  s = s.replace(/^Non-zero status code returned while running \w+ node\. Name:'[^']*' Status Message: /, '');
  s = s.replace(/^Node \([^)]*\) Op \(\w+\) /, '');
  s = s.replace(/^\/onnxruntime_src\/\S+:\d+ /, '');
  s = s.replace(/^\w+\.(?:cc|h):\d+ \w+ /, ''); // "concatbase.h:123 PrepareForComputeImpl "

  // "void onnxruntime::Foo::Bar(const T&, ...) const [with T = float] " before the check that failed
  s = s.replace(/^(?:static |virtual |void |std::\S+ )*[\w:<>,\s]*?onnxruntime::[\w:<>]+\([^)]*(?:\([^)]*\)[^)]*)*\)(?: const)? (?:\[with [^\]]*\] )?/, '');
  s = s.replace(/^.*\.IsOK\(\) was false\. /s, ''); // a wrapped status: keep the outer reason
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

/**
 * The label of a case from onnxruntime's answer ({ stage, error }); `unmutated` is the answer on the
 * test's unmutated case (null for the unmutated case itself).
 */
export function classify(answer, unmutated = null) {
  if (unmutated && unmutated.stage !== 'ok') return 'other';
  if (answer.stage === 'ok') return 'valid';
  if (answer.stage !== 'load' && answer.stage !== 'run') return 'other'; // feed, crash, timeout
  if (NON_SHAPE_PATTERNS.some((p) => p.test(answer.error))) return 'other';
  return answer.stage === 'load' ? 'rejected-at-load' : 'rejected-at-run';
}
