/*
 * capture_replay.c - heliodctl replay of a session where one process
 * changes another's voice, for test_capture.c: voice handles are the
 * daemon's, not a client's, so a control client (heliodctl, a process of
 * its own, replayed from a child of its own) may SET and STOP a game's
 * voice, and the replay must send it the handle the game's replayed PLAY
 * got, not the recorded one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture_test.h"

/* Game A plays a looping tone on F0 (scheduled); heliodctl (B, another
 * process) sets it 6 dB down on F1 and stops it on F2 (scheduled: the
 * replay's frames are the recorded ones shifted). Replayed into the same
 * daemon once the capture stopped: the voice's slot was used once already
 * (the live tone), so the replayed PLAY's handle is not the recorded one:
 * B's SET and STOP, with the recorded handle, would be answered ENOVOICE
 * (a divergence: exit 1); with A's replayed handle the tone is 6 dB down
 * from F1 and silent from F2, as live. */
void test_replay_across_processes(void **state) {
    (void)state;
    char cap[320], tone[320], score[320], out[320], o[4096], e[4096];
    session_files("xproc", cap, tone, score, out);
    assert_int_equal(th_write_sine(tone, 48000, 0.1, 480, 0.4), 0); /* 48 cycles: a loop */
    th_daemon_t d;
    const char *args[] = {"--capture", cap, NULL};
    assert_int_equal(th_daemon_start(&d, 1, args), 0);
    heliod_t *a = th_connect(&d, "game", 0);
    assert_int_equal(heliod_load(a, "tone", tone, 0, NULL), 0);
    heliod_clock_t k;
    assert_int_equal(heliod_clock(a, &k), 0);
    uint64_t f0 = k.frame + 2400, f1 = f0 + 4800, f2 = f1 + 4800;
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.flags |= HELIOD_PLAY_LOOP;
    p.fade_in_ms = 0;
    heliod_voice_t v = 0;
    heliod_at_frame(a, f0);
    assert_int_equal(heliod_play(a, "tone", &p, &v, NULL), 0);
    heliod_at_frame(a, 0);
    FILE *f = fopen(score, "w");
    assert_non_null(f);
    fprintf(f, "@%llu set %llu --gain -6\n@%llu stop %llu --fade 0\n", (unsigned long long)f1,
            (unsigned long long)v, (unsigned long long)f2, (unsigned long long)v);
    fclose(f);
    const char *batch[] = {"batch", score, NULL}, *stop[] = {"capture", "stop", NULL};
    if (th_ctl(&d, o, sizeof o, e, sizeof e, batch) != 0) fail_msg("batch: %s / %s", o, e);
    wait_clock(a, f2 + 1200, 10, &k);
    heliod_close(a);
    assert_int_equal(th_ctl(&d, o, sizeof o, e, sizeof e, stop), 0);
    const char *rp[] = {"replay", cap, NULL};
    int rc = th_ctl(&d, o, sizeof o, e, sizeof e, rp);
    if (rc != 0 || !strstr(o, " 0 diverged")) fail_msg("replay: %d: %s / %s", rc, o, e);
    const char *sh = strstr(o, "(shift ");
    assert_non_null(sh);
    size_t shift = (size_t)strtoull(sh + 7, NULL, 10);
    assert_int_equal(th_daemon_stop(&d, NULL), 0);
    float *z = NULL;
    size_t nz = 0;
    int ch = 0, rate = 0;
    assert_int_equal(th_read_sound(d.record, &z, &nz, &ch, &rate), 0);
    assert_true(nz >= shift + f2 + 2080);
    /* whole cycles (100 frames each) from 10 ms after each change */
    size_t a0 = shift + f0 + 480, a1 = shift + f1 + 480, a2 = shift + f2 + 480;
    double full = th_power_stereo(z, a0, a0 + 4000), down = th_power_stereo(z, a1, a1 + 4000),
           after = th_power_stereo(z, a2, a2 + 1600);
    if (!(full > 0.01) || !(down > 0.2 * full && down < 0.3 * full) || !(after < 1e-9 * full))
        fail_msg("replayed: power %.6g, %.6g after the set (-6 dB: %.6g), %.6g after the stop",
                 full, down, full * 0.2512, after);
    free(z);
    th_daemon_cleanup(&d);
    unlink(cap);
    unlink(tone);
    unlink(score);
}
