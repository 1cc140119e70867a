#include "decode/model_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str_hash.h"

int osi_mb_fail(OsiDecodeError *err, OsiStatus status, const char *msg) {
  if (err->status == OSI_OK) {
    err->status = status;
    snprintf(err->message, sizeof err->message, "%s", msg);
  }
  return 0;
}

int osi_mb_nomem(OsiDecodeError *err, const OsiArena *arena) {
  return osi_mb_fail(err, osi_arena_exhausted(arena) ? OSI_ERR_LIMIT_EXCEEDED : OSI_ERR_NOMEM,
                     "out of memory while decoding the model");
}

int osi_mb_nul_in_string(OsiDecodeError *err, uint64_t at, const char *s, size_t len) {
  char shown[64];
  size_t k = 0, i;
  for (i = 0; i < len && k + 5 < sizeof shown; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == 0) k += (size_t)snprintf(shown + k, sizeof shown - k, "\\0");
    else if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f) k += (size_t)snprintf(shown + k, sizeof shown - k, "\\x%02x", c);
    else shown[k++] = (char)c;
  }
  shown[k] = 0;
  char msg[256];
  snprintf(msg, sizeof msg,
           "the string at byte %llu (\"%s%s\") contains a NUL byte: names, op types, domains and "
           "dim_params may not",
           (unsigned long long)at, shown, i < len ? "..." : "");
  return osi_mb_fail(err, OSI_ERR_PARSE, msg);
}

int osi_mb_truncated(OsiDecodeError *err, uint64_t at, int has_len, uint64_t len, uint64_t file_len) {
  char msg[256];
  if (has_len)
    snprintf(msg, sizeof msg,
             "the file ends early: the field at byte %llu declares %llu bytes of content, but the file "
             "ends at byte %llu",
             (unsigned long long)at, (unsigned long long)len, (unsigned long long)file_len);
  else
    snprintf(msg, sizeof msg, "the file ends early: the field at byte %llu is cut off at byte %llu",
             (unsigned long long)at, (unsigned long long)file_len);
  return osi_mb_fail(err, OSI_ERR_PARSE, msg);
}

/* "" is not copied: most nodes have an empty domain and overload, and an
 * 8-byte arena block for each was a third of the string copies of the
 * GPT-2 32 export. */
const char *osi_mb_str(OsiArena *arena, const char *s) {
  return s && s[0] ? osi_arena_strdup(arena, s) : "";
}

const char *osi_mb_domain(OsiArena *arena, const char *s) {
  return (s && strcmp(s, "ai.onnx") == 0) ? "" : osi_mb_str(arena, s);
}

/* A dim_param parsed isolated: its expression, and the work it took
 * (osi_expr_store_isolate makes both the same whatever was parsed before). */
static OsiExpr parse_dim_param(OsiExprStore *exprs, const char *text) {
  osi_expr_store_isolate(exprs, 1);
  OsiExpr e = osi_expr_from_dim_param(exprs, text);
  osi_expr_store_isolate(exprs, 0);
  return e;
}

/* A dim_param parsed before gives the same expression and takes the same
 * work again: the memo hands out the one and takes the other from the
 * store's budget, when the parse would have had its whole cap (more than
 * it left) and the budget was not spent; a parse that was cut, or ran with
 * less than its cap, is not remembered. Either way the store ends as the
 * parse would have left it (same nodes, same budget, no run-out). */
static OsiExpr dim_param(OsiExprStore *exprs, OsiMbDimMemo *memo, const char *text) {
  size_t len = strlen(text);
  if (!memo || !exprs || len == 0 || len > OSI_MB_DIM_MEMO_TEXT || osi_expr_work_exhausted(exprs) ||
      osi_expr_work_left(exprs) <= OSI_EXPR_WORK_PER_TEXT)
    return parse_dim_param(exprs, text);
  if (!memo->slot && (memo->failed || !(memo->slot = calloc(OSI_MB_DIM_MEMO_SLOTS, sizeof *memo->slot)))) {
    memo->failed = 1;
    return parse_dim_param(exprs, text);
  }
  uint32_t h = (uint32_t)osi_str_hash(text, len);
  OsiMbDimMemoSlot *m = &memo->slot[(h ^ (h >> 16)) & (OSI_MB_DIM_MEMO_SLOTS - 1)];
  uint64_t left = osi_expr_work_left(exprs);
  if (m->len == len && m->hash == h && osi_bytes_equal(m->text, text, len)) {
    osi_expr_set_work_budget(exprs, left - m->work);
    return m->e;
  }
  OsiExpr e = parse_dim_param(exprs, text);
  uint64_t work = left - osi_expr_work_left(exprs);
  if (!osi_expr_work_exhausted(exprs) && work < OSI_EXPR_WORK_PER_TEXT) {
    m->len = (uint32_t)len;
    m->hash = h;
    m->e = e;
    m->work = work;
    memcpy(m->text, text, len);
  }
  return e;
}

void osi_mb_dim_memo_free(OsiMbDimMemo *memo) {
  free(memo->slot);
  memo->slot = NULL;
}

OsiExpr osi_mb_dim(OsiExprStore *exprs, OsiMbDimMemo *memo, OsiMbDimCase which, int64_t value,
                   const char *param) {
  switch (which) {
  case OSI_MB_DIM_VALUE:
    /* A negative declared size is meaningless: treat it as unknown. */
    return value >= 0 ? osi_expr_const(exprs, value) : OSI_EXPR_UNKNOWN;
  case OSI_MB_DIM_PARAM:
    /* Isolated: what a text takes of the work budget, and so whether it is
     * cut, must not depend on the texts read before it (the decoders read
     * them in different orders). */
    return dim_param(exprs, memo, param ? param : "");
  default: return OSI_EXPR_UNKNOWN;
  }
}

OsiType *osi_mb_tensor_type(OsiArena *arena, OsiDecodeError *err, OsiKind kind,
                            int32_t elem_type, int rank) {
  if (rank > OSI_MAX_RANK) {
    osi_mb_fail(err, OSI_ERR_LIMIT_EXCEEDED, "declared rank exceeds the limit");
    return NULL;
  }
  OsiType *t = osi_type_tensor(arena, elem_type, rank);
  if (t) t->kind = kind;
  return t;
}
