#include "decode/model_build.h"

#include <stdio.h>
#include <string.h>

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

OsiExpr osi_mb_dim(OsiExprStore *exprs, OsiMbDimCase which, int64_t value, const char *param) {
  switch (which) {
  case OSI_MB_DIM_VALUE:
    /* A negative declared size is meaningless: treat it as unknown. */
    return value >= 0 ? osi_expr_const(exprs, value) : OSI_EXPR_UNKNOWN;
  case OSI_MB_DIM_PARAM: {
    /* Isolated: what a text takes of the work budget, and so whether it is
     * cut, must not depend on the texts read before it (the decoders read
     * them in different orders). */
    osi_expr_store_isolate(exprs, 1);
    OsiExpr e = osi_expr_from_dim_param(exprs, param ? param : "");
    osi_expr_store_isolate(exprs, 0);
    return e;
  }
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
