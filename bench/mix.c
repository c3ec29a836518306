/*
 * mix.c - heliod's mixing-throughput benchmark: renders the shared peer
 * workload (the scene defined by the peer harness's mix_workload.h: N looping
 * mono noise voices at Fibonacci-sphere positions, 1/N gain, inverse clamped
 * distance, 256-frame blocks at 48 kHz stereo) through the real mixer core
 * (hl_mixer_init / hl_mixer_play / hl_mixer_process_rt) and prints the same
 * machine-readable result line as the peer benchmarks, so run_peer.sh can put
 * heliod in a column next to OpenAL Soft and the "limit" loops.
 *
 * This file does not include the peer header: it re-implements the scene from
 * its specification (same PRNG and seeds, same positions, same start offsets,
 * same report format), so both render identical input.
 *
 * Variants (-r):
 *   preconv  (default) every source is converted 44.1 kHz -> 48 kHz once with
 *            libsoxr before timing, as the daemon's loader does; pitch 1.
 *   pitched  sources stay at 44.1 kHz and each voice plays at
 *            44100/48000 * (0.9 + 0.2 * frac(i * golden)), so the mixer's own
 *            interpolator does the rate conversion (linear interpolation).
 *   worst    the pitched scene (every voice 3D, looping, its own pitch) with
 *            the 4-point Catmull-Rom interpolator (HL_MIX_CUBIC) on every
 *            voice: the dearest voice kind. `worst` vs `pitched` is cubic vs
 *            linear on the same scene.
 *   sinc     the pitched scene with the band-limited windowed-sinc
 *            interpolator (HL_MIX_SINC, hl_sinc.h) on every voice: `sinc` vs
 *            `pitched` and `worst` is its cost against linear and cubic.
 *   post     the preconv scene with every voice's post stage on: a low-pass
 *            at 2 kHz, an occlusion gain of -6 dB and one send at -12 dB to
 *            a reverb bus (bus 4 under the master, the "hall" FDN as its only
 *            insert, dry 0, wet 1: a send/return bus). The same result line,
 *            then a `heliod-post` line with the audio thread's cost as a
 *            fraction of a 256-frame period at 48 kHz and in ns per voice
 *            and block.
 *
 * Memory: the sources and the mixer's memory come from the daemon's own
 * allocator (daemon/base/hugemem.c: 2 MiB-aligned mappings advised
 * MADV_HUGEPAGE, sources packed into shared 2 MiB chunks), as a loaded sound
 * and the engine's mixer get theirs; HELIOD_HUGE_PAGES=off|pages|on picks
 * its mode as in the daemon. The result line says how much was huge.
 *
 * Start offsets: the mixer API has no start offset, so each source is stored
 * twice back to back and voice i's hl_pcm_t points `offset` frames into that
 * doubled buffer with the original length: looping over it is exactly the
 * source rotated by the offset, without a copy per voice.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <soxr.h>

#include "bench_opts.h"
#include "hl_fx.h"
#include "hl_layout.h"
#include "hl_mixer.h"
#include "hl_simd.h"
#include "hl_sinc.h"
#include "hl_proto.h"
#include "hugemem.h"

/* ---- the workload specification (mix_workload.h) ------------------------ */
#define MB_OUT_RATE   48000 /* output sample rate (Hz) */
#define MB_SRC_RATE   44100 /* source buffer sample rate (Hz) */
#define MB_SRC_LEN    44100 /* source buffer length: 1 s at the source rate */
#define MB_BLOCK      256   /* render block (frames) */
#define MB_MIN_DIST   1.0   /* voice distances lie in [MB_MIN_DIST, MB_MAX_DIST) */
#define MB_MAX_DIST   4.0
#define MB_OFFSET_MUL 7919                   /* start offset of voice i: i * 7919 mod MB_SRC_LEN */
#define MB_SEED_BASE  0x5EED0000ull          /* noise seed of buffer b: base + b * MB_SEED_MUL */
#define MB_SEED_MUL   0x100000001B3ull       /* (FNV-1a 64-bit prime) */
#define MB_GOLDEN     0.61803398874989485    /* golden-ratio fraction: distances, pitches */
#define MB_GOLDEN_ANG 2.39996322972865332    /* pi * (3 - sqrt(5)): Fibonacci sphere step */
#define MB_I32_SCALE  (1.0f / 2147483648.0f) /* int32 -> [-1, 1) */
#define MB_DEF_SECS   10.0                   /* default timed audio seconds */
#define MB_DEF_WARMUP 0.5                    /* default untimed warm-up seconds */
#define MB_CHANNELS   2                      /* stereo output (-c: a surround layout's) */

/* ---- heliod scene parameters ------------------------------------------- */
#define MB_MAX_DISTANCE 1000.0f /* far beyond every voice: nothing goes virtual */
#define MB_PITCH_SPREAD 0.2     /* pitched variant: pitch factor in [0.9, 1.1) */
#define MB_PITCH_BASE   0.9
#define MB_ALIGN        64 /* hl_mixer_init wants 64-byte aligned memory */
#define MB_EXTRA_LEN    256
/* post variant: every voice low-passed, occluded and sent to a reverb bus */
#define MB_POST_LP_HZ   2000.0f
#define MB_POST_OCC_DB  (-6.0f)
#define MB_POST_SEND_DB (-12.0f)
#define MB_POST_BUS     4 /* the reverb bus: the first bus past the four defaults */

typedef struct {
    int voices;
    double seconds, warmup;
    int buffers;
    const char *variant;
    int channels; /* -c / --channels: 2 (stereo), 4, 6, 8 or 12 (hl_layout.h) */
    int turn;     /* -t: the listener turns 1 degree a block (every 3D pair recomputed) */
} mb_args_t;

#define MB_USAGE                                                                                   \
    "N [-s seconds] [-w warmup_seconds] [-b buffers] [-r NAME] [-c CH]\n"                          \
    "  N    number of simultaneous voices (e.g. 1, 64, 256, 1024, 4096)\n"                         \
    "  -s   seconds of audio to render in the timed loop (default 10)\n"                           \
    "  -w   seconds of audio to render before timing (default 0.5)\n"                              \
    "  -b   number of distinct 1 s source buffers, voices use them\n"                              \
    "       round-robin (default 0 = one distinct buffer per voice)\n"                             \
    "  -r   variant: preconv (default: sources resampled to 48 kHz at load\n"                      \
    "       with libsoxr), pitched (44.1 kHz sources, per-voice pitch, linear\n"                   \
    "       interpolation), worst (pitched with cubic interpolation), sinc\n"                      \
    "       (pitched with the band-limited sinc interpolator) or post\n"                           \
    "       (preconv with a 2 kHz low-pass, -6 dB occlusion and a -12 dB send\n"                   \
    "       to a reverb bus on every voice)\n"                                                     \
    "  -c, --channels CH  output layout: 2 stereo (default), 4 quad, 6 5.1, 8 7.1,\n"              \
    "       12 7.1.4 (VBAP over three speakers after the post stage; steady voices\n"              \
    "       take the steady path: one kernel run, then their three speakers);\n"                   \
    "       the 3D voices are panned over its speakers\n"                                          \
    "  -t   the listener turns 1 degree every block: every voice's spatial\n"                      \
    "       gains (and on surround its speaker pair) are recomputed each block"

static _Noreturn void usage(const char *prog) {
    bo_usage(prog, MB_USAGE);
}

static mb_args_t parse_args(int argc, char **argv) {
    mb_args_t a = {0, MB_DEF_SECS, MB_DEF_WARMUP, 0, "preconv", MB_CHANNELS, 0};
    const bo_opt_t opts[] = {
        {"t", 'b', &a.turn},    {"c", 'i', &a.channels}, {"channels", 'i', &a.channels},
        {"s", 'd', &a.seconds}, {"w", 'd', &a.warmup},   {"b", 'i', &a.buffers},
        {"r", 's', &a.variant}, {NULL, 0, NULL}};
    bo_parse(argc, argv, opts, MB_USAGE);
    if (optind >= argc) usage(argv[0]);
    a.voices = atoi(argv[optind]);
    if (a.voices < 1 || a.seconds <= 0.0 || a.warmup < 0.0 || a.buffers < 0 ||
        hl_layout_for_channels((uint32_t)a.channels) < 0)
        usage(argv[0]);
    if (strcmp(a.variant, "preconv") != 0 && strcmp(a.variant, "pitched") != 0 &&
        strcmp(a.variant, "worst") != 0 && strcmp(a.variant, "post") != 0 &&
        strcmp(a.variant, "sinc") != 0)
        usage(argv[0]);
    return a;
}

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* White noise in [-1, 1) seeded by the buffer id, as the workload defines it. */
static void fill_noise(float *dst, int len, int buffer_id) {
    uint64_t s = MB_SEED_BASE + (uint64_t)buffer_id * MB_SEED_MUL;
    for (int i = 0; i < len; i++)
        dst[i] = (float)((int32_t)(uint32_t)(splitmix64(&s) >> 32)) * MB_I32_SCALE;
}

static int start_offset(int i) {
    return (int)(((int64_t)i * MB_OFFSET_MUL) % MB_SRC_LEN);
}

/* Fibonacci-sphere direction, golden-ratio distance in [1, 4). */
static void voice_position(int i, int n, float pos[3]) {
    double y = 1.0 - 2.0 * (i + 0.5) / n;
    double r = sqrt(1.0 - y * y);
    double phi = MB_GOLDEN_ANG * (i + 0.5);
    double g = fmod(0.5 + i * MB_GOLDEN, 1.0);
    double d = MB_MIN_DIST + (MB_MAX_DIST - MB_MIN_DIST) * g;
    pos[0] = (float)(d * r * cos(phi));
    pos[1] = (float)(d * y);
    pos[2] = (float)(d * r * sin(phi));
}

typedef struct {
    double wall, proc, thread;
} stamp_t;

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static stamp_t stamp_now(void) {
    stamp_t s = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID),
                 clock_s(CLOCK_THREAD_CPUTIME_ID)};
    return s;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Builds source buffer `id` in its final form: noise at 44.1 kHz, converted
 * to 48 kHz with soxr for preconv. The result is stored twice back to back
 * (2 * *len frames) so any rotation is a contiguous window. Returns NULL on
 * failure. The caller frees.
 */
static float *make_source(int id, int preconv, uint32_t *len) {
    float *src = malloc(sizeof(float) * MB_SRC_LEN);
    if (!src) return NULL;
    fill_noise(src, MB_SRC_LEN, id);
    if (!preconv) {
        float *dbl = hld_huge_alloc(HLD_HUGE_SAMPLES, sizeof(float) * 2 * MB_SRC_LEN);
        if (dbl) {
            memcpy(dbl, src, sizeof(float) * MB_SRC_LEN);
            memcpy(dbl + MB_SRC_LEN, src, sizeof(float) * MB_SRC_LEN);
        }
        free(src);
        *len = MB_SRC_LEN;
        return dbl;
    }
    /* 44100 source frames -> exactly 48000 output frames. */
    size_t out_len = (size_t)MB_SRC_LEN * MB_OUT_RATE / MB_SRC_RATE;
    float *dbl = hld_huge_alloc(HLD_HUGE_SAMPLES, sizeof(float) * (2 * out_len + MB_EXTRA_LEN));
    if (!dbl) {
        free(src);
        return NULL;
    }
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0);
    size_t done = 0;
    soxr_error_t err = soxr_oneshot(MB_SRC_RATE, MB_OUT_RATE, 1, src, MB_SRC_LEN, NULL, dbl,
                                    out_len, &done, &io, &q, NULL);
    free(src);
    if (err || done == 0) {
        fprintf(stderr, "soxr: %s\n", err ? err : "no output");
        hld_huge_free(dbl);
        return NULL;
    }
    for (size_t i = done; i < out_len; i++)
        dbl[i] = 0.0f; /* soxr may return a few short */
    memcpy(dbl + out_len, dbl, sizeof(float) * out_len);
    *len = (uint32_t)out_len;
    return dbl;
}

static long blocks_for(double seconds) {
    return (long)ceil(seconds * MB_OUT_RATE / MB_BLOCK);
}

static double block_energy(const float *buf, int frames, int channels) {
    double e = 0.0;
    for (int i = 0; i < channels * frames; i++)
        e += (double)buf[i] * buf[i];
    return e;
}

static void ignore_event(void *user, const hl_mix_event_t *ev) {
    (void)user;
    (void)ev;
}

int main(int argc, char **argv) {
    mb_args_t a = parse_args(argc, argv);
    int post = strcmp(a.variant, "post") == 0;
    int preconv = strcmp(a.variant, "preconv") == 0 || post;
    int cubic = strcmp(a.variant, "worst") == 0; /* pitched + Catmull-Rom */
    int sinc = strcmp(a.variant, "sinc") == 0;   /* pitched + windowed sinc */
    int n = a.voices;
    const char *isa_var,
        *isa = hl_isa_env(&isa_var); /* HELIOD_ISA (or HELIOD_SIMD) caps the kernels */
    if (isa && hl_simd_parse(isa) < 0) {
        fprintf(stderr, "%s must be generic, avx2 or avx512 (got '%s')\n", isa_var, isa);
        return 2;
    }
    if (isa) hl_simd_set_cap(hl_simd_parse(isa));
    fprintf(stderr, "# kernels: %s\n", hl_simd_name(hl_simd_level()));
    if (n > HL_MAX_VOICES) {
        fprintf(stderr, "# %d voices requested, the mixer caps at %d\n", n, HL_MAX_VOICES);
        n = HL_MAX_VOICES;
    }
    int nbuf = (a.buffers == 0 || a.buffers > n) ? n : a.buffers;

    /* Sources (untimed setup, as the daemon's loader would do it). */
    float **bufs = calloc((size_t)nbuf, sizeof(*bufs));
    hl_pcm_t *pcms = calloc((size_t)n, sizeof(*pcms));
    if (!bufs || !pcms) return 1;
    uint32_t len = 0;
    for (int b = 0; b < nbuf; b++) {
        bufs[b] = make_source(b, preconv, &len);
        if (!bufs[b]) return 1;
    }

    hl_mixer_config_t cfg = {0};
    cfg.rate = MB_OUT_RATE;
    cfg.voices = (uint32_t)n;
    cfg.layout = (uint32_t)hl_layout_for_channels((uint32_t)a.channels);
    cfg.cmd_capacity = HL_CMD_RING;
    while (cfg.cmd_capacity < (uint32_t)n)
        cfg.cmd_capacity *= 2;
    cfg.cmds_per_block = cfg.cmd_capacity; /* every play lands in the first block */
    size_t size = hl_mixer_size(&cfg);
    if (size == 0) {
        fprintf(stderr, "hl_mixer_size: invalid config\n");
        return 1;
    }
    size = (size + MB_ALIGN - 1) / MB_ALIGN * MB_ALIGN;
    void *mem = hld_huge_alloc(HLD_HUGE_MIXER, size); /* as the engine's */
    if (!mem) return 1;
    memset(mem, 0, size);
    hl_mixer_t *m = hl_mixer_init(mem, size, &cfg);
    if (!m) {
        fprintf(stderr, "hl_mixer_init failed\n");
        return 1;
    }

    /* sinc: the tables, built untimed (as the daemon does at start) */
    void *sinc_mem = NULL;
    if (sinc) {
        size_t ssz = hl_sinc_size();
        sinc_mem = aligned_alloc(MB_ALIGN, (ssz + MB_ALIGN - 1) / MB_ALIGN * MB_ALIGN);
        const hl_sinc_t *t = sinc_mem ? hl_sinc_init(sinc_mem, ssz) : NULL;
        if (!t) return 1;
        hl_mixer_set_sinc(m, t);
    }

    /* post: the reverb bus (send/return: dry 0, wet 1) before any voice plays */
    void *rev_mem = NULL;
    hl_fx_t *rev_fx = NULL;
    if (post) {
        int8_t parent[HL_MAX_BUSES];
        for (int b = 0; b < HL_MAX_BUSES; b++)
            parent[b] = -1;
        size_t rsz = hl_reverb_size((float)MB_OUT_RATE);
        rev_mem = malloc(rsz);
        rev_fx = calloc(1, sizeof *rev_fx);
        if (!rev_mem || !rev_fx) return 1;
        rev_fx->kind = HL_FX_REVERB;
        rev_fx->u.rev = hl_reverb_init(rev_mem, rsz, (float)MB_OUT_RATE);
        hl_reverb_params_t hall;
        if (!rev_fx->u.rev || hl_reverb_preset("hall", &hall) != 0) return 1;
        hall.dry = 0.0f;
        hall.wet = 1.0f;
        hl_reverb_set_rt(rev_fx->u.rev, &hall);
        if (hl_mixer_bus_graph(m, parent, (1u << (MB_POST_BUS + 1)) - 1u, now_ns()) != 0 ||
            hl_mixer_bus_fx(m, MB_POST_BUS, &rev_fx, 1, now_ns()) != 0) {
            fprintf(stderr, "post: the reverb bus could not be set up\n");
            return 1;
        }
    }

    int granted = 0;
    for (int i = 0; i < n; i++) {
        int b = i % nbuf;
        uint32_t off = (uint32_t)start_offset(i);
        if (preconv) off = (uint32_t)((uint64_t)off * MB_OUT_RATE / MB_SRC_RATE);
        pcms[i].data = bufs[b] + off;
        pcms[i].frames = len;
        pcms[i].channels = 1;
        pcms[i].finite = 1; /* generated: every sample finite, as the loader guarantees */
    }
    /* Gain is 1/N with N the voices actually playing: count them first. */
    float gain = 1.0f / (float)n;
    for (int i = 0; i < n; i++) {
        hl_voice_params_t p;
        memset(&p, 0, sizeof p);
        p.pcm = &pcms[i];
        p.flags = HL_MIX_LOOP | HL_MIX_3D | (cubic ? HL_MIX_CUBIC : 0u) | (sinc ? HL_MIX_SINC : 0u);
        p.gain = gain;
        voice_position(i, n, p.pos);
        p.pitch = 1.0f;
        if (!preconv) {
            double frac = fmod(i * MB_GOLDEN, 1.0);
            p.pitch = (float)((double)MB_SRC_RATE / MB_OUT_RATE *
                              (MB_PITCH_BASE + MB_PITCH_SPREAD * frac));
        }
        p.min_distance = (float)MB_MIN_DIST;
        p.max_distance = MB_MAX_DISTANCE;
        p.rolloff = 1.0f;
        p.model = HL_DIST_INVERSE;
        p.bus = HL_BUS_SFX;
        p.tag = (uint64_t)i;
        if (post) {
            p.lp_hz = MB_POST_LP_HZ;
            p.occ_db = MB_POST_OCC_DB;
            p.send_bus[0] = MB_POST_BUS;
            p.send_gain[0] = powf(10.0f, MB_POST_SEND_DB / 20.0f);
        }
        uint64_t voice = 0, stolen = 0;
        int rc = hl_mixer_play(m, &p, now_ns(), &voice, &stolen);
        if (rc == 0)
            granted++;
        else
            fprintf(stderr, "# voice %d refused: %d\n", i, rc);
    }
    if (granted == 0) return 1;
    if (granted != n) fprintf(stderr, "# only %d of %d voices granted\n", granted, n);

    float *out = aligned_alloc(MB_ALIGN, sizeof(float) * (size_t)a.channels * MB_BLOCK);
    if (!out) return 1;

    long wblocks = a.warmup > 0.0 ? blocks_for(a.warmup) : 0;
    for (long k = 0; k < wblocks; k++)
        hl_mixer_process_rt(m, out, MB_BLOCK, now_ns());
    hl_mixer_poll(m, ignore_event, NULL);

    long blocks = blocks_for(a.seconds);
    double energy = 0.0;
    uint64_t t = now_ns();
    stamp_t t0 = stamp_now();
    for (long k = 0; k < blocks; k++) {
        if (a.turn) { /* the listener's forward turns 1 degree a block */
            const float ang = (float)k * (float)(M_PI / 180.0);
            hl_listener_state_t l = {
                {0, 0, 0}, {sinf(ang), 0, -cosf(ang)}, {0, 1, 0}, {0, 0, 0}, 0};
            (void)hl_mixer_set_listener(m, &l, t);
        }
        hl_mixer_process_rt(m, out, MB_BLOCK, t);
        energy += block_energy(out, MB_BLOCK, a.channels);
        t += (uint64_t)MB_BLOCK * 1000000000ull / MB_OUT_RATE;
    }
    stamp_t t1 = stamp_now();
    hl_mixer_poll(m, ignore_event, NULL);

    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    hld_huge_stats_t hs;
    hld_huge_stats(&hs);
    static const char *const huge_mode_names[] = {"on", "pages", "off"};
    double rms = sqrt(energy / ((double)blocks * MB_BLOCK * a.channels));
    double audio_s = (double)blocks * MB_BLOCK / MB_OUT_RATE;
    double cpu = t1.proc - t0.proc;
    printf("heliod voices=%d granted=%d audio_s=%.3f cpu_s=%.4f realtime_factor=%.2f "
           "voice_seconds_per_cpu_second=%.1f wall_s=%.4f thread_cpu_s=%.4f variant=%s "
           "rms=%.3e buffers=%d mixed=%u virtual=%u limiter_blocks=%llu huge_pages=%s "
           "sample_mb=%.1f sample_mb_huge=%.1f mixer_mb_huge=%.1f\n",
           a.voices, granted, audio_s, cpu, audio_s / cpu, granted * audio_s / cpu,
           t1.wall - t0.wall, t1.thread - t0.thread, a.variant, rms, nbuf, st.voices_mixed,
           st.voices_virtual, (unsigned long long)st.limiter_blocks,
           huge_mode_names[hld_huge_mode()], (double)hs.mapped_bytes[HLD_HUGE_SAMPLES] / 1048576.0,
           (double)hs.huge_bytes[HLD_HUGE_SAMPLES] / 1048576.0,
           (double)hs.huge_bytes[HLD_HUGE_MIXER] / 1048576.0);
    if (a.channels != MB_CHANNELS) /* the stereo line stays as the peer harness reads it */
        printf("heliod-layout channels=%d voices=%d variant=%s turn=%d cpu_s=%.4f "
               "block_us=%.2f\n",
               a.channels, granted, a.variant, a.turn, cpu, cpu / (double)blocks * 1e6);
    if (post) {
        /* the audio thread's cost per 256-frame period (CPU time per block) */
        double period_s = (double)MB_BLOCK / MB_OUT_RATE;
        double block_s = cpu / (double)blocks;
        printf("heliod-post voices=%d granted=%d period=%d lp_hz=%.0f occ_db=%.0f send_db=%.0f "
               "reverb_buses=1 block_us=%.1f period_us=%.1f period_load=%.4f "
               "ns_per_voice_block=%.1f ns_per_voice_frame=%.3f\n",
               a.voices, granted, MB_BLOCK, (double)MB_POST_LP_HZ, (double)MB_POST_OCC_DB,
               (double)MB_POST_SEND_DB, block_s * 1e6, period_s * 1e6, block_s / period_s,
               block_s * 1e9 / granted, block_s * 1e9 / granted / MB_BLOCK);
    }
    fflush(stdout);

    hl_mixer_poll(m, ignore_event, NULL);
    free(rev_fx); /* still attached to the mixer, which goes with mem */
    free(rev_mem);
    free(out);
    hld_huge_free(mem);
    free(sinc_mem);
    for (int b = 0; b < nbuf; b++)
        hld_huge_free(bufs[b]);
    free(bufs);
    free(pcms);
    return 0;
}
