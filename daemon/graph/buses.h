/*
 * buses.h - the daemon's face of the mixer graph: bus names and the tree,
 * insert effects with their settings, and ducking rules (main thread only).
 *
 * The mixer knows buses by index (hl_mixer_bus_graph); this registry owns
 * the names, allocates the indices, owns every effect's memory (allocated
 * and set up here, handed to the mixer in a chain, freed only after the
 * mixer hands it back in an FX_RETIRED event, or at shutdown once the audio
 * thread is gone) and keeps the settings each effect was given, so listings
 * never read audio-thread state. The four default buses (sfx, music,
 * dialog, ui) always exist; "master" names the master bus.
 *
 * Every change is all-or-nothing: the mixer command is pushed first and the
 * registry changes only if it was taken (a full ring answers HELIOD_EBUSY
 * and leaves everything as it was).
 */
#ifndef HLD_BUSES_H
#define HLD_BUSES_H

#include <stdint.h>

#include "hl_fx.h"
#include "hl_limits.h"
#include "hl_mixer.h"
#include "hl_proto.h"

#define HLD_BUS_MASTER (-1) /* hld_bus_index: "master" */
#define HLD_BUS_NONE   (-2) /* hld_bus_index: no such bus */

typedef struct hld_fx {
    hl_fx_t fx;    /* what the mixer runs (first: FX_RETIRED gives it back) */
    void *rev_mem; /* the reverb's memory (hl_reverb_init), else NULL */
    uint8_t kind;  /* HL_FXK_* */
    uint8_t type;  /* HL_EQ_* / HL_REV_* (the preset last loaded) */
    float p[HL_FX_PARAMS];
    struct hld_fx *next_retiring;
} hld_fx_t;

typedef struct {
    char name[HL_MAX_NAME + 1]; /* "" = free index */
    int parent;                 /* bus index or HLD_BUS_MASTER */
    hld_fx_t *fx[HL_MAX_FX];
    uint32_t nfx;
    int send_to[HL_BUS_SENDS]; /* bus sends' targets, -1 = free slot */
    float send_db[HL_BUS_SENDS];
    uint32_t owner;     /* client id that created it (bus_ops.c), 0: the daemon's (defaults,
                         * config, the reverb zones' feed), HLD_OWNER_GONE: its process has
                         * gone, removed once nothing plays on it (owners.c) */
    uint32_t gone_from; /* owner HLD_OWNER_GONE: the client id it had (its label's) */
    int shared;         /* created by a control client: its name is shared (label unqualified) */
} hld_bus_t;

typedef struct {
    hld_bus_t bus[HL_MAX_BUSES];
    hld_bus_t master; /* name "master"; parent unused */
    hl_duck_rule_t duck[HL_MAX_DUCKS];
    uint8_t duck_used[HL_MAX_DUCKS];
    int duck_bus[HL_MAX_DUCKS], duck_by[HL_MAX_DUCKS]; /* the rule's buses by index */
    /* The requester's namespace while a request runs (dispatch.c sets it:
     * cues.h hld_ns_rank_fn and its ctx), else NULL: hld_bus_index picks
     * the visible bus of that name it ranks highest. */
    int (*ns_rank)(const void *ctx, uint32_t owner);
    const void *ns_ctx;
    hld_fx_t *retiring; /* detached, waiting for FX_RETIRED */
    hl_mixer_t *mx;
    float rate;
} hld_buses_t;

/* Default buses under the master, no effects, no rules. */
void hld_buses_init(hld_buses_t *b, hl_mixer_t *mx, uint32_t rate);
/* Frees every effect. Only once the audio thread is stopped. */
void hld_buses_close(hld_buses_t *b);

/* Index of a bus name: >= 0, HLD_BUS_MASTER for "master", HLD_BUS_NONE.
 * "" is the default bus, sfx. Bus names are per process namespace: the
 * name may exist once per namespace; with ns_rank set the bus it ranks
 * highest (its own process's, then a shared one) is found, another live
 * process's never (HLD_BUS_NONE); without, the daemon's, else the first. */
int hld_bus_index(const hld_buses_t *b, const char *name);
/* The record of bus index `bus` (HLD_BUS_MASTER: the master), or NULL. */
hld_bus_t *hld_bus_at(hld_buses_t *b, int bus);
/* Name of an index (HLD_BUS_MASTER = "master"), or NULL. */
const char *hld_bus_name(const hld_buses_t *b, int bus);
/* The bus's label in STATS keys, METER and PROFILE rows: one per bus even
 * when a name repeats across namespaces. The daemon's buses (the master,
 * the defaults, config buses, the reverb zones' feed) and a control
 * client's keep their name; a plain client's bus is NAME-cID (ID: the
 * client id that owns it; an orphan, its process gone (owners.c), keeps
 * the id it had), its name cut so the label has at most HLD_BUS_LABEL_MAX
 * characters. buf: HL_MAX_NAME + 1 bytes. NULL for no bus. */
#define HLD_BUS_LABEL_MAX 40 /* "bus.LABEL.peak_hold_db" fits a STATS key */
const char *hld_bus_label(const hld_buses_t *b, int bus, char *buf);

/* Usage of each bus by logical voices (real and virtual): what a voice or a
 * send routes to. Filled by the caller (voice_ops.c) for remove and lists. */
typedef struct {
    uint32_t voices[HL_MAX_BUSES];
    uint32_t sends[HL_MAX_BUSES];
} hld_bus_usage_t;

/* Each returns 0 or a negative HELIOD_* code with a message in msg[cap]. */
int hld_buses_create(hld_buses_t *b, const char *name, const char *parent, char *msg, size_t cap);
/* Refused (EBUSINUSE) while voices or sends use it or it has children; its
 * effects and the ducking rules naming it go with it. */
/* Mixer commands removing bus `name` takes now: one per send into it, one
 * for its effects, one per ducking rule naming it, one for the tree (1 when
 * there is no such bus). */
uint32_t hld_buses_remove_cmds(const hld_buses_t *b, const char *name);
int hld_buses_remove(hld_buses_t *b, const char *name, const hld_bus_usage_t *use, char *msg,
                     size_t cap);
/* The same for bus index `bus` (a reverb zone's own bus). */
int hld_buses_remove_at(hld_buses_t *b, int bus, const hld_bus_usage_t *use, char *msg, size_t cap);
int hld_buses_reparent(hld_buses_t *b, const char *name, const char *parent, char *msg, size_t cap);
/* The same by index (parent: an index or HLD_BUS_MASTER): 0, ENOBUS,
 * EINVAL (a loop) or EBUSY. */
int hld_buses_reparent_at(hld_buses_t *b, int bus, int parent);

/* Bus `bus` sends to `target` at db (pre-fader), ramped over ramp_frames:
 * the slot already sending there, else a free one (ENOMEM when all
 * HL_BUS_SENDS are taken). db <= -144 removes the send (EINVAL if there is
 * none). 0 or a negative code with a message. */
int hld_buses_send(hld_buses_t *b, int bus, int target, float db, uint32_t ramp_frames, char *msg,
                   size_t cap);
/* Fades the send from bus to target to silence over ramp_frames, keeping its
 * slot (hld_buses_send with -144 lets it go later). 0, or -1 if there is no
 * such send or the engine is busy. */
int hld_buses_send_fade(hld_buses_t *b, int bus, int target, uint32_t ramp_frames);
/* Level of the send from bus to target in dB, or HL_MIN_DB if none. */
float hld_buses_send_db(const hld_buses_t *b, int bus, int target);
/* Creates bus `name` under the master with a reverb of `preset` (dry 0,
 * wet 1): a reverb return. 0 or a negative code with a message. */
int hld_buses_create_reverb(hld_buses_t *b, const char *name, int preset, char *msg, size_t cap);

/* FX request (already validated with hl_validate_fx). ADD sets *index to
 * where the effect went. */
int hld_buses_fx(hld_buses_t *b, const hl_fx_req_t *m, uint32_t *index, char *msg, size_t cap);
/* Pushes parameters p to insert `index` of bus `bus` (ramped where its kind
 * glides) without changing the settings the registry keeps (what FX set and
 * fx list show): the snapshots' blend over them (snapshots.c). 0,
 * HELIOD_ENOFX or HELIOD_EBUSY. */
int hld_buses_fx_push(hld_buses_t *b, int bus, uint32_t index, const float p[HL_FX_PARAMS],
                      uint32_t ramp_frames);
/* The mixer handed an effect back: free it. */
void hld_buses_fx_retired(hld_buses_t *b, hl_fx_t *fx);
/* Listing entries of bus `bus` (an index or HLD_BUS_MASTER). */
uint32_t hld_buses_fx_info(const hld_buses_t *b, int bus, hl_fx_info_t *out, uint32_t cap);

/* DUCK request (validated). */
int hld_buses_duck(hld_buses_t *b, const hl_duck_rule_t *m, char *msg, size_t cap);

/* BUSES entries: master first, then parents before children. Returns the count. */
uint32_t hld_buses_list(const hld_buses_t *b, const hld_bus_usage_t *use,
                        hl_bus_info_t out[HL_MAX_BUSES + 1]);

#endif /* HLD_BUSES_H */
