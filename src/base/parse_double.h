/*
 * Decimal text to double, correctly rounded (to nearest, ties to even), as
 * strtod in the C locale: what JSON numbers, float literals in dims and the
 * round-trip checks of printed floats read with. In wasm, musl's strtod
 * computes in 128-bit long double in software and brought 6.5 KB gzipped of
 * code to every download of the module; this one is exact integer arithmetic
 * on the digits (README "Speed and size").
 */
#ifndef OSI_PARSE_DOUBLE_H
#define OSI_PARSE_DOUBLE_H

/* The number at the start of s: white space (isspace), an optional sign,
 * then digits with an optional '.' (at least one digit) and an optional
 * exponent (e or E, an optional sign, digits), or inf, infinity, nan or
 * nan(letters, digits and _), any case. *end (when end is not NULL) is set
 * past what was read, or to s when there is no number (the value is then 0).
 * Past the largest double the value is an infinity, under half the smallest
 * subnormal a zero (of the number's sign). Hexadecimal floats are not read
 * ("0x10" is the number 0 followed by "x10"). */
double osi_parse_double(const char *s, char **end);

#endif
