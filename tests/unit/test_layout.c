/* test_layout.c - speaker layouts: channel masks, constant-power pairwise
 * panning (sweep power, the two-speaker rule, LFE silent), VBAP with height
 * on 7.1.4 (constant power, at most three speakers, the image on the
 * direction, the bed at ear height) and the BS.775 downmix matrices. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hl_layout.h"
#include "mix_helpers.h"

static void test_names(void **state) {
    (void)state;
    assert_int_equal(hl_layout_parse("stereo"), HL_LAYOUT_STEREO);
    assert_int_equal(hl_layout_parse("quad"), HL_LAYOUT_QUAD);
    assert_int_equal(hl_layout_parse("5.1"), HL_LAYOUT_51);
    assert_int_equal(hl_layout_parse("7.1"), HL_LAYOUT_71);
    assert_int_equal(hl_layout_parse("7.1.4"), HL_LAYOUT_714);
    assert_int_equal(hl_layout_parse("7.1.2"), -1);
    assert_int_equal(hl_layout_parse(""), -1);
    assert_int_equal(hl_layout_channels(HL_LAYOUT_51), 6);
    assert_int_equal(hl_layout_channels(HL_LAYOUT_71), 8);
    assert_int_equal(hl_layout_mask(HL_LAYOUT_STEREO), 0x3);
    assert_int_equal(hl_layout_mask(HL_LAYOUT_QUAD), 0x33);
    assert_int_equal(hl_layout_mask(HL_LAYOUT_51), 0x3f);
    assert_int_equal(hl_layout_mask(HL_LAYOUT_71), 0x63f);
    assert_int_equal(hl_layout_channels(HL_LAYOUT_714), 12);
    assert_int_equal(hl_layout_mask(HL_LAYOUT_714), 0x2d63f); /* + TFL TFR TBL TBR */
    assert_int_equal(hl_layout_for_channels(12), HL_LAYOUT_714);
    assert_int_equal(hl_layout_channel_of(HL_LAYOUT_714, HL_SPK_TBR), 11);
    assert_true(hl_layout_has_height(HL_LAYOUT_714) && !hl_layout_has_height(HL_LAYOUT_71));
    assert_int_equal(hl_layout_for_channels(6), HL_LAYOUT_51);
    assert_int_equal(hl_layout_for_channels(3), -1);
}

/* speaker azimuths per layout, degrees (as documented in hl_layout.h) */
static const float k_az[HL_LAYOUT_COUNT][HL_LAYOUT_MAX_CH] = {
    {30, -30},
    {30, -30, 135, -135},
    {30, -30, 0, 0, 110, -110},
    {30, -30, 0, 0, 150, -150, 90, -90},
    {30, -30, 0, 0, 150, -150, 90, -90, 45, -45, 135, -135},
};
#define TOP0 8 /* 7.1.4's first top speaker: those are off the ear-height ring */

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
            for (uint32_t c = TOP0; c < n && l == HL_LAYOUT_714; c++)
                assert_true(g[c] == 0.0f); /* ear height: the bed alone */
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
                    if (l == HL_LAYOUT_714 && c >= TOP0) continue;
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

/* 7.1.4 over the upper hemisphere, every 3 degrees: gains >= 0, summed
 * power 1, at most three speakers, LFE silent, the top speakers sounding
 * exactly when the source is above ear height, and the VBAP image (the
 * gain-weighted sum of the speakers' unit vectors) on the source's
 * direction. Below ear height: as its projection onto the ear plane. */
static void test_height(void **state) {
    (void)state;
    const hl_layout_t l = HL_LAYOUT_714;
    static const double el_spk[12] = {0, 0, 0, 0, 0, 0, 0, 0, 45, 45, 45, 45};
    double pmin = 9, pmax = -9, worst = 0;
    for (int ie = 0; ie <= 30; ie++)
        for (int ia = 0; ia < 120; ia++) {
            const double az = 3.0 * ia - 180.0, el = 3.0 * ie;
            float d[3], g[HL_LAYOUT_MAX_CH];
            test_dir_of(az, el, d);
            hl_layout_pan_dir(l, d, g);
            double p = 0, top = 0, img[3] = {0, 0, 0};
            int nz = 0;
            for (uint32_t c = 0; c < 12; c++) {
                assert_true(g[c] >= 0.0f);
                p += (double)g[c] * g[c];
                nz += g[c] != 0.0f;
                if (c >= TOP0) top += g[c];
                float u[3];
                test_dir_of(k_az[l][c], el_spk[c], u);
                for (int a = 0; a < 3; a++)
                    img[a] += g[c] * u[a];
            }
            assert_true(g[3] == 0.0f);
            assert_true(nz >= 1 && nz <= 3);
            assert_true((top > 0.0) == (el > 0.0));
            const double db = 10 * log10(p);
            pmin = db < pmin ? db : pmin;
            pmax = db > pmax ? db : pmax;
            const double il = sqrt(img[0] * img[0] + img[1] * img[1] + img[2] * img[2]);
            const double dot = (img[0] * d[0] + img[1] * d[1] + img[2] * d[2]) / il;
            const double off = acos(dot > 1 ? 1 : dot) * 180.0 / M_PI;
            worst = off > worst ? off : worst;
            if (el == 0.0) { /* below the ear plane: the same as at it */
                float db_[3], gb[HL_LAYOUT_MAX_CH];
                test_dir_of(az, -40.0, db_);
                hl_layout_pan_dir(l, db_, gb);
                for (uint32_t c = 0; c < 12; c++)
                    assert_float_equal(gb[c], g[c], 1e-5);
            }
        }
    print_message("# 7.1.4 hemisphere: power %+.6f .. %+.6f dB, image off by %.4f deg at most\n",
                  pmin, pmax, worst);
    assert_true(pmin >= -0.01 && pmax <= 0.01);
    assert_true(worst < 0.05);
    /* at a top speaker it alone plays; straight up: the top square's diagonal */
    float d[3], g[HL_LAYOUT_MAX_CH];
    for (uint32_t c = TOP0; c < 12; c++) {
        test_dir_of(k_az[l][c], 45.0, d);
        hl_layout_pan_dir(l, d, g);
        for (uint32_t k = 0; k < 12; k++)
            assert_float_equal(g[k], k == c ? 1.0f : 0.0f, 1e-4);
    }
    test_dir_of(0, 90, d);
    hl_layout_pan_dir(l, d, g);
    assert_float_equal(g[8], 0.70710678f, 1e-4);  /* TFL */
    assert_float_equal(g[11], 0.70710678f, 1e-4); /* TBR */
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
    /* 7.1.4: the bed as it is, each top speaker -3 dB into the one below */
    assert_int_equal(hl_layout_downmix(HL_LAYOUT_714, HL_LAYOUT_71, m), 0);
    for (int o = 0; o < 8; o++)
        for (int i = 0; i < 12; i++) {
            const float want = o == i ? 1.0f
                               : (o == 0 && i == 8) || (o == 1 && i == 9) || (o == 4 && i == 10) ||
                                       (o == 5 && i == 11)
                                   ? 0.70710678f
                                   : 0.0f;
            assert_float_equal(at(m, o, i), want, 1e-6);
        }
    assert_int_equal(hl_layout_downmix(HL_LAYOUT_714, HL_LAYOUT_STEREO, m), 0);
    assert_float_equal(at(m, 0, 8), 0.7071f, 0.01);  /* TFL -> FL -> L */
    assert_float_equal(at(m, 0, 10), 0.3536f, 0.01); /* TBL -> BL -> 5.1 BL -> L: 0.7071^3 */
    assert_float_equal(at(m, 1, 8), 0.0f, 0.0);
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
        cmocka_unit_test(test_expand),   cmocka_unit_test(test_height),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
