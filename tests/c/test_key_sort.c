/* osi_sort_keys (src/api/key_sort.c) against qsort with strcmp, the order
 * the results' "values" are documented in: keys that share long prefixes,
 * keys that end at and around each 8-byte chunk boundary, bytes from 0x80
 * up (unsigned order), a key before its extensions, repeated keys, and sets
 * big enough for every partition path (and the qsort fallback). */
#include "api/key_sort.h"
#include "test.h"

static int by_strcmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static uint32_t rng = 12345u;
static uint32_t next(void) {
  rng = rng * 1103515245u + 12345u;
  return rng >> 8;
}

/* Sorts keys[0..n) both ways and checks the orders agree; index must be a
 * permutation carried with its key. */
static void check_set(const char *const *keys, size_t n) {
  OsiSortKey *a = malloc((n + 1) * sizeof *a);
  const char **want = malloc((n + 1) * sizeof *want);
  char *seen = calloc(n + 1, 1);
  for (size_t i = 0; i < n; i++) {
    a[i] = (OsiSortKey){keys[i], (int)i, 0};
    want[i] = keys[i];
  }
  osi_sort_keys(a, n);
  qsort(want, n, sizeof *want, by_strcmp);
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    if (strcmp(a[i].key, want[i]) != 0 || a[i].key != keys[a[i].index] || seen[a[i].index]) bad++;
    seen[a[i].index] = 1;
  }
  CHECK_INT(bad, 0);
  free(a);
  free(want);
  free(seen);
}

/* n random keys: a shared prefix of `prefix` bytes, then 0..tail bytes from
 * `alphabet`. */
static void random_set(size_t n, size_t prefix, size_t tail, const char *alphabet) {
  char **keys = malloc(n * sizeof *keys);
  size_t na = strlen(alphabet);
  for (size_t i = 0; i < n; i++) {
    size_t len = prefix + (tail ? next() % (tail + 1) : 0);
    keys[i] = malloc(len + 1);
    for (size_t k = 0; k < len; k++) keys[i][k] = k < prefix ? 'p' : alphabet[next() % na];
    keys[i][len] = 0;
  }
  check_set((const char *const *)keys, n);
  for (size_t i = 0; i < n; i++) free(keys[i]);
  free(keys);
}

int main(void) {
  const char *small[] = {"b", "a", "", "ab", "a\xff", "a\x80", "aa", "abcdefgh", "abcdefg", "abcdefghi",
                         "abcdefgh\x01", "abcdefgh", "zz", "\xc3\xa9", "\xf0\x9f\x98\x80", "~", "a"};
  check_set(small, sizeof small / sizeof *small);
  check_set(small, 0);
  check_set(small, 1);

  /* Exporter-style names: long shared prefixes, numbers, suffixes; the
   * larger set takes the 16-bit radix passes (from 65,536 keys on). */
  for (size_t n = 20000; n <= 80000; n += 60000) {
    char **names = malloc(n * sizeof *names);
    for (size_t i = 0; i < n; i++) {
      names[i] = malloc(96);
      snprintf(names[i], 96, "/model/layers.%zu/self_attn/%s_%zu_output_0", i % 97,
               (const char *[]){"Constant", "Shape", "Gather", "Unsqueeze", "Concat"}[i % 5], i / 485);
    }
    check_set((const char *const *)names, n);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
  }

  /* Keys ending at and around chunk boundaries, and extensions of each other. */
  for (size_t prefix = 0; prefix <= 17; prefix++) random_set(300, prefix, 3, "ab");
  random_set(5000, 0, 24, "ab");                 /* few distinct bytes: many equal chunks */
  random_set(5000, 40, 10, "abc\x80\xfe\x01");  /* high bytes compare unsigned */
  random_set(3000, 0, 2, "a");                   /* mostly repeated keys */
  random_set(4000, 200, 0, "a");                 /* all equal, long */
  random_set(70000, 0, 9, "ab\x80\xfe\x01z");     /* 16-bit passes: every digit varies */
  random_set(70000, 5, 6, "v0123456789");        /* 16-bit passes: some digits constant */
  TEST_MAIN_END();
}
