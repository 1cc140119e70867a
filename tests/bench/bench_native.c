/*
 * Native timing driver for `npm run bench` (tests/bench/bench.mjs); built by CMake as
 * build/bench_native. Not a test.
 *
 *   bench_native FILE [RUNS]     (RUNS default 5; one warm-up run first)
 *
 * Prints one JSON line with medians in milliseconds:
 *   decode_ms  osi_decode_pbc alone (protobuf-c unpack + the engine's graph model)
 *   infer_ms   osi_infer end to end (decode, inference, anchors, constraints)
 *   pack_ms    osi_result_packed (the result in the form js/index.js reads)
 *   total_ms   infer + pack (what one JS inferShapes call runs in C)
 * plus packed_bytes, the size of that form, and the same medians in CPU time (the thread's,
 * CLOCK_THREAD_CPUTIME_ID) as decode_cpu_ms, infer_cpu_ms, pack_cpu_ms: on a shared machine
 * wall time also counts the time other processes hold the core.
 *
 * glibc is told to keep freed memory (mallopt), as in a long-running process: by default it
 * hands the heap back to the kernel after every call, and the next call's page faults (zeroing
 * tens of MiB) then take about 40% of the time and grow with the model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "base/arena.h"
#include "decode/decode.h"
#include "expr/expr.h"
#include "onnx_shapes.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [RUNS]\n", argv[0]);
    return 2;
  }
#ifdef __GLIBC__
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
#endif
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  if (runs < 1 || runs > 1000) runs = 5;
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *bytes = malloc(size > 0 ? (size_t)size : 1);
  if (!bytes || fread(bytes, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(f);

  double *dec = calloc((size_t)runs, sizeof *dec), *inf = calloc((size_t)runs, sizeof *inf);
  double *pk = calloc((size_t)runs, sizeof *pk), *tot = calloc((size_t)runs, sizeof *tot);
  double *cdec = calloc((size_t)runs, sizeof *cdec), *cinf = calloc((size_t)runs, sizeof *cinf);
  double *cpk = calloc((size_t)runs, sizeof *cpk);
  size_t packed_bytes = 0;
  for (int i = -1; i < runs; i++) { /* i == -1: warm-up */
    OsiArena *arena = osi_arena_new();
    OsiExprStore *exprs = osi_expr_store_new();
    OsiDecodeError derr;
    double c0 = cpu_ms(), t0 = now_ms();
    const OsiModel *m = osi_decode_pbc(bytes, (size_t)size, arena, exprs, &derr);
    double t1 = now_ms(), c1 = cpu_ms();
    osi_expr_store_delete(exprs);
    osi_arena_delete(arena);
    if (!m) {
      fprintf(stderr, "decode failed: %s\n", derr.message);
      return 1;
    }
    double c2 = cpu_ms(), t2 = now_ms();
    OsiResult *r = osi_infer(bytes, (size_t)size, OSI_OPT_DECODER_PBC);
    double t3 = now_ms(), c3 = cpu_ms();
    if (osi_result_status(r) != OSI_OK) {
      fprintf(stderr, "%s: %s\n", osi_status_name(osi_result_status(r)), osi_result_error(r));
      return 1;
    }
    size_t len;
    if (!osi_result_packed(r, &len)) {
      fprintf(stderr, "osi_result_packed failed\n");
      return 1;
    }
    double t4 = now_ms(), c4 = cpu_ms();
    packed_bytes = len;
    osi_result_delete(r);
    if (i >= 0) {
      dec[i] = t1 - t0;
      inf[i] = t3 - t2;
      pk[i] = t4 - t3;
      tot[i] = t4 - t2;
      cdec[i] = c1 - c0;
      cinf[i] = c3 - c2;
      cpk[i] = c4 - c3;
    }
  }
  printf("{\"decode_ms\": %.3f, \"infer_ms\": %.3f, \"pack_ms\": %.3f, \"total_ms\": %.3f, "
         "\"packed_bytes\": %zu, \"decode_cpu_ms\": %.3f, \"infer_cpu_ms\": %.3f, \"pack_cpu_ms\": %.3f}\n",
         median(dec, runs), median(inf, runs), median(pk, runs), median(tot, runs), packed_bytes,
         median(cdec, runs), median(cinf, runs), median(cpk, runs));
  free(bytes);
  free(dec);
  free(inf);
  free(pk);
  free(tot);
  free(cdec);
  free(cinf);
  free(cpk);
  return 0;
}
