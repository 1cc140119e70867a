#!/usr/bin/python3
"""Prepares ONNX files that npm packages ship for the exporter differential (tests/exporters/npm_models.mjs).

Run with Debian's python3 (python3-onnx 1.12):
    /usr/bin/python3 tests/exporters/make_npm_models.py OUTDIR SPEC.json

SPEC.json (written by npm_models.mjs): [{name, src (the extracted file), inputs: {input name: {dtype,
dims?, low?, high?}}, inline?: {If node name: branch attribute}, sizes: [{symbol: size}], exporter}].
The files are not ours: they are used as shipped, but for two changes a user would make to run them
and that the manifest notes say:
  - `dims`: a graph-input dim the file leaves without a name or a size (spox writes `dim {}`) gets
    the name given, so that a binding can size it;
  - `inline`: a top-level If on an input's *value* (Silero's `sr == 16000`) is replaced by the branch
    that runs at the bindings (its nodes moved to the main graph), so that the values inside it can
    be compared too (onnxruntime returns main-graph values only). The engine infers that copy.
Writes NAME.onnx, NAME.all.onnx (every node output a graph output, make_models.expose_all),
NAME.graph.json and OUTDIR/manifest.json in the format of make_torchvision.py.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import dims_of, expose_all, graph_summary  # noqa: E402

import onnx  # noqa: E402
from onnx import helper  # noqa: E402


def name_input_dims(model, inputs, notes):
    for vi in model.graph.input:
        want = inputs.get(vi.name, {}).get("dims")
        if not want:
            continue
        dims = vi.type.tensor_type.shape.dim
        if len(dims) != len(want):
            raise RuntimeError(f"input {vi.name} has rank {len(dims)}, the spec gives {want}")
        for i, (d, w) in enumerate(zip(dims, want)):
            if isinstance(w, str) and not d.HasField("dim_param") and not d.HasField("dim_value"):
                d.dim_param = w
                notes.append(f"input {vi.name} dim {i}: unnamed in the file, named {w}")


def inline_ifs(model, inline, notes):
    """Replaces each named top-level If by the nodes of one of its branches."""
    g = model.graph
    nodes, found = [], set()
    for node in g.node:
        branch = inline.get(node.name) if node.op_type == "If" else None
        if branch is None:
            nodes.append(node)
            continue
        found.add(node.name)
        body = next(a.g for a in node.attribute if a.name == branch)
        g.initializer.extend(body.initializer)
        nodes.extend(body.node)
        for out, inner in zip(node.output, body.output):
            nodes.append(helper.make_node("Identity", [inner.name], [out], name=f"{node.name}/{branch}/{out}"))
        notes.append(f"If {node.name} replaced by its {branch} (taken at every binding)")
    del g.node[:]
    g.node.extend(nodes)
    missing = set(inline) - found
    if missing:
        raise RuntimeError(f"no top-level If named {sorted(missing)}")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_npm_models.py OUTDIR SPEC.json")
    outdir, spec_path = sys.argv[1:]
    os.makedirs(outdir, exist_ok=True)
    with open(spec_path) as fh:
        specs = json.load(fh)
    entries = []
    for spec in specs:
        name = spec["name"]
        model = onnx.load(spec["src"])
        notes = []
        name_input_dims(model, spec["inputs"], notes)
        if spec.get("inline"):
            inline_ifs(model, spec["inline"], notes)
        onnx.save(model, os.path.join(outdir, name + ".onnx"))
        onnx.save(expose_all(model), os.path.join(outdir, name + ".all.onnx"))
        with open(os.path.join(outdir, name + ".graph.json"), "w") as fh:
            json.dump(graph_summary(model), fh, allow_nan=False)
        init = {t.name for t in model.graph.initializer}
        inputs = []
        for vi in model.graph.input:
            if vi.name in init:
                continue
            s = spec["inputs"].get(vi.name)
            if s is None:
                raise RuntimeError(f"{name}: no spec for input {vi.name}")
            inputs.append({"name": vi.name, "dtype": s["dtype"], "dims": dims_of(vi),
                           **{k: s[k] for k in ("low", "high") if k in s}})
        entries.append({
            "name": name, "family": spec["exporter"], "arch": name, "opset": max(
                (o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=None),
            "axes": "shipped", "file": name + ".onnx", "allFile": name + ".all.onnx",
            "graphFile": name + ".graph.json", "inputs": inputs,
            "outputs": {o.name: dims_of(o) for o in model.graph.output},
            "bindings": spec["sizes"], "sizes": spec["sizes"], "eagerOutputs": [[] for _ in spec["sizes"]],
            "notes": notes, "package": spec["package"], "path": spec["path"],
        })
        print(f"{name}: {len(model.graph.node)} nodes{'; ' + '; '.join(notes) if notes else ''}", file=sys.stderr)
    with open(os.path.join(outdir, "manifest.json"), "w") as fh:
        json.dump(entries, fh, indent=1)


if __name__ == "__main__":
    main()
