/*
 * test_cstream.c - client-fed streams (STREAM, heliod_stream.h) against the
 * real daemon: a generated sine fed for 60 s of audio comes back sample for
 * sample in the recording with no underrun (the null driver at 20x real
 * time, HELIOD_NULL_SPEED, so it takes ~3 s), end of stream plays out and
 * ends the voice, an underrun is counted and faded, a stream closed or
 * abandoned mid-way ends its voice, and the daemon refuses hostile rings
 * (unsealed, wrong size, absurd fields, over quota) without harm.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "heliod.h"
#include "hl_proto.h"
#include "hl_shm_stream.h"

#define RATE 48000

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The test sine as s16: a cosine, so frame 0 is its peak (never 0). */
static int16_t sine_s16(uint64_t i) {
    return (int16_t)lrint(16384.0 * cos(2.0 * M_PI * 997.0 * (double)i / RATE));
}

/* ---- 60 s of a sine, sample for sample ---------------------------------- */

static void sine_60s(void **state) {
    (void)state;
    th_daemon_t d;
    setenv("HELIOD_NULL_SPEED", "20", 1);
    assert_int_equal(th_daemon_start(&d, 1, NULL), 0);
    unsetenv("HELIOD_NULL_SPEED");
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "cstream"), 0);
    heliod_stream_params_t p;
    heliod_stream_params_init(&p);
    p.rate = RATE;
    p.channels = 2;
    p.format = HELIOD_STREAM_S16;
    p.frames = 1u << 20; /* 21.8 s of audio: the writer may stall 1 s (wall) at 20x */
    p.play.fade_in_ms = 0;
    heliod_stream_t *s = NULL;
    assert_int_equal(heliod_stream_open(h, &p, &s), 0);
    const uint64_t total = 60ull * RATE;
    int16_t buf[4096 * 2];
    uint64_t sent = 0;
    double t0 = now_s();
    int waits = 0;
    while (sent < total) {
        size_t n = heliod_stream_writable(s);
        if (n == 0) {
            waits++;
            assert_true(heliod_stream_wait(s, 2000) == 1);
            continue;
        }
        if (n > 4096) n = 4096;
        if (n > total - sent) n = (size_t)(total - sent);
        for (size_t i = 0; i < n; i++)
            buf[2 * i] = buf[2 * i + 1] = sine_s16(sent + i);
        assert_int_equal(heliod_stream_write(s, buf, n), n);
        sent += n;
    }
    assert_int_equal(heliod_stream_end(s), 0);
    int reason = -1;
    while (!heliod_stream_ended(s, &reason))
        assert_true(heliod_stream_wait(s, 5000) == 1);
    double wall = now_s() - t0;
    uint64_t consumed = heliod_stream_consumed(s), underruns = heliod_stream_underruns(s);
    assert_int_equal(reason, HELIOD_END_FINISHED);
    assert_int_equal(underruns, 0);
    assert_true(consumed == total);
    heliod_stream_close(s);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    float *x = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(d.record, &x, &frames, &ch, &rate), 0);
    th_daemon_cleanup(&d);
    assert_int_equal(ch, 2);
    long lat = -1;
    for (size_t i = 0; i < frames && lat < 0; i++)
        if (x[2 * i] != 0.0f) lat = (long)i;
    assert_true(lat >= 0);
    assert_true((uint64_t)lat + total <= frames);
    /* the gain of a centred stereo voice: the first sample over the source's */
    float g = x[2 * lat] / ((float)sine_s16(0) / 32768.0f);
    size_t bad = 0;
    float worst = 0.0f;
    for (uint64_t i = 0; i < total; i++) {
        float want = g * (float)sine_s16(i) / 32768.0f;
        for (int c = 0; c < 2; c++) {
            float e = fabsf(x[2 * ((size_t)lat + i) + c] - want);
            if (e > worst) worst = e;
            if (e > 1e-6f) bad++;
        }
    }
    size_t tail = 0;
    for (size_t i = (size_t)lat + total; i < frames; i++)
        if (x[2 * i] != 0.0f || x[2 * i + 1] != 0.0f) tail++;
    printf("sine 60 s: %llu frames fed in %.2f s wall (%d waits), latency %ld frames, gain %.6f, "
           "worst error %.3g, %zu samples off, %llu underruns, %zu frames after its end\n",
           (unsigned long long)total, wall, waits, lat, g, (double)worst, bad,
           (unsigned long long)underruns, tail);
    free(x);
    assert_int_equal(bad, 0);
    assert_int_equal(tail, 0);
    assert_true(g > 0.5f && g <= 1.0001f);
}

/* ---- an underrun fades out and back in ------------------------------------ */

static void write_dc(heliod_stream_t *s, size_t frames) {
    float buf[512];
    for (int i = 0; i < 512; i++)
        buf[i] = 0.5f;
    while (frames) {
        size_t w = heliod_stream_write(s, buf, frames < 512 ? frames : 512);
        if (!w) assert_true(heliod_stream_wait(s, 2000) == 1);
        frames -= w;
    }
}

static void underrun_fades(void **state) {
    (void)state;
    th_daemon_t d;
    setenv("HELIOD_NULL_SPEED", "20", 1);
    assert_int_equal(th_daemon_start(&d, 1, NULL), 0);
    unsetenv("HELIOD_NULL_SPEED");
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, d.sock, "fades"), 0);
    heliod_stream_params_t p;
    heliod_stream_params_init(&p);
    p.channels = 1;
    p.frames = 16384;
    heliod_stream_t *s = NULL;
    assert_int_equal(heliod_stream_open(h, &p, &s), 0);
    write_dc(s, 9600); /* a constant, then nothing: it runs dry */
    double t0 = now_s();
    while (heliod_stream_underruns(s) == 0) {
        assert_true(now_s() - t0 < 5.0);
        usleep(500);
    }
    usleep(20000); /* 0.4 s of audio at 20x: silence */
    write_dc(s, 9600);
    heliod_stream_end(s);
    while (!heliod_stream_ended(s, NULL))
        assert_true(heliod_stream_wait(s, 5000) == 1);
    uint64_t underruns = heliod_stream_underruns(s);
    heliod_stream_close(s);
    heliod_close(h);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    float *x = NULL;
    size_t frames = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(d.record, &x, &frames, &ch, &rate), 0);
    th_daemon_cleanup(&d);
    long first = -1, last = -1;
    for (size_t i = 0; i < frames; i++)
        if (fabsf(x[2 * i]) > 1e-6f) {
            if (first < 0) first = (long)i;
            last = (long)i;
        }
    assert_true(first >= 0);
    float level = x[2 * (size_t)(first + 1000)], step = 0.0f;
    size_t quiet = 0, run = 0;
    for (long i = first + 1; i <= last; i++) {
        float dv = fabsf(x[2 * i] - x[2 * (i - 1)]);
        if (dv > step) step = dv;
        run = fabsf(x[2 * i]) < 1e-6f ? run + 1 : 0;
        if (run > quiet) quiet = run;
    }
    printf("underrun: %llu episode(s), level %.4f, largest step %.5f between the first and last "
           "sound (a cut would be %.4f), %zu silent frames in the gap\n",
           (unsigned long long)underruns, (double)level, (double)step, (double)level, quiet);
    free(x);
    assert_int_equal(underruns, 1);
    assert_true(quiet > 4800);         /* it went silent ... */
    assert_true(step < level / 32.0f); /* ... over 64 frames, and came back the same way */
}

/* ---- end of stream, underruns, close, a vanishing client ------------------- */

typedef struct {
    int ended, stream_events;
    uint64_t ended_voice;
    int reason;
    double first_event_s;
    uint64_t cum; /* frames the STREAM events reported, summed */
    int n_lat;    /* events timed: when each came, and the total it brought */
    double ev_s[64];
    uint64_t ev_cum[64];
} evs_t;

static void on_event(void *user, const heliod_event_t *ev) {
    evs_t *e = user;
    if (ev->type == HELIOD_EVENT_ENDED) {
        e->ended++;
        e->ended_voice = ev->voice;
        e->reason = ev->reason;
    }
    if (ev->type == HELIOD_EVENT_STREAM) {
        if (!e->stream_events) e->first_event_s = now_s();
        e->stream_events++;
        e->cum += ev->frames;
        if (e->n_lat < 64) {
            e->ev_s[e->n_lat] = now_s();
            e->ev_cum[e->n_lat++] = e->cum;
        }
    }
}

static int setup(void **state) {
    return th_fixture_start(state, 0, NULL);
}
static int teardown(void **state) {
    return th_fixture_teardown(state);
}

static heliod_stream_t *open_f32(heliod_t *h, uint32_t frames) {
    heliod_stream_params_t p;
    heliod_stream_params_init(&p);
    p.channels = 1;
    p.frames = frames;
    heliod_stream_t *s = NULL;
    assert_int_equal(heliod_stream_open(h, &p, &s), 0);
    assert_true(heliod_stream_voice(s) != 0);
    return s;
}

static void write_all(heliod_stream_t *s, size_t frames) {
    float buf[1024];
    for (int i = 0; i < 1024; i++)
        buf[i] = 0.25f * sinf((float)i * 0.05f);
    while (frames) {
        size_t n = frames < 1024 ? frames : 1024;
        size_t w = heliod_stream_write(s, buf, n);
        if (!w) assert_true(heliod_stream_wait(s, 2000) == 1);
        frames -= w;
    }
}

static void eos_and_underrun(void **state) {
    th_fixture_t *f = *state;
    heliod_t *h = th_fixture_connect(f, "eos");
    evs_t e = {0};
    heliod_set_event_callback(h, on_event, &e);
    assert_int_equal(heliod_subscribe(h, HELIOD_SUB_ENDED | HELIOD_SUB_STREAM), 0);
    heliod_stream_t *s = open_f32(h, 4096);
    double t0 = now_s(), consumed_s = 0;
    write_all(s, 2400); /* 50 ms, then starve */
    /* it plays the 2400 frames, then underruns once (counted while playing);
     * meanwhile: when the shared count reached each value, when each STREAM
     * event came (the consumed-to-event latency) */
    static double seen_s[8192];
    static uint64_t seen_v[8192];
    int nseen = 0;
    uint64_t last = 0;
    while (heliod_stream_underruns(s) == 0 || e.cum < 2400) {
        assert_true(now_s() - t0 < 5.0);
        uint64_t c = heliod_stream_consumed(s);
        if (c != last && nseen < 8192) {
            seen_s[nseen] = now_s();
            seen_v[nseen++] = c;
            last = c;
        }
        if (!consumed_s && c > 0) consumed_s = now_s();
        assert_true(heliod_dispatch(h) >= 0);
        usleep(200);
    }
    double lat_max = 0, lat_sum = 0;
    int lat_n = 0;
    for (int k = 0; k < e.n_lat; k++)
        for (int j = 0; j < nseen; j++)
            if (seen_v[j] >= e.ev_cum[k]) {
                double l = e.ev_s[k] - seen_s[j];
                lat_sum += l;
                lat_n++;
                if (l > lat_max) lat_max = l;
                break;
            }
    printf("consumed-to-event: %d STREAM events timed, mean %.2f ms, max %.2f ms (period 5.33 "
           "ms, the shared count polled every 0.2 ms)\n",
           lat_n, lat_n ? lat_sum / lat_n * 1e3 : 0.0, lat_max * 1e3);
    assert_true(lat_n > 0);
    assert_int_equal(heliod_stream_consumed(s), 2400);
    assert_int_equal(heliod_stream_ended(s, NULL), 0);
    write_all(s, 4800); /* it recovers (fades back in) and plays them */
    assert_int_equal(heliod_stream_end(s), 0);
    assert_int_equal(heliod_stream_write(s, &t0, 1), 0); /* nothing after the end */
    int reason = -1;
    while (!heliod_stream_ended(s, &reason)) {
        assert_true(now_s() - t0 < 5.0);
        heliod_stream_wait(s, 100);
    }
    double ended_s = now_s();
    assert_int_equal(reason, HELIOD_END_FINISHED);
    assert_int_equal(heliod_stream_consumed(s), 7200);
    assert_int_equal(heliod_stream_underruns(s), 1);
    while (e.ended == 0) {
        assert_true(now_s() - t0 < 5.0);
        assert_true(heliod_dispatch(h) >= 0);
        th_sleep_ms(2);
    }
    printf("end of stream: ENDED event %.1f ms after the shared state said so; %d STREAM "
           "events, the first %.2f ms after the shared consumed count first moved\n",
           (now_s() - ended_s) * 1e3, e.stream_events, (e.first_event_s - consumed_s) * 1e3);
    assert_int_equal(e.ended_voice, heliod_stream_voice(s));
    assert_int_equal(e.reason, HELIOD_END_FINISHED);
    assert_true(e.stream_events > 0);
    heliod_stream_close(s);
    heliod_close(h);
}

static void close_midway_and_vanish(void **state) {
    th_fixture_t *f = *state;
    heliod_t *h = th_fixture_connect(f, "close");
    heliod_stream_t *s = open_f32(h, 16384);
    write_all(s, 16000);
    heliod_stream_close(s); /* stops it now */
    /* a client process that vanishes with a stream playing */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        heliod_t *c = NULL;
        if (heliod_connect(&c, f->d.sock, "vanish") != 0) _exit(1);
        heliod_stream_params_t p;
        heliod_stream_params_init(&p);
        heliod_stream_t *cs = NULL;
        if (heliod_stream_open(c, &p, &cs) != 0) _exit(2);
        float buf[2048] = {0};
        heliod_stream_write(cs, buf, 1024);
        _exit(0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    double t0 = now_s();
    while (th_stat(h, "voices_active") != 0) {
        assert_true(now_s() - t0 < 5.0);
        th_sleep_ms(10);
    }
    assert_true(th_daemon_alive(&f->d));
    heliod_close(h);
}

/* heliodctl stream FILE: raw s16 mono at 24 kHz, played out, counted */
static void ctl_stream(void **state) {
    th_fixture_t *f = *state;
    char path[400], out[512], err[512];
    snprintf(path, sizeof path, "%s/pcm.raw", f->d.dir);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    for (int i = 0; i < 4801; i++) { /* 4800 frames and a stray byte (dropped) */
        int16_t x = (int16_t)(8000.0 * sin(i * 0.05));
        assert_int_equal(fwrite(&x, i == 4800 ? 1 : 2, 1, fp), 1);
    }
    fclose(fp);
    const char *args[] = {"stream", "--rate",   "24000", "--channels", "1", "--format",
                          "s16",    "--frames", "1024",  path,         NULL};
    int rc = th_ctl(&f->d, out, sizeof out, err, sizeof err, args);
    printf("heliodctl stream: %s", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, ": 4800 frames consumed, 0 underruns"));
    const char *bad[] = {"stream", "--format", "s24", path, NULL};
    assert_int_equal(th_ctl(&f->d, out, sizeof out, err, sizeof err, bad), 2);
    assert_non_null(strstr(err, "--format"));
}

/* ---- hostile rings, over the raw protocol ---------------------------------- */

static int raw_hello_minor(int fd, uint16_t minor) {
    uint8_t buf[256];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_HELLO, 0, 1);
    hl_hello_t m;
    hl_hello_init(&m);
    snprintf(m.client_name, sizeof m.client_name, "hostile");
    m.minor = minor;
    hl_put_hello(&w, &m);
    int n = hl_frame_end(&w);
    if (write(fd, buf, (size_t)n) != n) return -1;
    uint8_t in[4096];
    return read(fd, in, sizeof in) > 0 ? 0 : -1;
}

static int raw_hello(int fd) {
    return raw_hello_minor(fd, HL_PROTO_MINOR);
}

/* Sends STREAM with memfd mfd (or none: -1) and returns the reply's status. */
static int raw_stream(int fd, const hl_stream_req_t *m, int mfd) {
    uint8_t buf[1024];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_STREAM, 0, 7);
    hl_put_stream_req(&w, m);
    int n = hl_frame_end(&w);
    struct iovec iov = {buf, (size_t)n};
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (mfd >= 0) {
        memset(cbuf, 0, sizeof cbuf);
        msg.msg_control = cbuf;
        msg.msg_controllen = sizeof cbuf;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &mfd, sizeof(int));
    }
    if (sendmsg(fd, &msg, 0) != n) return 1;
    uint8_t in[4096];
    ssize_t r = read(fd, in, sizeof in);
    if (r < HL_FRAME_HDR + 6) return 1;
    int32_t status;
    memcpy(&status, in + HL_FRAME_HDR + 2, 4);
    return status;
}

static int make_memfd(uint32_t frames, uint32_t ch, uint32_t fmt, uint64_t size, int seals) {
    int fd = memfd_create("hostile", MFD_ALLOW_SEALING);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    hl_shm_hdr_t hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.magic = HL_SHM_MAGIC;
    hdr.version = HL_SHM_VERSION;
    hdr.frames = frames;
    hdr.channels = ch;
    hdr.format = fmt;
    hdr.rate = RATE;
    assert_int_equal(pwrite(fd, &hdr, sizeof hdr, 0), (ssize_t)sizeof hdr);
    if (seals) assert_int_equal(fcntl(fd, F_ADD_SEALS, seals), 0);
    return fd;
}

static void hostile(void **state) {
    th_daemon_t d;
    const char *args[] = {"--client-sample-mb", "1", NULL};
    assert_int_equal(th_daemon_start(&d, 0, args), 0);
    (void)state;
    int fd = th_raw_connect(d.sock);
    assert_true(fd >= 0);
    assert_int_equal(raw_hello(fd), 0);
    const int all = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
    hl_stream_req_t m;
    hl_stream_req_init(&m);
    hl_play_init(&m.play);
    snprintf(m.play.sound, sizeof m.play.sound, "stream");
    m.rate = RATE;
    m.channels = 2;
    m.format = HL_SHM_F32;
    m.frames = 4096;
    m.size = hl_shm_size(4096, 2, HL_SHM_F32);
    /* unsealed, half sealed */
    int mfd = make_memfd(4096, 2, HL_SHM_F32, m.size, 0);
    assert_int_equal(raw_stream(fd, &m, mfd), HELIOD_EINVAL);
    close(mfd);
    mfd = make_memfd(4096, 2, HL_SHM_F32, m.size, F_SEAL_GROW);
    assert_int_equal(raw_stream(fd, &m, mfd), HELIOD_EINVAL);
    close(mfd);
    /* no descriptor at all */
    assert_int_equal(raw_stream(fd, &m, -1), HELIOD_EINVAL);
    /* a memfd smaller than the request says (sealed: it cannot grow later) */
    mfd = make_memfd(4096, 2, HL_SHM_F32, m.size / 2, all);
    assert_int_equal(raw_stream(fd, &m, mfd), HELIOD_EINVAL);
    close(mfd);
    /* a sealed ring cannot be truncated under the daemon's mapping */
    mfd = make_memfd(4096, 2, HL_SHM_F32, m.size, all);
    assert_int_equal(ftruncate(mfd, 256), -1);
    assert_int_equal(errno, EPERM);
    /* absurd fields */
    hl_stream_req_t b = m;
    b.frames = 4095;
    assert_int_equal(raw_stream(fd, &b, dup(mfd)), HELIOD_EINVAL);
    b = m;
    b.channels = 3;
    assert_int_equal(raw_stream(fd, &b, dup(mfd)), HELIOD_EINVAL);
    b = m;
    b.format = 9;
    assert_int_equal(raw_stream(fd, &b, dup(mfd)), HELIOD_EINVAL);
    b = m;
    b.rate = 1000000;
    assert_int_equal(raw_stream(fd, &b, dup(mfd)), HELIOD_EINVAL);
    b = m;
    b.size = m.size + 1;
    assert_int_equal(raw_stream(fd, &b, dup(mfd)), HELIOD_EINVAL);
    b = m;
    b.play.flags = HL_PLAY_LOOP;
    assert_int_equal(raw_stream(fd, &b, dup(mfd)), HELIOD_EINVAL);
    /* a header that says something else than the request */
    b = m;
    b.rate = 44100;
    assert_int_equal(raw_stream(fd, &b, dup(mfd)), HELIOD_EINVAL);
    /* not a memfd: a regular file has no seals */
    char path[400];
    snprintf(path, sizeof path, "%s/plain", d.dir);
    int pf = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(pf >= 0);
    assert_int_equal(ftruncate(pf, (off_t)m.size), 0);
    assert_int_equal(raw_stream(fd, &m, pf), HELIOD_EINVAL);
    close(pf);
    /* the good one plays; then its client writes nonsense into the header
     * and the ring: a write position far ahead, NaN and huge samples */
    assert_int_equal(raw_stream(fd, &m, dup(mfd)), 0);
    hl_shm_hdr_t *hp = mmap(NULL, (size_t)m.size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    assert_true(hp != MAP_FAILED);
    float *ring = (float *)(void *)((unsigned char *)hp + HL_SHM_HDR);
    for (uint32_t i = 0; i < 4096 * 2; i++)
        ring[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? 1e30f : -INFINITY;
    atomic_store(&hp->write, UINT64_MAX - 5);
    atomic_store(&hp->read, 12345); /* the daemon's field: it never reads it back */
    atomic_store(&hp->state, 7);
    close(mfd);
    /* a 1.0 connection cannot open a stream */
    int old = th_raw_connect(d.sock);
    assert_true(old >= 0);
    assert_int_equal(raw_hello_minor(old, 0), 0);
    mfd = make_memfd(4096, 2, HL_SHM_F32, m.size, all);
    assert_int_equal(raw_stream(old, &m, mfd), HELIOD_EVERSION);
    close(mfd);
    close(old);
    usleep(100000); /* it plays the garbage a while: only its own voice hears it */
    heliod_t *probe = NULL;
    assert_int_equal(heliod_connect(&probe, d.sock, "probe"), 0);
    assert_true(th_stat(probe, "voices_active") >= 1);
    heliod_close(probe);
    munmap(hp, (size_t)m.size);
    /* over the process's quota (1 MiB): 2 MiB of ring */
    m.frames = 1u << 18;
    m.size = hl_shm_size(m.frames, 2, HL_SHM_F32);
    mfd = make_memfd(m.frames, 2, HL_SHM_F32, m.size, all);
    assert_int_equal(raw_stream(fd, &m, mfd), HELIOD_EQUOTA);
    close(mfd);
    close(fd);
    assert_true(th_daemon_alive(&d));
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    th_daemon_cleanup(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sine_60s),
        cmocka_unit_test(underrun_fades),
        cmocka_unit_test_setup_teardown(eos_and_underrun, setup, teardown),
        cmocka_unit_test_setup_teardown(close_midway_and_vanish, setup, teardown),
        cmocka_unit_test_setup_teardown(ctl_stream, setup, teardown),
        cmocka_unit_test(hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
