// --bind for the command line: the sizes given, read from the argument. What they decide and the
// checks that they are possible (every constraint and requirement holds, no derived size is
// negative) are js/bindings.js's, shared with result.evaluate and the demo page.
import { parseBindings } from './expr.js';

export { modelSymbols, relationText, resolveBindings } from './bindings.js';

/** `--bind` text to a Map; throws `fail(message)` on a malformed pair or a negative value. */
export function parseBindArgument(text, fail) {
  const { map, errors } = parseBindings(text);
  if (errors.length) throw fail(`--bind expects name=size pairs (sizes are integers >= 0): ${errors.join(', ')}`);
  return map;
}
