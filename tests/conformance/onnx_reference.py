#!/usr/bin/python3
"""onnx's own shape inference, scored the way build/conformance scores onnx-shapes.

    /usr/bin/python3 tests/conformance/onnx_reference.py [NODE_DIR] [--data-prop on|off|both]
                                   [--only SUBSTRING] [--engine RESULTS] [--verbose]

NODE_DIR defaults to $OSI_SHARED_DIR/onnx-backend/node, else ../shared/onnx-backend/node.
It runs onnx.shape_inference.infer_shapes (check_type=False, strict_mode=False, data_prop as
asked; both by default) on the same two variants of every <test>/model.onnx that
tests/c/conformance.c builds, and prints exact / unknown / wrong / error / skipped per variant:

  plain     declared shapes of the graph outputs and every top-level value_info removed
            (element types kept); a dim_param an input declares is bound to the real size of
            input_<i>.pb (a name bound to two different sizes is bound to none);
  symbolic  plain, and every dim of every tensor graph input (initializers excepted) becomes a
            fresh dim_param "in<i>_d<j>", bound to dim j of input_<i>.pb (or to the declared
            dim_value when that file is missing or of another rank).

Each tensor graph output is compared with test_data_set_0/output_<k>.pb (element type + dims):
exact = element type, rank and every dim known and equal (a dim_param counts when it is bound
and its size is the expected one); unknown = something unknown, nothing contradicting; wrong = a
known fact that differs; error = infer_shapes raised (every output of the case); skipped = the
output is not a tensor or its expected tensor is missing. The exact % is over all but skipped.
The figures are given for every test, and again for the tests that import only opsets this onnx
registers (an op newer than that it cannot know: its outputs stay unknown). With --engine, the
same rows for onnx-shapes, read from the per-output results build/conformance writes.
This is a measurement for the README, not a test: it exits 0 whatever it finds.
"""
import argparse
import os
import sys
import time

import onnx
import onnx.defs
import onnx.shape_inference

EXACT, UNKNOWN, WRONG, ERROR, SKIPPED = "exact", "unknown", "wrong", "error", "skipped"
CLASSES = (EXACT, UNKNOWN, WRONG, ERROR, SKIPPED)
VARIANTS = ("plain", "symbolic")
CONFLICT = object()  # a symbol bound to two sizes: it evaluates to nothing, as in conformance.c


def default_node_dir():
    shared = os.environ.get("OSI_SHARED_DIR") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared")
    return os.path.join(shared, "onnx-backend", "node")


def load_tensor(path):
    """The TensorProto in a .pb file, None when it is missing or does not parse."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        t = onnx.TensorProto()
        t.ParseFromString(data)
        return t
    except Exception:
        return None


def strip_shapes(tp, depth=0):
    """Drops every shape inside a type (nested element types too)."""
    if depth > 32:
        return
    which = tp.WhichOneof("value")
    if which == "tensor_type":
        tp.tensor_type.ClearField("shape")
    elif which == "sparse_tensor_type":
        tp.sparse_tensor_type.ClearField("shape")
    elif which == "sequence_type":
        strip_shapes(tp.sequence_type.elem_type, depth + 1)
    elif which == "optional_type":
        strip_shapes(tp.optional_type.elem_type, depth + 1)
    elif which == "map_type":
        strip_shapes(tp.map_type.value_type, depth + 1)


def bind(bindings, name, value):
    if bindings.get(name, value) != value:
        bindings[name] = CONFLICT
    elif name not in bindings:
        bindings[name] = value


def make_variant(model_bytes, inputs, symbolic):
    """The edited model, the names of its outputs (and whether each is a tensor), the bindings."""
    m = onnx.ModelProto()
    m.ParseFromString(model_bytes)
    g = m.graph
    outputs = []
    for o in g.output:
        outputs.append((o.name, o.type.WhichOneof("value") == "tensor_type"))
        strip_shapes(o.type)
    del g.value_info[:]
    initializers = {t.name for t in g.initializer}
    bindings = {}
    di = 0
    for vi in g.input:
        if vi.name in initializers:
            continue
        pb = inputs[di] if di < len(inputs) else None
        i, di = di, di + 1
        tp = vi.type
        if tp.WhichOneof("value") != "tensor_type" or not tp.tensor_type.HasField("shape"):
            continue
        dims = vi.type.tensor_type.shape.dim
        pb_ok = pb is not None and len(pb.dims) == len(dims)
        for j, d in enumerate(dims):
            if pb_ok:
                value = pb.dims[j]
            elif d.WhichOneof("value") == "dim_value":
                value = d.dim_value
            else:
                value = None
            if symbolic:
                name = "in%d_d%d" % (i, j)
                d.dim_param = name  # the oneof drops any dim_value
                if value is not None:
                    bind(bindings, name, value)
            elif d.WhichOneof("value") == "dim_param" and d.dim_param and pb_ok:
                bind(bindings, d.dim_param, pb.dims[j])
    return m, outputs, bindings


def classify(tp, expected, bindings):
    """exact / unknown / wrong for one tensor output, as tests/c/conformance.c's classify()."""
    if tp is None or tp.WhichOneof("value") is None:
        return UNKNOWN
    if tp.WhichOneof("value") != "tensor_type":
        return WRONG
    tt = tp.tensor_type
    unknown = False
    if tt.elem_type == 0:
        unknown = True
    elif tt.elem_type != expected.data_type:
        return WRONG
    if not tt.HasField("shape"):
        return UNKNOWN
    if len(tt.shape.dim) != len(expected.dims):
        return WRONG
    for d, want in zip(tt.shape.dim, expected.dims):
        which = d.WhichOneof("value")
        if which == "dim_value":
            value = d.dim_value
        elif which == "dim_param" and bindings.get(d.dim_param, CONFLICT) is not CONFLICT:
            value = bindings[d.dim_param]
        else:
            unknown = True
            continue
        if value != want:
            return WRONG
    return UNKNOWN if unknown else EXACT


def type_str(tp):
    if tp is None or tp.WhichOneof("value") != "tensor_type":
        return "(none)" if tp is None else "(%s)" % tp.WhichOneof("value")
    tt = tp.tensor_type
    if not tt.HasField("shape"):
        return "%d[*]" % tt.elem_type
    dims = [str(d.dim_value) if d.WhichOneof("value") == "dim_value" else d.dim_param or "?"
            for d in tt.shape.dim]
    return "%d[%s]" % (tt.elem_type, ",".join(dims))


def known_opsets(m):
    """Whether onnx registers every opset the model imports (1.12 knows ai.onnx up to 17)."""
    known = onnx.defs.C.schema_version_map()
    for o in m.opset_import:
        domain = "" if o.domain == "ai.onnx" else o.domain
        if domain not in known or o.version > known[domain][1]:
            return False
    return True


def run_case(test_dir, name, counts, data_props, verbose):
    with open(os.path.join(test_dir, "model.onnx"), "rb") as f:
        model_bytes = f.read()
    m = onnx.ModelProto()
    m.ParseFromString(model_bytes)
    subsets = ("all", "known") if known_opsets(m) else ("all",)
    initializers = {t.name for t in m.graph.initializer}
    n_data = sum(1 for vi in m.graph.input if vi.name not in initializers)
    data = os.path.join(test_dir, "test_data_set_0")
    inputs = [load_tensor(os.path.join(data, "input_%d.pb" % i)) for i in range(n_data)]
    expected = [load_tensor(os.path.join(data, "output_%d.pb" % k))
                for k in range(len(m.graph.output))]
    for variant in VARIANTS:
        for dp in data_props:
            edited, outputs, bindings = make_variant(model_bytes, inputs, variant == "symbolic")
            try:
                inferred = onnx.shape_inference.infer_shapes(
                    edited, check_type=False, strict_mode=False, data_prop=dp)
                types = {vi.name: vi.type for vi in inferred.graph.value_info}
                types.update({vi.name: vi.type for vi in inferred.graph.output})
                failure = None
            except Exception as e:  # infer_shapes gave up on the whole model
                failure = str(e).splitlines()[0] if str(e) else type(e).__name__
            for k, (oname, is_tensor) in enumerate(outputs):
                e = expected[k] if k < len(expected) else None
                if failure is not None:
                    cls = ERROR
                elif not is_tensor or e is None or e.data_type == 0:
                    cls = SKIPPED
                else:
                    cls = classify(types.get(oname), e, bindings)
                for subset in subsets:
                    counts[(subset, variant, onnx_label(dp))][cls] += 1
                if verbose and cls in (WRONG, ERROR):
                    got = failure if cls == ERROR else type_str(types.get(oname))
                    print("%s [%s, data_prop=%s] %s output %d '%s': %s, expected %d[%s]" % (
                        cls.upper(), variant, dp, name, k, oname, got, e.data_type if e else 0,
                        ",".join(map(str, e.dims)) if e else "?"))
    return len(subsets) == 2


def onnx_label(dp):
    return "onnx %s, data_prop=%s" % (onnx.__version__, dp)


def read_engine_results(path, tests, known, counts):
    """Adds the rows of `build/conformance ... --results FILE` for the same tests."""
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        if header != ["variant", "test", "output", "op", "result"]:
            sys.exit("onnx_reference: %s is not a build/conformance --results file" % path)
        for line in f:
            variant, test, _, _, cls = line.rstrip("\n").split("\t")
            if variant not in VARIANTS or test not in tests:
                continue
            for subset in ("all", "known") if test in known else ("all",):
                counts[(subset, variant, "onnx-shapes")][cls] += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("node_dir", nargs="?", default=default_node_dir())
    ap.add_argument("--data-prop", choices=("on", "off", "both"), default="both")
    ap.add_argument("--only", help="only tests whose name contains this")
    ap.add_argument("--engine", metavar="RESULTS",
                    help="also count onnx-shapes on the same tests, from the file "
                         "`build/conformance NODE_DIR --results RESULTS` writes")
    ap.add_argument("--verbose", "-v", action="store_true",
                    help="print every wrong output and error")
    args = ap.parse_args()
    if not os.path.isdir(args.node_dir):
        sys.exit("onnx_reference: %s not found (set OSI_SHARED_DIR)" % args.node_dir)
    data_props = {"on": [True], "off": [False], "both": [False, True]}[args.data_prop]
    tests = sorted(t for t in os.listdir(args.node_dir)
                   if (not args.only or args.only in t)
                   and os.path.isfile(os.path.join(args.node_dir, t, "model.onnx")))
    who = [onnx_label(dp) for dp in data_props] + (["onnx-shapes"] if args.engine else [])
    counts = {(s, v, w): dict.fromkeys(CLASSES, 0)
              for s in ("all", "known") for v in VARIANTS for w in who}
    t0 = time.monotonic()
    known = set()
    for t in tests:
        if run_case(os.path.join(args.node_dir, t), t, counts, data_props, args.verbose):
            known.add(t)
    elapsed = time.monotonic() - t0
    if args.engine:
        read_engine_results(args.engine, set(tests), known, counts)

    print("onnx %s: onnx.shape_inference.infer_shapes(check_type=False, strict_mode=False, "
          "data_prop=...) on %d tests of %s, %.0f s" % (
              onnx.__version__, len(tests), os.path.normpath(args.node_dir), elapsed))
    print("(declared output shapes and value_info removed; scored as build/conformance scores "
          "onnx-shapes)\n")
    labels = {"all": "all %d" % len(tests),
              "known": "the %d importing only opsets onnx %s knows" % (
                  len(known), onnx.__version__)}
    print("| tests | variant | inference | compared | exact | unknown | wrong | error | skipped "
          "| exact % |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for (subset, variant, w), c in counts.items():
        compared = c[EXACT] + c[UNKNOWN] + c[WRONG] + c[ERROR]
        share = "%.1f%%" % (100.0 * c[EXACT] / compared) if compared else "-"
        print("| %s | %s | %s | %d | %d | %d | %d | %d | %d | %s |" % (
            labels[subset], variant, w, compared, c[EXACT], c[UNKNOWN], c[WRONG], c[ERROR],
            c[SKIPPED], share))


if __name__ == "__main__":
    main()
