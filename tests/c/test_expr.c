/* Hand-written cases for the symbolic expression library (src/expr*.c). */
#include <stdlib.h>

#include "expr/expr.h"
#include "test.h"

static OsiExprStore *S;

static const char *simp(const char *text) { return osi_expr_str(S, osi_expr_parse(S, text)); }

#define EXPECT(text, want) CHECK_STR(simp(text), want)
#define SAME(a, b) CHECK_INT(osi_expr_parse(S, a), osi_expr_parse(S, b))

typedef struct {
  const char *names[8];
  int64_t values[8];
  int n;
} Binding;

static int lookup(void *user, const char *name, int64_t *value) {
  const Binding *b = user;
  for (int i = 0; i < b->n; i++)
    if (strcmp(b->names[i], name) == 0) {
      *value = b->values[i];
      return 1;
    }
  return 0;
}

/* Evaluates text with x and y bound; returns the value or -999 on failure. */
static int64_t eval_xy(const char *text, int64_t x, int64_t y) {
  Binding b = {{"x", "y"}, {x, y}, 2};
  int64_t v;
  return osi_expr_eval(S, osi_expr_parse(S, text), lookup, &b, &v) == 0 ? v : -999;
}

static void test_required_rewrites(void) {
  EXPECT("(2*H)//2", "H");
  EXPECT("(2*H)//H", "2");
  EXPECT("x - y + y", "x");
  EXPECT("4096*a*b + 8*a*b", "4104*a*b");
  EXPECT("(sequence+10)//5", "sequence//5+2");
  EXPECT("Max(x, x)", "x");
  EXPECT("Broadcast(x, 1)", "x");
  EXPECT("Broadcast(1, x)", "x");
  EXPECT("Broadcast(x, x)", "x");
  EXPECT("3//2", "1");
  EXPECT("-3//2", "-2");
  EXPECT("-3%2", "1");
  EXPECT("7%-2", "-1");
  EXPECT("CeilDiv(7,2)", "4");
  EXPECT("CeilDiv(-7,2)", "-3");
  EXPECT("Max(Max(a,b),c)", "Max(a,b,c)");
  EXPECT("Max(a,Max(b,c))", "Max(a,b,c)");
  EXPECT("Min(Min(a,b),Min(c,a))", "Min(a,b,c)");
  EXPECT("Max(3, 5)", "5");
  EXPECT("Min(3, 5)", "3");
  SAME("Max(a, b)", "Max(b, a)");
  EXPECT("Max(b, a)", "Max(a,b)");
  EXPECT("(a+b)*2", "2*a+2*b");
  EXPECT("a*b - b*a", "0");
  EXPECT("((x//2)//3)", "x//6");
  EXPECT("(x*6)%3", "0");
  EXPECT("(3*x+7)%3", "1");
  EXPECT("CeilDiv(2*x, 2)", "x");
  EXPECT("(q*d + r)//d", "q+r//d");
  EXPECT("(q*d + r)%d", "r%d");
  EXPECT("(q*3 + r)//3", "q+r//3");
  EXPECT("(q*3 + r)%3", "r%3");
  EXPECT("(q*a*b + r)//(a*b)", "q+r//(a*b)");
  EXPECT("(q*a*b + r)%(a*b)", "r%(a*b)");
  EXPECT("(x*y)//y", "x");
  EXPECT("(a*b*c)//(a*c)", "b");
  SAME("Broadcast(a, b)", "Broadcast(b, a)");
  EXPECT("Broadcast(Broadcast(a,b),Broadcast(b,a))", "Broadcast(a,b)");
  EXPECT("Broadcast(3, 3)", "3");
  EXPECT("Broadcast(1, 5)", "5");
  CHECK_INT(osi_expr_parse(S, "Broadcast(2, 3)"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_broadcast(S, osi_expr_const(S, 2), osi_expr_const(S, 3)), OSI_EXPR_UNKNOWN);
  EXPECT("x*1", "x");
  EXPECT("x*0", "0");
  EXPECT("0//x", "0");
  EXPECT("0%x", "0");
  EXPECT("x//1", "x");
  EXPECT("x%1", "0");
  EXPECT("x//x", "1");
  EXPECT("x%x", "0");
  /* more canonicalisation */
  EXPECT("(x%6)%3", "x%3");
  EXPECT("(x%3)%6", "x%3");
  EXPECT("(x%3)//3", "0");
  EXPECT("(H-3)//2+1", "(H+1)//2-1");
  EXPECT("CeilDiv(x,2)", "(x+1)//2");
  SAME("CeilDiv(x,2)", "(x+1)//2");
  EXPECT("(2*x)//4", "x//2");
  EXPECT("(2*x+2)%4", "2*((x+1)%2)");
  EXPECT("(H-W)%2", "(H+W)%2");
  EXPECT("x//-3", "-CeilDiv(x,3)"); /* a // d = -CeilDiv(-a, d): no leading minus inside */
  EXPECT("CeilDiv(x*y+1,y)", "x+CeilDiv(1,y)");
  EXPECT("(a-b)*(a+b)", "a*a-b*b");
  EXPECT("(x+y)//(x+y)", "1");
  EXPECT("(2*x+2*y)//(x+y)", "2");
}

static void test_soundness(void) {
  /* never rewrite 2*(H//2) to H, nor (x*y)//z, nor x//y*y */
  EXPECT("2*(H//2)", "2*(H//2)");
  EXPECT("(H//2)*2", "2*(H//2)");
  EXPECT("(x*y)//z", "x*y//z");
  EXPECT("x//y*y", "y*(x//y)");
  EXPECT("(3*x)//2", "3*x//2");
  EXPECT("(x+1)//2*2", "2*CeilDiv(x,2)"); /* a factor (N+d-1)//d reads as CeilDiv */
  EXPECT("2*x//3", "2*x//3");
  EXPECT("x%y*y", "y*(x%y)");
  EXPECT("CeilDiv(x,y)*y", "y*CeilDiv(x,y)");
}

static void test_nonneg(void) {
  EXPECT("Max(x, 0)", "x");
  EXPECT("Min(x, 0)", "0");
  /* A dim clipped to a buffer size broadcasts with itself to itself
   * (x = 0 gives 0 == 0; x >= 1 gives 1 <= Min(x,64) <= x). */
  EXPECT("Broadcast(x, Min(x, 64))", "x");
  EXPECT("Broadcast(Min(64, x), x)", "x");
  EXPECT("Broadcast(x, Min(x, 64, y))", "Broadcast(x,Min(x,y,64))");
  EXPECT("Broadcast(x, Min(x, 0))", "0");
  EXPECT("Broadcast(a, Min(a, 2), b)", "Broadcast(a,b)");
  /* y is 1 wherever the symbol x is 1: Broadcast(x, y) is x wherever it is
   * defined (x = 0: 0 or an error; x >= 2: x or an error). T5's rows of
   * position_bias[-s:] over p+s; not when y may be 0 at x = 1 (t = 0). */
  EXPECT("Broadcast(s, p+s-p*Min(s,1))", "s");
  EXPECT("Broadcast(s, Max(p+s-p*Min(s,1), 0), b)", "Broadcast(b,s)");
  EXPECT("Broadcast(s, s*s)", "s");
  EXPECT("Broadcast(s, t-Max(t-s,0)*Min(s,1))", "Broadcast(s,t-Max(t-s,0)*Min(s,1))");
  EXPECT("Broadcast(s, 2*s)", "Broadcast(s,2*s)");
  /* A size beside its part >= 0 (a conv output, then sliced [:-1]): equal
   * where it is >= 0, an error where it is negative. */
  EXPECT("Broadcast(Max((n+240)//320-1, 0), (n+240)//320-1)", "Max((n+240)//320-1,0)");
  EXPECT("Broadcast(Max(n-3, -2), n-3, b)", "Broadcast(b,Max(n-3,-2))");
  EXPECT("Broadcast(Max(n-3, 1), n-3)", "Broadcast(Max(n-3,1),n-3)"); /* n = 3: 0, not 1 */
  EXPECT("Max(a+b, a)", "a+b");
  EXPECT("Max(a, a+b)", "a+b");
  EXPECT("Min(a+b, a)", "a");
  EXPECT("Max(x+1, x)", "x+1");
  EXPECT("Min(x, x+3)", "x");
  EXPECT("Max(x, -3)", "x");
  EXPECT("Max(x*y, 0)", "x*y");
  EXPECT("Max(x, y, 0)", "Max(x,y)");
  EXPECT("Max(x - y, 0)", "Max(x-y,0)");
  EXPECT("Max(x%3, 2)", "2");
  EXPECT("Min(x%3, 2)", "x%3");

  OsiExprStore *s = osi_expr_store_new();
  osi_expr_store_set_assume_nonneg(s, 0);
  CHECK_STR(osi_expr_str(s, osi_expr_parse(s, "Max(x, 0)")), "Max(x,0)");
  CHECK_STR(osi_expr_str(s, osi_expr_parse(s, "Min(x, 0)")), "Min(x,0)");
  CHECK_STR(osi_expr_str(s, osi_expr_parse(s, "Max(a+b, a)")), "Max(a,a+b)");
  CHECK_STR(osi_expr_str(s, osi_expr_parse(s, "Max(x+1, x)")), "x+1");
  CHECK_STR(osi_expr_str(s, osi_expr_parse(s, "Min(x, x+3)")), "x");
  CHECK_STR(osi_expr_str(s, osi_expr_parse(s, "Max(x%3, 2)")), "2"); /* holds for all ints */
  CHECK_STR(osi_expr_str(s, osi_expr_parse(s, "Max(x*x, 0)")), "Max(x*x,0)");
  osi_expr_store_delete(s);
}

/* The arithmetic exporters emit for window sizes, in its readable canonical
 * form (values: the idioms of test_expr_property.c). */
static void test_exporter_idioms(void) {
  /* nested pooling strides: (x//b + e)//d = (x + b*e)//(b*d) */
  EXPECT("((h+1)//2+1)//2", "(h+3)//4");
  EXPECT("(((h+1)//2+1)//2+1)//2", "(h+7)//8");
  SAME("CeilDiv(CeilDiv(h,2),2)", "CeilDiv(h,4)");
  EXPECT("(h//4+1)//2", "(h+4)//8");
  EXPECT("(x//2+y)//3", "(x+2*y)//6");
  /* Min/Max of comparable forms (expr_bounds.c) */
  EXPECT("Min((h+1)//4, ((h+1)//2+1)//2)", "(h+1)//4");
  EXPECT("Min(x, 2*CeilDiv(x,2))", "x");
  EXPECT("Max(x, 2*CeilDiv(x,2))", "2*CeilDiv(x,2)");
  EXPECT("Max(x, 4*(x//4))", "x");
  EXPECT("Min(x//2, CeilDiv(x,2))", "x//2");
  EXPECT("Min((x+1)//2, x)", "(x+1)//2");
  EXPECT("Min(CeilDiv(h-3,2)+1, CeilDiv(h,2))", "h//2"); /* ceil-mode 3x3/2 pooling */
  EXPECT("Min(Min(x,y)//2, x//2)", "Min(x,y)//2");
  EXPECT("Max(Max(x,y)//2, x//2)", "Max(x,y)//2");
  /* no leading minus inside // and %, so no "+-" in a sum */
  EXPECT("h+(-h)%4", "4*CeilDiv(h,4)"); /* pad to a multiple of 4 */
  EXPECT("(4 - h%4)%4", "(-h)%4");                    /* the padding amount */
  EXPECT("h + h%2", "2*CeilDiv(h,2)");                 /* pad to even */
  EXPECT("(h + h%2 + 1)//2", "(h+1)//2");              /* then stride 2 */
  EXPECT("(h+1)//2 - h//2", "h%2");
  EXPECT("h - h//2", "(h+1)//2");
  EXPECT("N%3+N", "N+N%3");                            /* as many terms: fewer coefficients */
  EXPECT("2*N-3*(N//3)", "N+N%3");
  EXPECT("2*N-2*(N//2)", "2*CeilDiv(N,2)");            /* fewer terms first */
  EXPECT("(h//4 + (-(h//4))%7)//7", "(h+24)//28");     /* Swin windows per side */
  EXPECT("b*((h+(-h)%7)//7)*((w+(-w)%7)//7)", "b*CeilDiv(h,7)*CeilDiv(w,7)");
  EXPECT("(h+3)//4", "(h+3)//4");                      /* alone: no CeilDiv */
  SAME("4*CeilDiv(h,4)", "4*((h+3)//4)");
  SAME("b*CeilDiv(h-x,7)", "b*((h-x+6)//7)");
  EXPECT("y+(-x)//3", "y-(x+2)//3");
  EXPECT("y+(-x)//z", "y-CeilDiv(x,z)");
  EXPECT("y+CeilDiv(-x,z)", "y-x//z");

  OsiExprStore *s = osi_expr_store_new();
  osi_expr_store_set_assume_nonneg(s, 0);
  /* (x+1)//2 <= x needs x >= 0 (x = -1: 0 > -1) */
  CHECK_STR(osi_expr_str(s, osi_expr_parse(s, "Min((x+1)//2, x)")), "Min(x,(x+1)//2)");
  CHECK_STR(osi_expr_str(s, osi_expr_parse(s, "Min(x, 2*CeilDiv(x,2))")), "x"); /* every int */
  CHECK_STR(osi_expr_str(s, osi_expr_parse(s, "((h+1)//2+1)//2")), "(h+3)//4");
  osi_expr_store_delete(s);
}

static void test_printing_and_precedence(void) {
  EXPECT("b + a", "a+b");
  SAME("a+b", " b  +\ta ");
  EXPECT("past_seq + seq", "past_seq+seq");
  EXPECT("dnz*2", "2*dnz");
  EXPECT("-a + b", "b-a");
  EXPECT("-a - b", "-a-b");
  EXPECT("3 - a", "3-a");
  EXPECT("a*b + a + 1", "a*b+a+1");
  EXPECT("a*a*a", "a*a*a");
  EXPECT("a+b*c", "b*c+a");
  EXPECT("(a+b)*c", "a*c+b*c");
  EXPECT("a-(b-c)", "a-b+c");
  EXPECT("-(a+b)", "-a-b");
  EXPECT("a-b-c", "a-b-c");
  EXPECT("a//b//c", "a//b//c");
  SAME("a//b//c", "(a//b)//c");
  EXPECT("a//(b//c)", "a//(b//c)");
  EXPECT("a//(b*c)", "a//(b*c)");
  EXPECT("a//b*c", "c*(a//b)");
  EXPECT("a%b%c", "a%b%c");
  EXPECT("-a//2", "-CeilDiv(a,2)");
  SAME("-a//2", "(-a)//2");
  EXPECT("-(a//2)", "-(a//2)");
  EXPECT("-a%3", "(-a)%3");
  CHECK(eval_xy("-x//2", 3, 0) == -2);
  CHECK(eval_xy("-(x//2)", 3, 0) == -1);
  EXPECT("- - a", "a");
  EXPECT("+a", "a");
  EXPECT("(a+b)//2", "(a+b)//2");
  EXPECT("a*(b//3)", "a*(b//3)");
  EXPECT("(b//3)*a", "a*(b//3)");
  EXPECT("max(a,b)", "Max(a,b)");
  EXPECT("MAX(a,b)", "Max(a,b)");
  EXPECT("mIn (a , b)", "Min(a,b)");
  EXPECT("ceildiv(a,b)", "CeilDiv(a,b)");
  EXPECT("BROADCAST(a,b)", "Broadcast(a,b)");
  EXPECT("broadcast(a,b,c)", "Broadcast(a,b,c)");
  EXPECT("Max(a+1,b)", "Max(b,a+1)");
  /* function names used as plain symbols */
  EXPECT("Max", "Max");
  EXPECT("Max + min", "Max+min");
  EXPECT("Max(Max, min)", "Max(Max,min)");
  EXPECT("CeilDiv*2", "2*CeilDiv");
  /* INT64_MIN round-trips */
  EXPECT("-9223372036854775807-1", "(-9223372036854775807-1)");
  SAME("(-9223372036854775807-1)*a", osi_expr_str(S, osi_expr_parse(S, "(-9223372036854775807-1)*a")));
}

static void test_quoting(void) {
  OsiExpr bs = osi_expr_symbol(S, "batch size");
  CHECK_STR(osi_expr_str(S, bs), "'batch size'");
  CHECK_INT(osi_expr_parse(S, "'batch size'"), bs);
  CHECK_STR(osi_expr_str(S, osi_expr_add(S, bs, osi_expr_const(S, 1))), "'batch size'+1");
  CHECK_INT(osi_expr_parse(S, "'batch size' + 1"), osi_expr_add(S, bs, osi_expr_const(S, 1)));
  const char *names[] = {"input:0", "dim.1", "it's", "C:\\dir", "3", "", "a-b", "Max(", "x y'\\",
                         "\xc3\xa9t\xc3\xa9", "_ok9", "Max", "min"};
  const char *printed[] = {"'input:0'", "'dim.1'", "'it\\'s'", "'C:\\\\dir'", "'3'", "''",
                           "'a-b'", "'Max('", "'x y\\'\\\\'", "'\xc3\xa9t\xc3\xa9'", "_ok9",
                           "Max", "min"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    OsiExpr e = osi_expr_symbol(S, names[i]);
    const char *got = osi_expr_str(S, e);
    CHECK_STR(got, printed[i]);
    CHECK_INT(osi_expr_parse(S, got), e);
    const char *n = NULL;
    CHECK(osi_expr_is_symbol(S, e, &n) && strcmp(n, names[i]) == 0);
    OsiExpr two = osi_expr_mul(S, e, osi_expr_const(S, 2));
    CHECK_INT(osi_expr_parse(S, osi_expr_str(S, two)), two);
  }
  /* malformed quotes */
  CHECK_INT(osi_expr_parse(S, "'abc"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, "'a\\b'"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, "'a\\"), OSI_EXPR_UNKNOWN);
}

static void test_parse_errors(void) {
  const char *bad[] = {"", " ", "a b", "a +", "+", "(a", "a)", "()", "Max()", "Max(a)", "Max(a,)",
                       "CeilDiv(a)", "CeilDiv(a,b,c)", "foo(a)", "a / / b", "a ** b",
                       "2a", "a,b", "#", "a $ b", "9223372036854775808", "-9223372036854775808",
                       "\xff", "Max(a,b", "1e", "1e3a", "1.2.3", ".5", "a.b", "Broadcast(a)",
                       /* float operands where integers are needed, float arity */
                       "a // 0.5", "a % (b/2)", "CeilDiv(a, 2.0)", "Broadcast(a, 1.0)",
                       "Floor()", "Floor(a, b)", "Trunc(a,)", "Float()"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_INT(osi_expr_parse(S, bad[i]), OSI_EXPR_UNKNOWN);
    if (osi_expr_parse(S, bad[i]) != OSI_EXPR_UNKNOWN) fprintf(stderr, "  input: %s\n", bad[i]);
  }
  CHECK_INT(osi_expr_parse(S, NULL), OSI_EXPR_UNKNOWN);
  /* nesting depth: what the printer can write parses (4*512+16 levels), deeper fails */
  static char buf[8192];
  int n = 0;
  for (int i = 0; i < 50; i++) buf[n++] = '(';
  buf[n++] = 'x';
  for (int i = 0; i < 50; i++) buf[n++] = ')';
  buf[n] = 0;
  EXPECT(buf, "x");
  n = 0;
  for (int i = 0; i < 1000; i++) buf[n++] = '(';
  buf[n++] = 'x';
  for (int i = 0; i < 1000; i++) buf[n++] = ')';
  buf[n] = 0;
  EXPECT(buf, "x");
  n = 0;
  for (int i = 0; i < 1100; i++) buf[n++] = '(';
  buf[n++] = 'x';
  for (int i = 0; i < 1100; i++) buf[n++] = ')';
  buf[n] = 0;
  CHECK_INT(osi_expr_parse(S, buf), OSI_EXPR_UNKNOWN);
  n = 0;
  for (int i = 0; i < 2100; i++) buf[n++] = '-';
  buf[n++] = 'x';
  buf[n] = 0;
  CHECK_INT(osi_expr_parse(S, buf), OSI_EXPR_UNKNOWN);
  /* length cap: 64 KiB of spaces around x */
  size_t big = 70 * 1024;
  char *long_text = malloc(big + 1);
  memset(long_text, ' ', big);
  long_text[0] = 'x';
  long_text[big] = 0;
  CHECK_INT(osi_expr_parse(S, long_text), OSI_EXPR_UNKNOWN);
  long_text[60 * 1024] = 0;
  CHECK_STR(osi_expr_str(S, osi_expr_parse(S, long_text)), "x");
  free(long_text);
  /* random bytes never crash */
  uint64_t st = 12345;
  const char alphabet[] = "ab()+-*/%,' \\MaxMinCeilDivBroadcast0123456789\x80";
  for (int i = 0; i < 20000; i++) {
    char t[64];
    int len = (int)(st % 40);
    for (int j = 0; j < len; j++) {
      st ^= st << 13, st ^= st >> 7, st ^= st << 17;
      t[j] = (i & 1) ? (char)(st % 255 + 1) : alphabet[st % (sizeof alphabet - 1)];
    }
    t[len] = 0;
    OsiExpr e = osi_expr_parse(S, t);
    if (e != OSI_EXPR_UNKNOWN) CHECK_INT(osi_expr_parse(S, osi_expr_str(S, e)), e);
    osi_expr_from_dim_param(S, t);
  }
}

static void test_from_dim_param(void) {
  CHECK_STR(osi_expr_str(S, osi_expr_from_dim_param(S, "past_sequence_length + 1")),
            "past_sequence_length+1");
  CHECK_STR(osi_expr_str(S, osi_expr_from_dim_param(S, "batch")), "batch");
  CHECK_STR(osi_expr_str(S, osi_expr_from_dim_param(S, "batch size")), "'batch size'");
  CHECK_STR(osi_expr_str(S, osi_expr_from_dim_param(S, "input:0")), "'input:0'");
  CHECK_STR(osi_expr_str(S, osi_expr_from_dim_param(S, "foo(x)")), "'foo(x)'");
  CHECK_STR(osi_expr_str(S, osi_expr_from_dim_param(S, "3")), "3");
  CHECK_STR(osi_expr_str(S, osi_expr_from_dim_param(S, "Max")), "Max");
  CHECK_STR(osi_expr_str(S, osi_expr_from_dim_param(S, "max(a, b)")), "Max(a,b)");
  CHECK_STR(osi_expr_str(S, osi_expr_from_dim_param(S, "99999999999999999999")),
            "'99999999999999999999'");
  CHECK_INT(osi_expr_from_dim_param(S, ""), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_from_dim_param(S, NULL), OSI_EXPR_UNKNOWN);
  const char *name = NULL;
  CHECK(osi_expr_is_symbol(S, osi_expr_from_dim_param(S, "a b"), &name) && strcmp(name, "a b") == 0);
}

static void test_queries(void) {
  int64_t v = 0;
  CHECK(osi_expr_is_const(S, osi_expr_parse(S, "2*3+1"), &v) && v == 7);
  CHECK(!osi_expr_is_const(S, osi_expr_parse(S, "x"), &v));
  CHECK(!osi_expr_is_const(S, OSI_EXPR_UNKNOWN, &v));
  const char *name = NULL;
  CHECK(osi_expr_is_symbol(S, osi_expr_parse(S, "x"), &name) && strcmp(name, "x") == 0);
  CHECK(!osi_expr_is_symbol(S, osi_expr_parse(S, "2*x"), &name));
  CHECK_INT(osi_expr_size(S, osi_expr_parse(S, "x")), 1);
  CHECK_INT(osi_expr_size(S, osi_expr_parse(S, "7")), 1);
  CHECK_INT(osi_expr_size(S, osi_expr_parse(S, "x+1")), 3);
  CHECK_INT(osi_expr_size(S, osi_expr_parse(S, "2*x")), 3);
  CHECK_INT(osi_expr_size(S, osi_expr_parse(S, "a*b+c")), 5);
  CHECK_INT(osi_expr_size(S, osi_expr_parse(S, "Max(a,b,c)")), 4);
  CHECK_INT(osi_expr_size(S, osi_expr_parse(S, "(a+b)//2")), 5);
  CHECK_STR(osi_expr_str(S, OSI_EXPR_UNKNOWN), "?");
}

static void collect(const char *name, void *user) {
  char *buf = user;
  strcat(buf, name);
  strcat(buf, ";");
}

static void test_for_each_symbol(void) {
  char buf[256] = "";
  osi_expr_for_each_symbol(S, osi_expr_parse(S, "a*a + Max(b, a) + 'c d'//b + 3"), collect, buf);
  CHECK_STR(buf, "a;c d;b;"); /* first-seen order */
  buf[0] = 0;
  osi_expr_for_each_symbol(S, osi_expr_parse(S, "42"), collect, buf);
  CHECK_STR(buf, "");
}

static void test_eval(void) {
  CHECK_INT(eval_xy("x//y", -7, 2), -4);
  CHECK_INT(eval_xy("x%y", -7, 2), 1);
  CHECK_INT(eval_xy("x//y", 7, -2), -4);
  CHECK_INT(eval_xy("x%y", 7, -2), -1);
  CHECK_INT(eval_xy("x//y", -7, -2), 3);
  CHECK_INT(eval_xy("x%y", -7, -2), -1);
  CHECK_INT(eval_xy("CeilDiv(x,y)", 7, 2), 4);
  CHECK_INT(eval_xy("CeilDiv(x,y)", -7, 2), -3);
  CHECK_INT(eval_xy("CeilDiv(x,2)", 7, 0), 4);
  CHECK_INT(eval_xy("x//y", 1, 0), -999);
  CHECK_INT(eval_xy("x%y", 1, 0), -999);
  CHECK_INT(eval_xy("x + z", 1, 0), -999);
  CHECK_INT(eval_xy("Broadcast(x,y)", 2, 3), -999);
  CHECK_INT(eval_xy("Broadcast(x,y)", 1, 3), 3);
  CHECK_INT(eval_xy("Broadcast(x,y)", 3, 1), 3);
  CHECK_INT(eval_xy("Broadcast(x,y)", 3, 3), 3);
  CHECK_INT(eval_xy("Max(x,y,4)", 3, 1), 4);
  CHECK_INT(eval_xy("Min(x,y,4)", 3, 1), 1);
  CHECK_INT(eval_xy("x*y", INT64_MAX, 2), -999);
  CHECK_INT(eval_xy("x+y", INT64_MAX, 1), -999);
  CHECK_INT(eval_xy("x//y", INT64_MIN, -1), -999);
  /* x*x-y*y: the terms overflow int64, the value does not */
  CHECK_INT(eval_xy("(x-y)*(x+y)", 4000000000, 4000000000), 0);
  CHECK_INT(eval_xy("(x-y)*(x+y)", 4000000001, 4000000000), 8000000001);
  CHECK_INT(eval_xy("x*x - x*x", 0, 0), 0);
  CHECK_INT(eval_xy("3*x+2*y", 5, 7), 29);
  int64_t v;
  CHECK_INT(osi_expr_eval(S, OSI_EXPR_UNKNOWN, lookup, NULL, &v), -1);
}

static void test_substitute(void) {
  OsiExpr ps = osi_expr_parse(S, "past_seq+seq"), total = osi_expr_symbol(S, "total_seq");
  OsiExpr e = osi_expr_parse(S, "Broadcast(past_seq+seq, total_seq)");
  CHECK_STR(osi_expr_str(S, osi_expr_substitute(S, e, &ps, &total, 1)), "total_seq");
  /* sub-sum */
  e = osi_expr_parse(S, "past_seq+seq+1");
  CHECK_STR(osi_expr_str(S, osi_expr_substitute(S, e, &ps, &total, 1)), "total_seq+1");
  e = osi_expr_parse(S, "2*past_seq+2*seq+x");
  CHECK_STR(osi_expr_str(S, osi_expr_substitute(S, e, &ps, &total, 1)), "2*total_seq+x");
  e = osi_expr_parse(S, "2*past_seq+seq");
  CHECK_STR(osi_expr_str(S, osi_expr_substitute(S, e, &ps, &total, 1)), "2*past_seq+seq");
  e = osi_expr_parse(S, "(past_seq+seq+1)//2");
  CHECK_STR(osi_expr_str(S, osi_expr_substitute(S, e, &ps, &total, 1)), "(total_seq+1)//2");
  e = osi_expr_parse(S, "Max(past_seq+seq, 4)*h");
  CHECK_STR(osi_expr_str(S, osi_expr_substitute(S, e, &ps, &total, 1)), "h*Max(total_seq,4)");
  /* leaves, several pairs, re-simplification */
  OsiExpr from[2] = {osi_expr_symbol(S, "a"), osi_expr_symbol(S, "b")};
  OsiExpr to[2] = {osi_expr_parse(S, "2*c"), osi_expr_const(S, 4)};
  e = osi_expr_parse(S, "a//2 + b*a + Max(a, b)");
  CHECK_STR(osi_expr_str(S, osi_expr_substitute(S, e, from, to, 2)), "9*c+Max(2*c,4)");
  e = osi_expr_parse(S, "(a - 2*c)*x");
  CHECK_STR(osi_expr_str(S, osi_expr_substitute(S, e, from, to, 2)), "0");
  /* compound key matched after rewriting the children */
  OsiExpr key = osi_expr_parse(S, "Max(c, d)"), val = osi_expr_symbol(S, "m");
  OsiExpr from2[2] = {osi_expr_symbol(S, "a"), key}, to2[2] = {osi_expr_symbol(S, "c"), val};
  e = osi_expr_parse(S, "Max(a, d) + 1");
  CHECK_STR(osi_expr_str(S, osi_expr_substitute(S, e, from2, to2, 2)), "m+1");
  /* a monomial key */
  OsiExpr ab = osi_expr_parse(S, "a*b"), k = osi_expr_symbol(S, "k");
  e = osi_expr_parse(S, "3*a*b + a");
  CHECK_STR(osi_expr_str(S, osi_expr_substitute(S, e, &ab, &k, 1)), "a+3*k");
  CHECK_INT(osi_expr_substitute(S, e, NULL, NULL, 0), e);
}

static void test_leaf_equality(void) {
  OsiExpr x = 0, y = 0;
  CHECK(osi_expr_leaf_equality(S, osi_expr_parse(S, "2*dnz"), osi_expr_parse(S, "2*NonZero_nz_nnz"),
                               &x, &y));
  CHECK_STR(osi_expr_str(S, x), "dnz");
  CHECK_STR(osi_expr_str(S, y), "NonZero_nz_nnz");
  CHECK(osi_expr_leaf_equality(S, osi_expr_parse(S, "a+c"), osi_expr_parse(S, "b+c"), &x, &y));
  CHECK_STR(osi_expr_str(S, x), "a");
  CHECK_STR(osi_expr_str(S, y), "b");
  CHECK(!osi_expr_leaf_equality(S, osi_expr_parse(S, "x+1"), osi_expr_parse(S, "y"), &x, &y));
  CHECK(!osi_expr_leaf_equality(S, osi_expr_parse(S, "2*x"), osi_expr_parse(S, "y"), &x, &y));
  CHECK(!osi_expr_leaf_equality(S, osi_expr_parse(S, "x"), osi_expr_parse(S, "x"), &x, &y));
  CHECK(!osi_expr_leaf_equality(S, osi_expr_parse(S, "x//2"), osi_expr_parse(S, "y"), &x, &y));
  CHECK(!osi_expr_leaf_equality(S, osi_expr_parse(S, "x*z"), osi_expr_parse(S, "y*z"), &x, &y));
  CHECK(!osi_expr_leaf_equality(S, OSI_EXPR_UNKNOWN, osi_expr_parse(S, "y"), &x, &y));
}

static void test_fresh(void) {
  OsiExpr a = osi_expr_fresh(S, "NonZero_nnz");
  OsiExpr b = osi_expr_fresh(S, "NonZero_nnz");
  CHECK(a != b && a != OSI_EXPR_UNKNOWN && b != OSI_EXPR_UNKNOWN);
  const char *na = NULL, *nb = NULL;
  CHECK(osi_expr_is_symbol(S, a, &na) && osi_expr_is_symbol(S, b, &nb));
  CHECK(strncmp(na, "NonZero_nnz_", 12) == 0 && strcmp(na, nb) != 0);
  /* existing names are skipped */
  OsiExprStore *s = osi_expr_store_new();
  OsiExpr taken = osi_expr_symbol(s, "p_1");
  OsiExpr f = osi_expr_fresh(s, "p");
  CHECK(f != taken);
  CHECK_STR(osi_expr_str(s, f), "p_2");
  CHECK(osi_expr_fresh(s, "p") != f);
  osi_expr_store_delete(s);
}

static void test_limits(void) {
  /* overflow in folding or coefficients */
  CHECK_INT(osi_expr_parse(S, "9223372036854775807 + 1"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, "x*9223372036854775807*2"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, "x*9223372036854775807 + x"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, "(-9223372036854775807-1)//(-1)"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, "-(-9223372036854775807-1)"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, "x//0"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, "x%0"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, "CeilDiv(x,0)"), OSI_EXPR_UNKNOWN);
  /* coefficients stay within +-INT64_MAX: INT64_MIN could not change sign */
  CHECK_INT(osi_expr_parse(S, "x*(-9223372036854775807-1)"), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, "-4611686018427387904*x-4611686018427387904*x"), OSI_EXPR_UNKNOWN);
  /* ... and a sum whose normal form leaves them is unknown, as any size
   * arithmetic that overflows: expanding 2*(E1%2^62) needs -2^63 for
   * E1//2^62. (Kept as built, such a sum printed a form that parsed back
   * unknown, or that normalised otherwise when built in another order:
   * fuzz_expr findings.) Near the limit, sums still normalise and parse back. */
  CHECK_INT(osi_expr_parse(S, "1-N//N%-a-E1%4611686018427387904-E1%18427387904-N//N%-a-E1%4611686018427387904"),
            OSI_EXPR_UNKNOWN);
  OsiExpr m2 = osi_expr_parse(S, "2*(x%4611686018427387903)-y%18427387904");
  CHECK(m2 != OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_parse(S, osi_expr_str(S, m2)), m2);
  CHECK_INT(osi_expr_add(S, OSI_EXPR_UNKNOWN, osi_expr_const(S, 1)), OSI_EXPR_UNKNOWN);
  CHECK_INT(osi_expr_max(S, osi_expr_symbol(S, "x"), OSI_EXPR_UNKNOWN), OSI_EXPR_UNKNOWN);
  /* size cap: a sum of many symbols grows past OSI_EXPR_MAX_NODES */
  OsiExpr e = osi_expr_const(S, 0);
  int i;
  char name[16];
  for (i = 0; i < OSI_EXPR_MAX_NODES && e != OSI_EXPR_UNKNOWN; i++) {
    snprintf(name, sizeof name, "s%d", i);
    e = osi_expr_add(S, e, osi_expr_symbol(S, name));
    if (e != OSI_EXPR_UNKNOWN) CHECK(osi_expr_size(S, e) <= OSI_EXPR_MAX_NODES);
  }
  CHECK_INT(e, OSI_EXPR_UNKNOWN);
  CHECK(i > OSI_EXPR_MAX_NODES / 2 - 2);
  /* products blow up quickly: (a+b+c+d)^8 has 165 terms of degree 8 */
  OsiExpr p = osi_expr_parse(S, "a+b+c+d"), acc = p;
  for (i = 0; i < 7; i++) acc = osi_expr_mul(S, acc, p);
  CHECK_INT(acc, OSI_EXPR_UNKNOWN);
}

static void test_stores_independent(void) {
  OsiExprStore *a = osi_expr_store_new(), *b = osi_expr_store_new();
  osi_expr_symbol(a, "zzz");
  OsiExpr ea = osi_expr_parse(a, "y + x"), eb = osi_expr_parse(b, "x + y");
  CHECK_STR(osi_expr_str(a, ea), osi_expr_str(b, eb));
  CHECK_STR(osi_expr_str(a, ea), "x+y");
  osi_expr_store_delete(a);
  osi_expr_store_delete(b);
  osi_expr_store_delete(NULL);
}

static void test_hash_consing(void) {
  OsiExpr x = osi_expr_symbol(S, "x"), y = osi_expr_symbol(S, "y");
  CHECK_INT(osi_expr_add(S, x, y), osi_expr_add(S, y, x));
  CHECK_INT(osi_expr_add(S, x, y), osi_expr_parse(S, "x+y"));
  CHECK_INT(osi_expr_mul(S, osi_expr_add(S, x, y), osi_expr_const(S, 2)),
            osi_expr_parse(S, "2*y+x*2"));
  CHECK_INT(osi_expr_sub(S, x, x), osi_expr_const(S, 0));
  CHECK_INT(osi_expr_neg(S, osi_expr_neg(S, x)), x);
  CHECK_INT(osi_expr_ceildiv(S, x, osi_expr_const(S, 1)), x);
  CHECK(osi_expr_str(S, x) == osi_expr_str(S, x)); /* cached */
  /* many constructor calls stay cheap and stable */
  OsiExpr acc = osi_expr_const(S, 0);
  for (int i = 0; i < 100000; i++) {
    acc = osi_expr_add(S, osi_expr_mul(S, x, osi_expr_const(S, i % 7)), osi_expr_floordiv(S, y, osi_expr_const(S, 2)));
  }
  CHECK_STR(osi_expr_str(S, acc), "4*x+y//2"); /* 99999 % 7 == 4 */
}

/* Sizes a and b known equal (the caller's knowledge), nothing else. */
static int a_is_b(void *user, OsiExpr x, OsiExpr y) {
  (void)user;
  OsiExpr a = osi_expr_symbol(S, "a"), b = osi_expr_symbol(S, "b");
  return (x == a && y == b) || (x == b && y == a);
}

/* Broadcast(a, b) is a where a == b: an operand the callback makes equal
 * to one kept before it goes, inside other terms too and innermost first
 * (so an outer Broadcast compares merged operands). */
static void test_merge_broadcasts(void) {
  const char *cases[][2] = {
      {"Broadcast(a,b)", "a"},
      {"Broadcast(b,a,c)", "Broadcast(a,c)"},
      {"2*Broadcast(a,b)+Max(Broadcast(b,c),1)", "2*a+Max(Broadcast(b,c),1)"},
      {"Broadcast(a,b+Broadcast(a,b)-a)", "a"}, /* inner first: b+a-a is b */
      {"Broadcast(c,d)", "Broadcast(c,d)"},
      {"a+b", "a+b"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    CHECK_STR(osi_expr_str(S, osi_expr_merge_broadcasts(S, osi_expr_parse(S, cases[i][0]), a_is_b, NULL)),
              cases[i][1]);
  CHECK_INT(osi_expr_merge_broadcasts(S, OSI_EXPR_UNKNOWN, a_is_b, NULL), OSI_EXPR_UNKNOWN);
}

int main(void) {
  S = osi_expr_store_new();
  CHECK(S != NULL);
  test_required_rewrites();
  test_soundness();
  test_nonneg();
  test_exporter_idioms();
  test_printing_and_precedence();
  test_quoting();
  test_parse_errors();
  test_from_dim_param();
  test_queries();
  test_for_each_symbol();
  test_eval();
  test_substitute();
  test_leaf_equality();
  test_fresh();
  test_limits();
  test_stores_independent();
  test_hash_consing();
  test_merge_broadcasts();
  osi_expr_store_delete(S);
  TEST_MAIN_END();
}
