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
 * Bank names live in namespaces like cue names (cues.h hld_ns_rank_fn, the
 * owner being the bank's client): a plain client's bank is named in its
 * process's namespace and its sounds load into its loader's private sound
 * namespace (ns = that client id: its own LOAD's rules; the bank is
 * unloaded when that connection closes, hld_banks_drop_client); a control
 * client's bank is shared (its sounds too, HL_LOAD_SHARED), a world zone's
 * (client 0) is the daemon's, shared, and never conflicts by name (the
 * scheduler knows it by pointer). Every bank's sounds are charged to the
 * client that asked for it (its sample quota, not its loads in flight; a
 * world zone's to nobody). The bank carries the client
 * id, not a pointer: its queued sounds start later, each charged to the
 * record of that id (held from hld_banks_start until the last one starts).
 * A bank's sounds are started in order as the loader has room: at most
 * HLD_BANK_LOADS_INFLIGHT decode at once for every bank together, the rest
 * wait (a play of one answers ENOSOUND until it starts, ELOADING after).
 * The manifest and the cue sheet are read on the worker pool (fileio.h):
 * an absolute path, a regular file of at most HLD_MAX_MANIFEST_BYTES /
 * HLD_MAX_CUE_SHEET_BYTES, lines of at most HLD_BANK_LINE_MAX bytes.
 * Changes are reported to a callback (the daemon turns them into BANK
 * events for subscribers, and the world-zone scheduler into completions).
 */
#ifndef HLD_BANKS_H
#define HLD_BANKS_H

#include <stdint.h>

#include "cues.h"
#include "hl_proto.h"
#include "sounds.h"

#define HLD_MAX_BANKS           256                /* a game's levels and zones; each a manifest */
#define HLD_MAX_BANK_SOUNDS     1024               /* sounds one manifest may list */
#define HLD_MAX_MANIFEST_BYTES  (1u << 22)         /* 4 MiB: 1024 sounds with long paths fit */
#define HLD_BANK_LINE_MAX       (HL_MAX_PATH + 64) /* bytes per manifest line */
#define HLD_MAX_CUE_SHEET_BYTES (1u << 20) /* a bank's or CUES_LOAD's cue sheet: 4096 cues fit */
/* decode jobs the banks keep in flight at most (the rest of a bank's sounds
 * wait their turn): half the loader's cap, so clients' LOADs find room */
#define HLD_BANK_LOADS_INFLIGHT (HL_MAX_LOADS_INFLIGHT / 2)

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
    uint32_t client; /* client id that loaded it (asset_ops.c), 0: the daemon's */
    int control;     /* that client was a control client: its sheet is the daemon's */
    uint32_t ns;     /* its sounds' namespace: 0 shared, else its loader's client id */
    uint64_t who;    /* the process its files are opened for (fileio.h) */
    struct hld_bank_entry *entries; /* while sounds wait to start: what each is, else NULL */
    uint32_t next;                  /* the next sound to start */
    uint64_t seq;                   /* load order: older banks start first */
    void *cue_job;                  /* its cue sheet being read, or NULL */
} hld_bank_t;

/* Called after every change of a bank's state or progress (a sound done). */
typedef void (*hld_bank_fn)(void *user, const hld_bank_t *b);

typedef struct hld_banks {
    hld_bank_t *bank[HLD_MAX_BANKS];
    hld_sounds_t *sounds;
    hld_cues_t *cues;
    struct hld_files *files; /* reads manifests and cue sheets off the loop */
    uint32_t inflight;       /* the banks' decode jobs in flight */
    uint64_t seq;
    hld_bank_fn changed;
    void *user;
    /* the ledger: a bank's queued sounds are charged, when they start, to
     * the record of its client id (hld_bank_t.client), looked up then */
    hld_clients_t *ledger;
    /* applies a plain client's bank's cue sheet as that client (its
     * namespace and rights, asset_ops.c); NULL, or a bank of the daemon's
     * (client 0) or a control client's: the daemon's names,
     * hld_cues_load_mem. 0 or a code with err. */
    int (*sheet)(void *user, uint32_t client, const char *path, const char *text, size_t len,
                 char *err, size_t cap);
} hld_banks_t;

void hld_banks_init(hld_banks_t *b, hld_sounds_t *sounds, hld_cues_t *cues, hld_bank_fn fn,
                    void *user);
/* Frees every bank record (the sounds are the table's: close them after). */
void hld_banks_close(hld_banks_t *b);
/* A manifest read and parsed (and with estimate, the decoded bytes of its
 * preloaded sounds at the engine rate, from their headers: nothing decoded).
 * Main thread; valid only during the callback. */
typedef struct hld_manifest hld_manifest_t;
typedef void (*hld_manifest_fn)(void *user, int status, const char *msg, hld_manifest_t *m);
/* Reads the manifest at path (absolute) on the worker pool; fn gets it
 * (status 0) or the error (EINVAL with "PATH:LINE: ..." for a bad line,
 * EFILE for a missing file or one that is not a regular file, ETOOBIG,
 * ETIMEDOUT for an open past the budget; with estimate, a sound whose
 * header cannot be read). 0 (fn will be called once) or an error with msg
 * (a relative path: EINVAL). who: the process it is read for (fileio.h). */
int hld_banks_read(hld_banks_t *b, const char *path, int estimate, uint32_t rate, uint64_t who,
                   hld_manifest_fn fn, void *user, char *msg, size_t cap);
uint64_t hld_manifest_bytes(const hld_manifest_t *m);
/* Starts loading a manifest's sounds (from fn) for client id `client` (0:
 * the daemon's, a world zone's, charged to nobody); priv: into that
 * client's private sound namespace (a plain client's bank), else shared.
 * rank/ctx: the requester's namespace (hld_ns_rank_fn; NULL with client 0):
 * a bank of that name it ranks 2 or more (its process's or a shared one)
 * is a conflict. 0 and *out, or a negative code with msg (EEXIST: a bank
 * of that name, or a sound name of that namespace, already loaded; ENOMEM:
 * too many banks). who: the process its sounds' files are opened for
 * (fileio.h: the loader's; a world zone's adder's). */
int hld_banks_start(hld_banks_t *b, hld_manifest_t *m, uint32_t client, int priv, uint64_t who,
                    hld_ns_rank_fn rank, const void *ctx, hld_bank_t **out, char *msg, size_t cap);
/* Starts unloading bank k (see above): 0, or ENOSOUND with msg when it is
 * already unloading. */
int hld_banks_unload(hld_banks_t *b, hld_bank_t *k, char *msg, size_t cap);
/* The bank called name that rank ranks highest (> 0; of one rank, one not
 * unloading, then the oldest), or NULL; rank NULL: any; *r (may be NULL)
 * gets its rank. A bank unloading does not hold its name: a new one of
 * that name may load meanwhile. */
hld_bank_t *hld_banks_find_in(hld_banks_t *b, const char *name, hld_ns_rank_fn rank,
                              const void *ctx, int *r);
/* Client `client` left: its private banks are unloaded (their sounds end
 * with it, as its LOADs' do). */
void hld_banks_drop_client(hld_banks_t *b, uint32_t client);
/* Frees banks whose last sound is gone; call after voices end (poll tick). */
void hld_banks_tick(hld_banks_t *b);
const char *hld_bank_name(const struct hld_bank *bank);
/* The wire form (BANKS entry, BANK event). */
void hld_bank_info(const hld_bank_t *bank, hl_bank_info_t *out);

#endif /* HLD_BANKS_H */
