/*
 * banks.h - sound banks: a manifest (INI) listing sounds, loaded and
 * unloaded as one. Main thread only.
 *
 *   # a level's sounds; paths are relative to the manifest's directory
 *   name = forest            (default: the file's name without its extension)
 *   cues = forest_cues.ini   (optional: a cue sheet loaded once the sounds are in)
 *   [sound birds]
 *   path = birds.ogg
 *   stream = no              (yes: decoded while it plays)
 *   pin = no                 (yes: never evicted by the sample-memory budget)
 *
 * States: loading (its sounds decode on the threadpool; a play of one of
 * them answers ELOADING) -> loaded, or failed (a sound did not load: the
 * others stay until the bank is unloaded; the first error is kept). Unload
 * is reference-counted through the sounds: each sound goes as soon as no
 * voice uses it; the bank is gone when its last sound is (state unloading
 * meanwhile). A bank unloaded while loading cancels its decodes in flight.
 * Sounds are loaded shared (every client sees them), charged to the daemon.
 * Changes are reported to a callback (the daemon turns them into BANK
 * events for subscribers, and the world-zone scheduler into completions).
 */
#ifndef HLD_BANKS_H
#define HLD_BANKS_H

#include <stdint.h>

#include "cues.h"
#include "hl_proto.h"
#include "sounds.h"

#define HLD_MAX_BANKS       256  /* a game's levels and zones; each a manifest */
#define HLD_MAX_BANK_SOUNDS 1024 /* sounds one manifest may list */

enum { HLD_BANK_LOADING = 0, HLD_BANK_LOADED, HLD_BANK_FAILED, HLD_BANK_UNLOADING };

typedef struct hld_bank {
    char name[HL_MAX_NAME + 1];
    char path[HL_MAX_PATH + 1];
    int state;
    uint32_t nsounds, ndone, nfailed;
    char (*sounds)[HL_MAX_NAME + 1];
    uint64_t bytes; /* decoded bytes of its loaded sounds */
    char error[HL_MAX_MSG + 1];
    char cues[HL_MAX_PATH + 1]; /* cue sheet to load when the sounds are in, "" = none */
    struct hld_banks *owner;
    void *tag;       /* the world-zone scheduler's (zones.c), or NULL */
    uint32_t client; /* client id that loaded it (asset_ops.c), 0: the daemon's (zones) */
} hld_bank_t;

/* Called after every change of a bank's state or progress (a sound done). */
typedef void (*hld_bank_fn)(void *user, const hld_bank_t *b);

typedef struct hld_banks {
    hld_bank_t *bank[HLD_MAX_BANKS];
    hld_sounds_t *sounds;
    hld_cues_t *cues;
    hld_bank_fn changed;
    void *user;
    /* the client the sounds of the bank being loaded are charged to (its
     * sample quota), set by the caller around hld_banks_load; NULL: the
     * daemon's (world zones) */
    hld_client_t *charge;
} hld_banks_t;

void hld_banks_init(hld_banks_t *b, hld_sounds_t *sounds, hld_cues_t *cues, hld_bank_fn fn,
                    void *user);
/* Frees every bank record (the sounds are the table's: close them after). */
void hld_banks_close(hld_banks_t *b);
/* Reads the manifest and starts loading its sounds. 0 and *out, or a
 * negative code with msg (a missing or bad manifest, a name taken, a sound
 * name already loaded). */
int hld_banks_load(hld_banks_t *b, const char *path, hld_bank_t **out, char *msg, size_t cap);
/* Starts unloading (see above). 0, or ENOSOUND with msg if there is none. */
int hld_banks_unload(hld_banks_t *b, const char *name, char *msg, size_t cap);
hld_bank_t *hld_banks_find(hld_banks_t *b, const char *name);
/* Frees banks whose last sound is gone; call after voices end (poll tick). */
void hld_banks_tick(hld_banks_t *b);
const char *hld_bank_name(const struct hld_bank *bank);
/* What loading the manifest at path will cost: the decoded bytes of its
 * preloaded sounds at `rate`, from their headers (libsndfile; no decoding).
 * 0 or a code with msg. Main thread (reads headers: call when a zone is
 * added, never per tick). */
int hld_bank_estimate(const char *path, uint32_t rate, uint64_t *bytes, char *msg, size_t cap);
/* The wire form (BANKS entry, BANK event). */
void hld_bank_info(const hld_bank_t *bank, hl_bank_info_t *out);

#endif /* HLD_BANKS_H */
