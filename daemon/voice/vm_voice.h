/*
 * vm_voice.h - the logical voice record (hld_lvoice_t) and the beats its
 * position model reports: what the pool (vm.c), the position model
 * (vm_pos.c) and the music walk (vm_music.c) share, and what the daemon
 * reads of a voice (vm.h includes it). Types only.
 */
#ifndef HLD_VM_VOICE_H
#define HLD_VM_VOICE_H

#include <stdint.h>

#include "cues.h"
#include "hl_mixer.h"
#include "hl_proto.h"
#include "params.h"

struct hld_sound;

#define HLD_NIL 0xFFFFFFFFu

/* Frame counts and positions computed in double (rates x seconds, ms x
 * rate, positions) converted to integers: clamped first, as a double out of
 * the target's range (or NaN) converted is undefined behaviour. NaN and
 * negatives give 0, too large the maximum. */
static inline uint32_t hld_frames_u32(double f) {
    if (!(f > 0.0)) return 0;
    return f >= 4294967295.0 ? UINT32_MAX : (uint32_t)f;
}
static inline uint64_t hld_frames_u64(double f) {
    if (!(f > 0.0)) return 0;
    return f >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)f;
}

typedef struct hld_emitter {
    char name[HL_MAX_NAME + 1];
    uint32_t owner;   /* client id; 0 = detached */
    uint32_t creator; /* client id that created it: it (or a control client) moves it */
    float pos[3], vel[3];
    float cone[7];        /* CONE: dir x3, inner, outer, outer gain, outer low-pass Hz (0 none); dir
                             (0,0,0) = none */
    hl_dcurve_t curve[3]; /* ATTEN by kind (gain dB, low-pass Hz, send dB): n 0 = none */
    uint32_t first;       /* its voices (intrusive list through em_next) */
    uint32_t count;
    uint32_t index; /* in the emitter table */
} hld_emitter_t;

/* A voice's game-parameter state (vm_params.c): what its cue's bindings add
 * now, on top of what the client asked for (the base), which a SET changes. */
typedef struct {
    hld_pcontrib_t pc;
    float base_gain, base_pitch, base_send[HL_MAX_SENDS];
    uint8_t bound;   /* its cue has bindings */
    uint8_t layer;   /* blend: its variation */
    uint8_t nlayers; /* blend: the cue's variations (0: not a blend) */
    uint64_t leader; /* blend: the first layer's handle (the one PLAY answered); 0 for it */
} hld_vparams_t;

/* Logical voice states. */
#define HLD_LV_FREE    0
#define HLD_LV_ACTIVE  1 /* playing or paused, real or virtual: counted */
#define HLD_LV_FADING  2 /* fading out: retired handle, not counted, slot kept until silent */
#define HLD_LV_OPENING 3 /* first play of a stream: waiting for its decoder (counted) */

/* The ranking reads every voice 50 times a second: what it needs (the flags,
 * the ranking figures, the loop count, then the first fields of p: flags, gain,
 * position, distances, bus) comes first, in the record's first cache lines. */
typedef struct {
    uint32_t gen;  /* handle generation, bumped when freed */
    uint8_t state; /* HLD_LV_* */
    uint8_t paused;
    uint8_t real;    /* holds the mixer voice `mix` (playing or paused in the mixer) */
    uint8_t opening; /* a stream open for realising is in flight */
    uint8_t why;     /* HL_VIRT_WHY_* of the last virtualisation */
    uint8_t beyond, virt;
    uint8_t fade_curve;
    uint8_t is_stream;     /* source is streamed: realising opens a stream */
    uint8_t seq_started;   /* admitted (restart applies to later realisations only) */
    uint8_t started_sent;  /* STARTED was notified */
    uint8_t want_real;     /* first stream open: ranked real at admission */
    uint8_t end_reason;    /* FADING: HL_END_* to report when silent */
    uint8_t lowq;          /* quality steps the governor took away (sinc -> cubic -> linear) */
    uint8_t pinned;        /* a client-fed stream: always real (mixed or ended, never virtual) */
    uint8_t own_curves;    /* 1 << ATTEN kind: a curve set on the voice itself (its emitter's
                            * ATTEN leaves that kind alone) */
    float aud, imp;        /* last ranking */
    float pw;              /* priority weight 2^(priority/100), set at admission */
    uint64_t seq;          /* start order */
    int64_t loops_left;    /* -1 forever, 0 none (plays to the end), N extra passes */
    hl_voice_params_t p;   /* what the mixer is (or would be) given; p.tag = handle */
    uint64_t mix;          /* mixer handle while real or fading in the mixer, else 0 */
    uint64_t vmix;         /* mixer voice still fading out after going virtual, else 0 */
    uint32_t attack_next;  /* fade-in of a stream realisation in flight */
    uint32_t slot_seq;     /* on its cue's modulation slot p.mod: the slot's change
                            * (vm_slot_t.seq) its p.gain, p.lp_hz, p.hp_hz and pv.pc were
                            * last brought up to (vm_slot_sync; in what was padding, on
                            * p.mod_what's line) */
    hld_cue_t *cue;        /* NULL for a plain sound */
    hld_category_t *cat;   /* NULL if none */
    struct hld_sound *snd; /* holds one `playing` reference */
    hld_emitter_t *em;     /* NULL if none */
    uint32_t owner;        /* client id; 0 = detached */
    uint32_t creator;      /* client id that started it (detached too); charged with it */
    uint32_t fade_out_frames;
    uint64_t born_ns; /* admission time (detached loops' lifetime cap) */
    /* position, in source units (pcm: engine frames; stream: source frames) */
    double anchor_pos;
    uint64_t anchor_frame;
    double rate;      /* source frames per engine frame at the nominal pitch */
    double rate_base; /* rate at pitch 1 */
    double len;       /* source frames */
    double ls, le;    /* loop region (le = len when the whole sound) */
    int64_t loops_initial, loops_at_start;
    double start_pos; /* stream: where the current stream started (for ENDED cursors) */
    /* intrusive lists (indices, HLD_NIL ends) */
    uint32_t cue_prev, cue_next, cat_prev, cat_next, em_prev, em_next, prio_prev, prio_next;
    /* the post stage as the client gave it: lp_hz, hp_hz, occlusion, obstruction
     * (p.lp_hz, p.hp_hz and p.occ_db are what they map to) */
    float post_user[4];
    /* engine frame of its latest scheduled change (SET at a later frame):
     * until then the ranker keeps a real voice real, so a fade scheduled to
     * silence does not virtualise it before the fade even starts */
    uint64_t sched_hold;
    /* engine frame it started on: its STARTED frame, or (never real yet)
     * the frame it was admitted for; a musical grid's reference (CLOCK) */
    uint64_t start_frame;
    hld_vparams_t pv; /* game parameters: bindings and the client's base values */
    /* music (a cue with a tempo map): engine frame up to which its beats
     * were reported (vm_music.c), 0 none yet */
    uint64_t beat_done;
} hld_lvoice_t;

/* Music: a beat of a voice whose cue has a tempo map (tempo.h). frame: the
 * first engine frame at or after the beat's position; bar = beat / NUM. */
typedef struct hld_vm_beat {
    uint64_t voice, frame, beat; /* a marker: beat = its cue point id */
    uint32_t bar, beat_in_bar;
    float bpm;
    uint32_t owner;
    int marker;        /* 1: a marker of the sound (label) instead of a beat */
    const char *label; /* a marker's label ("" none) */
} hld_vm_beat_t;
typedef void (*hld_vm_beat_fn)(void *user, const hld_vm_beat_t *b);
/* What the next-beat walk looks for (hld_vm_next_beat, vm_music_next). */
#define HLD_VM_NEXT_BEAT   0
#define HLD_VM_NEXT_BAR    1
#define HLD_VM_NEXT_MARKER 2

#endif /* HLD_VM_VOICE_H */
