/*
 * harness.h - helpers for the integration tests: start and stop the real
 * heliod binary in a private directory, generate test audio with libsndfile,
 * read back what the daemon recorded, and run heliodctl.
 *
 * The tests get the paths of the built binaries from the environment that
 * meson sets (HELIOD_BIN, HELIODCTL_BIN).
 */
#ifndef HL_TEST_HARNESS_H
#define HL_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 1 in AddressSanitizer builds: the daemon runs several times slower there, so
 * a timer-paced device may miss a deadline under a storm; tests that count
 * xruns only demand zero in normal builds (LeakSanitizer checks memory there). */
#if defined(__SANITIZE_ADDRESS__)
#define TH_SANITIZED 1
#else
#define TH_SANITIZED 0
#endif

typedef struct {
    pid_t pid;
    char dir[256];    /* private temp dir, removed by th_daemon_stop */
    char sock[300];   /* socket path inside dir */
    char record[300]; /* --record path inside dir ("" if none) */
    char log[300];    /* daemon stderr */
} th_daemon_t;

/* Starts heliod with the given extra arguments (NULL-terminated, may be NULL)
 * on its own socket; waits until it answers a ping. Returns 0 or -1. */
int th_daemon_start(th_daemon_t *d, int record, const char *const *extra_args);
/* SIGTERM, waits; returns the exit status (0 = clean) or -1 if it had to be
 * killed. Keeps the directory so the recording can be read; see th_daemon_cleanup. */
int th_daemon_stop(th_daemon_t *d, double *shutdown_s);
void th_daemon_cleanup(th_daemon_t *d);
/* 1 if the process is still running. */
int th_daemon_alive(const th_daemon_t *d);
/* Stops one thread of process pid, the one named `name` (its comm, e.g.
 * heliod-audio), alone: ptrace stops a thread, not the process. Returns its
 * tid, -1 if it may not be traced here (printed: the caller skips), 0 if no
 * thread has that name. th_thaw_thread lets it run again (0 on success);
 * the thread that froze it must thaw it (ptrace's rule). */
pid_t th_freeze_thread(pid_t pid, const char *name);
int th_thaw_thread(pid_t tid);

/* A cmocka fixture of one daemon per test: th_fixture_start (in a setup)
 * starts it (record: with --record; args: extra flags, may be NULL) into
 * *state, th_fixture_teardown stops it (failing when it did not exit
 * cleanly) and frees it, th_fixture_connect opens a libheliod client on
 * it (the caller closes it). */
typedef struct {
    th_daemon_t d;
} th_fixture_t;
int th_fixture_start(void **state, int record, const char *const *args);
/* The same for a larger fixture of `size` bytes (zeroed) whose first member
 * is its th_daemon_t; th_fixture_teardown stops and frees it too. */
int th_fixture_alloc(void **state, size_t size, int record, const char *const *args);
int th_fixture_teardown(void **state);
/* A libheliod client of d (flags: HELIOD_CONNECT_*); the cmocka test fails
 * when it cannot connect. The caller closes it. */
struct heliod *th_connect(const th_daemon_t *d, const char *name, uint32_t flags);
/* Stops d (th_daemon_stop) and removes its directory: 0, or -1 when it did
 * not exit cleanly (a teardown's answer). */
int th_daemon_finish(th_daemon_t *d);
/* Stops d (the test fails unless it exits cleanly) and reads its stereo
 * recording (the test fails unless there is one, at `rate` unless 0):
 * interleaved, *frames long, the caller frees it. */
float *th_stop_read_stereo(th_daemon_t *d, size_t *frames, int rate);
/* A cmocka test with its own fixture: setup, then th_fixture_teardown. */
#define TH_TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, th_fixture_teardown)
struct heliod *th_fixture_connect(th_fixture_t *f, const char *name);
/* The same as a control client (changes the daemon's own objects: the
 * master and default buses, the device, stats reset). */
struct heliod *th_fixture_connect_control(th_fixture_t *f, const char *name);

/* Writes a mono or stereo float/PCM16 file of `frames` frames at `rate` using
 * libsndfile; format is an SF_FORMAT_* major|minor combination. The sample
 * generator fills one interleaved frame. Returns 0 or -1. */
typedef void (*th_gen_fn)(void *user, uint32_t frame, float *out, int channels);
int th_write_sound(const char *path, int format, int channels, int rate, uint32_t frames,
                   th_gen_fn gen, void *user);
/* A sine of `freq` Hz at amplitude amp. */
int th_write_sine(const char *path, int rate, double seconds, double freq, double amp);

/* A constant 0.1 on every channel (a th_gen_fn): a DC source for levels. */
void th_gen_dc(void *user, uint32_t frame, float *out, int channels);
/* The mean power of stereo frames [a, b) of interleaved x: L^2 + R^2 a frame. */
double th_power_stereo(const float *x, size_t a, size_t b);

/* A scratch directory for one offline render: dir is a fresh
 * /tmp/heliod-PREFIX-XXXXXX, score and out are score.txt and out.wav in it,
 * dc is dc.wav there, written: 1 s of th_gen_dc, mono float at rate. The
 * test fails if any of it fails. */
typedef struct {
    char dir[64], dc[128], score[128], out[128];
} th_scratch_t;
void th_scratch_open(th_scratch_t *s, const char *prefix, int rate);
/* Renders s->score to s->out (th_render, no log) and reads it back: stereo,
 * interleaved, *frames long; the test fails otherwise. The caller frees it. */
float *th_scratch_render(th_scratch_t *s, size_t *frames);
/* Removes s->dir and all in it (the test fails if it cannot). */
void th_scratch_remove(th_scratch_t *s);

/* Reads a whole sound file as interleaved float; caller frees *data. */
/* The amplitude of a tone of freq Hz (cosine and sine, least squares) in
 * channel c of n frames of x (ch channels at rate). */
double th_tone_amp(const float *x, size_t n, int ch, int c, double freq, int rate);
/* The dwChannelMask of a WAVE_FORMAT_EXTENSIBLE file, or 0 (format_tag:
 * the fmt chunk's wFormatTag, 0xFFFE for WAVE_FORMAT_EXTENSIBLE). */
uint32_t th_wav_mask(const char *path, uint16_t *format_tag);
int th_read_sound(const char *path, float **data, size_t *frames, int *channels, int *rate);

/* Runs heliod with args (no other flags) until it exits, 5 s at most, with
 * its stderr in err (NUL-terminated, truncated to cap; read from a log
 * dir/start.log that is removed again): its exit status, 128 if a signal
 * ended it, -1 if it did not exit (then it is killed). For start-up refusals
 * and --help. */
int th_heliod_run(const char *dir, const char *const *args, char *err, size_t cap);

/* Runs heliod --render score --out out --log-level warn, then args
 * (NULL-terminated, may be NULL; a later --log-level wins), with its stderr
 * appended to log (NULL: the test's own stderr), and waits for it: its exit
 * status, or -1. HELIOD_BIN names the binary. */
int th_render(const char *score, const char *out, const char *log, const char *const *args);

/* Runs heliodctl with --socket d->sock and the given arguments; captures
 * stdout/stderr (NUL-terminated, truncated to cap) and returns the exit status
 * (or -1). */
int th_ctl(const th_daemon_t *d, char *out, size_t out_cap, char *err, size_t err_cap,
           const char *const *args);

/* The value of one STATS key from the daemon; NAN if the request failed or the
 * key is missing (so any comparison with it fails). */
struct heliod;
double th_stat(struct heliod *h, const char *key);

/* The deadline check of a test, against counts taken before it: callbacks
 * that themselves ran past their period (STATS callback_overruns) in more
 * than 1% of the callbacks since start (and more than 2) are heliod's cost
 * and fail (outside sanitizer builds): a cost over the period repeats block
 * after block. Fewer, and xruns from late wake-ups, are the machine's (a
 * shared VM can deschedule even a SCHED_FIFO thread for milliseconds, also
 * in the middle of a callback): printed, failing only with
 * HELIOD_TEST_XRUNS_STRICT=1. No absolute time is involved: the same holds
 * on a machine twice as fast or half as fast. The figures themselves are
 * measured by bench/. Returns 1 if it passes. */
int th_deadlines_ok(struct heliod *h, double xruns0, double overruns0);

/* Runs a program's cmocka tests one group each, printing each test's wall
 * time ("# NAME: 1.23 s"). With TH_PART=K/N in the environment (1 <= K <= N)
 * it runs only the tests whose index i has i % N == K - 1: one meson test per
 * part, run side by side, and together the N parts run every test exactly
 * once. TH_ONLY=a,b runs only the tests named (the ones that must run alone,
 * as a serial meson test), TH_SKIP=a,b all but those (the rest, beside other
 * tests); a name that is none of the program's tests fails. A TH_PART that
 * is not a part, or a selection that is empty, fails.
 * The exit status: how many tests failed. */
struct CMUnitTest;
int th_run_tests(const char *group, const struct CMUnitTest *tests, size_t n);
#define TH_RUN(tests) th_run_tests(#tests, tests, sizeof(tests) / sizeof((tests)[0]))

/* Sleeps ms milliseconds. */
void th_sleep_ms(int ms);

/* A plain Unix-socket connection to sock, no handshake (for tests that
 * speak the wire protocol themselves): the fd, or -1 (a path longer than
 * sun_path is refused: truncated, it would name another socket). */
int th_raw_connect(const char *sock);
/* The wire by hand on such a connection (receive timeouts: the caller's
 * SO_RCVTIMEO): sends one request frame (op, id, the body's len bytes);
 * reads one frame, its op, id and body (HL_MAX_FRAME bytes; len in *blen);
 * the status of the reply to request id (frames before it skipped; 1 on
 * EOF or timeout). 0 or -1 for the first two. */
int th_raw_send(int fd, uint16_t op, uint32_t id, const uint8_t *body, size_t len);
int th_raw_frame(int fd, uint16_t *op, uint32_t *id, uint8_t *body, size_t *blen);
int th_raw_status(int fd, uint32_t id);
/* Reads frames until an EVENT frame: its body (HL_MAX_FRAME bytes; len in
 * *blen). 0, or -1 on EOF or timeout. */
int th_raw_event(int fd, uint8_t *body, size_t *blen);
/* A raw connection to sock speaking protocol 1.0 (HELLO without a minor,
 * as client `name`) subscribed to METER at the default rate with 1.0's
 * SUBSCRIBE (the mask alone), 2 s receive timeout: the fd, or -1. */
int th_raw_meter_1_0(const char *sock, const char *name);
/* The same with HELLO saying `minor` (0: left out, th_raw_meter_1_0). */
int th_raw_meter(const char *sock, const char *name, uint16_t minor);

/* A JACK dummy server of this test's own (named PREFIX<pid>, made the
 * default for PortAudio through JACK_DEFAULT_SERVER) at 48 kHz and `period`
 * frames; realtime 1 runs its process thread SCHED_FIFO (-R -P 70), as a
 * real setup does. Waits until it is up (5 s at most). 0 or -1. */
int th_jackd_start(const char *prefix, int period, int realtime);
/* The same with `playback` playback ports on the dummy driver (0 = its default, 2). */
int th_jackd_start_ports(const char *prefix, int period, int realtime, int playback);
/* The same at `rate` Hz (th_jackd_start_ports: 48000). */
int th_jackd_start_at(const char *prefix, int period, int realtime, int playback, int rate);
/* Stops the server th_jackd_start started (SIGTERM, waits). Idempotent. */
void th_jackd_stop(void);

#endif /* HL_TEST_HARNESS_H */
