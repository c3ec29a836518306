/*
 * clients.h - the per-client ledger: what each client holds (voices,
 * detached voices, streams, loads in flight, sample bytes) against its
 * quotas, and whether it is a control client.
 *
 * A client record is one connection (its client id). Its record lives while
 * the connection is open and after it closes for as long as anything is
 * still charged to it: its detached voices, the voices fading out after it
 * left, its sounds (shared ones outlive it) and its loads in flight. So a
 * client cannot shed what it holds by going away, and a vanished client's
 * voices and sounds stay accounted until they end.
 *
 * Quotas are charged per process: every record points at the process
 * record (hld_proc_t) of its peer's pid (SO_PEERCRED), shared by all the
 * connections of that process, and the checks read the process's counts.
 * A game opening 20 connections has one budget. A peer whose pid is unknown
 * gets a process record of its own. A process record lives while a client
 * record points at it.
 *
 *   admission (voice_play.c) -> hld_client_check_play: EQUOTA naming the quota
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
 *                              tag) per scheduled command to the process
 *                              record of the client id it is charged to;
 *                              pending = those whose frame the clock has not
 *                              reached; the ones on a connection's own voices
 *                              (tag = its id) go when that connection leaves
 *
 * Main thread only, except hld_client_reserve_bytes / hld_client_unreserve_bytes.
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
    /* named objects a process has created and holds (cue_ops.c,
     * emitter_ops.c, bus_ops.c): one process cannot fill a shared table */
    HLD_QUOTA_CUES,
    HLD_QUOTA_CATEGORIES,
    HLD_QUOTA_EMITTERS,
    HLD_QUOTA_BUSES,
    HLD_QUOTA_RZONES,
    HLD_QUOTA_PARAMS,    /* game parameters (param_ops.c) */
    HLD_QUOTA_SNAPSHOTS, /* mixer snapshots defined (snapshot_ops.c) */
    HLD_QUOTA_KINDS
};
#define HLD_QUOTA_OBJ0 HLD_QUOTA_CUES /* first object kind: objs[kind - HLD_QUOTA_OBJ0] */
#define HLD_OBJ_KINDS  (HLD_QUOTA_KINDS - HLD_QUOTA_OBJ0)

typedef struct {
    uint32_t voices;    /* logical voices held (real, virtual, opening, fading) */
    uint32_t detached;  /* of those, detached (outlive the connection) */
    uint32_t streams;   /* of those, streamed */
    uint32_t loads;     /* loads decoding at once */
    uint64_t bytes;     /* decoded sample bytes (its sounds and loads in flight) */
    uint32_t scheduled; /* scheduled commands pending in the mixer's schedule */
    uint32_t cues, categories, emitters, buses, rzones, params, snapshots; /* objects held */
} hld_quota_t;

/* The limit of quota kind k (HLD_QUOTA_*). */
uint64_t hld_quota_limit(const hld_quota_t *q, int k);

/* One scheduled command charged to a process: its frame and the mixer owner
 * tag it carries (the connection owning its voice, 0: none or detached). */
typedef struct {
    uint64_t at;
    uint32_t tag;
} hld_sched_ent_t;

struct hld_clients;

/* What one process holds: the counts every quota is checked against. */
typedef struct hld_proc {
    struct hld_proc *next;
    uint32_t pid;     /* SO_PEERCRED pid; 0: unknown (a record per connection) */
    uint32_t records; /* client records pointing here */
    uint32_t voices, detached, streams, loads;
    _Atomic uint64_t bytes;       /* sample bytes reserved (any thread) */
    uint32_t objs[HLD_OBJ_KINDS]; /* named objects held, by HLD_QUOTA_* - HLD_QUOTA_OBJ0 */
    uint32_t reserved;            /* connection places above --max-clients held (<= 1) */
    hld_sched_ent_t *sched;       /* its scheduled commands not yet due (unordered) */
    uint32_t n_sched, cap_sched;
    uint64_t sched_min; /* the earliest of their frames: nothing to prune before it */
} hld_proc_t;

typedef struct hld_client {
    struct hld_client *next; /* hash chain */
    struct hld_clients *table;
    uint32_t id;
    int connected; /* its connection is open */
    int control;   /* said HL_HELLO_CONTROL */
    uint32_t voices, detached, streams, loads;
    uint32_t sounds;              /* sound entries charged to it (loading or loaded) */
    _Atomic uint64_t bytes;       /* sample bytes reserved (decode workers add, any thread) */
    char name[64];                /* for messages about its voices and sounds */
    hld_proc_t *proc;             /* its process: the quotas are checked against it */
    uint32_t objs[HLD_OBJ_KINDS]; /* of its process's objects, those it created (when it
                                   * closes they move to another connection of its process,
                                   * or are reclaimed with the process: owners.c) */
} hld_client_t;

typedef struct hld_clients {
    hld_client_t *buckets[HLD_CLIENT_BUCKETS];
    hld_proc_t *procs; /* process records (few: a list) */
    uint32_t count, nprocs;
    hld_quota_t quota;
    uint64_t refused[HLD_QUOTA_KINDS];
} hld_clients_t;

void hld_clients_init(hld_clients_t *t, const hld_quota_t *quota);
/* Frees every record (shutdown, after voices and sounds are gone). */
void hld_clients_close(hld_clients_t *t);

/* A new connection's record (connected), charged to process pid (0:
 * unknown, a process record of its own). NULL when out of memory. */
hld_client_t *hld_clients_open(hld_clients_t *t, uint32_t id, uint32_t pid);
/* Charges c, a connection that holds nothing yet, to process pid instead
 * (0: a process record of its own): a render's replay gives each recorded
 * process its own quotas. 0, or HELIOD_ENOMEM (c unchanged). */
int hld_clients_rehome(hld_client_t *c, uint32_t pid);
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
/* The sample-memory part of it alone (a bank's sounds: started together,
 * held to the daemon-wide in-flight cap, not the client's). */
int hld_client_check_bytes(hld_client_t *c, char *msg, size_t cap);
/* Loads in flight and sound entries charged to c (+1 / -1); -1 may free a
 * disconnected record. */
void hld_client_load_started(hld_client_t *c);
void hld_client_load_ended(hld_client_t *c);
void hld_client_sound_added(hld_client_t *c);
void hld_client_sound_gone(hld_client_t *c);

/* Scheduled commands, charged to c's process like every quota: one was
 * pushed for c (frame, owner tag: the connection id of its voice); how many
 * c's process may still push with the clock at now_frame (those due by then
 * no longer count); the ones tagged `tag` were cancelled (that connection
 * closed: per connection, not per process); EBUSY with a message naming
 * the quota and its option. */
void hld_client_sched_add(hld_client_t *c, uint64_t at, uint32_t tag);
uint32_t hld_client_sched_left(hld_client_t *c, uint64_t now_frame);
void hld_client_sched_drop(hld_client_t *c, uint32_t tag);
int hld_client_refuse_sched(hld_client_t *c, char *msg, size_t cap);

/* Sample bytes against c's quota, any thread: 0, or -1 when over (nothing
 * reserved; the caller counts the refusal with hld_client_refused). */
int hld_client_reserve_bytes(hld_client_t *c, uint64_t bytes);
void hld_client_unreserve_bytes(hld_client_t *c, uint64_t bytes);
/* The same on the main thread, for bytes held outside any load (a stream's
 * ring): a record whose connection closed goes once it holds nothing. */
void hld_client_release_bytes(hld_client_t *c, uint64_t bytes);
void hld_client_refused(hld_client_t *c, int kind);

/* Named objects (kind HLD_QUOTA_CUES ... HLD_QUOTA_RZONES): 0 if c's
 * process may create one more, else HELIOD_EQUOTA with msg naming the quota
 * and its option (counted). obj_add / obj_gone charge and discharge the
 * process of the client id that created the object (an id with no record
 * any more: nothing to charge). */
int hld_client_check_obj(hld_client_t *c, int kind, char *msg, size_t cap);
void hld_clients_obj_add(hld_clients_t *t, uint32_t id, int kind);
void hld_clients_obj_gone(hld_clients_t *t, uint32_t id, int kind);
/* What c holds moves to `to`, another connection of its process (c closed,
 * its objects are to's now); or is given back (its process has gone: its
 * objects are reclaimed, owners.c). */
void hld_clients_obj_move(hld_client_t *c, hld_client_t *to);
void hld_clients_obj_drop(hld_client_t *c);

/* Whom a file job works for (fileio.h: its per-process cap): c's process
 * (its pid), a process of its own when the pid is unknown, 0 for NULL (the
 * daemon). clients_who does it for client id `id` (0: the daemon; an id
 * with no record any more: a process of its own). */
uint64_t hld_client_who(const hld_client_t *c);
uint64_t hld_clients_who(hld_clients_t *t, uint32_t id);

#endif /* HLD_CLIENTS_H */
