// Text the command line prints comes from the model (names, op types, dim names, doc-derived
// messages) and from the command line (paths): a name holding ESC, CR or LF would clear the
// screen, set the window title or forge table rows. Every such character is shown escaped
// instead, and long lines are wrapped to the terminal.

// C0 controls, DEL, C1 controls (U+009B is CSI on some terminals), the invisible characters that
// reorder or break what follows them (bidirectional controls, line and paragraph separators), and
// those that print as nothing at all, so that two names that differ by one look the same: U+FEFF
// (a byte order mark), zero-width spaces and joiners (U+200B-U+200D, U+2060-U+2064), the soft
// hyphen, Mongolian selectors, fillers, interlinear annotations, the deprecated format characters,
// tag characters (U+E0000-U+E007F, ASCII hidden in plain sight) and lone surrogates (no character at
// all). Variation selectors stay: they are part of emoji, and change how the character before looks.
const CONTROL = new RegExp('[\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5'
  + '\\u180b-\\u180f\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb'
  + '\\u{e0000}-\\u{e007f}]|\\p{Surrogate}', 'gu');
const NAMED = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

const hex = (c, digits) => c.codePointAt(0).toString(16).padStart(digits, '0');

/** `text` with every control or invisible character written visibly: `\x1b`, `\n`, `\u202e`, `\ufeff`, `\u{e0041}`. */
export function escapeControls(text) {
  const s = String(text);
  CONTROL.lastIndex = 0;
  if (!CONTROL.test(s)) return s;
  CONTROL.lastIndex = 0;
  return s.replace(CONTROL, (c) => {
    const code = c.codePointAt(0);
    return NAMED[c] ?? (code <= 0xff ? `\\x${hex(c, 2)}` : code <= 0xffff ? `\\u${hex(c, 4)}` : `\\u{${hex(c, 5)}}`);
  });
}

// JSON.stringify escapes C0 controls but passes DEL, C1 and the others through.
const JSON_UNESCAPED = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** JSON text with the control characters JSON.stringify leaves raw written as \u escapes: the same JSON. */
export function escapeJson(json) {
  return json.replace(JSON_UNESCAPED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The bracket depth before each character of `text` ((, [ and { open; ), ] and } close). */
function depths(text) {
  const out = new Int32Array(text.length + 1);
  let d = 0;
  for (let i = 0; i < text.length; i++) {
    out[i] = d;
    const c = text[i];
    if (c === '(' || c === '[' || c === '{') d++;
    else if ((c === ')' || c === ']' || c === '}') && d > 0) d--;
  }
  out[text.length] = d;
  return out;
}

/**
 * Where to cut text[at..] for a line of at most `w` characters: after the shallowest ', ' or
 * space (between a shape's dims rather than inside one), else after an operator or bracket, else
 * anywhere; never leaving a line under a third of `w`.
 */
function cutAt(text, at, w, depth) {
  const floor = Math.max(1, Math.ceil(w / 3));
  let best = -1;
  for (let p = w; p >= floor; p--) {
    if (text[at + p - 1] === ' ' && (best < 0 || depth[at + p] < depth[at + best])) best = p;
  }
  if (best > 0) return best;
  for (let p = w; p >= floor; p--) if (',*+-/(['.includes(text[at + p - 1])) return p;
  return w;
}

/**
 * `text` cut into lines of at most `width` characters (`rest` for the lines after the first),
 * where cutAt says; the spaces at a cut are dropped.
 */
export function wrapText(text, width, rest = width) {
  const out = [];
  const depth = depths(text);
  let at = 0;
  for (let w = Math.max(1, width); text.length - at > w; w = Math.max(1, rest)) {
    const cut = cutAt(text, at, w, depth);
    out.push(text.slice(at, at + cut).trimEnd());
    at += cut;
    while (text[at] === ' ') at++;
  }
  if (at < text.length || out.length === 0) out.push(text.slice(at));
  return out;
}

/** A line of prose wrapped to `width`, its continuation lines indented by `indent`. */
export function wrapLine(text, width, indent = '    ') {
  return wrapText(text, width, width - indent.length).map((l, i) => (i ? indent + l : l));
}
