/* test_layout.c - speaker layouts: channel masks, constant-power pairwise
 * panning (sweep power, the two-speaker rule, LFE silent) and the BS.775
 * downmix matrices. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hl_layout.h"

static void test_names(void **state) {
    (void)state;
    assert_int_equal(hl_layout_parse("stereo"), HL_LAYOUT_STEREO);
    assert_int_equal(hl_layout_parse("quad"), HL_LAYOUT_QUAD);
    assert_int_equal(hl_layout_parse("5.1"), HL_LAYOUT_51);
    assert_int_equal(hl_layout_parse("7.1"), HL_LAYOUT_71);
    assert_int_equal(hl_layout_parse("7.1.4"), -1);
    assert_int_equal(hl_layout_parse(""), -1);
    assert_int_equal(hl_layout_channels(HL_LAYOUT_51), 6);
    assert_int_equal(hl_layout_channels(HL_LAYOUT_71), 8);
    assert_int_equal(hl_layout_mask(HL_LAYOUT_STEREO), 0x3);
    assert_int_equal(hl_layout_mask(HL_LAYOUT_QUAD), 0x33);
    assert_int_equal(hl_layout_mask(HL_LAYOUT_51), 0x3f);
    assert_int_equal(hl_layout_mask(HL_LAYOUT_71), 0x63f);
    assert_int_equal(hl_layout_for_channels(6), HL_LAYOUT_51);
    assert_int_equal(hl_layout_for_channels(3), -1);
}

/* speaker azimuths per layout, degrees (as documented in hl_layout.h) */
static const float k_az[HL_LAYOUT_COUNT][HL_LAYOUT_MAX_CH] = {
    {30, -30},
    {30, -30, 135, -135},
    {30, -30, 0, 0, 110, -110},
    {30, -30, 0, 0, 150, -150, 90, -90},
};

/* x in (-180, 180] */
static float wrap(float x) {
    while (x > 180.0f)
        x -= 360.0f;
    while (x <= -180.0f)
        x += 360.0f;
    return x;
}

/* A 360 degree sweep in 0.5 degree steps on every layout: summed power
 * within +-0.5 dB of 1 (it is exact here), at most two speakers carry
 * energy and they are the two bracketing the direction, LFE gets nothing. */
static void test_sweep(void **state) {
    (void)state;
    for (int l = HL_LAYOUT_QUAD; l < HL_LAYOUT_COUNT; l++) {
        uint32_t n = hl_layout_channels((hl_layout_t)l);
        int lfe = hl_layout_channel_of((hl_layout_t)l, HL_SPK_LFE);
        int used_centre = 0;
        for (int s = 0; s < 720; s++) {
            float deg = -180.0f + 0.5f * (float)s;
            float g[HL_LAYOUT_MAX_CH];
            hl_layout_pan((hl_layout_t)l, deg * (float)M_PI / 180.0f, g);
            double p = 0;
            int nz = 0;
            for (uint32_t c = 0; c < n; c++) {
                assert_true(g[c] >= 0.0f);
                p += (double)g[c] * g[c];
                if (g[c] > 1e-6f) nz++;
            }
            double db = 10.0 * log10(p);
            assert_true(fabs(db) <= 0.5);
            assert_true(nz >= 1 && nz <= 2);
            if (lfe >= 0) assert_true(g[lfe] == 0.0f);
            int fc = hl_layout_channel_of((hl_layout_t)l, HL_SPK_FC);
            if (fc >= 0 && g[fc] > 0.5f) used_centre = 1;
            /* the speakers with energy bracket the direction: deg lies on
             * the arc between them (< 180 degrees) and no other directional
             * speaker lies strictly inside that arc */
            int on[2], k = 0;
            for (uint32_t c = 0; c < n; c++)
                if (g[c] > 1e-6f) on[k++] = (int)c;
            if (nz == 2) {
                float a0 = k_az[l][on[0]], a1 = k_az[l][on[1]];
                float w = wrap(a1 - a0); /* signed arc a0 -> a1 */
                float lo = w > 0 ? a0 : a1, span = fabsf(w);
                assert_true(span < 180.0f);
                float x = wrap(deg - lo);
                assert_true(x >= -1e-3f && x <= span + 1e-3f);
                for (uint32_t c = 0; c < n; c++) {
                    if ((int)c == on[0] || (int)c == on[1] || (int)c == lfe) continue;
                    float y = wrap(k_az[l][c] - lo);
                    assert_false(y > 1e-3f && y < span - 1e-3f);
                }
            }
        }
        if (l != HL_LAYOUT_QUAD) assert_true(used_centre);
    }
}

/* At each speaker's own azimuth it alone plays, at gain 1; half way between
 * two adjacent ones both play at 0.7071. */
static void test_speakers(void **state) {
    (void)state;
    static const float az51[6] = {30, -30, 0, 0, 110, -110};
    float g[HL_LAYOUT_MAX_CH];
    for (uint32_t c = 0; c < 6; c++) {
        if (c == 3) continue;
        hl_layout_pan(HL_LAYOUT_51, az51[c] * (float)M_PI / 180.0f, g);
        for (uint32_t k = 0; k < 6; k++)
            assert_float_equal(g[k], k == c ? 1.0f : 0.0f, 1e-5);
    }
    hl_layout_pan(HL_LAYOUT_51, 15.0f * (float)M_PI / 180.0f, g); /* FC .. FL */
    assert_float_equal(g[0], 0.70710678f, 1e-5);
    assert_float_equal(g[2], 0.70710678f, 1e-5);
    hl_layout_pan(HL_LAYOUT_51, (float)M_PI, g); /* straight behind: BL and BR */
    assert_float_equal(g[4], 0.70710678f, 1e-5);
    assert_float_equal(g[5], 0.70710678f, 1e-5);
    assert_float_equal(g[0] + g[1] + g[2] + g[3], 0.0f, 1e-6);
    hl_layout_pan(HL_LAYOUT_71, 100.0f * (float)M_PI / 180.0f, g); /* SL .. BL (150) */
    assert_true(g[6] > 0.9f && g[4] > 0.2f);
    assert_float_equal(g[0] + g[1] + g[2] + g[3] + g[5] + g[7], 0.0f, 1e-6);
}

static float at(const float *m, int o, int i) {
    return m[o * HL_LAYOUT_MAX_CH + i];
}

/* BS.775: 5.1 -> stereo L = L + 0.7071 C + 0.7071 Ls, R likewise, LFE out. */
static void test_downmix(void **state) {
    (void)state;
    float m[HL_LAYOUT_MAX_CH * HL_LAYOUT_MAX_CH];
    assert_int_equal(hl_layout_downmix(HL_LAYOUT_51, HL_LAYOUT_STEREO, m), 0);
    const float e[2][6] = {{1, 0, 0.7071f, 0, 0.7071f, 0}, {0, 1, 0.7071f, 0, 0, 0.7071f}};
    for (int o = 0; o < 2; o++)
        for (int i = 0; i < 6; i++)
            assert_float_equal(at(m, o, i), e[o][i], 0.01);
    assert_int_equal(hl_layout_downmix(HL_LAYOUT_71, HL_LAYOUT_51, m), 0);
    assert_float_equal(at(m, 4, 4), 0.7071f, 0.01);
    assert_float_equal(at(m, 4, 6), 0.7071f, 0.01);
    assert_float_equal(at(m, 3, 3), 1.0f, 0.0);
    assert_int_equal(hl_layout_downmix(HL_LAYOUT_51, HL_LAYOUT_51, m), 0);
    for (int o = 0; o < 6; o++)
        for (int i = 0; i < 6; i++)
            assert_true(at(m, o, i) == (o == i ? 1.0f : 0.0f));
    assert_int_equal(hl_layout_downmix(HL_LAYOUT_STEREO, HL_LAYOUT_51, m), -1);
}

static void test_expand(void **state) {
    (void)state;
    float buf[4 * 6];
    for (int i = 0; i < 24; i++)
        buf[i] = 9.0f;
    for (int i = 0; i < 4; i++) {
        buf[2 * i] = (float)i;
        buf[2 * i + 1] = -(float)i;
    }
    hl_layout_expand_rt(buf, buf, 4, 6);
    for (int i = 0; i < 4; i++) {
        assert_true(buf[6 * i] == (float)i);
        assert_true(buf[6 * i + 1] == -(float)i);
        for (int c = 2; c < 6; c++)
            assert_true(buf[6 * i + c] == 0.0f);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),    cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_speakers), cmocka_unit_test(test_downmix),
        cmocka_unit_test(test_expand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
