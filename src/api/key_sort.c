/*
 * Keys sorted 8 bytes at a time: each key's next 8 bytes are read once per
 * depth into `chunk` (big-endian and NUL-padded, so comparing chunks as
 * numbers compares the bytes, and partitions compare numbers in the array
 * instead of chasing key pointers). The keys are ordered by chunk, with a
 * radix sort when there are many (only on the bytes where the chunks
 * differ: exporter names share long prefixes) and multikey quicksort steps
 * otherwise, and each group of keys with the same chunk that does not end
 * there moves on to its next 8 bytes. Groups other than the largest are
 * sorted recursively and the largest in the same loop, so the recursion is
 * at most log2(n) deep; too many quicksort steps at one depth end in qsort,
 * so crafted keys cannot make it quadratic.
 */
#include "api/key_sort.h"

#include <stdlib.h>
#include <string.h>

/* Bytes depth..depth+7 of k, big-endian; the bytes after its NUL are 0 and
 * never read. */
static uint64_t chunk_at(const char *k, size_t depth) {
  const unsigned char *p = (const unsigned char *)k + depth;
  uint64_t c = 0;
  int i = 0;
  for (; i < 8 && p[i]; i++) c = c << 8 | p[i];
  return i == 8 ? c : i == 0 ? 0 : c << (8 * (8 - i));
}

static int compare_keys(const void *a, const void *b) {
  return strcmp(((const OsiSortKey *)a)->key, ((const OsiSortKey *)b)->key);
}

static void load_chunks(OsiSortKey *a, size_t n, size_t depth) {
  for (size_t i = 0; i < n; i++) a[i].chunk = chunk_at(a[i].key, depth);
}

/* Below this, an insertion sort on the keys from `depth` on. */
#define SMALL 16

static void insertion_sort(OsiSortKey *a, size_t n, size_t depth) {
  for (size_t i = 1; i < n; i++) {
    OsiSortKey x = a[i];
    size_t k = i;
    for (; k > 0 && (a[k - 1].chunk > x.chunk ||
                     (a[k - 1].chunk == x.chunk && strcmp(a[k - 1].key + depth, x.key + depth) > 0));
         k--)
      a[k] = a[k - 1];
    a[k] = x;
  }
}

/* From this many keys on, the radix sort takes 16 bits a pass (at most 4
 * passes, over 65,536 counters each) instead of 8 (at most 8 passes). */
#define WIDE_MIN 65536

/* radix_by_chunk with 16-bit digits; 0 when memory runs out (nothing
 * moved). */
static int radix_wide(OsiSortKey *a, OsiSortKey *tmp, size_t n) {
  uint32_t *count = calloc((size_t)4 << 16, sizeof *count);
  if (!count) return 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t c = a[i].chunk;
    count[c & 0xffff]++;
    count[(1 << 16) + ((c >> 16) & 0xffff)]++;
    count[(2 << 16) + ((c >> 32) & 0xffff)]++;
    count[(3 << 16) + (c >> 48)]++;
  }
  OsiSortKey *src = a, *dst = tmp;
  for (int b = 0; b < 4; b++) {
    uint32_t *c = count + ((size_t)b << 16);
    int shift = 16 * b;
    if (c[(src[0].chunk >> shift) & 0xffff] == n) continue; /* one value in every key */
    uint32_t at = 0;
    for (size_t v = 0; v < (1 << 16); v++) {
      uint32_t k = c[v];
      c[v] = at;
      at += k;
    }
    for (size_t i = 0; i < n; i++) dst[c[(src[i].chunk >> shift) & 0xffff]++] = src[i];
    OsiSortKey *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, n * sizeof *a);
  free(count);
  return 1;
}

/* a[0..n) in chunk order (stable LSD radix sort on the bytes of the chunk
 * that vary); tmp holds n keys. */
static void radix_by_chunk(OsiSortKey *a, OsiSortKey *tmp, size_t n) {
  static const int shifts[8] = {0, 8, 16, 24, 32, 40, 48, 56};
  if (n >= WIDE_MIN && radix_wide(a, tmp, n)) return;
  size_t count[8][256];
  memset(count, 0, sizeof count);
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < 8; b++) count[b][(a[i].chunk >> shifts[b]) & 0xff]++;
  OsiSortKey *src = a, *dst = tmp;
  for (int b = 0; b < 8; b++) {
    size_t *c = count[b];
    if (c[(src[0].chunk >> shifts[b]) & 0xff] == n) continue; /* one value in every key */
    size_t at = 0;
    for (int v = 0; v < 256; v++) {
      size_t k = c[v];
      c[v] = at;
      at += k;
    }
    for (size_t i = 0; i < n; i++) dst[c[(src[i].chunk >> shifts[b]) & 0xff]++] = src[i];
    OsiSortKey *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, n * sizeof *a);
}

static void swap_keys(OsiSortKey *a, OsiSortKey *b) {
  OsiSortKey t = *a;
  *a = *b;
  *b = t;
}

/* Partition steps allowed at one depth before falling back to qsort (as
 * introsort does): 2 log2(n), so crafted keys cannot make the quicksort
 * quadratic. */
static int step_budget(size_t n) {
  int b = 2;
  for (; n > 1; n >>= 1) b += 2;
  return b;
}

/* From this many keys on, a radix pass (a fixed cost of clearing and
 * scanning 8 x 256 counters) beats quicksort partitions. */
#define RADIX_MIN 512

/* a[0..n) share their first `depth` bytes and hold their chunks at `depth`. */
static void sort_from(OsiSortKey *a, OsiSortKey *tmp, size_t n, size_t depth, int budget) {
  while (n > 1) {
    if (n < SMALL) {
      insertion_sort(a, n, depth);
      return;
    }
    if (n < RADIX_MIN) {
      if (budget-- == 0) {
        qsort(a, n, sizeof *a, compare_keys);
        return;
      }
      /* Multikey quicksort step (Bentley & Sedgewick) on chunks: the median
       * chunk of the first, middle and last keys as pivot, then
       * [0, lt) < v, [lt, gt) == v, [gt, n) > v. */
      uint64_t x = a[0].chunk, y = a[n / 2].chunk, z = a[n - 1].chunk;
      uint64_t v = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
      size_t lt = 0, i = 0, gt = n;
      while (i < gt) {
        uint64_t c = a[i].chunk;
        if (c < v) swap_keys(&a[lt++], &a[i++]);
        else if (c > v) swap_keys(&a[i], &a[--gt]);
        else i++;
      }
      /* Keys whose chunk holds their NUL (its last byte is 0) are equal to
       * the end; the others go on at depth + 8 with a fresh budget. */
      int more = (v & 0xff) != 0;
      OsiSortKey *parts[3] = {a, a + lt, a + gt};
      size_t sizes[3] = {lt, more ? gt - lt : 0, n - gt}, depths[3] = {depth, depth + 8, depth};
      if (more) load_chunks(parts[1], sizes[1], depth + 8);
      int big = sizes[0] >= sizes[1] ? (sizes[0] >= sizes[2] ? 0 : 2) : (sizes[1] >= sizes[2] ? 1 : 2);
      for (int k = 0; k < 3; k++)
        if (k != big && sizes[k] > 1)
          sort_from(parts[k], tmp, sizes[k], depths[k], k == 1 ? step_budget(sizes[k]) : budget);
      if (big == 1) budget = step_budget(sizes[1]);
      a = parts[big];
      n = sizes[big];
      depth = depths[big];
      continue;
    }
    radix_by_chunk(a, tmp, n);
    /* Runs of one chunk: as above, those that do not end go on at depth + 8. */
    size_t big_at = 0, big_n = 0;
    for (size_t i = 0; i < n;) {
      size_t j = i + 1;
      while (j < n && a[j].chunk == a[i].chunk) j++;
      if (j - i > 1 && (a[i].chunk & 0xff) != 0) {
        load_chunks(a + i, j - i, depth + 8);
        if (j - i > big_n) {
          if (big_n > 1) sort_from(a + big_at, tmp, big_n, depth + 8, step_budget(big_n));
          big_at = i;
          big_n = j - i;
        } else {
          sort_from(a + i, tmp, j - i, depth + 8, step_budget(j - i));
        }
      }
      i = j;
    }
    a += big_at;
    n = big_n;
    depth += 8;
    budget = step_budget(n);
  }
}

void osi_sort_keys(OsiSortKey *a, size_t n) {
  load_chunks(a, n, 0);
  OsiSortKey *tmp = n >= RADIX_MIN ? malloc(n * sizeof *tmp) : NULL;
  if (n >= RADIX_MIN && !tmp) { /* out of memory: qsort needs none */
    qsort(a, n, sizeof *a, compare_keys);
    return;
  }
  sort_from(a, tmp, n, 0, step_budget(n));
  free(tmp);
}
