/*
 * vm.h - the voice manager: logical voices, admission, overflow policies,
 * virtual voices and emitters, on top of the mixer's real voices.
 *
 * DESIGN
 *   A client's voice handle names a *logical* voice. Only the most important
 *   logical voices are *real* (hold a mixer voice); the rest are *virtual*:
 *   control-side records whose playback position is arithmetic on the engine
 *   clock, so tens of thousands of them cost the audio thread nothing.
 *
 *     PLAY --> admission --> logical voice --rank--> real (hl_mixer_play at
 *                 |             |   ^                the computed position,
 *               refusal         |   +---- virtual <-- fade-out, position kept)
 *               (error code,    v
 *                counter)     fading (retired handle; slot kept until silent)
 *
 *   Admission, in order (each refusal has its own error and counter):
 *     1 arguments and cue valid (the caller)        4 cue limit    -> policy
 *     2 min-interval since the cue's last success    5 category limit -> policy
 *     3 3D beyond max distance at start (not clamp)  6 a free logical voice,
 *                                                      else steal strictly lower priority
 *   Counting: playing and paused voices count; fading ones do not but keep
 *   their logical slot until silent. "Oldest" is the lowest start sequence.
 *
 *   Ranking (every HLD_VM_TICK_MS, and on demand): audibility = gain x bus
 *   gain x distance attenuation; importance = audibility x 2^(priority/100).
 *   The `real` most important voices above the floor are mixed; a real voice
 *   gets HLD_VM_HYST more importance than a virtual one (no flapping). A new
 *   play is real at once if it beats the weakest real voice.
 *
 *   Position: per voice (anchor_pos at engine frame anchor_frame) advancing
 *   at `rate` source frames per engine frame while not paused, wrapped by
 *   the loop region and loop count. The mixer's STARTED event (frame) and
 *   ENDED event (frame, cursor) re-anchor it on the real position.
 *
 * All functions: main thread only. No libuv: the daemon passes callbacks
 * (hld_vm_ops_t) for what needs it (stream opens, notifications).
 */
#ifndef HLD_VM_H
#define HLD_VM_H

#include <stddef.h>
#include <stdint.h>

#include "cues.h"
#include "hl_mixer.h"
#include "hl_proto.h"
#include "params.h"
#include "vm_voice.h"

struct hld_sound;

/* A table reads better aligned than wrapped. */
/* clang-format off */
#define HLD_VM_TICK_MS       20      /* re-rank period: 50 Hz follows any game's movement */
#define HLD_VM_RANK_LEAD_MS 20 /* a ranking for grid frame T takes effect at T + this */
#define HLD_VM_HYST          1.4125f /* +3 dB for the incumbent: a voice on the boundary does not flap */
#define HLD_VM_FLOOR_DB      (-60.0f) /* default audibility floor: below it a voice is virtual */
#define HLD_VM_VIRT_FADE_MS  20.0f   /* fade-out of a voice going virtual */
#define HLD_VM_REAL_FADE_MS  20.0f   /* fade-in of a voice coming back */
#define HLD_VM_PAUSED_WEIGHT 0.001f  /* -60 dB: a paused real voice yields to anything audible */
#define HLD_MAX_LOGICAL      131072  /* --virtual-voices cap: twice HL_MAX_VOICES */
#define HLD_MAX_EMITTERS     4096    /* emitters at once: one per moving object a game has */
/* clang-format on */

typedef struct hld_vm hld_vm_t;

/* Callbacks into the daemon. */
typedef struct {
    void *user;
    /* An event for the voice's owner and watchers: type HL_EVENT_ENDED (reason
     * HL_END_*), HL_EVENT_STARTED (time_ns), HL_EVENT_VIRTUAL (reason
     * HL_VIRT_WHY_*), HL_EVENT_REAL. */
    void (*notify)(void *user, uint32_t owner, uint16_t type, uint64_t voice, uint8_t reason,
                   uint64_t time_ns);
    /* Realise a virtual stream voice: open lv's sound at source frame `start`
     * with `loops` extra passes (-1 forever) and call hld_vm_stream_ready
     * later with the same handle. Returns 0 or a negative code (stays virtual). */
    int (*open_stream)(void *user, uint64_t voice, const hld_lvoice_t *lv, uint64_t start,
                       int64_t loops);
    /* Give back a stream the mixer never took (hl_stream_t of a dstream). */
    void (*release_stream)(void *user, hl_stream_t *s);
    /* The voice freed its sound reference (sound->playing was decremented). */
    void (*sound_released)(void *user, struct hld_sound *snd);
    /* A logical voice was admitted (delta +1) or freed (-1): charge its
     * creator (lv->creator, lv->owner == 0 for detached, lv->is_stream). */
    void (*charge)(void *user, const hld_lvoice_t *lv, int delta);
    /* Music (vm_music.c): a SET or seek about to re-anchor a music voice
     * first reports its beats and markers up to the frame it applies at, by
     * the model they played by (hld_vm_beats' fn; NULL: none). */
    void (*beat)(void *user, const struct hld_vm_beat *b);
    /* Game parameters (vm_params.c): after each evaluation of the bound
     * voices (hld_vm_params_eval), with the values as they are on the frame
     * it is for and the mixer's frame (hl_mixer_at) set to it: the daemon's
     * bus, effect and snapshot bindings follow on that same frame. NULL:
     * none. */
    void (*params_applied)(void *user);
} hld_vm_ops_t;

typedef struct {
    uint32_t logical; /* capacity of logical voices */
    float floor_db;   /* audibility floor */
    uint32_t rate;    /* engine rate */
    uint32_t period;  /* engine period (frames) */
} hld_vm_config_t;

/* Global counters (also per cue / category in their hl_cue_counters_t). */
typedef struct {
    uint64_t plays, refused_interval, refused_distance, refused_cue_limit, refused_cat_limit;
    uint64_t refused_no_voice, evicted, stolen, virtualised, realised, released_distance;
    uint64_t realise_failed; /* no mixer slot or stream open failed: stayed virtual */
    uint64_t ticks;
    uint64_t rank_late; /* grid rankings polled past their lead: applied at once */
} hld_vm_counters_t;

/* Allocates the logical pool. Returns NULL on ENOMEM. */
hld_vm_t *hld_vm_create(const hld_vm_config_t *cfg, hl_mixer_t *mx, hld_cues_t *cues,
                        const hld_vm_ops_t *ops);
/* Frees the pool (voices must have ended; sound references are dropped). */
void hld_vm_destroy(hld_vm_t *vm);

/* What a play asks for, resolved by the caller (dispatch). */
typedef struct {
    hld_cue_t *cue;        /* NULL = plain sound */
    struct hld_sound *snd; /* the variation picked */
    hl_voice_params_t p;   /* mixer params built from cue + play (pcm set, stream NULL) */
    uint32_t owner;        /* 0 detached */
    uint32_t creator;      /* client id that asks (charged while the voice lives) */
    hld_emitter_t *em;
    uint32_t fade_out_frames; /* eviction / release fade */
    uint8_t fade_curve, beyond, virt;
    /* position model */
    double rate, len, ls, le;
    int64_t loops;      /* -1 forever, 0 none, N */
    int stream;         /* 1: first realisation opens a stream (OPENING until ready) */
    float post_user[4]; /* the post stage as asked (hld_lvoice_t.post_user) */
    int pinned;         /* a client-fed stream (hld_lvoice_t.pinned): virt must be KILL */
    hld_vparams_t pv;   /* game parameters: p already holds what the bindings add */
} hld_vm_play_t;

/* Admission and start. Returns 0 with *voice (and *stolen: a voice ended to
 * make room, else 0), or HELIOD_EINTERVAL / EDISTANCE / ECUELIMIT /
 * ECATLIMIT / ENOVOICES / EBUSY. A refusal at steps 2-6 changes nothing;
 * a virt = kill play (not paused) that cannot be mixed (below the floor, or
 * beaten by every real voice while its limits would only evict virtual
 * ones) is refused (ENOVOICES) before those limits evict anything. Only
 * when its evictions freed a real voice does it go on; should the voice it
 * then displaces not take its stop (EBUSY, command ring full) it is refused
 * after them, the one case left. For a stream play the
 * voice is OPENING: the caller opens the stream and calls
 * hld_vm_stream_ready (or hld_vm_stream_failed). now_ns: CLOCK_MONOTONIC. */
int hld_vm_play(hld_vm_t *vm, const hld_vm_play_t *pl, uint64_t now_ns, uint64_t *voice,
                uint64_t *stolen);
/* The stream of voice (OPENING or realising) is primed: play it (or give it
 * back through ops->release_stream if the voice no longer wants it).
 * Returns 0, or a negative code for a first play that could not start (the
 * voice was freed; the caller replies the error). */
int hld_vm_stream_ready(hld_vm_t *vm, uint64_t voice, hl_stream_t *s, uint64_t now_ns);
/* The stream open failed: a first play is freed (no event), a realising
 * voice stays virtual. */
void hld_vm_stream_failed(hld_vm_t *vm, uint64_t voice);

/* The live logical voice of a handle (ACTIVE or OPENING), or NULL. */
hld_lvoice_t *hld_vm_get(hld_vm_t *vm, uint64_t voice);
/* Stops a voice with a fade (frames, curve) and an HL_END_* reason: its handle
 * is retired at once. 0, HELIOD_ENOVOICE or HELIOD_EBUSY. */
int hld_vm_stop(hld_vm_t *vm, uint64_t voice, uint32_t fade_frames, uint32_t curve, int reason,
                uint64_t now_ns);
/* Applies a SET (mask HL_MIX_SET_*; seek in source units for a pcm voice
 * already checked by the caller). Returns 0, ENOVOICE, EBUSY or EINVAL. */
int hld_vm_set(hld_vm_t *vm, uint64_t voice, const hl_voice_set_t *s, uint64_t now_ns);
/* Seek a voice to source position pos (frames in source units). For a real
 * stream voice the caller handles the stream switch and calls this to
 * re-anchor only (real_done = 1). */
int hld_vm_seek(hld_vm_t *vm, uint64_t voice, double pos, int real_done, uint64_t now_ns);
/* Where the voice is now, in source units. */
double hld_vm_position(hld_vm_t *vm, const hld_lvoice_t *lv);

/* Voices matched by fn get stopped (fade, reason) or paused/resumed. All or
 * nothing: each real voice matched takes one mixer command, and when the
 * command ring cannot take them all they return HELIOD_EBUSY before any
 * voice changed (retry). Else the count of voices changed. */
typedef int (*hld_vm_match_fn)(void *user, const hld_lvoice_t *lv);
/* How many ring commands the last of those refusals (EBUSY: all or nothing,
 * nothing changed) needed at once, 0 if none since the clear: the
 * dispatcher lets such a request wait for the room (net/conn.h). */
uint64_t hld_vm_ring_need(const hld_vm_t *vm);
void hld_vm_ring_need_clear(hld_vm_t *vm);
int hld_vm_stop_matching(hld_vm_t *vm, hld_vm_match_fn fn, void *user, uint32_t fade_frames,
                         int reason, uint64_t now_ns);
int hld_vm_pause_matching(hld_vm_t *vm, hld_vm_match_fn fn, void *user, int pause, uint64_t now_ns);

/* Listener moved (or bus gains changed): the next grid ranking sees it. */
void hld_vm_mark_dirty(hld_vm_t *vm);
/* Periodic work: ranks, virtualises/realises, ends virtual voices that reached
 * their end, releases voices beyond max distance. Call every poll; it ranks
 * once per HLD_VM_TICK_MS of engine frames (a grid on the clock; stretched
 * to ten times the last pass's cost, so ranking never takes more than a
 * tenth of the main thread), with the listener in effect on the grid frame,
 * and its changes take effect HLD_VM_RANK_LEAD_MS after it: the same
 * frames live and offline. */
void hld_vm_tick(hld_vm_t *vm, uint64_t now_ns);
/* One ranking pass now, whatever the period (benchmarks, tests). */
void hld_vm_rank(hld_vm_t *vm, uint64_t now_ns);
/* Brings every cue's and category's `virtual_now` counter up to date (a
 * scan of the logical voices: called when they are listed, not per tick). */
void hld_vm_count_virtual(hld_vm_t *vm);
/* Routes a mixer event (ENDED / STARTED) to its logical voice. Returns 1 if
 * the event belonged to the voice manager. */
int hld_vm_on_mix_event(hld_vm_t *vm, const hl_mix_event_t *ev);

/* ---- game parameters (vm_params.c) ---- */
/* Seeks the parameters, applies the scheduled PARAMs now due and, when a
 * value changed, sends every bound voice whose bindings now add something
 * else a SET (gain, pitch, filters, sends) ramped over HLD_PARAM_EVAL_MS
 * while values seek (evaluated at most that often), else HLD_PARAM_JUMP_MS.
 * Call every poll. */
#define HLD_PARAM_EVAL_MS 10
#define HLD_PARAM_JUMP_MS 3.0f /* ramp of a change that jumps (seek 0): the anti-click fade */
void hld_vm_params_tick(hld_vm_t *vm, hld_params_t *P, uint64_t now_ns);
/* A seek's grid steps due (grid frame T once the clock reached it, its
 * values as on T + the ranking lead and its SETs scheduled there) and the
 * scheduled values due within a ranking lead, in frame order, each
 * evaluated with its SETs scheduled on its own frame (from the tick, and
 * from a PARAM that scheduled one: a value due within the lead is not left
 * to the next poll, which could come after its frame). One evaluated past
 * its frame applies at once and is counted (P->late, STATS param_late). */
void hld_vm_params_due(hld_vm_t *vm, hld_params_t *P, uint64_t now_ns);
/* A PARAM took effect on frame f (its value set with hld_params_set_at):
 * its bound voices, buses and snapshots follow on f. active: what
 * hld_vm_params_active said for f before the value was set (a seek's grid
 * runs, or has sent steps past f: f and those steps are evaluated again,
 * every bound property, so the result does not depend on how many went
 * out). */
int hld_vm_params_active(const hld_params_t *P, uint64_t frame);
void hld_vm_params_applied(hld_vm_t *vm, hld_params_t *P, uint64_t f, int active, uint64_t now_ns);
/* Evaluates now whatever the pace (benchmarks). Returns the SETs sent. */
uint32_t hld_vm_params_eval(hld_vm_t *vm, hld_params_t *P, uint64_t now_ns);
/* The post stage the mixer gets from the client's cutoffs and occlusion
 * (u: lp_hz, hp_hz, occlusion, obstruction) and what bindings add (pc may
 * be NULL): the lowest low-pass, the highest high-pass, the larger
 * occlusion. */
void hld_vm_post_map(float rate, const float u[4], const hld_pcontrib_t *pc, float *lp, float *hp,
                     float *occ_db);
/* Stops the other layers of a blend whose first layer is leader (their
 * own fade curve). Returns how many. */
int hld_vm_stop_layers(hld_vm_t *vm, uint64_t leader, uint32_t fade_frames, int reason,
                       uint64_t now_ns);
/* Drops the emitter and voice values whose emitter or voice is gone. */
void hld_vm_params_sweep(hld_vm_t *vm, hld_params_t *P);
/* A client's SET of a voice (hld_vm_set's answers): on a bound voice the
 * gain, pitch and sends it asks for with the bindings' contribution folded
 * in, and, only once the SET was taken, they are the voice's new base (a
 * refused one, EBUSY, leaves the base the mixer has). post_user, when the
 * SET changes the post stage (asked has its mapped cutoffs), is the
 * low-pass, high-pass, occlusion and obstruction as the client gives them:
 * recorded as the voice's (hld_lvoice_t.post_user) on the same rule; NULL
 * when the SET leaves them. */
int hld_vm_params_user_set(hld_vm_t *vm, uint64_t voice, const hl_voice_set_t *asked,
                           const float post_user[4], uint64_t now_ns);

/* Reports (fn) every beat and marker of the playing (ACTIVE, real or
 * virtual, not paused) music voices (a cue with a tempo map, a sound with
 * markers) that falls on engine frames up to hi (exclusive) and
 * was not reported yet, in each voice's order. Main thread; vm_music.c. */
void hld_vm_beats(hld_vm_t *vm, uint64_t hi, hld_vm_beat_fn fn, void *user);
/* The first beat (what HLD_VM_NEXT_BEAT), bar (HLD_VM_NEXT_BAR: 1) or
 * marker (HLD_VM_NEXT_MARKER, vm_voice.h: *beat its id) of music voice `voice` on an
 * engine frame >= after, by its position model as it stands (4 minutes
 * ahead at most): *frame, *beat (may be NULL). 0, HELIOD_ENOVOICE, or
 * HELIOD_EINVAL (no tempo map / no marker, paused, or none that soon: it
 * ends first). */
int hld_vm_next_beat(hld_vm_t *vm, uint64_t voice, uint64_t after, int what, uint64_t *frame,
                     uint64_t *beat);
/* The engine frame at which `voice`'s current pass ends, at or after
 * `after` (or its start): where its position next wraps to the loop start,
 * or (no pass left) where it ends. 0, HELIOD_ENOVOICE or HELIOD_EINVAL
 * (paused, ended). */
int hld_vm_pass_end(hld_vm_t *vm, uint64_t voice, uint64_t after, uint64_t *frame);

/* Emitters. */
int hld_vm_emitter_create(hld_vm_t *vm, const char *name, uint32_t owner, const float pos[3],
                          const float vel[3], hld_emitter_t **out);
hld_emitter_t *hld_vm_emitter_find(hld_vm_t *vm, const char *name);
/* The emitter called name that rank (cues.h hld_ns_rank_fn, by creator)
 * ranks highest: the requester's own process's, else a shared one. */
hld_emitter_t *hld_vm_emitter_find_in(hld_vm_t *vm, const char *name, hld_ns_rank_fn rank,
                                      const void *ctx);
/* Moves the emitter and every voice on it (mask HL_EM_POS / HL_EM_VEL).
 * 0, or HELIOD_EBUSY when the command ring cannot take one command per real
 * voice on it: then nothing moved (not the emitter either). */
/* The emitter's sound cone (CONE: dir, inner, outer, outer gain), on every
 * voice of it now and each one started on it later. 0 or HELIOD_EBUSY. */
int hld_vm_emitter_cone(hld_vm_t *vm, hld_emitter_t *em, const float cone[7], uint64_t now_ns);
/* The emitter's distance curve of ATTEN kind (HL_ATTEN_*; n 0: none), on
 * every voice of it now that has no curve of that kind of its own (ATTEN on
 * the voice: own_curves), and each one started on it later (over its cue's).
 * 0, HELIOD_EBUSY (nothing changed) or HELIOD_EINVAL (kind). */
int hld_vm_emitter_curve(hld_vm_t *vm, hld_emitter_t *em, unsigned kind, const hl_dcurve_t *c,
                         uint64_t now_ns);
/* Adds to s (mask and fields) the distance curve c of ATTEN kind. */
void hld_vm_curve_set(hl_voice_set_t *s, unsigned kind, const hl_dcurve_t *c);
int hld_vm_emitter_set(hld_vm_t *vm, hld_emitter_t *em, uint32_t mask, const float pos[3],
                       const float vel[3], uint32_t ramp_frames, uint64_t now_ns);
/* Fades every voice out (fade_frames, or each voice's fade-out when
 * fade_frames < 0) and frees the emitter. Returns the voice count, or EBUSY
 * (one command per real voice does not fit: nothing stopped, the emitter
 * stays). */
int hld_vm_emitter_destroy(hld_vm_t *vm, hld_emitter_t *em, int64_t fade_frames, uint64_t now_ns);
/* Destroys every emitter whose owner `gone` says is gone (its connection
 * closed); their voices fade out with their cue's fade-out. 0 or EBUSY (each
 * emitter all or nothing; those destroyed before stay so: call again). */
int hld_vm_emitters_drop(hld_vm_t *vm, int (*gone)(void *user, uint32_t owner), void *user,
                         uint64_t now_ns);

/* The voice a client at its voice quota gives up for a play of `priority`:
 * its counted voice of the lowest priority strictly below it, the oldest of
 * those; 0 if none. Walks only the priority buckets below `priority`. */
uint64_t hld_vm_victim_of(hld_vm_t *vm, uint32_t creator, int32_t priority);

/* The CPU-budget governor's limit on real voices (daemon/voice/governor.c): the
 * real cap becomes min(mixer voices, limit), at least 1. Lowering it marks
 * the pool dirty: the next ranking virtualises the least important real
 * voices beyond it (VIRTUAL reason GOVERNED, with their fade), and they are
 * realised again (at their position) when the limit rises. Returns the cap. */
uint32_t hld_vm_set_real_limit(hld_vm_t *vm, uint32_t limit);
/* Voices holding a mixer voice now (bench/params). */
uint32_t hld_vm_real_count(const hld_vm_t *vm);
/* The most mixer commands one evaluation of the bound voices can push now:
 * two for each real voice of a cue with bindings, one for each cue's
 * modulation slot (a bundle's PARAM bound: time_ops.c). */
uint32_t hld_vm_params_push_bound(const hld_vm_t *vm);
/* Slots the walks over the logical voices visit (ranking, beats, counts):
 * one past the highest in use, 0 with none (not the table's size). */
uint32_t hld_vm_span(const hld_vm_t *vm);
/* The governor's quality step, taken before any voice is made virtual: of
 * the real voices that asked for the sinc or cubic interpolator and resample
 * (pitch or Doppler), `limit` quality steps are kept (a sinc voice holds two,
 * sinc over cubic over linear; a cubic one holds one), the most important
 * voices first; the others step down, the least important first, sinc ->
 * cubic -> linear (no fade: they interpolate the same signal) until the
 * limit rises. UINT32_MAX = no step. Applied by the next ranking (marks the
 * pool dirty). */
void hld_vm_set_cubic_limit(hld_vm_t *vm, uint32_t limit);
/* Frames between a grid ranking's frame and its effect (default
 * HLD_VM_RANK_LEAD_MS; 0: at once, for tests that drive the clock by hand). */
void hld_vm_set_rank_lead(hld_vm_t *vm, uint32_t frames);
/* From the last ranking: quality steps the real voices that resample asked
 * for (2 per sinc voice, 1 per cubic), and how many voices are stepped down. */
uint32_t hld_vm_cubic_count(const hld_vm_t *vm);
uint32_t hld_vm_lowq_count(const hld_vm_t *vm);

/* Iteration over live logical voices (ACTIVE, OPENING, FADING). fn returns
 * non-zero to stop. */
void hld_vm_foreach(hld_vm_t *vm, int (*fn)(void *user, uint64_t voice, const hld_lvoice_t *lv),
                    void *user);
/* HL_VOICE_* state of a voice for listings. */
uint8_t hld_vm_state(const hld_lvoice_t *lv);

typedef struct {
    uint32_t logical, active, real, virtual_now, fading, opening, emitters;
    uint32_t real_cap, governed; /* the real cap now; voices virtual only for the governor */
    uint32_t cubic_real, lowq;   /* quality steps asked (sinc 2, cubic 1); voices stepped down */
    hld_vm_counters_t n;
} hld_vm_stats_t;
void hld_vm_stats(const hld_vm_t *vm, hld_vm_stats_t *out);
/* Any voice left (ACTIVE, OPENING or FADING)? (shutdown waits for none) */
int hld_vm_busy(const hld_vm_t *vm);

#endif /* HLD_VM_H */
