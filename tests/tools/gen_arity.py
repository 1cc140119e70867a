#!/usr/bin/python3
"""Writes src/ops/op_arity_table.h, how many inputs and outputs each operator version takes,
from the ONNX spec's markdown (the shared spec folder, see .ci/shared_dir.sh):

  Changelog.md         every version of ai.onnx, ai.onnx.preview, ai.onnx.preview.training ops
  Changelog-ml.md      every version of ai.onnx.ml ops
  ContribOperators.md  com.microsoft ops (one version each)

Each op version's "#### Inputs (min - max)" / "#### Outputs (min - max)" heading gives the counts
(a plain "#### Inputs" means exactly as many as it lists, "&#8734;" no maximum), and each listed
formal is single (required), optional or variadic. Operators.md and Operators-ml.md hold the newest
version of each op only: the script checks that they agree with the changelogs' newest rows.

  /usr/bin/python3 tests/tools/gen_arity.py            rewrite the table
  /usr/bin/python3 tests/tools/gen_arity.py --check    exit 1 when the committed table differs
                                                     (tests/js/arity.test.js runs this)
The spec folder is $OSI_SHARED_DIR/onnx-spec, else ../shared/onnx-spec next to the repository.
"""
import html
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(REPO, 'src', 'ops', 'op_arity_table.h')
UNBOUNDED = 0x7fffffff  # "&#8734;" in the spec, INT32_MAX in the table

HEADING_OP = re.compile(r'^### (?:<sub>experimental</sub> )?<a name="([^"]+)"></a>')
PREFIXES = ('ai.onnx.preview.training', 'ai.onnx.preview', 'ai.onnx.ml', 'com.microsoft')
SINCE = re.compile(r"(available|deprecated) since version (\d+) of (?:the default ONNX operator set|the '([^']+)' operator set)")
COUNTS = re.compile(r'^#### (Inputs|Outputs)(?: \((\d+) - (\d+|&#8734;)\))?\s*$')
FORMAL = re.compile(r'^<dt><tt>[^<]*</tt>(?: \(([^)]*)\))?')


def spec_dir():
    shared = os.environ.get('OSI_SHARED_DIR') or os.path.join(os.path.dirname(REPO), 'shared')
    d = os.path.join(shared, 'onnx-spec')
    if not os.path.isfile(os.path.join(d, 'Changelog.md')):
        sys.exit(f'gen_arity: no ONNX spec at {d} (set OSI_SHARED_DIR)')
    return d


def parse(path, default_domain):
    """Rows (domain, op, since, min_in, max_in, min_out, max_out, in_kinds, out_kinds) of one file."""
    rows, cur, section = [], None, None
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')

    def finish():
        if cur is None:
            return
        if cur['since'] is None:
            # Experimental ops ("No versioning maintained") carry their version in the name only.
            # (without one, on the operator pages, they are version 1 of a domain other than ai.onnx).
            m = re.search(r'-(\d+)$', cur['name'])
            if not m and cur['domain'] == 'ai.onnx':
                sys.exit(f'gen_arity: {path}: no version for {cur["name"]}')
            cur['since'] = int(m.group(1)) if m else 1
        if cur['deprecated']:
            # The spec lists no signature for a deprecated version (Scatter-11, Upsample-10): a row that
            # checks nothing, so the older signature is not applied past it.
            rows.append((cur['domain'], cur['op'], cur['since'], 0, UNBOUNDED, 0, UNBOUNDED, '', ''))
            return
        for side in ('in', 'out'):
            kinds = cur[side + '_kinds']
            declared = cur[side + '_range']
            # Without a range the spec means exactly the formals it lists (an optional one before a
            # single one, as GRU-1's Y, still takes its place).
            lo, hi = declared if declared else (len(kinds), len(kinds))
            # The range must follow from the formals: every single formal up to the last one counts,
            # a trailing variadic one allows any number past it.
            last_single = max((i + 1 for i, k in enumerate(kinds) if k == 'r'), default=0)
            if lo < last_single or lo > len(kinds) or (hi == UNBOUNDED) != (bool(kinds) and kinds[-1] == 'v'):
                sys.exit(f'gen_arity: {path}: {cur["name"]} {side}puts ({lo} - {hi}) do not match formals {kinds}')
            if hi != UNBOUNDED and hi != len(kinds):
                sys.exit(f'gen_arity: {path}: {cur["name"]} {side}puts ({lo} - {hi}) do not match formals {kinds}')
            cur[side] = (lo, hi)
        rows.append((cur['domain'], cur['op'], cur['since'], *cur['in'], *cur['out'],
                     cur['in_kinds'], cur['out_kinds']))

    for line in lines:
        m = HEADING_OP.match(line)
        if m:
            finish()
            name = m.group(1)
            # Ops outside the file's own domain are named with it: ai.onnx.preview.training.Adam-1.
            op, domain = re.sub(r'-\d+$', '', name), default_domain
            for p in PREFIXES:
                if op.startswith(p + '.'):
                    op, domain = op[len(p) + 1:], p
                    break
            cur = {'name': name, 'op': op, 'domain': domain, 'since': None, 'in_kinds': '', 'out_kinds': '',
                   'in_range': None, 'out_range': None, 'deprecated': False}
            section = None
            continue
        if cur is None:
            continue
        m = SINCE.search(line)
        if m and cur['since'] is None:
            cur['since'] = int(m.group(2))
            cur['deprecated'] = m.group(1) == 'deprecated'
            if m.group(3):
                cur['domain'] = m.group(3)
            continue
        m = COUNTS.match(line)
        if m:
            section = 'in' if m.group(1) == 'Inputs' else 'out'
            if m.group(2):
                hi = UNBOUNDED if m.group(3) == '&#8734;' else int(m.group(3))
                cur[section + '_range'] = (int(m.group(2)), hi)
            continue
        if line.startswith('#### '):
            section = None
            continue
        if section and line.startswith('</dl>'):
            section = None
            continue
        m = FORMAL.match(line) if section else None
        if m:
            tags = [t.strip() for t in (m.group(1) or '').split(',')]
            kind = 'v' if 'variadic' in tags else 'o' if 'optional' in tags else 'r'
            cur[section + '_kinds'] += kind
    finish()
    return rows


def newest(rows):
    out = {}
    for r in rows:
        key = (r[0], r[1])
        if key not in out or out[key][2] < r[2]:
            out[key] = r
    return out


def domain_name(d):
    return '' if d == 'ai.onnx' else d


def build():
    d = spec_dir()
    onnx = parse(os.path.join(d, 'Changelog.md'), 'ai.onnx')
    ml = parse(os.path.join(d, 'Changelog-ml.md'), 'ai.onnx.ml')
    contrib = parse(os.path.join(d, 'ContribOperators.md'), 'com.microsoft')
    # The operator pages repeat each op's newest version: they must say the same.
    for changelog, page, dom in ((onnx, 'Operators.md', 'ai.onnx'), (ml, 'Operators-ml.md', 'ai.onnx.ml')):
        latest = newest(changelog)
        for key, r in newest(parse(os.path.join(d, page), dom)).items():
            if latest.get(key) != r:
                sys.exit(f'gen_arity: {page} and the changelog disagree on {key}: {r} vs {latest.get(key)}')
    rows = sorted({(domain_name(r[0]), *r[1:]) for r in onnx + ml + contrib},
                  key=lambda r: (r[0].encode(), r[1].encode(), r[2]))
    for a, b in zip(rows, rows[1:]):
        if a[:3] == b[:3]:
            sys.exit(f'gen_arity: two rows for {a[:3]}')
    return rows


def render(rows):
    def count(v):
        return 'OSI_ARITY_ANY' if v == UNBOUNDED else str(v)
    out = [
        '/* Generated by tests/tools/gen_arity.py from the ONNX spec (Changelog.md, Changelog-ml.md,',
        ' * ContribOperators.md): do not edit; rerun the script. tests/js/arity.test.js fails when this',
        ' * table and the spec differ. One row per operator version, sorted by domain, op (byte order)',
        ' * and version. Columns: domain ("" is ai.onnx), op type, first opset version of this',
        ' * signature, min and max inputs, min and max outputs (OSI_ARITY_ANY: no maximum), and one',
        ' * letter per formal input / output: r single (required), o optional, v variadic. */',
    ]
    for r in rows:
        dom, op, since, lo_i, hi_i, lo_o, hi_o, kin, kout = r
        out.append(f'OSI_ARITY("{dom}", "{op}", {since}, {count(lo_i)}, {count(hi_i)}, '
                   f'{count(lo_o)}, {count(hi_o)}, "{kin}", "{kout}")')
    return '\n'.join(out) + '\n'


def main():
    text = render(build())
    if '--check' in sys.argv[1:]:
        try:
            with open(TABLE, encoding='utf-8') as f:
                committed = f.read()
        except OSError:
            committed = None
        if committed != text:
            sys.exit(f'gen_arity: {os.path.relpath(TABLE, REPO)} differs from the spec: '
                     'run /usr/bin/python3 tests/tools/gen_arity.py and commit the result')
        print(f'gen_arity: {os.path.relpath(TABLE, REPO)} matches the spec')
        return
    with open(TABLE, 'w', encoding='utf-8') as f:
        f.write(text)
    print(f'gen_arity: wrote {text.count(chr(10)) - 6} rows to {os.path.relpath(TABLE, REPO)}')


if __name__ == '__main__':
    main()
