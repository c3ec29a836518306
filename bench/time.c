/*
 * time.c - heliod's time figures.
 *
 *   time jitter [-n PLAYS]   scheduled-start jitter: the real mixer core with
 *                            an audio thread paced in real time (256-frame
 *                            periods at 48 kHz, clock_nanosleep like the null
 *                            driver) while the main thread schedules PLAYS
 *                            (default 10000) plays, each for a frame 5..25 ms
 *                            ahead of the clock (any offset inside a period),
 *                            and compares every STARTED event's frame with the
 *                            frame asked for. Prints
 *                            `heliod-sched plays=N on_time=N late=N
 *                             jitter_max_frames=J jitter_mean_frames=M
 *                             late_max_frames=L` (target: jitter 0 for every
 *                            on-time play; a late one starts at once and is
 *                            counted apart).
 *   time render [-v VOICES] [-s SECONDS] [--heliod PATH]
 *                            render speed: `heliod --render` of the standard
 *                            scene (bench/mix.c: VOICES (1024) looping mono
 *                            noise voices at Fibonacci-sphere positions,
 *                            gain 1/N, inverse distance, 1 s 44.1 kHz sources
 *                            converted at load; here 16 distinct sources
 *                            round-robin and no start offsets, as a score
 *                            names sounds; --audibility-floor -144 so no
 *                            voice at -60 dB goes virtual), SECONDS (10) of
 *                            audio, timed from start to exit. Prints
 *                            `heliod-render voices=N audio_s=S wall_s=W
 *                             realtime_factor=S/W bytes=B`.
 *   time storm [-v VOICES] [-n PERIODS]
 *                            schedule storm: the mixer core (no pacing, one
 *                            thread) with VOICES (64) looping voices; before
 *                            each 256-frame period, 256 SETs are scheduled
 *                            at the 256 distinct frames of the period after
 *                            next (round-robin over the voices), then the
 *                            period is rendered and its hl_mixer_process_rt
 *                            call timed; PERIODS (4000) of them, after the
 *                            same number without SETs. Prints
 *                            `heliod-sched-storm voices=V sets_per_period=256
 *                             quiet_p99_us=Q p50_us=A p99_us=B max_us=C
 *                             cpu_quiet_p99_us=.. cpu_p99_us=.. cpu_max_us=..
 *                             period_us=P late=L` (the callback with 256 due
 *                            frames in one period against a quiet one; wall
 *                            time, then the thread's CPU time, which a
 *                            loaded machine's preemptions do not inflate).
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sndfile.h>

#include "hl_mixer.h"

#define RATE       48000
#define PERIOD     256
#define SRC_RATE   44100
#define N_SOURCES  16
#define GOLDEN     0.61803398874989485
#define GOLDEN_ANG 2.39996322972865332

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- jitter ------------------------------------------------------------------ */

typedef struct {
    hl_mixer_t *m;
    atomic_int quit;
} rt_t;

static void *audio_thread(void *arg) {
    rt_t *rt = arg;
    float out[2 * PERIOD];
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    const long period_ns = (long)PERIOD * 1000000000L / RATE;
    while (!atomic_load(&rt->quit)) {
        hl_mixer_process_rt(rt->m, out, PERIOD, now_ns());
        next.tv_nsec += period_ns;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0) {
        }
    }
    return NULL;
}

typedef struct {
    uint64_t *want; /* by slot */
    uint64_t started, on_time, late, jmax, late_max;
    double jsum;
} jit_t;

static void on_event(void *user, const hl_mix_event_t *ev) {
    jit_t *j = user;
    if (ev->type != HL_MIX_EV_STARTED) return;
    uint64_t want = j->want[(uint32_t)ev->voice];
    j->started++;
    if (ev->frame > want) { /* it came after its frame: applied at once */
        j->late++;
        if (ev->frame - want > j->late_max) j->late_max = ev->frame - want;
        return;
    }
    uint64_t d = want - ev->frame; /* starting early would be a bug too */
    j->on_time++;
    j->jsum += (double)d;
    if (d > j->jmax) j->jmax = d;
}

static int run_jitter(int plays) {
    hl_mixer_config_t cfg = {.rate = RATE, .voices = 256};
    size_t size = hl_mixer_size(&cfg);
    void *mem = aligned_alloc(64, (size + 63) / 64 * 64);
    hl_mixer_t *m = mem ? hl_mixer_init(mem, size, &cfg) : NULL;
    if (!m) return 1;
    static float click[64];
    for (int i = 0; i < 64; i++)
        click[i] = 0.5f;
    hl_pcm_t pcm = {.data = click, .frames = 64, .channels = 1, .finite = 1};
    jit_t j = {.want = calloc(hl_mixer_slots(m), sizeof(uint64_t))};
    rt_t rt = {.m = m};
    pthread_t th;
    if (!j.want || pthread_create(&th, NULL, audio_thread, &rt) != 0) return 1;
    uint64_t rng = 0x5EEDull;
    for (int i = 0; i < plays;) {
        hl_mixer_poll(m, on_event, &j);
        uint64_t now = hl_mixer_frames(m);
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t at = now + RATE / 200 + (rng >> 33) % (RATE / 50); /* 5..25 ms ahead */
        hl_voice_params_t p = {.pcm = &pcm, .gain = 0.01f, .pitch = 1.0f, .bus = HL_BUS_SFX};
        hl_mixer_at(m, at);
        uint64_t v = 0;
        int rc = hl_mixer_play(m, &p, now_ns(), &v, NULL);
        hl_mixer_at(m, 0);
        if (rc == 0) {
            j.want[(uint32_t)v] = at;
            i++;
        }
        struct timespec ts = {0, 400000}; /* ~2500 plays/s */
        nanosleep(&ts, NULL);
    }
    for (int k = 0; k < 100 && j.started < (uint64_t)plays; k++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        hl_mixer_poll(m, on_event, &j);
    }
    atomic_store(&rt.quit, 1);
    pthread_join(th, NULL);
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    printf("heliod-sched plays=%d on_time=%llu late=%llu jitter_max_frames=%llu "
           "jitter_mean_frames=%.3f late_max_frames=%llu mixer_sched_late=%llu\n",
           plays, (unsigned long long)j.on_time, (unsigned long long)j.late,
           (unsigned long long)j.jmax, j.on_time ? j.jsum / (double)j.on_time : 0.0,
           (unsigned long long)j.late_max, (unsigned long long)st.sched_late);
    free(j.want);
    free(mem);
    return j.started == (uint64_t)plays ? 0 : 1;
}

/* ---- storm ------------------------------------------------------------------- */

static uint64_t cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct_us(uint64_t *t, int n, double p) {
    qsort(t, (size_t)n, sizeof *t, cmp_u64);
    int i = (int)(p * (n - 1) + 0.5);
    return (double)t[i] / 1000.0;
}

static int run_storm(int voices, int periods) {
    hl_mixer_config_t cfg = {.rate = RATE, .voices = (uint32_t)voices};
    size_t size = hl_mixer_size(&cfg);
    void *mem = aligned_alloc(64, (size + 63) / 64 * 64);
    hl_mixer_t *m = mem ? hl_mixer_init(mem, size, &cfg) : NULL;
    if (!m) return 1;
    static float tone[4096];
    for (int i = 0; i < 4096; i++)
        tone[i] = 0.25f * sinf((float)i * 0.05f);
    hl_pcm_t pcm = {.data = tone, .frames = 4096, .channels = 1, .finite = 1};
    uint64_t *vh = calloc((size_t)voices, sizeof *vh);
    uint64_t *t = calloc((size_t)periods, sizeof *t), *ct = calloc((size_t)periods, sizeof *ct);
    if (!vh || !t || !ct) return 1;
    for (int i = 0; i < voices; i++) {
        hl_voice_params_t p = {.pcm = &pcm,
                               .gain = 0.01f,
                               .pitch = 1.0f + 0.001f * (float)i,
                               .pan = 0.0f,
                               .flags = HL_MIX_LOOP,
                               .bus = HL_BUS_SFX};
        if (hl_mixer_play(m, &p, now_ns(), &vh[i], NULL) != 0) return 1;
    }
    float out[2 * PERIOD];
    double quiet = 0, p50 = 0, p99 = 0, mx = 0, cquiet = 0, cp99 = 0, cmx = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < periods; k++) {
            if (pass == 1) {
                uint64_t base = hl_mixer_frames(m) + 2 * PERIOD;
                for (int f = 0; f < PERIOD; f++) {
                    hl_voice_set_t s = {.mask = HL_MIX_SET_GAIN,
                                        .gain = 0.005f + 0.005f * (float)(f & 1),
                                        .ramp_frames = 64};
                    hl_mixer_at(m, base + (uint64_t)f);
                    if (hl_mixer_set(m, vh[f % voices], &s, now_ns()) != 0) return 1;
                }
                hl_mixer_at(m, 0);
            }
            uint64_t t0 = now_ns(), c0 = cpu_ns();
            hl_mixer_process_rt(m, out, PERIOD, t0);
            ct[k] = cpu_ns() - c0;
            t[k] = now_ns() - t0;
            hl_mixer_poll(m, NULL, NULL);
        }
        if (pass == 0) {
            quiet = pct_us(t, periods, 0.99);
            cquiet = pct_us(ct, periods, 0.99);
        } else {
            cp99 = pct_us(ct, periods, 0.99);
            cmx = (double)ct[periods - 1] / 1000.0;
            p50 = pct_us(t, periods, 0.50);
            p99 = pct_us(t, periods, 0.99);
            mx = (double)t[periods - 1] / 1000.0;
        }
    }
    hl_mixer_stats_t st;
    hl_mixer_stats(m, &st);
    printf("heliod-sched-storm voices=%d sets_per_period=%d quiet_p99_us=%.1f p50_us=%.1f "
           "p99_us=%.1f max_us=%.1f cpu_quiet_p99_us=%.1f cpu_p99_us=%.1f cpu_max_us=%.1f "
           "period_us=%.1f late=%llu\n",
           voices, PERIOD, quiet, p50, p99, mx, cquiet, cp99, cmx, PERIOD * 1e6 / RATE,
           (unsigned long long)st.sched_late);
    free(vh);
    free(t);
    free(ct);
    free(mem);
    return 0;
}

/* ---- render ------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int write_noise(const char *path, int id) {
    SF_INFO info = {
        .samplerate = SRC_RATE, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
    SNDFILE *f = sf_open(path, SFM_WRITE, &info);
    if (!f) return -1;
    float *buf = malloc(SRC_RATE * sizeof(float));
    uint64_t s = 0x5EED0000ull + (uint64_t)id * 0x100000001B3ull;
    for (int i = 0; i < SRC_RATE && buf; i++)
        buf[i] = (float)((int32_t)(uint32_t)(splitmix64(&s) >> 32)) * (1.0f / 2147483648.0f);
    int ok = buf && sf_writef_float(f, buf, SRC_RATE) == SRC_RATE;
    free(buf);
    sf_close(f);
    return ok ? 0 : -1;
}

static int run_render(int voices, double seconds, const char *heliod) {
    char dir[] = "/tmp/heliod-bench-time-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char score[256], out[256], path[256];
    snprintf(score, sizeof score, "%s/scene.txt", dir);
    snprintf(out, sizeof out, "%s/scene.wav", dir);
    FILE *sf = fopen(score, "w");
    if (!sf) return 1;
    for (int b = 0; b < N_SOURCES; b++) {
        snprintf(path, sizeof path, "%s/n%d.wav", dir, b);
        if (write_noise(path, b) != 0) return 1;
        fprintf(sf, "load n%d %s\n", b, path);
    }
    double gain_db = 20.0 * log10(1.0 / voices);
    for (int i = 0; i < voices; i++) {
        double y = 1.0 - 2.0 * (i + 0.5) / voices, r = sqrt(1.0 - y * y);
        double phi = GOLDEN_ANG * (i + 0.5), g = fmod(0.5 + i * GOLDEN, 1.0), d = 1.0 + 3.0 * g;
        fprintf(sf,
                "play n%d --loop --fade-in 0 --gain %.4f --pos %.5f,%.5f,%.5f "
                "--min-dist 1 --max-dist 1000 --model inverse\n",
                i % N_SOURCES, gain_db, d * r * cos(phi), d * y, d * r * sin(phi));
    }
    fprintf(sf, "@%llu end\n", (unsigned long long)(seconds * RATE));
    fclose(sf);
    char vs[16], vv[16];
    snprintf(vs, sizeof vs, "%d", voices);
    snprintf(vv, sizeof vv, "%d", voices * 4 > 4096 ? voices * 4 : 4096);
    uint64_t t0 = now_ns();
    pid_t pid = fork();
    if (pid == 0) {
        execl(heliod, heliod, "--render", score, "--out", out, "--voices", vs, "--virtual-voices",
              vv, "--audibility-floor", "-144", "--log-level", "warn", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    double wall = (double)(now_ns() - t0) / 1e9;
    FILE *o = fopen(out, "rb");
    long bytes = 0;
    if (o) {
        fseek(o, 0, SEEK_END);
        bytes = ftell(o);
        fclose(o);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "time render: heliod exited with %d (files kept in %s)\n",
                WIFEXITED(st) ? WEXITSTATUS(st) : -1, dir);
        return 1;
    }
    printf("heliod-render voices=%d audio_s=%.2f wall_s=%.3f realtime_factor=%.2f bytes=%ld\n",
           voices, seconds, wall, seconds / wall, bytes);
    return system(cmd) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    int help = !strcmp(mode, "--help"); /* usage on stdout, exit 0 */
    int plays = 10000, voices = 1024;
    double seconds = 10.0;
    const char *heliod = getenv("HELIOD_BIN") ? getenv("HELIOD_BIN") : "build/daemon/heliod";
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n"))
            plays = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-v"))
            voices = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-s"))
            seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--heliod"))
            heliod = argv[i + 1];
    }
    if (!strcmp(mode, "jitter") && plays > 0) return run_jitter(plays);
    if (!strcmp(mode, "storm") && plays > 0)
        return run_storm(voices == 1024 ? 64 : voices, plays == 10000 ? 4000 : plays);
    if (!strcmp(mode, "render") && voices > 0 && seconds > 0)
        return run_render(voices, seconds, heliod);
    fprintf(help ? stdout : stderr,
            "usage: %s jitter [-n PLAYS] | storm [-v VOICES] [-n PERIODS] | render [-v VOICES] "
            "[-s SECONDS] [--heliod PATH]\n",
            argv[0]);
    return help ? 0 : 2;
}
