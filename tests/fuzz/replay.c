/*
 * Corpus replay without libFuzzer: a plain main that feeds files to a fuzz
 * target's LLVMFuzzerTestOneInput (linked in from fuzz_<target>.c). Any
 * broken invariant aborts, any sanitizer finding fails the run; ctest runs
 * this on tests/fuzz/regressions/<target>/ (and, for fuzz_model, a sample of
 * the backend models), so every input a fuzzer once crashed on stays fixed.
 *
 *   fuzz_<target>_replay [--every K] [--ext SUFFIX] PATH...
 *
 * A PATH that is a directory is walked recursively (sorted, hidden entries
 * skipped). Options apply to the PATHs after them: --every K keeps every
 * K-th file of a directory walk, --ext keeps only files whose name ends
 * with SUFFIX (e.g. .onnx). A PATH that is missing, or a directory that
 * gives no input, fails the run (exit 2): a replay that silently ran nothing
 * would pass. Prints the number of inputs run.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long n_run;
static long every = 1, seen;
static const char *only_ext;

static int has_ext(const char *name) {
  if (!only_ext) return 1;
  size_t n = strlen(name), e = strlen(only_ext);
  return n >= e && strcmp(name + n - e, only_ext) == 0;
}

static void run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    exit(2);
  }
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 65536;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) {
        fprintf(stderr, "replay: out of memory on %s\n", path);
        exit(2);
      }
      buf = nb;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    if (n == 0) break;
    len += n;
  }
  fclose(f);
  /* An exact-size copy, so that ASan sees reads past the end of the input. */
  uint8_t *exact = malloc(len ? len : 1);
  if (len) memcpy(exact, buf, len);
  free(buf);
  if (getenv("REPLAY_VERBOSE")) fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
  LLVMFuzzerTestOneInput(exact, len);
  free(exact);
  n_run++;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      names = realloc(names, cap * sizeof *names);
      if (!names) exit(2);
    }
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(dir) + strlen(names[i]) + 2;
    char *p = malloc(l);
    snprintf(p, l, "%s/%s", dir, names[i]);
    struct stat st;
    if (stat(p, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        walk(p);
      } else if (S_ISREG(st.st_mode) && has_ext(names[i])) {
        if (seen++ % every == 0) run_file(p);
      }
    }
    free(p);
    free(names[i]);
  }
  free(names);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--every") == 0 && i + 1 < argc) {
      every = atol(argv[++i]);
      if (every < 1) every = 1;
      continue;
    }
    if (strcmp(argv[i], "--ext") == 0 && i + 1 < argc) {
      only_ext = argv[++i];
      continue;
    }
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s does not exist\n", argv[i]);
      return 2;
    }
    seen = 0;
    long before = n_run;
    if (S_ISDIR(st.st_mode)) walk(argv[i]);
    else run_file(argv[i]);
    if (n_run == before) {
      fprintf(stderr, "replay: %s gave no input\n", argv[i]);
      return 2;
    }
  }
  if (n_run == 0) {
    fprintf(stderr, "replay: no input given\n");
    return 2;
  }
  printf("replay: %ld inputs, no finding\n", n_run);
  return 0;
}
