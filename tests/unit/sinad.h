/*
 * sinad.h - the tests' sine fit (header only: unit and integration tests
 * include it). A least-squares fit of a sin + b cos + c at a known
 * frequency over n samples taken every `stride` floats of x at rate fs;
 * returns the SINAD (the fitted sine's power over the residual's, dB) and
 * the fitted amplitude in *amp. The DC term keeps an offset out of the
 * noise.
 */
#ifndef HL_TEST_SINAD_H
#define HL_TEST_SINAD_H

#include <math.h>
#include <stddef.h>
#include <string.h>

static inline double test_det3(double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

static inline double test_sinad_db(const float *x, size_t stride, size_t n, double freq, double fs,
                                   double *amp) {
    double m[3][3] = {{0}}, y[3] = {0};
    for (size_t i = 0; i < n; i++) {
        double w = 2 * M_PI * freq * (double)i / fs, b[3] = {sin(w), cos(w), 1.0};
        for (int r = 0; r < 3; r++) {
            y[r] += b[r] * x[i * stride];
            for (int c = 0; c < 3; c++)
                m[r][c] += b[r] * b[c];
        }
    }
    double det = test_det3(m), co[3]; /* Cramer's rule */
    for (int k = 0; k < 3; k++) {
        double a[3][3];
        memcpy(a, m, sizeof a);
        for (int r = 0; r < 3; r++)
            a[r][k] = y[r];
        co[k] = test_det3(a) / det;
    }
    double sig = 0, res = 0;
    for (size_t i = 0; i < n; i++) {
        double w = 2 * M_PI * freq * (double)i / fs;
        double fit = co[0] * sin(w) + co[1] * cos(w), e = x[i * stride] - fit - co[2];
        sig += fit * fit;
        res += e * e;
    }
    *amp = sqrt(co[0] * co[0] + co[1] * co[1]);
    return 10 * log10(sig / (res > 1e-30 ? res : 1e-30));
}

#endif /* HL_TEST_SINAD_H */
