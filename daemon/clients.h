/*
 * clients.h - the per-client ledger: what each client holds (voices,
 * detached voices, streams, loads in flight, sample bytes) against its
 * quotas, and whether it is a control client.
 *
 * A client is one connection (its client id). Its record lives while the
 * connection is open and after it closes for as long as anything is still
 * charged to it: its detached voices, the voices fading out after it left,
 * its sounds (shared ones outlive it) and its loads in flight. So a client
 * cannot shed what it holds by going away, and a vanished client's voices
 * and sounds stay accounted until they end.
 *
 *   admission (voice_ops.c) -> hld_client_check_play: EQUOTA naming the quota
 *   voice manager charge    -> hld_clients_charge_voice (+1 at admission,
 *                              -1 when the logical voice is freed)
 *   loads (sounds.c)        -> loads +1/-1, bytes reserved by the decode
 *                              worker before it allocates (atomic: any thread)
 *
 * Quotas are configurable (--client-voices, --client-detached,
 * --client-streams, --client-loads, --client-sample-mb, --client-scheduled);
 * the defaults leave at least half of every shared resource to other
 * clients (the schedule: three quarters).
 *
 *   schedule (time_ops.c)   -> the mixer's schedule hook adds (frame, owner
 *                              tag) per scheduled command; pending = those
 *                              whose frame the clock has not reached; the
 *                              ones on its own voices go when it leaves Main thread
 * only, except hld_client_reserve_bytes / hld_client_unreserve_bytes.
 */
#ifndef HLD_CLIENTS_H
#define HLD_CLIENTS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define HLD_CLIENT_BUCKETS 256 /* hash chains: records are at most clients + holders */

/* Which quota refused (STATS quota_refused_*). */
enum {
    HLD_QUOTA_VOICES = 0,
    HLD_QUOTA_DETACHED,
    HLD_QUOTA_STREAMS,
    HLD_QUOTA_LOADS,
    HLD_QUOTA_BYTES,
    HLD_QUOTA_SCHED, /* refused EBUSY (a full schedule is too), not EQUOTA */
    HLD_QUOTA_KINDS
};

typedef struct {
    uint32_t voices;    /* logical voices held (real, virtual, opening, fading) */
    uint32_t detached;  /* of those, detached (outlive the connection) */
    uint32_t streams;   /* of those, streamed */
    uint32_t loads;     /* loads decoding at once */
    uint64_t bytes;     /* decoded sample bytes (its sounds and loads in flight) */
    uint32_t scheduled; /* scheduled commands pending in the mixer's schedule */
} hld_quota_t;

/* One scheduled command charged to a client: its frame and the mixer owner
 * tag it carries (the owner of its voice, 0: none or detached). */
typedef struct {
    uint64_t at;
    uint32_t tag;
} hld_sched_ent_t;

struct hld_clients;

typedef struct hld_client {
    struct hld_client *next; /* hash chain */
    struct hld_clients *table;
    uint32_t id;
    int connected; /* its connection is open */
    int control;   /* said HL_HELLO_CONTROL */
    uint32_t voices, detached, streams, loads;
    uint32_t sounds;        /* sound entries charged to it (loading or loaded) */
    _Atomic uint64_t bytes; /* sample bytes reserved (decode workers add, any thread) */
    char name[64];          /* for messages about its voices and sounds */
    hld_sched_ent_t *sched; /* its scheduled commands not yet due (unordered) */
    uint32_t n_sched, cap_sched;
    uint64_t sched_min; /* the earliest of their frames: nothing to prune before it */
} hld_client_t;

typedef struct hld_clients {
    hld_client_t *buckets[HLD_CLIENT_BUCKETS];
    uint32_t count;
    hld_quota_t quota;
    uint64_t refused[HLD_QUOTA_KINDS];
} hld_clients_t;

void hld_clients_init(hld_clients_t *t, const hld_quota_t *quota);
/* Frees every record (shutdown, after voices and sounds are gone). */
void hld_clients_close(hld_clients_t *t);

/* A new connection's record (connected). NULL when out of memory. */
hld_client_t *hld_clients_open(hld_clients_t *t, uint32_t id);
/* The record of client id (connected or still holding something), or NULL. */
hld_client_t *hld_clients_get(hld_clients_t *t, uint32_t id);
/* The connection closed: the record stays while anything is charged to it. */
void hld_clients_disconnect(hld_client_t *c);

/* 0 if c may start one more voice of that kind as far as the detached and
 * streamed quotas go, else HELIOD_EQUOTA with a message naming the quota
 * and the option that sets it (and counted). */
int hld_client_check_play(hld_client_t *c, int detached, int stream, char *msg, size_t cap);
/* 1 when c holds its quota of voices; the caller may replace one of them
 * (admission), else refuses with hld_client_refuse_voices (EQUOTA, counted). */
int hld_client_voices_full(const hld_client_t *c);
int hld_client_refuse_voices(hld_client_t *c, char *msg, size_t cap);
/* A logical voice created by client id was admitted (+1) or freed (-1). */
void hld_clients_charge_voice(hld_clients_t *t, uint32_t id, int detached, int stream, int delta);

/* 0 if c may start one more load, else HELIOD_EQUOTA with msg (counted). */
int hld_client_check_load(hld_client_t *c, char *msg, size_t cap);
/* Loads in flight and sound entries charged to c (+1 / -1); -1 may free a
 * disconnected record. */
void hld_client_load_started(hld_client_t *c);
void hld_client_load_ended(hld_client_t *c);
void hld_client_sound_added(hld_client_t *c);
void hld_client_sound_gone(hld_client_t *c);

/* Scheduled commands: one was pushed for c (frame, owner tag); how many c
 * may still push with the clock at now_frame (those due by then no longer
 * count); the ones tagged `tag` were cancelled (its connection closed);
 * EBUSY with a message naming the quota and its option. */
void hld_client_sched_add(hld_client_t *c, uint64_t at, uint32_t tag);
uint32_t hld_client_sched_left(hld_client_t *c, uint64_t now_frame);
void hld_client_sched_drop(hld_client_t *c, uint32_t tag);
int hld_client_refuse_sched(hld_client_t *c, char *msg, size_t cap);

/* Sample bytes against c's quota, any thread: 0, or -1 when over (nothing
 * reserved; the caller counts the refusal with hld_client_refused). */
int hld_client_reserve_bytes(hld_client_t *c, uint64_t bytes);
void hld_client_unreserve_bytes(hld_client_t *c, uint64_t bytes);
void hld_client_refused(hld_client_t *c, int kind);

#endif /* HLD_CLIENTS_H */
