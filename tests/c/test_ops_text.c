/* Shape rules of the string and text operators. */
#include "op_harness.h"
#include "test.h"

static void test_concat_regex(OpTest *t) {
  CHECK_STR(op_run(t, "", "StringConcat", 20, "string[N,1]", "string[M]", NULL), "string[N,M]");
  CHECK_STR(op_run(t, "", "StringConcat", 20, "string[]", "string[]", NULL), "string[]");
  CHECK_STR(op_run(t, "", "StringConcat", 20, "string[N]", "string[*]", NULL), "string[*]");
  CHECK(!strncmp(op_run(t, "", "StringConcat", 20, "string[2]", "string[3]", NULL), "error:SHAPE_MISMATCH", 20));
  CHECK_STR(op_run(t, "", "RegexFullMatch", 20, "string[N,0]", NULL), "bool[N,0]");
}

static void test_normalizer(OpTest *t) {
  /* No stopwords: the shape is kept. */
  CHECK_STR(op_run(t, "", "StringNormalizer", 10, "string[C]", NULL), "string[C]");
  op_attr_str(t, "case_change_action", "UPPER");
  CHECK_STR(op_run(t, "", "StringNormalizer", 10, "string[1,C]", NULL), "string[1,C]");
  /* Stopwords: a fresh, data-dependent count. */
  op_attr_strings(t, "stopwords", 1, (const char *[]){"monday"});
  CHECK_STR(op_run(t, "", "StringNormalizer", 10, "string[C]", NULL), "string[kept_strings_1]");
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
  op_attr_strings(t, "stopwords", 1, (const char *[]){"monday"});
  CHECK_STR(op_run(t, "", "StringNormalizer", 10, "string[?,C]", NULL), "string[1,kept_strings_2]");
  /* Empty input is outside the spec (C > 0): left unknown. */
  CHECK_STR(op_run(t, "", "StringNormalizer", 10, "string[0]", NULL), "string[?]");
  CHECK_STR(op_run(t, "", "StringNormalizer", 10, "string[*]", NULL), "string[*]");
  CHECK(!strncmp(op_run(t, "", "StringNormalizer", 10, "string[2,C]", NULL), "error:SHAPE_MISMATCH", 20));
  CHECK(!strncmp(op_run(t, "", "StringNormalizer", 10, "string[1,2,C]", NULL), "error:SHAPE_MISMATCH", 20));
}

static void test_split(OpTest *t) {
  op_set_outputs(t, 2);
  op_attr_str(t, "delimiter", ".");
  CHECK(!strncmp(op_run(t, "", "StringSplit", 20, "string[N,M]", NULL), "string[N,M,substrings_", 22));
  CHECK_STR(op_out(t, 1), "int64[N,M]");
  CHECK(strstr(op_diags(t), "DATA_DEPENDENT") != NULL);
  op_set_outputs(t, 2);
  CHECK_STR(op_run(t, "", "StringSplit", 20, "string[*]", NULL), "string[*]");
  CHECK_STR(op_out(t, 1), "int64[*]");
  CHECK(!strncmp(op_run(t, "", "StringSplit", 20, "string[]", NULL), "string[substrings_", 18));
}

static void test_tfidf(OpTest *t) {
  op_attr_ints(t, "ngram_indexes", 4, (int64_t[]){0, 6, 2, 3});
  CHECK_STR(op_run(t, "", "TfIdfVectorizer", 9, "int32[C]", NULL), "float[7]");
  op_attr_ints(t, "ngram_indexes", 3, (int64_t[]){0, 1, 2});
  CHECK_STR(op_run(t, "", "TfIdfVectorizer", 9, "string[N,C]", NULL), "float[N,3]");
  op_attr_ints(t, "ngram_indexes", 1, (int64_t[]){4});
  CHECK_STR(op_run(t, "", "TfIdfVectorizer", 9, "int64[*]", NULL), "float[*]");
  op_attr_ints(t, "ngram_indexes", 1, (int64_t[]){4});
  CHECK(!strncmp(op_run(t, "", "TfIdfVectorizer", 9, "int64[A,B,C]", NULL), "error:SHAPE_MISMATCH", 20));
  CHECK(!strncmp(op_run(t, "", "TfIdfVectorizer", 9, "int64[C]", NULL), "error:INVALID_MODEL", 19));
}

int main(void) {
  OpTest *t = op_test_new();
  test_concat_regex(t);
  test_normalizer(t);
  test_split(t);
  test_tfidf(t);
  op_test_free(t);
  TEST_MAIN_END();
}
