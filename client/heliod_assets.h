/*
 * heliod_assets.h - libheliod: assets: banks and world zones.
 *
 * Part of heliod.h, which includes it after its common types (heliod_t,
 * heliod_voice_t): a game includes <heliod.h> only.
 */
#ifndef HELIOD_ASSETS_H
#define HELIOD_ASSETS_H

#ifndef HELIOD_H
#error "include <heliod.h>, not heliod_assets.h"
#endif

/* ---- assets: banks and world zones ---- */
#define HELIOD_LOAD_PIN       0x4u /* never evicted by the sample-memory budget */
#define HELIOD_BANK_LOADING   0
#define HELIOD_BANK_LOADED    1
#define HELIOD_BANK_FAILED    2
#define HELIOD_BANK_UNLOADING 3
#define HELIOD_BANK_GONE      4 /* (events only) unloaded */
typedef struct heliod_bank_info {
    char name[64];
    char path[4096];
    int state;                     /* HELIOD_BANK_* */
    uint32_t sounds, done, failed; /* listed, loaded, failed */
    uint64_t bytes;                /* decoded bytes of its loaded sounds */
    char error[256];               /* the first failure, "" if none */
} heliod_bank_info_t;
/* Starts loading the bank manifest at path (read by the daemon: an absolute
 * path); *out (may be NULL) gets its state now (loading). Progress and the
 * end come as HELIOD_EVENT_BANK (HELIOD_SUB_BANK); a play of one of its
 * sounds meanwhile answers HELIOD_ELOADING. Bank names are per process; a
 * plain client's bank loads its sounds as this connection's own (like
 * heliod_load without HELIOD_LOAD_SHARED) and goes when it closes; a
 * control client's bank and its sounds are shared. */
int heliod_bank_load(heliod_t *h, const char *path, heliod_bank_info_t *out);
/* Unloads a bank: each sound goes when its last voice ends. */
int heliod_bank_unload(heliod_t *h, const char *name);
int heliod_banks(heliod_t *h, heliod_bank_info_t *arr, size_t cap, size_t *count);
/* A world zone: the bank at `bank` (an absolute path on the daemon's host)
 * loads when the listener comes within radius of pos and unloads beyond
 * 1.25 x radius (see README). The daemon reads the manifest and its sounds'
 * headers before answering (EFILE, EINVAL, ETOOBIG, ETIMEDOUT: see PROTOCOL.md). */
int heliod_zone_add(heliod_t *h, const char *name, const char *bank, const float pos[3],
                    float radius);
int heliod_zone_remove(heliod_t *h, const char *name);
typedef struct {
    char name[64];
    char bank[4096];
    float pos[3], radius;
    int state;      /* 0 out, 1 loading, 2 loaded */
    uint64_t bytes; /* its bank's decoded size (estimated until loaded) */
    float distance; /* from the listener at the last tick */
} heliod_zone_info_t;
int heliod_zones(heliod_t *h, heliod_zone_info_t *arr, size_t cap, size_t *count);

#endif /* HELIOD_ASSETS_H */
