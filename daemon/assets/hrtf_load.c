/*
 * hrtf_load.c - SOFA -> hl_hrtf_set_t (see hrtf_load.h), off the audio thread.
 *
 * METHOD
 *   1. libmysofa opens the file and resamples its IRs to the engine rate
 *      (mysofa_open: it also trims the common leading silence and scales
 *      the set, both of which only shift/scale everything uniformly).
 *   2. Every measured direction and ear is split into a minimum-phase filter
 *      and a delay: the minimum-phase filter comes from the folded real
 *      cepstrum (same magnitude, all excess phase removed; FFT in double,
 *      magnitudes floored at -100 dB re the IR's peak so notches do not blow
 *      up the log); the delay is the file's own delay (Data.Delay, which
 *      mysofa_getfilter_float returns in seconds, zero for KEMAR) plus the
 *      lag of the peak of the cross-correlation of the IR with its minimum-
 *      phase version, refined to a fraction of a sample by a parabola. That
 *      lag is the IR's excess-phase delay: its time of flight to that ear,
 *      so the difference between the ears is the ITD (Nam, Abel & Smith,
 *      "A method for estimating interaural time difference for binaural
 *      synthesis", AES 2008). A threshold onset would jump by whole samples
 *      on the weak, smeared contralateral IRs; the correlation does not.
 *      Before that, the set is diffuse-field equalised: the RMS magnitude
 *      over all measurements and both ears is what every direction has in
 *      common (for KEMAR: the measurement loudspeaker, and the ear-canal
 *      resonance, +15 dB at 2-4 kHz re 1 kHz); its minimum-phase inverse,
 *      limited to +12 / -20 dB around its 1 kHz gain, multiplies each
 *      minimum-phase spectrum, so only the directional differences remain
 *      and a source does not turn shrill when it goes binaural.
 *   3. The minimum-phase filters are truncated to HL_HRTF_TAPS taps, the
 *      last quarter faded out with a half-Hann window.
 *   4. Each grid point (5 degree azimuth steps, 10 degree elevation rows over
 *      the range the file measures) is a Shepard-weighted mix of its three
 *      nearest measurements by angle, weights ((R - d) / (R d))^2 with R the
 *      angle to the fourth nearest: an exact hit takes that measurement, and
 *      weights fade to zero as a measurement leaves the nearest three, so
 *      the grid has no jumps where the neighbour set changes.
 *   5. Delays are shifted so the earliest ear of the whole set is at 0 (a
 *      constant latency removed; interaural and directional differences
 *      kept; KEMAR's also vary by ~0.2 ms between elevation rings, the
 *      rig's geometry, which a source moving vertically hears as a slight
 *      glide) and clamped to [0, HL_HRTF_MAX_DELAY - 3]. KEMAR spans 0 ..
 *      34.4 frames at 48 kHz, so rates above ~85 kHz would clip the far
 *      ear's delay at the sides.
 *   6. Normalisation: the whole set is scaled so the frontal entry (azimuth
 *      0, the row nearest elevation 0) has unity gain at 1 kHz as the power
 *      average of both ears, sqrt((|Hl|^2 + |Hr|^2) / 2) = 1. A frontal
 *      source then sounds about as loud as the panned (non-HRTF) path at the
 *      frequencies that dominate loudness; sides are louder in the near ear
 *      and quieter in the far one, as they should be.
 *   The SOFA file's listener is assumed to face +x with +z up (the
 *   convention of every common HRTF database).
 */
#include "hrtf_load.h"

#include <errno.h>
#include <math.h>
#include <mysofa.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heliod_errors.h"

#define PI_D          3.14159265358979323846
#define HLD_AZ_STEP   5.0  /* degrees between grid azimuths */
#define HLD_EL_STEP   10.0 /* degrees between grid elevation rows */
#define HLD_MAG_FLOOR 1e-5 /* -100 dB re the IR's largest bin */
#define HLD_NEAREST   3    /* measurements mixed per grid point */
#define HLD_EQ_BOOST  4.0  /* diffuse-field EQ limits re its 1 kHz gain: +12 dB */
#define HLD_EQ_CUT    0.1  /* -20 dB */

static int fail(char *err, size_t errlen, int code, const char *fmt, ...) {
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

static const char *mysofa_strerror(int e) {
    switch (e) {
    case MYSOFA_INVALID_FORMAT: return "not a SOFA (HDF5) file";
    case MYSOFA_UNSUPPORTED_FORMAT: return "unsupported SOFA/HDF5 format";
    case MYSOFA_NO_MEMORY: return "out of memory";
    case MYSOFA_READ_ERROR: return "read error";
    case MYSOFA_INVALID_ATTRIBUTES: return "invalid SOFA attributes";
    case MYSOFA_INVALID_DIMENSIONS:
    case MYSOFA_INVALID_DIMENSION_LIST: return "invalid SOFA dimensions";
    case MYSOFA_INVALID_COORDINATE_TYPE: return "invalid coordinate type";
    case MYSOFA_ONLY_THE_SAME_SAMPLING_RATE_SUPPORTED: return "mixed sampling rates";
    case MYSOFA_INVALID_RECEIVER_POSITIONS: return "invalid receiver positions";
    case MYSOFA_INTERNAL_ERROR: return "libmysofa internal error";
    default: return e > 0 && e < 10000 ? strerror(e) : "unsupported SOFA file";
    }
}

/* ---- FFT (iterative radix-2, double, in place) ------------------------- */

typedef struct {
    uint32_t n, log2n;
    double *cs, *sn; /* twiddles, n / 2 each */
    uint32_t *rev;   /* bit reversal */
} fft_t;

static int fft_init(fft_t *f, uint32_t n) {
    f->n = n;
    f->log2n = 0;
    while ((1u << f->log2n) < n)
        f->log2n++;
    f->cs = malloc(sizeof(double) * n / 2);
    f->sn = malloc(sizeof(double) * n / 2);
    f->rev = malloc(sizeof(uint32_t) * n);
    if (!f->cs || !f->sn || !f->rev) return -1;
    for (uint32_t i = 0; i < n / 2; i++) {
        f->cs[i] = cos(2.0 * PI_D * i / n);
        f->sn[i] = -sin(2.0 * PI_D * i / n);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = 0;
        for (uint32_t b = 0; b < f->log2n; b++)
            r |= ((i >> b) & 1u) << (f->log2n - 1 - b);
        f->rev[i] = r;
    }
    return 0;
}

static void fft_free(fft_t *f) {
    free(f->cs);
    free(f->sn);
    free(f->rev);
}

/* Forward (e^-j) or inverse (e^+j, unscaled) transform of re + j im. */
static void fft_run(const fft_t *f, double *re, double *im, int inverse) {
    const uint32_t n = f->n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = f->rev[i];
        if (r > i) {
            double t = re[i];
            re[i] = re[r];
            re[r] = t;
            t = im[i];
            im[i] = im[r];
            im[r] = t;
        }
    }
    const double sgn = inverse ? -1.0 : 1.0;
    for (uint32_t len = 2; len <= n; len <<= 1) {
        uint32_t half = len / 2, step = n / len;
        for (uint32_t i = 0; i < n; i += len) {
            for (uint32_t k = 0; k < half; k++) {
                double wr = f->cs[k * step], wi = sgn * f->sn[k * step];
                uint32_t a = i + k, b = a + half;
                double xr = re[b] * wr - im[b] * wi, xi = re[b] * wi + im[b] * wr;
                re[b] = re[a] - xr;
                im[b] = im[a] - xi;
                re[a] += xr;
                im[a] += xi;
            }
        }
    }
}

/* ---- decomposition of one IR ------------------------------------------- */

typedef struct {
    fft_t fft;
    double *xr, *xi, *mr, *mi, *wr, *wi; /* n each */
} work_t;

/* Log-magnitude spectrum (in wr, with wi = 0; n bins) -> the
 * spectrum of its minimum-phase filter in (mr, mi), via the folded real
 * cepstrum. Uses wr, wi as scratch. */
static void minphase_spectrum(work_t *w) {
    const uint32_t n = w->fft.n;
    double *mr = w->mr, *mi = w->mi, *wr = w->wr, *wi = w->wi;
    fft_run(&w->fft, wr, wi, 1); /* real cepstrum (x n) */
    /* fold: causal part doubled, anti-causal dropped */
    const double inv_n = 1.0 / n;
    mr[0] = wr[0] * inv_n;
    mi[0] = 0.0;
    for (uint32_t i = 1; i < n / 2; i++) {
        mr[i] = 2.0 * wr[i] * inv_n;
        mi[i] = 0.0;
    }
    mr[n / 2] = wr[n / 2] * inv_n;
    mi[n / 2] = 0.0;
    for (uint32_t i = n / 2 + 1; i < n; i++)
        mr[i] = mi[i] = 0.0;
    fft_run(&w->fft, mr, mi, 0);
    for (uint32_t i = 0; i < n; i++) { /* M = exp(C) */
        double a = exp(mr[i]), p = mi[i];
        mr[i] = a * cos(p);
        mi[i] = a * sin(p);
    }
}

/* h[0 .. len) -> minimum-phase taps (HL_HRTF_TAPS, windowed) of h equalised
 * by the minimum-phase filter with spectrum (er, ei) (NULL: none), and h's
 * excess-phase delay in samples. */
static void decompose(work_t *w, const float *h, uint32_t len, const double *er, const double *ei,
                      float *mp, double *lag) {
    const uint32_t n = w->fft.n;
    double *xr = w->xr, *xi = w->xi, *mr = w->mr, *mi = w->mi, *wr = w->wr, *wi = w->wi;
    for (uint32_t i = 0; i < n; i++) {
        xr[i] = i < len ? h[i] : 0.0;
        xi[i] = 0.0;
    }
    fft_run(&w->fft, xr, xi, 0);
    double peak = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double m = sqrt(xr[i] * xr[i] + xi[i] * xi[i]);
        wr[i] = m;
        if (m > peak) peak = m;
    }
    double floor_mag = peak > 0.0 ? peak * HLD_MAG_FLOOR : 1e-30;
    for (uint32_t i = 0; i < n; i++) {
        wr[i] = log(wr[i] > floor_mag ? wr[i] : floor_mag);
        wi[i] = 0.0;
    }
    minphase_spectrum(w);
    const double inv_n = 1.0 / n;
    /* cross-correlation spectrum X conj(M) */
    for (uint32_t i = 0; i < n; i++) {
        wr[i] = xr[i] * mr[i] + xi[i] * mi[i];
        wi[i] = xi[i] * mr[i] - xr[i] * mi[i];
    }
    if (er) { /* equalise: a product of minimum-phase spectra is minimum phase */
        for (uint32_t i = 0; i < n; i++) {
            double a = mr[i] * er[i] - mi[i] * ei[i];
            mi[i] = mr[i] * ei[i] + mi[i] * er[i];
            mr[i] = a;
        }
    }
    fft_run(&w->fft, mr, mi, 1); /* minimum-phase IR (x n) */
    fft_run(&w->fft, wr, wi, 1); /* correlation by lag (x n) */

    const int q = HL_HRTF_TAPS / 4; /* half-Hann fade over the last quarter */
    for (int k = 0; k < HL_HRTF_TAPS; k++) {
        double g = 1.0;
        if (k >= HL_HRTF_TAPS - q)
            g = 0.5 * (1.0 + cos(PI_D * (k - (HL_HRTF_TAPS - q) + 1) / (q + 1)));
        mp[k] = (float)(mr[k] * inv_n * g);
    }

    /* lags 0 .. n/2 - 1 are delays, n/2 .. n - 1 negative ones (only a few
     * samples of those can occur: the minimum-phase IR is the earliest) */
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
        if (wr[i] > wr[best]) best = i;
    double y0 = wr[(best + n - 1) % n], y1 = wr[best], y2 = wr[(best + 1) % n];
    double den = y0 - 2.0 * y1 + y2, frac = 0.0;
    if (den < 0.0) frac = 0.5 * (y0 - y2) / den;
    if (frac > 0.5) frac = 0.5;
    if (frac < -0.5) frac = -0.5;
    double l = (double)best + frac;
    if (best >= n / 2) l -= n;
    *lag = l;
}

/* ---- the grid ------------------------------------------------------------ */

int hld_hrtf_load(const char *path, uint32_t rate, void **mem, hl_hrtf_set_t **set, char *err,
                  size_t errlen) {
    if (err && errlen > 0) err[0] = '\0';
    if (!mem || !set) return fail(err, errlen, HELIOD_EINVAL, "hrtf: NULL output pointer");
    *mem = NULL;
    *set = NULL;
    if (rate < 16000 || rate > 192000)
        return fail(err, errlen, HELIOD_EINVAL, "hrtf: sample rate %u out of range", rate);
    if (!path) path = HLD_HRTF_DEFAULT_PATH;

    /* libmysofa reports a missing file as an errno value or a generic read
     * error depending on the version: check it ourselves for a clear message */
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return fail(err, errlen, HELIOD_EFILE, "hrtf: cannot open '%s': %s", path, strerror(errno));
    fclose(fp);

    int filter_len = 0, merr = 0;
    struct MYSOFA_EASY *easy = mysofa_open(path, (float)rate, &filter_len, &merr);
    if (!easy) {
        if (merr == MYSOFA_NO_MEMORY)
            return fail(err, errlen, HELIOD_ENOMEM, "hrtf: out of memory loading '%s'", path);
        return fail(err, errlen, HELIOD_EDECODE, "hrtf: '%s' is not a usable SOFA file: %s (%d)",
                    path, mysofa_strerror(merr), merr);
    }
    const struct MYSOFA_HRTF *h = easy->hrtf;
    const uint32_t M = h->M;
    if (h->R != 2 || M == 0 || h->C != 3 || filter_len <= 0 ||
        h->SourcePosition.elements < M * 3u) {
        mysofa_close(easy);
        return fail(err, errlen, HELIOD_EDECODE,
                    "hrtf: '%s': need 2 receivers and at least one measurement (R=%u M=%u)", path,
                    h->R, M);
    }
    const uint32_t len = (uint32_t)filter_len;

    int rc = 0;
    float *dirs = malloc(sizeof(float) * 3 * M);              /* unit vectors */
    float *mp = malloc(sizeof(float) * 2 * M * HL_HRTF_TAPS); /* [m][ear][tap] */
    double *dly = malloc(sizeof(double) * 2 * M);             /* [m][ear] */
    float *ir = malloc(sizeof(float) * 2 * len * M);          /* [m][ear][len] */
    work_t w = {0};
    uint32_t nfft = 1024;
    while (nfft < 2 * len)
        nfft <<= 1;
    int fft_ok = fft_init(&w.fft, nfft) == 0;
    double *arena = malloc(sizeof(double) * 9 * nfft);
    if (!dirs || !mp || !dly || !ir || !fft_ok || !arena) {
        rc = fail(err, errlen, HELIOD_ENOMEM, "hrtf: out of memory");
        goto out;
    }
    w.xr = arena;
    w.xi = arena + nfft;
    w.mr = arena + 2 * nfft;
    w.mi = arena + 3 * nfft;
    w.wr = arena + 4 * nfft;
    w.wi = arena + 5 * nfft;
    double *df = arena + 6 * nfft, *er = arena + 7 * nfft, *ei = arena + 8 * nfft;

    /* measurements: directions (cartesian after mysofa_open: x front, y
     * left, z up), elevation range, IRs, the diffuse-field power spectrum */
    double el_lo = 90.0, el_hi = -90.0;
    float *fdly = malloc(sizeof(float) * 2 * M);
    if (!fdly) {
        rc = fail(err, errlen, HELIOD_ENOMEM, "hrtf: out of memory");
        goto out;
    }
    memset(df, 0, sizeof(double) * nfft);
    for (uint32_t m = 0; m < M; m++) {
        const float *p = h->SourcePosition.values + 3 * m;
        double r = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]);
        if (!(r > 0.0)) r = 1.0;
        for (int c = 0; c < 3; c++)
            dirs[3 * m + c] = (float)(p[c] / r);
        double el = asin(fmax(-1.0, fmin(1.0, p[2] / r))) * 180.0 / PI_D;
        if (el < el_lo) el_lo = el;
        if (el > el_hi) el_hi = el;
        float *irm = ir + (size_t)m * 2 * len;
        mysofa_getfilter_float_nointerp(easy, p[0], p[1], p[2], irm, irm + len, &fdly[2 * m],
                                        &fdly[2 * m + 1]);
        for (int e = 0; e < 2; e++) {
            for (uint32_t i = 0; i < nfft; i++) {
                w.xr[i] = i < len ? irm[e * len + i] : 0.0;
                w.xi[i] = 0.0;
            }
            fft_run(&w.fft, w.xr, w.xi, 0);
            for (uint32_t i = 0; i < nfft; i++)
                df[i] += w.xr[i] * w.xr[i] + w.xi[i] * w.xi[i];
        }
    }

    /* diffuse-field equaliser: the minimum-phase inverse of the RMS response
     * over all measurements, limited to +12 / -20 dB around its 1 kHz value */
    {
        uint32_t k1 = (uint32_t)lround(1000.0 * nfft / rate);
        double ref = 1.0 / sqrt(df[k1] / (2.0 * M) + 1e-30);
        for (uint32_t i = 0; i < nfft; i++) {
            double g = 1.0 / sqrt(df[i] / (2.0 * M) + 1e-30);
            g = fmin(fmax(g, ref * HLD_EQ_CUT), ref * HLD_EQ_BOOST);
            w.wr[i] = log(g);
            w.wi[i] = 0.0;
        }
        minphase_spectrum(&w);
        memcpy(er, w.mr, sizeof(double) * nfft);
        memcpy(ei, w.mi, sizeof(double) * nfft);
    }

    /* decomposition into equalised minimum-phase taps and delays */
    for (uint32_t m = 0; m < M; m++) {
        for (int e = 0; e < 2; e++) {
            double lag;
            decompose(&w, ir + ((size_t)m * 2 + e) * len, len, er, ei,
                      mp + ((size_t)m * 2 + e) * HL_HRTF_TAPS, &lag);
            double fd = (double)fdly[2 * m + e] * rate;
            dly[2 * m + e] = lag + (isfinite(fd) ? fd : 0.0);
        }
    }
    free(fdly);

    /* grid: 10-degree rows inside the measured range (clamped beyond) */
    double row0 = ceil(el_lo / HLD_EL_STEP - 1e-3) * HLD_EL_STEP;
    double rowN = floor(el_hi / HLD_EL_STEP + 1e-3) * HLD_EL_STEP;
    uint32_t n_el = rowN > row0 ? (uint32_t)lround((rowN - row0) / HLD_EL_STEP) + 1 : 1;
    if (n_el == 1) row0 = fmin(fmax(el_lo, -90.0), 90.0);
    uint32_t n_az = (uint32_t)lround(360.0 / HLD_AZ_STEP);
    size_t size = hl_hrtf_set_size(n_az, n_el);
    void *block = size ? aligned_alloc(64, (size + 63) / 64 * 64) : NULL;
    if (!block) {
        rc = fail(err, errlen, HELIOD_ENOMEM, "hrtf: out of memory");
        goto out;
    }
    hl_hrtf_set_t *s = hl_hrtf_set_init(block, rate, n_az, n_el, (float)(row0 * PI_D / 180.0),
                                        (float)(HLD_EL_STEP * PI_D / 180.0));
    double dmin = INFINITY;
    for (uint32_t ei = 0; ei < n_el; ei++) {
        for (uint32_t ai = 0; ai < n_az; ai++) {
            double az = ai * HLD_AZ_STEP * PI_D / 180.0;
            double el = (row0 + ei * HLD_EL_STEP) * PI_D / 180.0;
            double u[3] = {cos(el) * cos(az), cos(el) * sin(az), sin(el)};
            /* the HLD_NEAREST + 1 nearest measurements by angle */
            uint32_t idx[HLD_NEAREST + 1] = {0};
            double ang[HLD_NEAREST + 1] = {0};
            uint32_t found = 0;
            for (uint32_t m = 0; m < M; m++) {
                const float *d = dirs + 3 * m;
                double c = u[0] * d[0] + u[1] * d[1] + u[2] * d[2];
                double a = acos(fmax(-1.0, fmin(1.0, c)));
                uint32_t j;
                if (found < HLD_NEAREST + 1)
                    j = found++;
                else if (a >= ang[HLD_NEAREST])
                    continue;
                else
                    j = HLD_NEAREST;
                for (; j > 0 && ang[j - 1] > a; j--) {
                    ang[j] = ang[j - 1];
                    idx[j] = idx[j - 1];
                }
                ang[j] = a;
                idx[j] = m;
            }
            uint32_t k_use = found < HLD_NEAREST ? found : HLD_NEAREST;
            double wt[HLD_NEAREST] = {0}, wsum = 0.0;
            if (ang[0] < 1e-6) {
                wt[0] = 1.0;
                k_use = 1;
            } else if (found <= HLD_NEAREST) { /* too few to fade: plain 1/d^2 */
                for (uint32_t k = 0; k < k_use; k++)
                    wt[k] = 1.0 / (ang[k] * ang[k]);
            } else {
                double R = ang[HLD_NEAREST];
                for (uint32_t k = 0; k < k_use; k++) {
                    double t = (R - ang[k]) / (R * ang[k]);
                    wt[k] = t * t;
                }
                if (!(wt[0] > 0.0)) wt[0] = 1.0; /* all equidistant */
            }
            for (uint32_t k = 0; k < k_use; k++)
                wsum += wt[k];
            hl_hrtf_entry_t *ent = hl_hrtf_set_entry(s, ai, ei);
            for (int e = 0; e < 2; e++) {
                double acc[HL_HRTF_TAPS] = {0}, d = 0.0;
                for (uint32_t k = 0; k < k_use; k++) {
                    const float *src = mp + ((size_t)idx[k] * 2 + e) * HL_HRTF_TAPS;
                    double wk = wt[k] / wsum;
                    for (int t = 0; t < HL_HRTF_TAPS; t++)
                        acc[t] += wk * src[t];
                    d += wk * dly[2 * idx[k] + e];
                }
                for (int t = 0; t < HL_HRTF_TAPS; t++)
                    ent->ir[e][t] = (float)acc[t];
                ent->delay[e] = (float)d;
                if (d < dmin) dmin = d;
            }
        }
    }

    /* delays relative to the earliest ear; gain from the frontal entry */
    uint32_t front_row = 0;
    for (uint32_t ei = 1; ei < n_el; ei++)
        if (fabs(row0 + ei * HLD_EL_STEP) < fabs(row0 + front_row * HLD_EL_STEP)) front_row = ei;
    const hl_hrtf_entry_t *fe = hl_hrtf_set_entry(s, 0, front_row);
    double p2 = 0.0, wk = 2.0 * PI_D * 1000.0 / rate;
    for (int e = 0; e < 2; e++) {
        double re = 0.0, im = 0.0;
        for (int t = 0; t < HL_HRTF_TAPS; t++) {
            re += fe->ir[e][t] * cos(wk * t);
            im -= fe->ir[e][t] * sin(wk * t);
        }
        p2 += 0.5 * (re * re + im * im);
    }
    if (!(p2 > 1e-12)) {
        hld_hrtf_free(block);
        rc = fail(err, errlen, HELIOD_EDECODE, "hrtf: '%s': frontal response is silent", path);
        goto out;
    }
    const float g = (float)(1.0 / sqrt(p2));
    const float dmax = (float)(HL_HRTF_MAX_DELAY - 3);
    for (size_t i = 0; i < (size_t)n_az * n_el; i++) {
        hl_hrtf_entry_t *ent = &s->entry[i];
        for (int e = 0; e < 2; e++) {
            for (int t = 0; t < HL_HRTF_TAPS; t++)
                ent->ir[e][t] *= g;
            float d = (float)(ent->delay[e] - dmin);
            ent->delay[e] = d < 0.0f ? 0.0f : d > dmax ? dmax : d;
        }
    }
    *mem = block;
    *set = s;

out:
    free(arena);
    fft_free(&w.fft);
    free(ir);
    free(dly);
    free(mp);
    free(dirs);
    mysofa_close(easy);
    return rc;
}

void hld_hrtf_free(void *mem) {
    free(mem);
}
