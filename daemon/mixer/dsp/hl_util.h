/*
 * hl_util.h - the small numeric helpers the mixer and the daemon share, each
 * defined once here (header only, RT safe: no allocation, libm only).
 */
#ifndef HL_UTIL_H
#define HL_UTIL_H

#include <stdint.h>

/* x clamped to [lo, hi]. NaN gives lo: a parameter that is not a number
 * takes the safe end of its range, never passes through. */
static inline float hl_clampf(float x, float lo, float hi) {
    if (!(x == x)) return lo;
    return x < lo ? lo : x > hi ? hi : x;
}

/* The smallest power of two >= n, at least 2 and at most 2^31 (ring and
 * table sizes: callers bound n far below that). */
static inline uint32_t hl_pow2_at_least(uint64_t n) {
    uint32_t p = 2;
    while (p < n && p < (1u << 31))
        p <<= 1;
    return p;
}

/* The modified Bessel function of the first kind, order 0, by its power
 * series to double precision (Kaiser windows, computed at set-up). */
static inline double hl_bessel_i0(double x) {
    double sum = 1.0, term = 1.0, q = x * x / 4.0;
    for (int k = 1; k < 80; k++) {
        term *= q / ((double)k * (double)k);
        sum += term;
        if (term < sum * 1e-17) break;
    }
    return sum;
}

#endif /* HL_UTIL_H */
