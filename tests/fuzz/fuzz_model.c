/*
 * libFuzzer target: the whole pipeline on untrusted model bytes.
 *
 *   bytes -> osi_infer (protobuf-c)  -> osi_result_json, osi_result_model
 *         -> osi_infer (nanopb)      -> osi_result_json, osi_result_model
 *         -> osi_infer_stream (nanopb, chunked reads, with or without skip)
 *         -> osi_result_delete
 *
 * Invariants (abort when broken):
 *   - the three runs end with the same status, and with byte-identical JSON
 *     when it is OSI_OK (the decoders are interchangeable);
 *   - protobuf-c gives the same again when every tensor payload inference
 *     never reads is dropped before it unpacks (pbc_rewrite.c: only models
 *     with big weights are rewritten so; here every one is);
 *   - a status is a valid OsiStatus with a non-empty message when not OK;
 *   - write-back gives the same bytes whichever decoder ran, and those bytes
 *     decode again (any status but PARSE_ERROR);
 *   - the cost model and the node attributes, asked of an OSI_OK result, are
 *     byte-identical JSON from every decoder and the stream.
 * The option flags (value_info prefill, events, strict) and the stream's
 * chunking come from a hash of the input, so an input always replays the
 * same way.
 *
 * Built by CMake with -DOSI_FUZZ=ON (clang); tests/fuzz/replay.c runs it
 * without libFuzzer on the regression inputs and a sample of the backend
 * models (ctest fuzz_model_replay).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/pbc_prescan.h"
#include "onnx_shapes.h"

#define FUZZ_ASSERT(cond, ...)                                                   \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "fuzz_model: invariant failed: %s\n  ", #cond);            \
      fprintf(stderr, __VA_ARGS__);                                              \
      fprintf(stderr, "\n");                                                     \
      abort();                                                                   \
    }                                                                            \
  } while (0)

typedef struct Chunked {
  const uint8_t *p;
  size_t len, pos;
  uint64_t h;
} Chunked;

static uint64_t next_hash(uint64_t *h) {
  uint64_t x = (*h += 0x9E3779B97F4A7C15ull);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static int64_t chunked_read(void *user, uint8_t *dst, size_t len) {
  Chunked *c = user;
  FUZZ_ASSERT(len <= 65536, "read of %zu bytes (promised <= 64 KiB)", len);
  size_t want = 1 + (size_t)(next_hash(&c->h) % 4096); /* short reads are allowed */
  if (want > len) want = len;
  size_t n = c->len - c->pos < want ? c->len - c->pos : want;
  if (n) memcpy(dst, c->p + c->pos, n);
  c->pos += n;
  return (int64_t)n;
}

static int chunked_skip(void *user, uint64_t n) {
  Chunked *c = user;
  if (n > c->len - c->pos) return -1;
  c->pos += (size_t)n;
  return 0;
}

static int strict_run; /* the current input runs with OSI_OPT_STRICT */

static const char *status_text(OsiResult *r) {
  static char buf[600];
  snprintf(buf, sizeof buf, "%s (%s)", osi_status_name((OsiStatus)osi_result_status(r)),
           osi_result_error(r));
  return buf;
}

static void check_result(OsiResult *r, const char *which) {
  FUZZ_ASSERT(r != NULL, "%s: NULL result", which);
  int st = osi_result_status(r);
  FUZZ_ASSERT(st >= 0 && st < OSI_STATUS_COUNT, "%s: status %d is not a run status", which, st);
  FUZZ_ASSERT(st != OSI_ERR_UNSUPPORTED || (osi_result_status(r) && strict_run),
              "%s: UNSUPPORTED without OSI_OPT_STRICT", which);
  if (st != OSI_OK) {
    FUZZ_ASSERT(osi_result_error(r)[0] != 0, "%s: status %s without a message", which,
                osi_status_name((OsiStatus)st));
    FUZZ_ASSERT(osi_result_json(r)[0] == 0, "%s: JSON on error", which);
  } else {
    const char *j = osi_result_json(r);
    FUZZ_ASSERT(j[0] == '{' || j[0] == 0, "%s: JSON does not start with '{'", which);
  }
}

/* What a result computes when asked (the cost model, the node attributes):
 * the same whichever decoder read the bytes. */
static void same_extras(OsiResult *a, OsiResult *b, const char *which) {
  const char *ca = osi_result_cost_json(a), *cb = osi_result_cost_json(b);
  FUZZ_ASSERT(ca && cb && ca[0] == '{' && strcmp(ca, cb) == 0, "cost JSON differs:\n  protobuf-c %s\n  %s %s",
              ca ? ca : "(null)", which, cb ? cb : "(null)");
  const char *ta = osi_result_attributes_json(a), *tb = osi_result_attributes_json(b);
  FUZZ_ASSERT(ta && tb && strcmp(ta, tb) == 0, "attributes JSON differs:\n  protobuf-c %s\n  %s %s",
              ta ? ta : "(null)", which, tb ? tb : "(null)");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211ull;
  uint64_t hs = h;
  uint32_t flags = 0;
  if (next_hash(&hs) % 4 == 0) flags |= OSI_OPT_PREFILL_VALUE_INFO;
  if (next_hash(&hs) % 4 == 0) flags |= OSI_OPT_EVENTS;
  if (next_hash(&hs) % 4 == 0) flags |= OSI_OPT_STRICT;
  strict_run = (flags & OSI_OPT_STRICT) != 0;

  OsiResult *a = osi_infer(data, size, flags | OSI_OPT_DECODER_PBC);
  OsiResult *b = osi_infer(data, size, flags | OSI_OPT_DECODER_NANOPB);
  check_result(a, "protobuf-c");
  check_result(b, "nanopb");
  /* Both accept or both reject. A rejection may name a different first
   * fault only as PARSE_ERROR against LIMIT_EXCEEDED: nanopb streams and
   * meets a limit (a rank over 64) before bytes further on that protobuf-c,
   * which unpacks the whole message first, rejects as malformed. */
  int sa = osi_result_status(a), sb = osi_result_status(b);
  int limit_vs_parse = (sa == OSI_ERR_PARSE && sb == OSI_ERR_LIMIT_EXCEEDED) ||
                       (sa == OSI_ERR_LIMIT_EXCEEDED && sb == OSI_ERR_PARSE);
  FUZZ_ASSERT(sa == sb || limit_vs_parse, "decoders disagree: protobuf-c %s", status_text(a));
  if (osi_result_status(a) == OSI_OK) {
    const char *ja = osi_result_json(a), *jb = osi_result_json(b);
    FUZZ_ASSERT(strcmp(ja, jb) == 0, "JSON differs:\n  protobuf-c %s\n  nanopb     %s", ja, jb);
    same_extras(a, b, "nanopb");
  }
  osi_pbc_strip_always(1);
  OsiResult *stripped = osi_infer(data, size, flags | OSI_OPT_DECODER_PBC);
  osi_pbc_strip_always(0);
  check_result(stripped, "protobuf-c, payloads dropped");
  FUZZ_ASSERT(osi_result_status(stripped) == sa, "dropping payloads changes the status: %s vs %s",
              status_text(stripped), osi_status_name((OsiStatus)sa));
  if (sa == OSI_OK)
    FUZZ_ASSERT(strcmp(osi_result_json(stripped), osi_result_json(a)) == 0,
                "dropping payloads changes the JSON:\n  %s\n  %s", osi_result_json(stripped),
                osi_result_json(a));
  osi_result_delete(stripped);

  Chunked c = {data, size, 0, next_hash(&hs)};
  int with_skip = (int)(next_hash(&hs) & 1);
  OsiResult *s = osi_infer_stream(chunked_read, with_skip ? chunked_skip : NULL, &c, size, flags);
  check_result(s, "stream");
  FUZZ_ASSERT(osi_result_status(s) == osi_result_status(b), "stream %s vs nanopb %s",
              osi_status_name((OsiStatus)osi_result_status(s)), status_text(b));
  if (osi_result_status(s) == OSI_OK) {
    FUZZ_ASSERT(strcmp(osi_result_json(s), osi_result_json(b)) == 0, "stream JSON differs");
    same_extras(b, s, "stream");
  }
  size_t ls = 1;
  FUZZ_ASSERT(osi_result_model(s, &ls) == NULL && ls == 0, "write-back from a stream");
  osi_result_delete(s);

  size_t la = 0, lb = 0;
  const uint8_t *ma = osi_result_model(a, &la);
  const uint8_t *mb = osi_result_model(b, &lb);
  FUZZ_ASSERT((ma == NULL) == (mb == NULL) && la == lb && (la == 0 || memcmp(ma, mb, la) == 0),
              "write-back differs between decoders (%zu vs %zu bytes)", la, lb);
  if (ma) {
    OsiResult *w = osi_infer(ma, la, flags | OSI_OPT_DECODER_PBC);
    check_result(w, "write-back re-infer");
    FUZZ_ASSERT(osi_result_status(w) != OSI_ERR_PARSE, "write-back output does not parse: %s",
                status_text(w));
    osi_result_delete(w);
  }
  osi_result_delete(a);
  osi_result_delete(b);
  return 0;
}
