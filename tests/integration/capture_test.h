/*
 * capture_test.h - what test_capture.c and capture_mid.c share: file and
 * integer helpers, heliod --render of a capture, and the mid-session
 * capture (capture_mid.c) that test_capture_start_stop runs on its daemon.
 */
#ifndef CAPTURE_TEST_H
#define CAPTURE_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "harness.h"
#include "heliod.h"

/* The whole file (malloc'd; *n its size), or NULL. */
uint8_t *slurp(const char *path, size_t *n);
uint16_t g16(const uint8_t *p);
uint32_t g32(const uint8_t *p);
uint64_t g64(const uint8_t *p);
/* /tmp/hl_NAME_PID.EXT into buf (320 bytes). */
void tmp_file(char *buf, const char *name, const char *ext);
/* A session's files (320 bytes each): the capture, a tone, a score, the
 * render's output. */
void session_files(const char *tag, char *cap, char *tone, char *score, char *out);
/* Runs heliod --render CAPTURE --out OUT [more options]; its exit status;
 * its stderr into err (1024 bytes; may be NULL). */
int render_capture_with(const char *cap, const char *out, const char *more, char *err);
/* Waits until h's engine clock reaches frame f, looking every ms; *k: the clock then. */
void wait_clock(heliod_t *h, uint64_t f, unsigned ms, heliod_clock_t *k);

/* The mid-session capture (capture_mid.c). */
typedef struct {
    char cap[320], tone[320], hum[320], pre[320], score[320], out[320], cap3[320], out3[320],
        sheet[320]; /* the third capture's [music band] */
    double xruns;   /* what breaks the timeline, counted live */
} mid_t;
/* The live part, on d (--client-voices 2, recording). */
void mid_session_live(th_daemon_t *dp, mid_t *m);
/* After the daemon stopped: the render equals the live recording. */
void mid_session_check(th_daemon_t *dp, mid_t *m);

#endif
