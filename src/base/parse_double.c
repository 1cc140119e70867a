#include "base/parse_double.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Significant digits kept. A value halfway between two doubles has at most
 * 767 significant digits, so a number cut after 800 lies on the same side of
 * every such midpoint as the whole number; a nonzero digit cut off is only
 * remembered (`sticky`), to break what would look like a tie. */
#define MAX_DIGITS 800

/* Words of the big integers: 10^800 (digits) and 10^1130 (a divisor, past
 * which the value is below 2^-1075) shifted left by 63 need under 3,900 bits. */
#define WORDS 128

typedef struct Big {
  uint32_t w[WORDS]; /* least significant first */
  int n;             /* words in use; w[n - 1] != 0 unless n == 0 */
} Big;

static void big_trim(Big *b) {
  while (b->n > 0 && b->w[b->n - 1] == 0) b->n--;
}

/* b = b * m + add. */
static void big_mul_add(Big *b, uint32_t m, uint32_t add) {
  uint64_t carry = add;
  for (int i = 0; i < b->n; i++) {
    uint64_t x = (uint64_t)b->w[i] * m + carry;
    b->w[i] = (uint32_t)x;
    carry = x >> 32;
  }
  if (carry) b->w[b->n++] = (uint32_t)carry;
}

static void big_mul_pow10(Big *b, int64_t k) {
  static const uint32_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
  for (; k >= 9; k -= 9) big_mul_add(b, pow10[9], 0);
  if (k > 0) big_mul_add(b, pow10[k], 0);
}

static int big_bits(const Big *b) {
  if (b->n == 0) return 0;
  int bits = 32 * b->n;
  for (uint32_t top = b->w[b->n - 1]; !(top & 0x80000000u); top <<= 1) bits--;
  return bits;
}

static void big_shl(Big *b, int bits) {
  if (b->n == 0 || bits == 0) return;
  int words = bits / 32, r = bits % 32;
  b->w[b->n] = 0;
  for (int i = b->n; i >= 0; i--) {
    uint32_t hi = b->w[i] << r;
    uint32_t lo = r && i > 0 ? b->w[i - 1] >> (32 - r) : 0;
    b->w[i + words] = hi | lo;
  }
  for (int i = 0; i < words; i++) b->w[i] = 0;
  b->n += words + 1;
  big_trim(b);
}

static void big_shr1(Big *b) {
  for (int i = 0; i < b->n; i++) b->w[i] = (b->w[i] >> 1) | (i + 1 < b->n ? b->w[i + 1] << 31 : 0);
  big_trim(b);
}

static int big_cmp(const Big *a, const Big *b) {
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (int i = a->n - 1; i >= 0; i--)
    if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

/* a -= b, with a >= b. */
static void big_sub(Big *a, const Big *b) {
  uint32_t borrow = 0;
  for (int i = 0; i < a->n; i++) {
    uint64_t x = (uint64_t)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;
    a->w[i] = (uint32_t)x;
    borrow = (uint32_t)(x >> 63);
  }
  big_trim(a);
}

/* The double nearest digits[0..nd) * 10^dexp (ties to even; `sticky`: the
 * number is a little more than that), with no digit 0 first nor last, when
 * the fast path cannot: the quotient of two big integers to 64 bits. */
static double exact_value(const unsigned char *digits, int nd, int64_t dexp, int sticky) {
  Big num = {{0}, 0}, den = {{1}, 1};
  for (int i = 0; i < nd;) {
    uint32_t chunk = 0, scale = 1;
    for (int k = 0; k < 9 && i < nd; k++, i++) chunk = chunk * 10 + digits[i], scale *= 10;
    big_mul_add(&num, scale, chunk);
  }
  if (dexp > 0) big_mul_pow10(&num, dexp);
  else big_mul_pow10(&den, -dexp);
  /* q = floor(num * 2^shift / den) in [2^62, 2^64); the rest tells ties apart. */
  int shift = 63 - (big_bits(&num) - big_bits(&den));
  if (shift > 0) big_shl(&num, shift);
  else big_shl(&den, -shift);
  big_shl(&den, 63);
  uint64_t q = 0;
  for (int i = 63; i >= 0; i--) {
    if (big_cmp(&num, &den) >= 0) {
      big_sub(&num, &den);
      q |= (uint64_t)1 << i;
    }
    big_shr1(&den);
  }
  int rest = num.n != 0 || sticky;
  /* The value is (q + rest) * 2^-shift, its leading bit 2^e2; a double keeps
   * 53 bits of a normal value, fewer below 2^-1022 (subnormals). */
  int len = q >> 63 ? 64 : 63;
  int e2 = len - 1 - shift;
  int keep = e2 >= -1022 ? 53 : e2 + 1075;
  int drop = len - keep;
  if (drop > len) return 0.0; /* below half the smallest subnormal */
  uint64_t m = drop == 64 ? 0 : q >> drop;
  uint64_t half = (uint64_t)1 << (drop - 1);
  uint64_t low = q & ((half << 1) - 1);
  if (low > half || (low == half && (rest || (m & 1)))) m++;
  uint64_t bits;
  if (e2 >= -1022) {
    if (m >> 53) m >>= 1, e2++; /* rounded up to the next power of 2 */
    if (e2 > 1023) return INFINITY;
    bits = ((uint64_t)(e2 + 1023) << 52) | (m & (((uint64_t)1 << 52) - 1));
  } else {
    bits = m; /* m * 2^-1074; rounding up to 2^52 makes the smallest normal */
  }
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* Whether s starts with the lower-case letters of word, in any case. */
static int starts_with_word(const char *s, const char *word) {
  for (; *word; s++, word++)
    if ((*s | 32) != *word) return 0;
  return 1;
}

double osi_parse_double(const char *s, char **end) {
  const char *p = s;
  while (is_space(*p)) p++;
  int negative = *p == '-';
  if (*p == '+' || *p == '-') p++;
  double special = 0;
  int is_special = 1;
  if (starts_with_word(p, "inf")) {
    p += starts_with_word(p, "infinity") ? 8 : 3;
    special = INFINITY;
  } else if (starts_with_word(p, "nan")) {
    p += 3;
    if (*p == '(') {
      const char *q = p + 1;
      while (is_digit(*q) || ((*q | 32) >= 'a' && (*q | 32) <= 'z') || *q == '_') q++;
      if (*q == ')') p = q + 1;
    }
    special = NAN;
  } else {
    is_special = 0;
  }
  if (is_special) {
    if (end) *end = (char *)p;
    return negative ? -special : special;
  }

  unsigned char digits[MAX_DIGITS];
  int nd = 0, sticky = 0, any = 0;
  int64_t dexp = 0; /* the number is digits * 10^dexp (+ a little when sticky) */
  for (; is_digit(*p); p++) {
    any = 1;
    if (nd == 0 && *p == '0') continue;
    if (nd < MAX_DIGITS) digits[nd++] = (unsigned char)(*p - '0');
    else sticky |= *p != '0', dexp++;
  }
  if (*p == '.') {
    const char *q = p + 1;
    for (; is_digit(*q); q++) {
      any = 1;
      if (nd == 0 && *q == '0') dexp--;
      else if (nd < MAX_DIGITS) digits[nd++] = (unsigned char)(*q - '0'), dexp--;
      else sticky |= *q != '0';
    }
    if (any) p = q;
  }
  if (!any) {
    if (end) *end = (char *)s;
    return 0;
  }
  if ((*p | 32) == 'e') {
    const char *q = p + 1;
    int exp_negative = *q == '-';
    if (*q == '+' || *q == '-') q++;
    if (is_digit(*q)) {
      int64_t e = 0;
      for (; is_digit(*q); q++)
        if (e < 1000000000) e = e * 10 + (*q - '0');
      dexp += exp_negative ? -e : e;
      p = q;
    }
  }
  if (end) *end = (char *)p;

  double v;
  while (nd > 0 && digits[nd - 1] == 0) nd--, dexp++;
  if (nd == 0) v = 0;
  else if (nd + dexp > 310) v = INFINITY; /* at least 10^310 */
  else if (nd + dexp < -330) v = 0;       /* below 10^-330 */
  else if (!sticky && nd <= 15 && dexp >= -22 && dexp <= 22) {
    /* Both operands exact (under 2^53 and 10^22), so one rounding: the
     * correctly rounded quotient or product. */
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    int64_t d = 0;
    for (int i = 0; i < nd; i++) d = d * 10 + digits[i];
    v = dexp < 0 ? (double)d / pow10[-dexp] : (double)d * pow10[dexp];
  } else {
    v = exact_value(digits, nd, dexp, sticky);
  }
  return negative ? -v : v;
}
