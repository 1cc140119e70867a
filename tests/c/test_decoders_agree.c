/*
 * The protobuf-c and nanopb decoders must be interchangeable: for every ONNX
 * backend model (node/, simple/, light/, pytorch-converted/,
 * pytorch-operator/ under ../shared/onnx-backend) osi_infer gives the same
 * status and byte-identical JSON with either, and the streaming entries
 * (osi_infer_fd, osi_infer_stream without a skip callback) give the same as
 * the in-memory nanopb path. Then truncated and corrupted inputs: no crash,
 * PARSE_ERROR for both ("the file ends early: ..." in the same words when
 * truncated), "at byte N" from nanopb.
 *
 * Usage: test_decoders_agree [backend-dir]   (default $OSI_SHARED_DIR/onnx-backend, else ../shared/...)
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx_shapes.h"
#include "test.h"

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return b;
}

typedef struct MemReader {
  const uint8_t *p;
  size_t len, pos;
} MemReader;

static int64_t mem_read(void *user, uint8_t *dst, size_t len) {
  MemReader *m = user;
  size_t n = m->len - m->pos < len ? m->len - m->pos : len;
  if (len > 65536) return -1; /* the decoder promises reads of at most 64 KiB */
  memcpy(dst, m->p + m->pos, n);
  m->pos += n;
  return (int64_t)n;
}

static int n_models, n_failed_models, n_ok;

static void report(const char *path, const char *what, OsiResult *a, OsiResult *b) {
  n_failed_models++;
  if (n_failed_models > 20) return;
  fprintf(stderr, "%s: %s differ\n  status %d (%s) vs %d (%s)\n", path, what,
          osi_result_status(a), osi_result_error(a), osi_result_status(b), osi_result_error(b));
  const char *ja = osi_result_json(a), *jb = osi_result_json(b);
  size_t i = 0;
  while (ja[i] && ja[i] == jb[i]) i++;
  fprintf(stderr, "  json differ at char %zu: ...%.80s | ...%.80s\n", i, ja + (i > 20 ? i - 20 : 0),
          jb + (i > 20 ? i - 20 : 0));
}

static int same(OsiResult *a, OsiResult *b) {
  return osi_result_status(a) == osi_result_status(b) &&
         strcmp(osi_result_json(a), osi_result_json(b)) == 0;
}

static void check_model(const char *path) {
  size_t len;
  uint8_t *bytes = read_file(path, &len);
  if (!bytes) return;
  n_models++;
  OsiResult *pbc = osi_infer(bytes, len, OSI_OPT_DECODER_PBC);
  OsiResult *npb = osi_infer(bytes, len, OSI_OPT_DECODER_NANOPB);
  test_checks++;
  if (!same(pbc, npb)) {
    test_failures++;
    report(path, "protobuf-c / nanopb", pbc, npb);
  } else if (osi_result_status(pbc) == OSI_OK) {
    n_ok++;
  }
  /* the same with anchors from value_info (a different path through the types) */
  OsiResult *pbc2 = osi_infer(bytes, len, OSI_OPT_DECODER_PBC | OSI_OPT_PREFILL_VALUE_INFO);
  OsiResult *npb2 = osi_infer(bytes, len, OSI_OPT_DECODER_NANOPB | OSI_OPT_PREFILL_VALUE_INFO);
  test_checks++;
  if (!same(pbc2, npb2)) {
    test_failures++;
    report(path, "protobuf-c / nanopb (prefill)", pbc2, npb2);
  }
  osi_result_delete(pbc2);
  osi_result_delete(npb2);
  /* streaming from a file descriptor */
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    OsiResult *s = osi_infer_fd(fd, 0);
    close(fd);
    test_checks++;
    if (!same(npb, s)) {
      test_failures++;
      report(path, "nanopb memory / fd stream", npb, s);
    }
    osi_result_delete(s);
  }
  /* streaming through a read callback only (skips are read and dropped) */
  MemReader mr = {bytes, len, 0};
  OsiResult *s2 = osi_infer_stream(mem_read, NULL, &mr, len, 0);
  test_checks++;
  if (!same(npb, s2)) {
    test_failures++;
    report(path, "nanopb memory / read-only stream", npb, s2);
  }
  osi_result_delete(s2);
  osi_result_delete(pbc);
  osi_result_delete(npb);
  free(bytes);
}

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.onnx file under dir, recursively, in name order. */
static void walk(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      names = realloc(names, cap * sizeof *names);
    }
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_names);
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    size_t l = strlen(names[i]);
    if (is_dir(path)) walk(path);
    else if (l > 5 && strcmp(names[i] + l - 5, ".onnx") == 0) check_model(path);
    free(names[i]);
  }
  free(names);
}

/* Truncations and byte flips of one model: never a crash; a truncated
 * model is an error for both decoders, and nanopb names the offset. */
static void damage(const char *path) {
  size_t len;
  uint8_t *bytes = read_file(path, &len);
  if (!bytes) return;
  int truncated_parse = 0, truncated = 0;
  size_t step = len / 97 + 1;
  for (size_t cut = 1; cut < len; cut += step) {
    OsiResult *a = osi_infer(bytes, cut, OSI_OPT_DECODER_PBC);
    OsiResult *b = osi_infer(bytes, cut, OSI_OPT_DECODER_NANOPB);
    truncated++;
    if (osi_result_status(b) == OSI_ERR_PARSE) {
      truncated_parse++;
      CHECK(strstr(osi_result_error(b), " at byte ") != NULL);
    }
    /* a cut on a field boundary can leave a valid (smaller) model: then both must agree;
     * otherwise both say, in the same words, that the file ends early and where */
    if (osi_result_status(a) == OSI_OK || osi_result_status(b) == OSI_OK) {
      CHECK(same(a, b));
    } else {
      CHECK(osi_result_status(a) == OSI_ERR_PARSE && osi_result_status(b) == OSI_ERR_PARSE);
      CHECK(strncmp(osi_result_error(b), "the file ends early: ", 21) == 0);
      CHECK(strcmp(osi_result_error(a), osi_result_error(b)) == 0);
    }
    osi_result_delete(a);
    osi_result_delete(b);
  }
  CHECK(truncated_parse > truncated / 2);
  uint8_t *copy = malloc(len);
  unsigned seed = 12345;
  for (int i = 0; i < 400; i++) {
    memcpy(copy, bytes, len);
    for (int k = 0; k < 1 + i % 4; k++) {
      seed = seed * 1103515245u + 12345u;
      copy[(seed >> 8) % len] ^= (uint8_t)(1u << ((seed >> 4) % 8));
    }
    OsiResult *a = osi_infer(copy, len, OSI_OPT_DECODER_PBC);
    OsiResult *b = osi_infer(copy, len, OSI_OPT_DECODER_NANOPB);
    if (osi_result_status(b) == OSI_ERR_PARSE) CHECK(strstr(osi_result_error(b), " at byte ") != NULL);
    (void)osi_result_json(a);
    (void)osi_result_json(b);
    osi_result_delete(a);
    osi_result_delete(b);
  }
  free(copy);
  free(bytes);
}

int main(int argc, char **argv) {
  char dflt[1024];
  const char *root = argc > 1 ? argv[1] : test_shared_path("onnx-backend", dflt, sizeof dflt);
  if (!is_dir(root)) { /* a test that ran nothing must not pass */
    fprintf(stderr, "test_decoders_agree: the backend models are missing: %s (set OSI_SHARED_DIR)\n", root);
    return 1;
  }
  const char *sets[] = {"node", "simple", "light", "pytorch-converted", "pytorch-operator"};
  for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, sets[i]);
    int before = n_models;
    walk(dir);
    printf("%s: %d models\n", sets[i], n_models - before);
    CHECK(n_models > before); /* a set that went missing must not pass */
  }
  printf("%d models, %d inferred OK by both, %d differ\n", n_models, n_ok, n_failed_models);
  CHECK(n_models > 100);
  char p[4096];
  snprintf(p, sizeof p, "%s/light/light_squeezenet.onnx", root);
  damage(p);
  snprintf(p, sizeof p, "%s/simple/test_expand_shape_model1/model.onnx", root);
  damage(p);
  TEST_MAIN_END();
}
