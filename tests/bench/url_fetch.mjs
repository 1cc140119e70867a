// What inferShapesFromUrl fetches of a real export, against what its decoder reads (the README's
// read-ahead figures): a 32-layer Llama of tests/bench/make_exports.py's shape at hidden 384
// (231.7 MB with its weights inline), exported by torch 1.13, and the same saved with external
// data; served by a local server that counts bytes and requests.
//
//     node tests/bench/url_fetch.mjs        (the export is cached in build/bench-url/; minutes cold)
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchModelSource } from '../../js/url_source.js';
import { UrlReader } from '../../js/url_http.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');
const DIR = join(REPO, 'build', 'bench-url');

const EXPORT = String.raw`
import os, sys, torch, onnx
sys.path.insert(0, sys.argv[2])
import make_exports as M
out, layers, hidden, heads = sys.argv[1], 32, 384, 6
torch.manual_seed(0)
module = M.Llama(layers, hidden=hidden, heads=heads, kv_heads=heads, inter=1024, max_pos=2048).eval()
b, t, p = 2, 3, 4
past_names, present_names = M.kv_names(layers, "past_key_values"), M.kv_names(layers, "present")
ids = ["input_ids", "attention_mask", "position_ids"]
first = (torch.randint(0, M.VOCAB, (b, t)), torch.ones(b, p + t, dtype=torch.long),
         torch.arange(p, p + t).unsqueeze(0).expand(b, t))
past = [torch.zeros(b, heads, p, hidden // heads) for _ in range(2 * layers)]
dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"}, "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
       "logits": {0: "batch_size", 1: "sequence_length"}}
for n in past_names: dyn[n] = {0: "batch_size", 2: "past_sequence_length"}
for n in present_names: dyn[n] = {0: "batch_size", 2: "total_sequence_length"}
torch.onnx.export(module, (*first, *past), os.path.join(out, "inline.onnx"), input_names=ids + past_names,
                  output_names=["logits", *present_names], dynamic_axes=dyn, opset_version=17, do_constant_folding=True)
onnx.save_model(onnx.load(os.path.join(out, "inline.onnx")), os.path.join(out, "external.onnx"),
                save_as_external_data=True, all_tensors_to_one_file=True, location="external.onnx.data")
`;

if (!existsSync(join(DIR, 'external.onnx'))) {
  mkdirSync(DIR, { recursive: true });
  const r = spawnSync('/usr/bin/python3', ['-c', EXPORT, DIR, join(REPO, 'tests/bench')], { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] });
  if (r.status !== 0) throw new Error(`the export failed (python3-torch and python3-onnx are needed):\n${r.stderr}`);
}

const stats = { bytes: 0, requests: 0 };
const server = createServer((req, res) => {
  stats.requests++;
  const path = join(DIR, new URL(req.url, 'http://x').pathname.slice(1));
  const size = statSync(path).size;
  const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  const start = m ? Number(m[1]) : 0;
  const end = m ? Math.min(Number(m[2]) + 1, size) : size;
  const buf = Buffer.alloc(end - start);
  const fd = openSync(path, 'r');
  readSync(fd, buf, 0, buf.length, start);
  closeSync(fd);
  stats.bytes += buf.length;
  res.writeHead(m ? 206 : 200, { 'Content-Length': buf.length, ...(m ? { 'Content-Range': `bytes ${start}-${end - 1}/${size}` } : {}) });
  res.end(buf);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));

// What the walk asked for: the reader's count, read as it closes.
let asked = 0;
const close = UrlReader.prototype.close;
UrlReader.prototype.close = function () {
  asked = this.needed;
  return close.call(this);
};

for (const name of ['inline.onnx', 'external.onnx']) {
  Object.assign(stats, { bytes: 0, requests: 0 });
  await fetchModelSource(`http://127.0.0.1:${server.address().port}/${name}`);
  const size = statSync(join(DIR, name)).size;
  console.log(`${name}: ${size} bytes; the decoder reads ${asked}; fetched ${stats.bytes} `
    + `(${(stats.bytes / asked).toFixed(2)}x) in ${stats.requests} requests`);
}
server.close();
