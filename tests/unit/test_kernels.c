/*
 * test_kernels.c - the fused pitched kernels (resample + mix in one pass:
 * linear and Catmull-Rom, mono, stereo and downmixed stereo sources, flat
 * and ramped gains) of every SIMD table this CPU runs (AVX2, AVX-512)
 * against the portable ones, and the portable fused kernels against the
 * two-pass path they replace (interpolate into a buffer, then mix). Sources
 * are allocated to exactly the frames the kernel may read (one frame before
 * for cubic, `avail` from the start), so a sanitizer build catches any read
 * outside; accumulators carry a sentinel past n.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "hl_fx.h"
#include "hl_hrtf.h"
#include "hl_limits.h"
#include "hl_simd.h"
#include "hl_sinc.h"
#include "mix_kernels.h"
#include "mix_kernels_avx512.h"

#define TOL      1e-4 /* as the mixer-level SIMD tests */
#define MAXN     256  /* HL_MIX_BLOCK */
#define SENTINEL 12345.0f

typedef void (*fused_fn)(float *acc_l, float *acc_r, const float *src, uint32_t avail, uint32_t n,
                         uint32_t frac, uint64_t step, const hl_gain_ramp_t *g);

/* The kernels take the voice's 32.32 cursor: a start in [0, 1) and a step
 * given as floats here, as fixed point there. */
static uint32_t fr(float f0) {
    return (uint32_t)((double)f0 * 4294967296.0);
}

typedef struct {
    const char *name;
    size_t off; /* offset of the kernel in hl_mix_kernels_t */
    uint32_t ch, cubic;
} fused_t;

static const fused_t fused[] = {
    {"interp_mix_mono", offsetof(hl_mix_kernels_t, interp_mix_mono), 1, 0},
    {"cubic_mix_mono", offsetof(hl_mix_kernels_t, cubic_mix_mono), 1, 1},
    {"cubic_mix_stereo", offsetof(hl_mix_kernels_t, cubic_mix_stereo), 2, 1},
    {"cubic_mix_downmix", offsetof(hl_mix_kernels_t, cubic_mix_downmix), 2, 1},
    {"interp_mix_stereo", offsetof(hl_mix_kernels_t, interp_mix_stereo), 2, 0},
    {"interp_mix_downmix", offsetof(hl_mix_kernels_t, interp_mix_downmix), 2, 0},
};
#define NFUSED (sizeof fused / sizeof fused[0])

static fused_fn get(const hl_mix_kernels_t *k, const fused_t *f) {
    fused_fn fn;
    memcpy(&fn, (const char *)k + f->off, sizeof fn);
    return fn;
}

/* Around every switch of the SIMD kernels: AVX2 windows of eight frames up
 * to step 1, nine (Catmull-Rom) up to 9/8, gathers above; AVX-512 windows of
 * 32 frames up to 1.75, gathers above, and for linear mono two 16-frame
 * loads a frame apart up to step 1 (0.9333... and 0.94: its bound before). */
static const float steps[] = {
    0.25f, 0.5f,       0.8269f, 0.91875f, 0.9333333f, 0.93333334f, 0.9333334f, 0.94f,   0.99999f,
    1.0f,  1.0000001f, 1.0106f, 1.1f,     1.1249f,    1.125f,      1.1251f,    1.1428f, 1.25f,
    1.6f,  1.7499f,    1.75f,   1.7501f,  2.0f,       3.7f,        4.0f};
static const float starts[] = {0.0f, 0.37f, 0.99999994f};
static const uint32_t counts[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 255, 256};
static const hl_gain_ramp_t gains[] = {
    {0.7f, 0.0f, 0.0f, -0.45f, 0.0f, 0.0f, 0.0f},       /* flat (the steady state) */
    {0.7f, -0.002f, 1e-5f, 0.1f, 0.003f, -4e-6f, 0.0f}, /* ramped, quadratic */
    {0.0f, 0.004f, 0.0f, 1.0f, -0.004f, 0.0f, 0.0f},    /* linear ramps */
};

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float noise(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((int32_t)(uint32_t)(rng >> 32)) * (1.0f / 2147483648.0f);
}

/* Frames a run of n outputs may read from src: the last tap after the
 * last position, plus one frame of margin, as the mixer's lim keeps. */
static uint32_t avail_for(uint32_t n, float f0, float step, uint32_t cubic) {
    uint64_t xl = n ? fr(f0) + (uint64_t)(n - 1) * hl_fp_step(step) : 0;
    return (uint32_t)(xl >> 32) + (cubic ? 4u : 3u);
}

/* A source of `avail` frames (and one before it for cubic) in its own
 * allocation; *base is what to free. */
static float *new_src(uint32_t avail, uint32_t ch, float **base) {
    size_t pre = ch; /* the frame before src[0] */
    float *b = malloc(sizeof(float) * (pre + (size_t)avail * ch));
    assert_non_null(b);
    for (size_t i = 0; i < pre + (size_t)avail * ch; i++)
        b[i] = noise();
    *base = b;
    return b + pre;
}

static void fill_acc(float *l, float *r) {
    for (uint32_t t = 0; t < MAXN + 8; t++) {
        l[t] = t < MAXN ? noise() : SENTINEL;
        r[t] = t < MAXN ? noise() : SENTINEL;
    }
}

/* Runs kernel `f` of table k and of table ref on the same input; returns
 * the largest difference. Checks the sentinels. */
static double compare_with(const hl_mix_kernels_t *ref, const hl_mix_kernels_t *k, const fused_t *f,
                           uint32_t n, float f0, float step, const hl_gain_ramp_t *g) {
    float al[MAXN + 8], ar[MAXN + 8], bl[MAXN + 8], br[MAXN + 8], *base;
    uint32_t avail = avail_for(n, f0, step, f->cubic);
    const float *src = new_src(avail, f->ch, &base);
    fill_acc(al, ar);
    memcpy(bl, al, sizeof al);
    memcpy(br, ar, sizeof ar);
    get(ref, f)(al, ar, src, avail, n, fr(f0), hl_fp_step(step), g);
    get(k, f)(bl, br, src, avail, n, fr(f0), hl_fp_step(step), g);
    double e = 0.0;
    for (uint32_t t = 0; t < n; t++) {
        e = fmax(e, fabs((double)al[t] - bl[t]));
        e = fmax(e, fabs((double)ar[t] - br[t]));
    }
    for (uint32_t t = n; t < MAXN + 8; t++) {
        if (t >= MAXN) {
            assert_true(bl[t] == SENTINEL && br[t] == SENTINEL);
            assert_true(al[t] == SENTINEL && ar[t] == SENTINEL);
        } else {
            assert_true(bl[t] == al[t] && br[t] == ar[t]); /* untouched past n */
        }
    }
    free(base);
    return e;
}

/* ... against the portable table */
static double compare(const hl_mix_kernels_t *k, const fused_t *f, uint32_t n, float f0, float step,
                      const hl_gain_ramp_t *g) {
    return compare_with(&hl_mix_kernels_generic, k, f, n, f0, step, g);
}

static void check_table(const hl_mix_kernels_t *k, const char *table) {
    for (size_t fi = 0; fi < NFUSED; fi++) {
        double worst = 0.0;
        for (size_t si = 0; si < sizeof steps / sizeof steps[0]; si++)
            for (size_t oi = 0; oi < sizeof starts / sizeof starts[0]; oi++)
                for (size_t ni = 0; ni < sizeof counts / sizeof counts[0]; ni++)
                    for (size_t gi = 0; gi < sizeof gains / sizeof gains[0]; gi++) {
                        double e =
                            compare(k, &fused[fi], counts[ni], starts[oi], steps[si], &gains[gi]);
                        if (e > TOL)
                            print_error("%s %s: n %u f0 %g step %g gains %zu: error %g\n", table,
                                        fused[fi].name, counts[ni], (double)starts[oi],
                                        (double)steps[si], gi, e);
                        assert_true(e <= TOL);
                        worst = fmax(worst, e);
                    }
        /* the figure a change of evaluation order is judged by */
        print_message("%s %s: largest difference from the portable kernel %.3g\n", table,
                      fused[fi].name, worst);
    }
}

static void test_avx2_matches_generic(void **state) {
    (void)state;
    if (!hl_mix_kernels_avx2 || !hl_mix_kernels_avx2_usable()) skip();
    check_table(hl_mix_kernels_avx2, "avx2");
}

static void test_avx512_matches_generic(void **state) {
    (void)state;
    if (!hl_mix_kernels_avx512 || !hl_mix_kernels_avx512_usable()) skip();
    check_table(hl_mix_kernels_avx512, "avx512");
    if (hl_mix_kernels_avx512_best != hl_mix_kernels_avx512) /* the default there */
        check_table(hl_mix_kernels_avx512_best, "avx512 per-kernel choice");
}

/* The AVX-512 fused kernels give the AVX2 ones' bits, whichever path
 * (windows, lane loads, scalar tails) each takes at each step: what lets the
 * AVX-512 level's default take a kernel from either set
 * (hl_mix_kernels_avx512_best) and lets HELIOD_ISA pick without changing
 * the output. */
static void test_avx512_bits_of_avx2(void **state) {
    (void)state;
    if (!hl_mix_kernels_avx512 || !hl_mix_kernels_avx512_usable()) skip();
    for (size_t fi = 0; fi < NFUSED; fi++)
        for (size_t si = 0; si < sizeof steps / sizeof steps[0]; si++)
            for (size_t oi = 0; oi < sizeof starts / sizeof starts[0]; oi++)
                for (size_t ni = 0; ni < sizeof counts / sizeof counts[0]; ni++)
                    for (size_t gi = 0; gi < sizeof gains / sizeof gains[0]; gi++) {
                        const double e =
                            compare_with(hl_mix_kernels_avx2, hl_mix_kernels_avx512, &fused[fi],
                                         counts[ni], starts[oi], steps[si], &gains[gi]);
                        if (e != 0.0)
                            print_error("%s: n %u f0 %g step %g gains %zu: %g from avx2\n",
                                        fused[fi].name, counts[ni], (double)starts[oi],
                                        (double)steps[si], gi, e);
                        assert_true(e == 0.0);
                    }
}

/* The AVX-512 pitched loops (mix_kernels_avx512.c) take no clamp: at
 * step <= 1.75 every tap of an iteration must fall in its 32-frame window,
 * also where a position's rounding lands on the next frame. Random steps up
 * to that bound (half of them within 1e-3 of it) and starts (half of them
 * within 1e-6 of 1) against the portable kernels, with the source cut to
 * the frames the run may read; and with room to spare the window bound,
 * decided once per call, must leave the whole block to the vector loop. */
static void test_avx512_windows(void **state) {
    (void)state;
#if defined(__x86_64__) && defined(__GNUC__)
    if (!hl_mix_kernels_avx512 || !hl_mix_kernels_avx512_usable()) skip();
    typedef uint32_t (*loop_fn)(float *, float *, const float *, uint32_t, uint32_t, uint32_t,
                                uint64_t, const hl_gain_ramp_t *);
    const loop_fn loops[NFUSED] = {hl_interp_mix_mono_avx512,   hl_cubic_mix_mono_avx512,
                                   hl_cubic_mix_stereo_avx512,  hl_cubic_mix_downmix_avx512,
                                   hl_interp_mix_stereo_avx512, hl_interp_mix_downmix_avx512};
    for (int r = 0; r < 120; r++) {
        const float u = 0.5f * (noise() + 1.0f), w = 0.5f * (noise() + 1.0f);
        const float step = r & 1 ? 1.75f - 1e-3f * u : 0.05f + 1.7f * u;
        const float f0 = r & 2 ? 0.99999994f - 1e-6f * w : 0.99999994f * w;
        for (size_t c = 0; c < NFUSED; c++) {
            const fused_t *k = &fused[c];
            double e = compare(hl_mix_kernels_avx512, k, MAXN, f0, step, &gains[r % 3]);
            if (e > TOL) print_error("%s f0 %.9g step %.9g: %g\n", k->name, f0, step, e);
            assert_true(e <= TOL);
            float al[MAXN], ar[MAXN], *base;
            const uint32_t avail = avail_for(MAXN, f0, step, k->cubic) + HL_AVX512_WINDOW;
            const float *src = new_src(avail, k->ch, &base);
            memset(al, 0, sizeof al);
            memset(ar, 0, sizeof ar);
            assert_int_equal(
                loops[c](al, ar, src, avail, MAXN, fr(f0), hl_fp_step(step), &gains[0]), MAXN);
            free(base);
        }
    }
#endif
}

/* interp_mix_mono2 (two voices, one pass over the accumulators) gives
 * what interp_mix_mono on the first run then on the second gives, bit for
 * bit, or declines having written nothing: random steps (past the window
 * reach too), starts, gains and counts, sources cut to `avail` (exactly
 * what a run may read, or a window more, where it must not decline). */
static void test_pair_matches_two_calls(void **state) {
    (void)state;
    const hl_mix_kernels_t *k = hl_mix_kernels_avx512;
    if (!k || !hl_mix_kernels_avx512_usable() || !k->interp_mix_mono2) skip();
    uint32_t done = 0;
    for (int it = 0; it < 400; it++) {
        float al[MAXN + 8], ar[MAXN + 8], bl[MAXN + 8], br[MAXN + 8], cl[MAXN + 8], *base[2];
        const uint32_t n = it & 3 ? MAXN : counts[it % (sizeof counts / sizeof counts[0])];
        const int roomy = (it & 4) != 0;
        hl_mix_mono_run_t r[2];
        for (int v = 0; v < 2; v++) {
            const float u = 0.5f * (noise() + 1.0f);
            const float step = it & 8 ? 0.25f + 1.6f * u : 0.82f + 0.2f * u; /* the scene's */
            const float f0 = 0.99999994f * 0.5f * (noise() + 1.0f);
            r[v].step = hl_fp_step(step);
            r[v].frac = fr(f0);
            r[v].gl = noise();
            r[v].gr = noise();
            r[v].avail = avail_for(n, f0, step, 0) + (roomy ? HL_AVX512_WINDOW : 0);
            r[v].src = new_src(r[v].avail, 1, &base[v]);
        }
        fill_acc(al, ar);
        memcpy(bl, al, sizeof al);
        memcpy(br, ar, sizeof ar);
        for (int v = 0; v < 2; v++) {
            const hl_gain_ramp_t g = {r[v].gl, 0.0f, 0.0f, r[v].gr, 0.0f, 0.0f, 0.0f};
            k->interp_mix_mono(al, ar, r[v].src, r[v].avail, n, r[v].frac, r[v].step, &g);
        }
        memcpy(cl, bl, sizeof cl);
        /* a prefetch span on every other call: the sources' (no effect on the sums) */
        const char *pf[4] = {(const char *)r[1].src, NULL, (const char *)(r[1].src + r[1].avail),
                             NULL};
        if (k->interp_mix_mono2(bl, br, r, n, it & 1 ? pf : NULL)) {
            assert_memory_equal(al, bl, sizeof al); /* the sentinels too */
            assert_memory_equal(ar, br, sizeof ar);
            done++;
        } else {
            assert_memory_equal(cl, bl, sizeof cl); /* nothing written (r: as l) */
            assert_true(!roomy || n % 16 || r[0].step > HL_AVX512_NARROW ||
                        r[1].step > HL_AVX512_NARROW);
        }
        free(base[0]);
        free(base[1]);
    }
    assert_true(done >= 100);
}

/* Where a run is cut does not change a frame, bit for bit, at any step:
 * every fused kernel of every table this CPU runs, a 256-frame run against
 * the same run cut in two at frames of every phase of the vector loops,
 * the second part from the exact cursor there and the gain ramp moved on
 * (hl_gain_from), as a stream's window or a block boundary cuts it; flat
 * and ramped gains. */
static void test_split_exact(void **state) {
    (void)state;
    const hl_mix_kernels_t *tabs[] = {
        &hl_mix_kernels_generic, hl_mix_kernels_avx2_usable() ? hl_mix_kernels_avx2 : NULL,
        hl_mix_kernels_avx512_usable() ? hl_mix_kernels_avx512 : NULL};
    const double st[] = {0.77, 0.9187, 1.0000001, 1.05, 1.1249, 1.3, 1.7, 2.3};
    const uint32_t cuts[] = {1, 5, 8, 15, 16, 17, 33, 100, 201, 255};
    for (size_t ti = 0; ti < 3; ti++)
        for (size_t fi = 0; tabs[ti] && fi < NFUSED; fi++)
            for (size_t si = 0; si < sizeof st / sizeof st[0]; si++) {
                const fused_t *f = &fused[fi];
                const hl_gain_ramp_t *g = &gains[si % 3];
                const uint64_t step = hl_fp_step(st[si]);
                const uint32_t frac = (uint32_t)(noise() * 2147483647.0f) + 0x80000000u;
                const uint32_t avail = (uint32_t)(((uint64_t)frac + MAXN * step) >> 32) + 4;
                float *base, al[MAXN], ar[MAXN], bl[MAXN], br[MAXN];
                const float *src = new_src(avail, f->ch, &base);
                memset(al, 0, sizeof al);
                memset(ar, 0, sizeof ar);
                get(tabs[ti], f)(al, ar, src, avail, MAXN, frac, step, g);
                for (size_t ci = 0; ci < sizeof cuts / sizeof cuts[0]; ci++) {
                    const uint32_t m = cuts[ci];
                    const uint64_t x = frac + (uint64_t)m * step;
                    const uint32_t i = (uint32_t)(x >> 32);
                    const hl_gain_ramp_t g2 = hl_gain_from(g, m);
                    memset(bl, 0, sizeof bl);
                    memset(br, 0, sizeof br);
                    get(tabs[ti], f)(bl, br, src, avail, m, frac, step, g);
                    get(tabs[ti], f)(bl + m, br + m, src + (size_t)i * f->ch, avail - i, MAXN - m,
                                     (uint32_t)x, step, &g2);
                    if (memcmp(al, bl, sizeof al) || memcmp(ar, br, sizeof ar))
                        print_error("table %zu %s step %g gains %zu cut at %u\n", ti, f->name,
                                    st[si], si % 3, m);
                    assert_memory_equal(al, bl, sizeof al);
                    assert_memory_equal(ar, br, sizeof ar);
                }
                free(base);
            }
}

/* The unfused interpolators (interp_mono, cubic_mono: the post stage's
 * input) of every table this CPU runs give the same bits wherever a run is
 * cut (their vector lanes compute what their scalar loop does), and read
 * no frame past the run's last tap: the source ends at a page the test
 * cannot read, so a window read past it faults, sanitizer or not. Every
 * step of `steps` (windows up to 1, each lane's own loads above), random
 * starts, cuts at every phase of the eight-lane loop. */
static void test_unfused_split_exact(void **state) {
    (void)state;
    const hl_mix_kernels_t *tabs[] = {
        &hl_mix_kernels_generic, hl_mix_kernels_avx2_usable() ? hl_mix_kernels_avx2 : NULL,
        hl_mix_kernels_avx512_usable() ? hl_mix_kernels_avx512 : NULL};
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE), room = 4 * pg; /* >= MAXN * 4 + 2 frames */
    char *mem = mmap(NULL, room + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(mem != MAP_FAILED);
    for (size_t i = 0; i < room / sizeof(float); i++)
        ((float *)mem)[i] = noise();
    assert_int_equal(mprotect(mem + room, pg, PROT_NONE), 0);
    const uint32_t cuts[] = {1, 7, 8, 9, 100, 247, 248, 249, 255};
    for (size_t ti = 0; ti < 3; ti++)
        for (int cubic = 0; tabs[ti] && cubic < 2; cubic++)
            for (size_t si = 0; si < sizeof steps / sizeof steps[0]; si++) {
                typedef void (*un_fn)(float *, const float *, uint32_t, uint32_t, uint64_t);
                const un_fn fn = cubic ? tabs[ti]->cubic_mono : tabs[ti]->interp_mono;
                const uint64_t step = hl_fp_step(steps[si]);
                const uint32_t frac = (uint32_t)(noise() * 2147483647.0f) + 0x80000000u;
                /* the run's last tap is the buffer's last frame */
                const uint64_t last = (((uint64_t)frac + (MAXN - 1) * step) >> 32) + 1 + cubic;
                const float *src = (const float *)(mem + room) - (last + 1);
                float a[MAXN], b[MAXN];
                fn(a, src, MAXN, frac, step);
                for (size_t ci = 0; ci < sizeof cuts / sizeof cuts[0]; ci++) {
                    const uint32_t m = cuts[ci];
                    const uint64_t x = frac + (uint64_t)m * step;
                    fn(b, src, m, frac, step);
                    fn(b + m, src + (x >> 32), MAXN - m, (uint32_t)x, step);
                    if (memcmp(a, b, sizeof a))
                        print_error("table %zu %s step %g cut at %u\n", ti,
                                    cubic ? "cubic_mono" : "interp_mono", (double)steps[si], m);
                    assert_memory_equal(a, b, sizeof a);
                }
            }
    munmap(mem, room + pg);
}

/* HELIOD_ISA (this run's level, set by meson; simd_env.c applied it) caps
 * every kernel choice: the mix tables, the sinc kernels, the HRTF FIR and
 * the voice filters use no wider set than it names; unset, the CPU's own. */
static void test_simd_cap(void **state) {
    (void)state;
    const char *var, *v = hl_isa_env(&var);
    int cpu = hl_simd_cpu(), want = v ? hl_simd_parse(v) : cpu;
    assert_true(want >= 0 && want <= cpu);
    int level = hl_simd_level();
    print_message("# level %s (CPU: %s)\n", hl_simd_name(level), hl_simd_name(cpu));
    assert_int_equal(level, want);
    assert_int_equal(hl_mix_kernels_avx2_usable(), level >= HL_SIMD_AVX2);
    assert_int_equal(hl_mix_kernels_avx512_usable(), level >= HL_SIMD_AVX512);
    const hl_sinc_kernels_t *best = hl_sinc_kernels_best();
    if (level == HL_SIMD_PORTABLE) assert_ptr_equal(best, &hl_sinc_kernels_generic);
    if (level == HL_SIMD_AVX2) assert_ptr_equal(best, hl_sinc_kernels_avx2());
    if (level == HL_SIMD_AVX512 && hl_simd_strict())
        assert_ptr_equal(best, hl_sinc_kernels_avx512());
    if (level == HL_SIMD_AVX512 && !hl_simd_strict()) { /* the faster of each pair (sinc.c) */
        assert_ptr_equal(best->mono, hl_sinc_kernels_avx2()->mono);
        assert_ptr_equal(best->stereo, hl_sinc_kernels_avx512()->stereo);
    }
    assert_null(level < HL_SIMD_AVX512 ? hl_sinc_kernels_avx512() : NULL);
    assert_int_equal(hl_hrtf_isa_supported(HL_HRTF_ISA_AVX2) != 0, level >= HL_SIMD_AVX2);
    /* the voice filters' eight-sample (AVX2) form only at avx2 and above */
    int vf = hl_vfilter_simd(-1);
    assert_true(level >= HL_SIMD_AVX2 ? vf == 2 : vf < 2);
}

/* The portable fused kernels give what the two-pass path gave: interpolate
 * (interp_* / cubic_*) into a buffer, then mix it (mix_mono / mix_planar). */
static void test_fused_matches_two_pass(void **state) {
    (void)state;
    const hl_mix_kernels_t *k = &hl_mix_kernels_generic;
    float tl[MAXN], tr[MAXN];
    for (size_t fi = 0; fi < NFUSED; fi++)
        for (size_t si = 0; si < sizeof steps / sizeof steps[0]; si++)
            for (size_t gi = 0; gi < sizeof gains / sizeof gains[0]; gi++) {
                const fused_t *f = &fused[fi];
                const uint32_t n = MAXN;
                const float f0 = 0.37f, step = steps[si];
                const uint32_t x0 = fr(f0);
                const uint64_t xs = hl_fp_step(step);
                float al[MAXN + 8], ar[MAXN + 8], bl[MAXN + 8], br[MAXN + 8], *base;
                uint32_t avail = avail_for(n, f0, step, f->cubic);
                const float *src = new_src(avail, f->ch, &base);
                fill_acc(al, ar);
                memcpy(bl, al, sizeof al);
                memcpy(br, ar, sizeof ar);
                get(k, f)(al, ar, src, avail, n, x0, xs, &gains[gi]);
                int planar = 0;
                if (f->ch == 1) {
                    (f->cubic ? k->cubic_mono : k->interp_mono)(tl, src, n, x0, xs);
                } else if (strstr(f->name, "downmix")) {
                    (f->cubic ? k->cubic_downmix : k->interp_downmix)(tl, src, n, x0, xs);
                } else {
                    (f->cubic ? k->cubic_stereo : k->interp_stereo)(tl, tr, src, n, x0, xs);
                    planar = 1;
                }
                if (planar)
                    k->mix_planar(bl, br, tl, tr, n, &gains[gi]);
                else
                    k->mix_mono(bl, br, tl, n, &gains[gi]);
                for (uint32_t t = 0; t < MAXN + 8; t++) {
                    assert_true(fabs((double)al[t] - bl[t]) <= 1e-6);
                    assert_true(fabs((double)ar[t] - br[t]) <= 1e-6);
                }
                free(base);
            }
}

/* Catmull-Rom at the kernels' clamped last lane: a position that float
 * rounding puts on the next frame gives that frame's sample exactly (the
 * window kernels rely on it). And the interpolator passes through its
 * points and reproduces a straight line. */
static void test_catmull_rom_points(void **state) {
    (void)state;
    const float a = 0.3f, b = -0.7f, c = 0.9f, d = 0.1f;
    assert_true(hl_catmull_rom(a, b, c, d, 0.0f) == b);
    assert_true(fabsf(hl_catmull_rom(a, b, c, d, 1.0f) - c) <= 1e-7f);
    for (int i = 0; i <= 8; i++) {
        float f = (float)i / 8.0f;
        assert_true(fabsf(hl_catmull_rom(1.0f, 2.0f, 3.0f, 4.0f, f) - (2.0f + f)) <= 1e-6f);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simd_cap),
        cmocka_unit_test(test_catmull_rom_points),
        cmocka_unit_test(test_fused_matches_two_pass),
        cmocka_unit_test(test_split_exact),
        cmocka_unit_test(test_unfused_split_exact),
        cmocka_unit_test(test_avx2_matches_generic),
        cmocka_unit_test(test_avx512_matches_generic),
        cmocka_unit_test(test_avx512_bits_of_avx2),
        cmocka_unit_test(test_avx512_windows),
        cmocka_unit_test(test_pair_matches_two_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
