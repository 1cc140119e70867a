/* osi_parse_double (src/base/parse_double.c) against the C library's strtod
 * (glibc's, correctly rounded), bit for bit and in where each stops reading:
 * the texts around the edges (signs, dots, exponents, inf and nan, white
 * space; hexadecimal floats are left out on purpose), the largest and smallest doubles and the values around them,
 * random decimal texts of every length and exponent, every double printed
 * with 17 digits, and the exact midpoints between neighbouring doubles
 * (printed exactly from long double, which holds them), as they are and with
 * a digit past the 800 the parser keeps. */
#include <float.h>
#include <math.h>

#include "base/parse_double.h"
#include "test.h"

static int mismatches;

/* Both parsers on text; a mismatch is printed (the first few). */
static void same(const char *text) {
  char *want_end, *got_end;
  double want = strtod(text, &want_end);
  double got = osi_parse_double(text, &got_end);
  uint64_t w, g;
  memcpy(&w, &want, 8);
  memcpy(&g, &got, 8);
  int ok = (w == g || (want != want && got != got)) && want_end == got_end;
  test_checks++;
  if (!ok) {
    test_failures++;
    if (++mismatches <= 10)
      fprintf(stderr, "'%.120s': strtod %.17g (end +%d), osi_parse_double %.17g (end +%d)\n", text, want,
              (int)(want_end - text), got, (int)(got_end - text));
  }
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* A random finite positive double: random bits, or near a power of 2, or subnormal. */
static double random_double(void) {
  uint64_t bits = next() & 0x7FFFFFFFFFFFFFFFu;
  int kind = (int)(next() % 4);
  if (kind == 1) bits &= 0x000FFFFFFFFFFFFFu;                             /* subnormal */
  if (kind == 2) bits = (bits & 0x7FF0000000000000u) | (next() % 4);       /* just past 2^k */
  if (kind == 3) bits = (bits & 0x7FF0000000000000u) | (0x000FFFFFFFFFFFFFu - next() % 4);
  if ((bits >> 52) == 0x7FF) bits &= ~((uint64_t)1 << 62);
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

/* The midpoint between d and the next double up, exactly, with variants on either side. */
static void midpoint_texts(double d) {
  long double mid = ((long double)d + (long double)nextafter(d, INFINITY)) / 2;
  char text[1024], variant[1100];
  snprintf(text, sizeof text, "%.800Le", mid);
  same(text);
  char *e = strchr(text, 'e');
  if (!e) return;
  /* a 1 past digit 800: just above the midpoint, only the sticky digit says so */
  snprintf(variant, sizeof variant, "%.*s0001%s", (int)(e - text), text, e);
  same(variant);
  /* the midpoint's shortest form: its trailing zeros dropped */
  int n = (int)(e - text);
  while (n > 2 && text[n - 1] == '0') n--;
  snprintf(variant, sizeof variant, "%.*s%s", n, text, e);
  same(variant);
  /* one unit of its last digit less, and more */
  if (text[n - 1] > '0' && text[n - 1] != '.') {
    variant[n - 1] = (char)(text[n - 1] - 1);
    same(variant);
  }
  if (text[n - 1] < '9' && text[n - 1] != '.') {
    variant[n - 1] = (char)(text[n - 1] + 1);
    same(variant);
  }
}

int main(void) {
  static const char *edges[] = {
      "0", "-0", "+0", "0.0", "00000", "1", "-1", "1.5", "0.1", "0.3", "1e-05", "1E5", "1e+5", "5e-1",
      ".5", "5.", ".", "-.", "e5", "-", "+", "", "  \t\n\v\f\r12", "+.e1", "1e", "1e+", "1e-", "1e+5x",
      "1.2.3", "12abc", "inf", "-inf", "INF", "Infinity", "-infinity", "infin", "infinit",
      "nan", "-nan", "NaN", "nan()", "nan(123_abc)", "nan(12", "nan(-)", "in", "na", "9007199254740993",
      "9007199254740992.5", "9007199254740993.0000000000000000000000000000001", "123456789012345678901234567890",
      "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1e308", "1e309",
      "2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308",
      "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "5e-324", "3e-324",
      "1e-400", "1e400", "-1e400", "1e-99999999999", "1e99999999999", "0e99999999999", "0.000000e-5",
      "00000.000001230000e+0000010", "1000000000000000000000", "10000000000000000000000", "1e22", "1e23",
      "8.98846567431158e307", "0.1e-309", "123.456e-310", "7.0e-10", "3.4028235e38", "1.1754944e-38",
      "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999",
  };
  for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) same(edges[i]);

  /* Long runs of digits: 1000 nines, a 1 after 900 zeros, digits past 800 that decide a tie. */
  static char big[4000];
  memset(big, '9', 1000);
  big[1000] = 0;
  same(big);
  strcpy(big + 1000, "e-1300");
  same(big);
  big[0] = '0', big[1] = '.';
  memset(big + 2, '0', 900);
  strcpy(big + 902, "1e-100");
  same(big);
  strcpy(big + 902, "1e+700");
  same(big);

  /* Random texts: 1 to 40 digits, a dot anywhere or none, an exponent or none. */
  char text[128];
  for (int i = 0; i < 100000; i++) {
    int nd = 1 + (int)(next() % (i % 2 ? 40 : 18));
    int dot = (int)(next() % (nd + 2)) - 1;
    int k = 0;
    if (next() % 3 == 0) text[k++] = '-';
    for (int j = 0; j < nd; j++) {
      if (j == dot) text[k++] = '.';
      text[k++] = (char)('0' + next() % 10);
    }
    if (next() % 4) k += snprintf(text + k, sizeof text - k, "e%d", (int)(next() % 700) - 350);
    text[k] = 0;
    same(text);
  }

  /* Printed doubles (17 digits and shortest-ish 15), and the midpoints between neighbours. */
  for (int i = 0; i < 30000; i++) {
    double d = random_double();
    snprintf(text, sizeof text, "%.17g", d);
    same(text);
    snprintf(text, sizeof text, "%.15g", d);
    same(text);
    if (i % 10 == 0) midpoint_texts(d);
  }
  midpoint_texts(DBL_MAX);
  midpoint_texts(0);
  midpoint_texts(DBL_MIN);
  midpoint_texts(nextafter(DBL_MIN, 0));
  midpoint_texts(1.0);
  midpoint_texts(9007199254740992.0);

  /* No end pointer asked for. Hexadecimal floats are not read (JSON, the
   * expression lexer and printf's %g never write them): "0x10" is 0, then x. */
  CHECK(osi_parse_double("2.5", NULL) == 2.5);
  char *end;
  const char *hex = "0x10";
  CHECK(osi_parse_double(hex, &end) == 0 && end == hex + 1);
  TEST_MAIN_END();
}
