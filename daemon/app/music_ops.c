/*
 * music_ops.c - MUSIC (1.1): a connection's [music NAME] (a cue sheet's
 * states and transition table, music_table.h) goes to a state.
 *
 * Each connection has its own instance of a music (at most
 * HLD_MUSIC_PER_CONN per connection, HLD_MUSIC_INSTANCES in the daemon): the state playing and its
 * track's voice. The first MUSIC starts the state's cue at once (at the request's frame with
 * HL_FLAG_AT, else HLD_MUSIC_AHEAD_PERIODS ahead: on the frame its reply gives). A later one looks
 * up the transition from the current state (an exact FROM line, else
 * `*`; none: a cut, now) and finds its WHEN frame on the current track's beat map
 * (hld_vm_next_beat: the next beat, bar or N-th bar at or after the request's frame). The
 * transition then waits in the instance; once its frame is within a few periods
 * (HLD_MUSIC_AHEAD_PERIODS) the poll tick schedules it (hl_mixer_at): the old
 * track's fade-out and the new track's start (crossfade: with a fade-in of
 * the same length; fadeout: once the fade-out ends) on their exact frames.
 * A MUSIC arriving while one waits replaces it (the last request wins, from
 * the state still playing); once scheduled it is the state playing, and a
 * next MUSIC goes from it. The new track is a play of the client's, charged
 * to its quotas as any PLAY before anything is allocated; a refusal then
 * comes as an ERROR event (op MUSIC). The instance goes with its
 * connection.
 */
#include <stdio.h>
#include <string.h>

#include "conn.h"
#include "dispatch_int.h"
#include "voice_play.h"
#include "engine.h"
#include "vm.h"

#define HLD_MUSIC_AHEAD_PERIODS 4 /* a waiting transition is scheduled this many periods ahead */
#define HLD_MUSIC_PER_CONN      4 /* instances of one connection (of the daemon's 32) */

/* in's slot for conn's instance of mu (make: a new one if none), or NULL
 * (*full: the connection has HLD_MUSIC_PER_CONN already). */
static hld_music_inst_t *inst_of(hld_daemon_t *d, uint32_t conn, const hld_music_t *mu, int make,
                                 int *full) {
    hld_music_inst_t *free_slot = NULL;
    int mine = 0;
    for (int i = 0; i < HLD_MUSIC_INSTANCES; i++) {
        hld_music_inst_t *in = &d->music_in[i];
        if (in->conn == conn && in->mu == mu) return in;
        if (in->conn == conn) mine++;
        if (!in->conn && !free_slot) free_slot = in;
    }
    *full = mine >= HLD_MUSIC_PER_CONN;
    if (!make || !free_slot || *full) return NULL;
    *free_slot = (hld_music_inst_t){.conn = conn, .mu = mu, .state = -1};
    return free_slot;
}

/* Plays cue for in's connection at frame `at` with a fade-in of fade_in
 * frames (over the cue's own), or the cue's own (fade_in < 0). 0 with
 * *voice, or -1 (refused: replied, or an ERROR event). */
static int play_at(hld_req_t *q, const char *cue, uint64_t at, int64_t fade_in, uint64_t *voice) {
    hld_daemon_t *d = q->c->d;
    hl_mixer_t *mx = d->engine.mixer;
    hl_play_t p;
    hl_play_init(&p);
    snprintf(p.sound, sizeof p.sound, "%s", cue);
    if (fade_in >= 0) {
        p.fade_in_ms = (float)((double)fade_in * 1000.0 / d->engine.rate);
        p.over |= HL_OVER_FADE_IN;
    }
    uint64_t saved = hl_mixer_at_frame(mx);
    hl_mixer_at(mx, at);
    hld_voice_play_music(q, &p, voice);
    hl_mixer_at(mx, saved);
    return *voice ? 0 : -1;
}

/* Stops voice at engine frame `at` with a fade of `fade` frames. */
static void stop_at(hld_daemon_t *d, uint64_t voice, uint64_t at, uint32_t fade, uint8_t curve) {
    hl_mixer_t *mx = d->engine.mixer;
    uint64_t saved = hl_mixer_at_frame(mx);
    hl_mixer_at(mx, at);
    if (hld_vm_stop(d->vm, voice, fade, curve, HL_END_STOPPED, hld_now_ns()) == HELIOD_EBUSY)
        d->n.cmds_busy++;
    hl_mixer_at(mx, saved);
}

/* Plays state `to`'s track and its layers (music_table.h) for in's
 * connection, all on frame `at` (sample-locked), each with a fade-in of
 * fade_in frames or its cue's own (fade_in < 0). All or nothing: a refusal
 * stops those started and returns -1. */
static int start_track(hld_req_t *q, hld_music_inst_t *in, int to, uint64_t at, int64_t fade_in) {
    const hld_music_def_t *m = &in->mu->def;
    uint64_t v[1 + HLD_MUSIC_STATE_LAYERS];
    uint32_t n = 0;
    if (play_at(q, m->cue[to], at, fade_in, &v[n++]) != 0) return -1;
    for (uint32_t i = 0; i < m->nlayers; i++) {
        if (m->layer_state[i] != to || n > HLD_MUSIC_STATE_LAYERS) continue;
        if (play_at(q, m->layer_cue[i], at, fade_in, &v[n]) != 0) {
            while (n-- > 0)
                (void)hld_vm_stop(q->c->d->vm, v[n], 0, HL_FADE_LINEAR, HL_END_STOPPED,
                                  hld_now_ns());
            return -1;
        }
        n++;
    }
    in->voice = v[0];
    in->nlayer = n - 1;
    memcpy(in->layer, v + 1, (n - 1) * sizeof v[0]);
    in->state = to;
    return 0;
}

/* Leaves voice's loop at the end of the pass engine frame `at` is in: it
 * plays that pass out, then the rest of its sound (an outro after its loop
 * region) and ends. Not 0 when it cannot (a streamed voice's decoder reads
 * ahead): the caller stops it at its pass end instead. */
static int leave_loop_at(hld_daemon_t *d, uint64_t voice, uint64_t at) {
    hl_mixer_t *mx = d->engine.mixer;
    uint64_t saved = hl_mixer_at_frame(mx);
    hl_mixer_at(mx, at);
    hl_voice_set_t s = {.mask = HL_MIX_SET_LOOPS, .loops = 0};
    int rc = hld_vm_set(d->vm, voice, &s, hld_now_ns());
    hl_mixer_at(mx, saved);
    if (rc == HELIOD_EBUSY) d->n.cmds_busy++;
    return rc;
}

/* The old track of `was` (and its layers) leaves: faded from p's old_stop,
 * or (tail) each plays out the pass the transition's frame is in and what
 * follows its loop region. */
static void stop_track(hld_daemon_t *d, const hld_music_inst_t *was, const hld_music_plan_t *p,
                       uint64_t at) {
    for (uint32_t i = 0; i <= was->nlayer; i++) {
        uint64_t v = i ? was->layer[i - 1] : was->voice, end;
        if (!v) continue;
        if (p->old_stop != UINT64_MAX)
            stop_at(d, v, p->old_stop, p->old_fade, p->curve);
        else if (leave_loop_at(d, v, at ? at - 1 : 0) != 0 &&
                 hld_vm_pass_end(d->vm, v, at ? at - 1 : 0, &end) == 0)
            stop_at(d, v, end, 0, p->curve); /* a streamed tail: rings out its pass */
    }
}

/* Schedules in's waiting transition (the poll tick, or the request). */
static void commit(hld_daemon_t *d, hld_music_inst_t *in) {
    hld_conn_t *c = hld_conn_find(&d->net, in->conn);
    in->pending = 0;
    if (!c) return;
    hl_frame_hdr_t h = {.op = HL_OP_MUSIC, .flags = HL_FLAG_NOREPLY};
    hld_req_t q = {.c = c, .h = &h};
    hld_music_plan_t p;
    hld_music_plan(&in->t, in->at, d->engine.rate, 0, &p);
    hld_sched_ctx_t s;
    hld_sched_begin(c, &s);
    uint64_t seg = 0, start = p.new_start, end;
    if (p.seg_start != UINT64_MAX && play_at(&q, in->t.segment, p.seg_start, -1, &seg) == 0 &&
        hld_vm_pass_end(d->vm, seg, p.seg_start, &end) == 0) {
        start = end; /* the track follows the segment's (first) pass */
        stop_at(d, seg, end, 0, HL_CURVE_LINEAR);
    }
    hld_music_inst_t was = *in;
    if (start_track(&q, in, in->to, start, p.new_fade_in) == 0)
        stop_track(d, &was, &p, in->at);
    else if (seg)
        stop_at(d, seg, p.seg_start, 0, HL_CURVE_LINEAR);
    hld_sched_end(c, &s);
}

static uint64_t ahead(const hld_daemon_t *d) {
    return (uint64_t)d->engine.period * HLD_MUSIC_AHEAD_PERIODS;
}

void hld_music_trans_tick(hld_daemon_t *d) {
    hl_mixer_t *mx = d->engine.mixer;
    if (!mx) return;
    uint64_t now = hl_mixer_frames(mx);
    for (int i = 0; i < HLD_MUSIC_INSTANCES; i++) {
        hld_music_inst_t *in = &d->music_in[i];
        if (!in->conn) continue;
        if (!hld_conn_find(&d->net, in->conn)) { /* its connection closed */
            *in = (hld_music_inst_t){0};
            continue;
        }
        if (in->pending && in->at < now + ahead(d)) commit(d, in);
    }
}

static void reply_music(hld_req_t *q, uint64_t frame, uint64_t voice) {
    if (q->h->flags & HL_FLAG_NOREPLY) return;
    hl_music_reply_t r = {.frame = frame, .voice = voice};
    hld_reply_begin(q);
    hl_put_music_reply(&q->w, &r);
    hld_reply_end(q);
}

/* The WHEN frame of t on voice's beat map (its markers, its pass), at or
 * after `after`. */
static int when_frame(hld_req_t *q, const hld_music_trans_t *t, uint64_t voice, uint64_t after,
                      uint64_t *at) {
    hld_daemon_t *d = q->c->d;
    *at = after;
    if (t->when == HLD_MW_NOW) return 0;
    if (t->when == HLD_MW_END) {
        if (hld_vm_pass_end(d->vm, voice, after, at) == 0) return 0;
        return hld_fail(q, HELIOD_EINVAL, "to: the current track is paused or ending"), -1;
    }
    if (t->when == HLD_MW_MARKER) {
        if (hld_vm_next_beat(d->vm, voice, after, HLD_VM_NEXT_MARKER, at, NULL) == 0) return 0;
        return hld_fail(q, HELIOD_EINVAL,
                        "to: the current track's sound has no marker (WAV cue point) ahead "
                        "within 4 minutes, or is paused"),
               -1;
    }
    uint32_t n = t->when == HLD_MW_BARS ? t->bars : 1;
    for (uint32_t i = 0; i < n; i++) {
        int rc =
            hld_vm_next_beat(d->vm, voice, i ? *at + 1 : after,
                             t->when == HLD_MW_BEAT ? HLD_VM_NEXT_BEAT : HLD_VM_NEXT_BAR, at, NULL);
        if (rc < 0)
            return hld_fail(q, rc == HELIOD_ENOVOICE ? HELIOD_EINVAL : rc,
                            "to: the current track has no beat map (tempo), is paused, or ends "
                            "before the transition's beat or bar"),
                   -1;
    }
    return 0;
}

void hld_music_reclaim(hld_daemon_t *d, uint32_t owner) {
    for (int i = 0; i < HLD_MUSIC_INSTANCES; i++)
        if (d->music_in[i].conn && d->music_in[i].mu->owner == owner)
            d->music_in[i] = (hld_music_inst_t){0};
    hld_cues_drop_music(&d->cues, owner);
}

int hld_op_music(hld_req_t *q) {
    hl_music_req_t m;
    hl_get_music_req(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->c->minor < 1)
        return hld_fail(q, HELIOD_EVERSION, "music: a protocol 1.1 request (say minor 1 in HELLO)");
    const char *why = NULL;
    if (hl_check_music_req(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    hld_daemon_t *d = q->c->d;
    char msg[HL_MAX_MSG + 1];
    hld_music_t *mu = hld_cues_find_music(&d->cues, m.name);
    if (!mu || hld_ns_rank(q->c, mu->owner) == 0) {
        snprintf(msg, sizeof msg, "name: no music named %s (a cue sheet's [music %s])", m.name,
                 m.name);
        return hld_fail(q, HELIOD_EINVAL, msg);
    }
    int to = hld_music_state(&mu->def, m.to);
    if (to < 0) {
        snprintf(msg, sizeof msg, "to: music %s has no state %s", m.name, m.to);
        return hld_fail(q, HELIOD_EINVAL, msg);
    }
    int full = 0;
    hld_music_inst_t *in = inst_of(d, q->c->id, mu, 1, &full);
    if (!in && full)
        return hld_fail(q, HELIOD_EQUOTA, "music: this connection plays 4 musics already");
    if (!in)
        return hld_fail(q, HELIOD_ENOMEM, "music: 32 music instances play in the daemon already");
    uint64_t after = hl_mixer_effect_frame(d->engine.mixer);
    if (in->state >= (int)mu->def.nstates || !in->voice || !hld_vm_get(d->vm, in->voice)) {
        in->pending = 0; /* nothing plays: start it now */
        /* not scheduled (no HL_FLAG_AT): a few periods ahead, as a waiting
         * transition is, so that it starts on the frame the reply gives (at
         * the clock's own frame, a play the audio thread passes before it
         * drains it would start a block later) */
        uint64_t start = hl_mixer_at_frame(d->engine.mixer) ? after : after + ahead(d);
        if (start_track(q, in, to, start, -1) != 0) {
            if (!in->voice) *in = (hld_music_inst_t){0};
            return 0; /* refused, replied */
        }
        q->voice = in->voice; /* the capture's MREPLY record: a replay maps it */
        reply_music(q, start, in->voice);
        return 0;
    }
    const hld_music_trans_t *t = hld_music_find(&mu->def, in->state, to);
    hld_music_trans_t cut = {.from = -1, .to = to, .when = HLD_MW_NOW, .how = HLD_MH_XFADE};
    if (!t) t = &cut;
    uint64_t at;
    if (when_frame(q, t, in->voice, after, &at) != 0) return 0;
    in->t = *t;
    in->to = to;
    in->at = at;
    in->pending = 1; /* replaces a waiting one */
    hld_music_plan_t p;
    hld_music_plan(t, at, d->engine.rate, 0, &p);
    reply_music(q, p.seg_start != UINT64_MAX ? p.seg_start : p.new_start, 0);
    if (at < hl_mixer_frames(d->engine.mixer) + ahead(d)) commit(d, in);
    return 0;
}
