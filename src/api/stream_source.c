/*
 * Sources for osi_infer_stream: a file descriptor (native builds) and
 * JavaScript callbacks (WebAssembly builds). Both only move bytes; the
 * 64 KiB read buffer is the decoder's (decode_npb.c).
 */
#include <stdint.h>

#include "onnx_shapes.h"

#ifndef __EMSCRIPTEN__

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int64_t fd_read(void *user, uint8_t *dst, size_t len) {
  int fd = *(int *)user;
  for (;;) {
    ssize_t n = read(fd, dst, len);
    if (n >= 0) return n;
    if (errno != EINTR) return -1;
  }
}

static int fd_skip(void *user, uint64_t n) {
  int fd = *(int *)user;
  if (n > (uint64_t)INT64_MAX) return -1;
  return lseek(fd, (off_t)n, SEEK_CUR) < 0 ? -1 : 0;
}

OsiResult *osi_infer_fd(int fd, uint32_t flags) {
  struct stat st;
  off_t at = lseek(fd, 0, SEEK_CUR);
  if (fstat(fd, &st) != 0 || at < 0 || !S_ISREG(st.st_mode)) {
    /* A pipe or socket has no size to bound the message: read it whole. */
    size_t len = 0, cap = 1 << 16;
    uint8_t *buf = malloc(cap);
    for (;;) {
      if (!buf) return osi_infer(NULL, 0, flags); /* cannot happen in practice */
      int64_t n = fd_read(&fd, buf + len, cap - len);
      if (n <= 0) break;
      len += (size_t)n;
      if (len == cap) {
        uint8_t *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!grown) break;
        buf = grown;
        cap *= 2;
      }
    }
    OsiResult *r = osi_infer(buf, len, (flags & ~(uint32_t)OSI_OPT_DECODER_PBC) | OSI_OPT_DECODER_NANOPB);
    free(buf);
    return r;
  }
  uint64_t total = st.st_size > at ? (uint64_t)(st.st_size - at) : 0;
  return osi_infer_stream(fd_read, fd_skip, &fd, total, flags);
}

#else /* __EMSCRIPTEN__ */

#include <emscripten.h>

/* Module.onnxRead / Module.onnxSkip are set by the JS wrapper for the
 * duration of one call (js/index.js). Exceptions become a read error. */
EM_JS(int, osi_js_read, (uint8_t *dst, int len), {
  try {
    return Module["onnxRead"](dst >>> 0, len);
  } catch (e) {
    Module["onnxError"] = e;
    return -1;
  }
});

EM_JS(int, osi_js_skip, (double n), {
  try {
    return Module["onnxSkip"](n);
  } catch (e) {
    Module["onnxError"] = e;
    return -1;
  }
});

static int64_t js_read(void *user, uint8_t *dst, size_t len) {
  (void)user;
  return osi_js_read(dst, (int)len);
}

static int js_skip(void *user, uint64_t n) {
  (void)user;
  return osi_js_skip((double)n);
}

OsiResult *osi_infer_js_stream(double total_len, uint32_t flags, const OsiRegistry *registry) {
  /* The JS wrapper passes a safe integer; anything else (NaN, negative, 2^64 and above, whose
   * conversion to uint64_t is undefined behaviour) is an empty input, never a wrapped size. */
  uint64_t total = total_len > 0 && total_len < 18446744073709551616.0 ? (uint64_t)total_len : 0;
  return osi_infer_stream_with(js_read, js_skip, NULL, total, flags, registry);
}

#endif
