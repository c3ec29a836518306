/*
 * music.c - BEAT and BAR events of the voices whose cue has a tempo map,
 * MARKER events of those whose sound has markers.
 *
 * Every poll tick (about once per audio period) the main thread asks the
 * voice manager for the beats that fall before the horizon: half a period
 * past now on the engine's clock (hl_mixer_clock: the last callback's frame
 * and CLOCK_MONOTONIC time), so each event leaves within half a period of
 * its beat's time, usually ahead of it. The frame a beat falls on comes
 * from the voice's position model (vm_music.c), not from the audio thread;
 * its time_ns is that frame on the engine's clock: the callback time of the
 * block it is in plus its offset there (add the output latency of CLOCK for
 * when it is heard). A SET (pitch, pause, resume) or seek first reports the
 * voice's beats up to the frame it applies at by the old model (vm.c calls
 * hld_music_vm_beat), then the model changes: beats past the horizon follow
 * it; those announced ahead of it (at most half a period) stand. A render
 * (--render) walks exactly the blocks it rendered, so no beat is announced
 * ahead of a SET and the frames are the same whatever the CPU; with
 * --render-events FILE it writes each event as a line:
 *
 *     beat|bar VOICE FRAME BEAT BAR BEAT_IN_BAR BPM
 *     marker VOICE FRAME ID LABEL
 *
 * Markers (a WAV's cue points, read at load) come the same way as MARKER
 * events, for any voice of a sound that has them.
 * Events go to the voice's owner if it subscribed MUSIC, and to every
 * connection that subscribed MUSIC with ALL.
 */
#include <stdio.h>

#include "conn.h"
#include "daemon.h"
#include "engine.h"
#include "notify.h"
#include "vm.h"

typedef struct {
    hld_daemon_t *d;
    uint64_t clk_frame, clk_ns;
    uint32_t rate;
} music_ctx_t;

static void on_beat(void *user, const hld_vm_beat_t *b) {
    music_ctx_t *m = user;
    hld_daemon_t *d = m->d;
    int64_t df = (int64_t)(b->frame - m->clk_frame);
    int64_t dns = df * (int64_t)HLD_NS_PER_S / (int64_t)m->rate;
    if (b->marker) {
        hl_event_t mk = {.type = HL_EVENT_MARKER,
                         .voice = b->voice,
                         .frame = b->frame,
                         .time_ns = (uint64_t)((int64_t)m->clk_ns + dns),
                         .marker_id = (uint32_t)b->beat};
        snprintf(mk.label, sizeof mk.label, "%s", b->label ? b->label : "");
        if (d->music_log)
            fprintf(d->music_log, "marker %llu %llu %u %s\n", (unsigned long long)b->voice,
                    (unsigned long long)b->frame, mk.marker_id, mk.label);
        hld_notify_watchers(&d->net, b->owner, HL_SUB_MUSIC, &mk);
        return;
    }
    hl_event_t ev = {.type = b->beat_in_bar == 0 ? HL_EVENT_BAR : HL_EVENT_BEAT,
                     .voice = b->voice,
                     .frame = b->frame,
                     .time_ns = (uint64_t)((int64_t)m->clk_ns + dns),
                     .beat = b->beat,
                     .bar = b->bar,
                     .beat_in_bar = (uint8_t)b->beat_in_bar,
                     .bpm = b->bpm};
    if (d->music_log)
        fprintf(d->music_log, "%s %llu %llu %llu %u %u %.3f\n",
                ev.type == HL_EVENT_BAR ? "bar" : "beat", (unsigned long long)b->voice,
                (unsigned long long)b->frame, (unsigned long long)b->beat, b->bar, b->beat_in_bar,
                (double)b->bpm);
    hld_notify_watchers(&d->net, b->owner, HL_SUB_MUSIC, &ev);
}

/* The engine clock the events' time_ns follow. */
static void ctx_init(hld_daemon_t *d, music_ctx_t *m) {
    hl_mixer_t *mx = d->engine.mixer;
    *m = (music_ctx_t){.d = d, .rate = d->engine.rate};
    hl_mixer_clock(mx, &m->clk_frame, &m->clk_ns);
    if (d->cfg.driver == HLD_DRIVER_RENDER || m->clk_ns == 0) {
        m->clk_frame = hl_mixer_frames(mx);
        m->clk_ns = hld_now_ns();
    }
}

void hld_music_vm_beat(void *user, const struct hld_vm_beat *b) {
    hld_daemon_t *d = user;
    music_ctx_t m;
    ctx_init(d, &m);
    on_beat(&m, b);
}

void hld_music_tick(hld_daemon_t *d) {
    hl_mixer_t *mx = d->engine.mixer;
    if (!mx || !d->vm) return;
    music_ctx_t m;
    ctx_init(d, &m);
    uint64_t period = d->engine.period, hi;
    if (d->cfg.driver == HLD_DRIVER_RENDER) {
        /* the blocks rendered so far: a SET of the lines sent next applies
         * at or after them, and reports the beats before it by the model
         * they played by (hld_vm_ops_t.beat), so no beat is announced ahead */
        hi = hl_mixer_frames(mx);
    } else if (m.clk_ns == 0) {
        hi = m.clk_frame + period;
    } else {
        uint64_t now = hld_now_ns();
        uint64_t ahead = now > m.clk_ns ? now - m.clk_ns : 0;
        hi = m.clk_frame + ahead * m.rate / HLD_NS_PER_S + period / 2;
    }
    if (hi < d->music_horizon) hi = d->music_horizon;
    d->music_horizon = hi;
    hld_vm_beats(d->vm, hi, on_beat, &m);
}
