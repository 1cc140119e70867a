/* Minimal test harness: each test file is one executable run by ctest.
 * CHECK records a failure and goes on, so one run shows every broken case. */
#ifndef OSI_TEST_H
#define OSI_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures, test_checks;

#define CHECK(cond)                                                              \
  do {                                                                           \
    test_checks++;                                                               \
    if (!(cond)) {                                                               \
      test_failures++;                                                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
    }                                                                            \
  } while (0)

#define CHECK_STR(got, want)                                                     \
  do {                                                                           \
    const char *g_ = (got), *w_ = (want);                                        \
    test_checks++;                                                               \
    if (!g_ || strcmp(g_, w_) != 0) {                                            \
      test_failures++;                                                           \
      fprintf(stderr, "%s:%d: got \"%s\", want \"%s\" (%s)\n", __FILE__, __LINE__, \
              g_ ? g_ : "(null)", w_, #got);                                     \
    }                                                                            \
  } while (0)

#define CHECK_INT(got, want)                                                     \
  do {                                                                           \
    long long g_ = (long long)(got), w_ = (long long)(want);                     \
    test_checks++;                                                               \
    if (g_ != w_) {                                                              \
      test_failures++;                                                           \
      fprintf(stderr, "%s:%d: got %lld, want %lld (%s)\n", __FILE__, __LINE__, g_, w_, \
              #got);                                                             \
    }                                                                            \
  } while (0)

/* `sub` under the shared test data: $OSI_SHARED_DIR (CMake passes it to
 * every test) or ../shared beside the checkout. */
static inline const char *test_shared_path(const char *sub, char *buf, size_t cap) {
  const char *dir = getenv("OSI_SHARED_DIR");
  snprintf(buf, cap, "%s/%s", dir && *dir ? dir : "../shared", sub);
  return buf;
}

#define TEST_MAIN_END()                                                          \
  do {                                                                           \
    printf("%d checks, %d failed\n", test_checks, test_failures);                \
    return test_failures ? 1 : 0;                                                \
  } while (0)

#endif
