/*
 * sounds.h - the named sound table and the loader.
 *
 * A sound is decoded float32 PCM at the engine rate, mono or stereo, owned by
 * this table. Names live in namespaces: a client's own (private, the
 * default: ns = its client id) and the shared one (ns 0, HL_LOAD_SHARED). A
 * client's name lookup sees its own sounds first, then the shared ones. A
 * private sound ends with its client: unloaded when it disconnects, or
 * when the last voice using it (a detached one) lets it go. Each sound's
 * bytes are charged to the client that loaded it (clients.h). Voices reference it through the
 * hl_pcm_t embedded in the entry; `playing` counts them (incremented when a PLAY succeeds,
 * decremented on the voice manager frees the logical voice), `mixing` the mixer voices reading it
 * (until the mixer's ENDED event), `pending` the streamed plays and seeks still being opened by the
 * decoder pool; UNLOAD refuses while any is non-zero, so PCM (or a streamed sound's path) is never
 * freed under a user.
 *
 * LOAD inserts a placeholder (so a second LOAD of the name answers EEXIST and
 * PLAY answers ENOSOUND until it is ready), then decodes on the libuv
 * threadpool: libsndfile (WAV, FLAC, Ogg, Opus, MP3...), more than two
 * channels folded to the output layout (hld_fold_channels: stereo, or a
 * surround layout's own channels), libsoxr (high quality) when the file rate
 * differs from the engine rate. The completion runs on the main thread.
 * All functions: main thread only.
 */
#ifndef HLD_SOUNDS_H
#define HLD_SOUNDS_H

#include <sndfile.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "clients.h"
#include "hl_mixer.h"
#include "hl_proto.h"

#define HLD_SOUND_BUCKETS 4096 /* hash chains; HL_MAX_SOUNDS / 4 keeps chains short */

struct hld_sounds;

/* A marker of a sound's file (WAV `cue` points, labels from `LIST adtl`
 * `labl`), read at load: its position in the sound's position units (a
 * preloaded sound: engine frames; a streamed one: the file's frames). */
#define HLD_MAX_MARKERS 100 /* libsndfile reads at most 100 cue points */
typedef struct {
    uint64_t pos;
    uint32_t id;
    char label[HL_MAX_NAME + 1];
} hld_marker_t;

typedef struct hld_sound {
    struct hld_sound *next;   /* hash chain */
    struct hld_sounds *owner; /* the table (its budget outlives every stream) */
    char name[HL_MAX_NAME + 1];
    uint32_t ns;      /* namespace: 0 shared, else the client id whose private sound it is */
    uint32_t loader;  /* client id that loaded it (0: the daemon) */
    hld_client_t *cl; /* charged with its bytes and entry (NULL: nobody) */
    int orphan;       /* private sound of a client that left: freed when unused */
    hl_pcm_t pcm;     /* data owned by the entry */
    uint32_t source_rate, flags;
    uint32_t playing; /* logical voices using it (real or virtual) */
    uint32_t mixing;  /* mixer voices reading it: held until the mixer's ENDED, so a
                       * voice fading out after its logical voice ended keeps it */
    uint32_t pending; /* stream starts and seeks queued on the decoder pool */
    size_t bytes;
    int loading;
    /* streamed (HL_LOAD_STREAM): no PCM (pcm.data NULL; pcm.frames and
     * pcm.channels describe it at the engine rate), decoded while it plays */
    int stream;
    uint32_t src_channels;
    uint64_t src_frames; /* at source_rate */
    char *path;
    /* the path its LOAD named (a bank's sound's too), NULL for an upload
     * (LOAD_DATA, LOAD_FD): what a capture's state preamble loads again */
    char *src;
    /* a pack file's range (HL_LOAD offset/length): the sound is bytes
     * [off, off + len) of path (len 0: the whole file) */
    uint64_t off, len;
    /* HL_LOAD_COMPRESSED: the encoded bytes, kept in memory (bytes counts
     * them); stream is set too and each voice decodes from here instead of
     * the file (decoder.c), through libsndfile's virtual I/O */
    struct hld_blob *blob;
    /* the budget (asset issue) */
    int pinned;            /* HL_LOAD_PIN: never evicted */
    uint64_t last_used;    /* the table's use clock at its last play (LRU eviction) */
    _Atomic int cancel;    /* set while loading: the decode stops at its next chunk */
    struct hld_bank *bank; /* the bank it came from, or NULL */
    /* hot reload (--watch-assets, sounds_watch.c) */
    uint64_t gen;     /* unique per entry: a reload completes only on the entry it started on */
    char *wpath;      /* the file's canonical path (realpath), NULL when not watched */
    int wd;           /* inotify watch of its directory, -1: none */
    int dirty;        /* the file changed: reload when the debounce timer fires */
    int reloading;    /* a reload decode is in flight */
    int reload_again; /* it changed again while reloading: reload once more after */
    int retired;      /* replaced by a reload: out of the table, freed when unused */
    struct hld_sound *retired_next; /* hld_sounds_t.retired */
    /* the eviction order (hld_sounds_t.lru_head): every entry in the table,
     * least recently played first (never played ones at the head) */
    struct hld_sound *lru_prev, *lru_next;
    /* markers of its file, by position (NULL: none) */
    hld_marker_t *markers;
    uint32_t nmarkers;
} hld_sound_t;

struct hld_watch;
typedef struct hld_watch_dir {
    int wd;        /* inotify watch descriptor */
    uint32_t refs; /* entries (in the table or retired) with this wd */
} hld_watch_dir_t;
/* A reload finished (status 0: new plays get the new data; < 0: the old
 * data is kept, msg says why). snd: the entry now in the table. Main thread. */
typedef void (*hld_reload_fn)(void *user, const hld_sound_t *snd, int status, const char *msg);

struct hld_files;

typedef struct hld_sounds {
    uv_loop_t *loop;
    /* opens a LOAD's file under the open budget and the per-process cap
     * (fileio.h) before its decode is queued; NULL: the decode opens it */
    struct hld_files *files;
    uint32_t rate;
    uint32_t layout; /* output speakers (HL_LAYOUT_*, 0 stereo): preloads fold to them */
    uint64_t max_bytes;
    hld_sound_t *buckets[HLD_SOUND_BUCKETS];
    uint32_t count; /* entries, loading ones included */
    uint64_t bytes; /* decoded sample bytes held */
    /* bytes held plus what running decode jobs have allocated: the workers
     * reserve here before they allocate, so concurrent loads cannot overshoot
     * max_bytes while they decode (any thread; relaxed is enough: it is a
     * budget, not a synchronisation) */
    _Atomic uint64_t committed;
    _Atomic uint64_t stream_bytes; /* of committed: the rings and buffers of streams alive */
    uint32_t inflight;             /* decode jobs queued or running */
    uint64_t loads_failed;
    uint64_t use_clock;                /* bumped by every play (hld_sounds_touch) */
    uint64_t evictions, evicted_bytes; /* sounds the budget evicted, and their bytes */
    /* the entries in eviction order: a play moves its sound to the tail, an
     * eviction walks from the head once (O(entries), never O(entries^2)) */
    hld_sound_t *lru_head, *lru_tail;
    uint64_t evict_scanned; /* entries eviction walks looked at (STATS: its cost in operations) */
    uint64_t evict_ns_max;  /* the longest single eviction walk, ns */
    uint64_t gen_clock;     /* hld_sound_t.gen */
    /* hot reload (--watch-assets): the watcher (NULL: off) and its inotify
     * fd, which the load workers add a file's directory to (the path lookup
     * stays off the loop) */
    struct hld_watch *watch;
    int watch_fd;                /* -1: off */
    struct hld_watch_dir *wdirs; /* watched directories (by wd) and their users */
    uint32_t nwdirs, cap_wdirs;
    hld_sound_t *retired; /* entries replaced by a reload that voices still use */
    uint32_t nretired;
    uint64_t reloads, reload_failures;
    hld_reload_fn reload_done;
    void *reload_user;
} hld_sounds_t;

/* Completion of hld_sounds_load: status 0 and the new sound, or a negative
 * HELIOD_* code with a message (snd NULL). Main thread. */
typedef void (*hld_load_done_fn)(void *user, int status, const char *msg, const hld_sound_t *snd);

void hld_sounds_init(hld_sounds_t *s, uv_loop_t *loop, uint32_t rate, uint32_t max_sample_mb);
/* Frees every sound. Only when no voice plays any of them. */
void hld_sounds_close(hld_sounds_t *s);

/* The entry called name in namespace ns (loading or not), or NULL. */
hld_sound_t *hld_sounds_find(hld_sounds_t *s, uint32_t ns, const char *name);
/* What client `client` means by name: its own sound, else the shared one. */
hld_sound_t *hld_sounds_lookup(hld_sounds_t *s, uint32_t client, const char *name);

/* Validates and starts a load for client cl (NULL: the daemon's own, shared
 * and charged to nobody): into cl's namespace, or the shared one with
 * HL_LOAD_SHARED. Returns 0 (done will be called exactly once, later) or a
 * negative HELIOD_* code with msg set (done is not called). HLD_LOAD_BANK
 * (a bank's sound): cl's sample quota applies, not its loads in flight. */
#define HLD_LOAD_BANK 0x80000000u
int hld_sounds_load(hld_sounds_t *s, hld_client_t *cl, const char *name, const char *path,
                    uint32_t flags, hld_load_done_fn done, void *user, char *msg, size_t cap);
/* The same, its file opened for process `who` (fileio.h: a world zone's
 * sound, charged to nobody, is opened for the zone's adder). */
int hld_sounds_load_for(hld_sounds_t *s, hld_client_t *cl, uint64_t who, const char *name,
                        const char *path, uint32_t flags, hld_load_done_fn done, void *user,
                        char *msg, size_t cap);
/* As hld_sounds_load for bytes [off, off + len) of path (a pack file; len
 * 0: to the file's end). The worker checks the range against the file
 * (HELIOD_EINVAL "outside the file" otherwise); off + len overflowing is
 * refused here. HL_LOAD_COMPRESSED keeps the encoded bytes in memory (at
 * most HL_MAX_UPLOAD, charged to the budget and cl's quota before they are
 * read) and makes the sound play as a stream decoded from memory. */
int hld_sounds_load_range(hld_sounds_t *s, hld_client_t *cl, const char *name, const char *path,
                          uint64_t off, uint64_t len, uint32_t flags, hld_load_done_fn done,
                          void *user, char *msg, size_t cap);
/* The same, its file opened for process `who` (as hld_sounds_load_for). */
int hld_sounds_load_range_for(hld_sounds_t *s, hld_client_t *cl, uint64_t who, const char *name,
                              const char *path, uint64_t off, uint64_t len, uint32_t flags,
                              hld_load_done_fn done, void *user, char *msg, size_t cap);
/* As hld_sounds_load for an encoded file in memory (an upload): decoded
 * through libsndfile's virtual I/O. On 0 it takes mem (malloc'd, len bytes)
 * and `reserved` bytes already reserved from the budget for it, and frees
 * and gives both back once decoded; on an error the caller keeps them.
 * Preloaded only (HL_LOAD_STREAM: EINVAL). */
int hld_sounds_load_mem(hld_sounds_t *s, hld_client_t *cl, const char *name, uint8_t *mem,
                        size_t len, uint64_t reserved, uint32_t flags, hld_load_done_fn done,
                        void *user, char *msg, size_t cap);
/* As hld_sounds_load_mem for an upload passed as a descriptor (LOAD_FD):
 * on 0 it takes fd (size: the size the client declared, already checked
 * against HL_MAX_UPLOAD); the worker checks it is a regular file of that
 * size, decodes it with pread through libsndfile's virtual I/O (nothing of
 * the encoded size is allocated or mapped) and the completion closes it.
 * On an error the caller keeps fd. */
int hld_sounds_load_fd(hld_sounds_t *s, hld_client_t *cl, const char *name, int fd, size_t size,
                       uint32_t flags, hld_load_done_fn done, void *user, char *msg, size_t cap);
/* Removes a sound: 0 or HELIOD_EINUSE (playing or loading). */
int hld_sounds_unload(hld_sounds_t *s, hld_sound_t *snd);
/* Client `client` left: its private sounds are freed now, or marked orphan
 * and freed by hld_sounds_release when their last user lets go. */
void hld_sounds_drop_client(hld_sounds_t *s, uint32_t client);
/* Call after a sound's playing, mixing or pending count went down: frees
 * an unused orphan. */
void hld_sounds_release(hld_sounds_t *s, hld_sound_t *snd);

/* ---- sound_decode.c: a file or an upload into PCM ---- */

/* An encoded file kept in memory (HL_LOAD_COMPRESSED), shared by its sound
 * and every stream decoding it: freed by the last hld_blob_unref (any
 * thread, never the audio thread). */
typedef struct hld_blob {
    _Atomic uint32_t refs;
    size_t len;
    /* the prefetched head (decoder.h): the first head_frames frames exactly
     * as libsndfile decodes them from the start (the file's channels and
     * order, not yet bounded), decoded once at load; NULL: none. head_whole:
     * they are the whole file. info: the file's description at load. */
    float *head;
    uint32_t head_frames;
    int head_whole;
    SF_INFO info;
    uint8_t data[];
} hld_blob_t;
hld_blob_t *hld_blob_ref(hld_blob_t *b); /* b may be NULL; returns b */
void hld_blob_unref(hld_blob_t *b);      /* b may be NULL */

/* libsndfile's virtual I/O over an encoded file in memory (mem), or over
 * bytes [base, base + len) of a descriptor read with pread (mem NULL). The
 * struct must live as long as the SNDFILE. */
typedef struct {
    const uint8_t *mem;
    int fd;
    uint64_t base;
    size_t len, pos;
} hld_vio_t;
SNDFILE *hld_vio_open(hld_vio_t *v, SF_INFO *info);

/* hld_sound_open for bytes [off, off + len) of path (len 0: to the end of
 * the file): the fd and *size, the range's length, or a negative code with
 * msg (HELIOD_EINVAL when the range is not inside the file). Any thread. */
int hld_sound_open_range(const char *path, uint64_t off, uint64_t len, uint64_t *size, char *msg,
                         size_t cap);
/* Its range check on an open fd: 0 with *size, or a negative code with msg. */
int hld_sound_range_check(int fd, const char *path, uint64_t off, uint64_t len, uint64_t *size,
                          char *msg, size_t cap);

/* Opens a sound file for reading, refusing what is not a regular file (a
 * FIFO would block the caller's thread forever, a device or a directory
 * never ends or never decodes) and empty files. Returns the fd or a negative
 * HELIOD_EFILE / HELIOD_EDECODE with msg set. Any thread. */
int hld_sound_open(const char *path, char *msg, size_t cap);

/* The sample-memory budget (--max-sample-mb), any thread: reserves bytes
 * in committed before they are allocated (0, or -1 when that would go over
 * max_bytes), and gives them back. Streams reserve their ring and buffers
 * while they exist (decoder.c). */
int hld_sounds_reserve(hld_sounds_t *s, uint64_t bytes);
void hld_sounds_unreserve(hld_sounds_t *s, uint64_t bytes);

/* Checks what sf_open reported before anything is allocated: 1..8
 * channels (HLD_MAX_SRC_CHANNELS), a rate of HLD_MIN_SRC_RATE..
 * HLD_MAX_SRC_RATE, a known, sane length (not SF_COUNT_MAX, not negative,
 * not 0) of at most HL_MAX_SOUND_SECONDS (preloaded) or
 * HLD_MAX_STREAM_SECONDS (stream). 0 or HELIOD_EDECODE / HELIOD_ETOOBIG
 * with msg set. Any thread. */
int hld_sound_check_info(const SF_INFO *info, int stream, char *msg, size_t cap);

/* The one bound every decoded sample passes (preloads, uploads, banks,
 * zones and streams alike): replaces every NaN or infinite sample of
 * x[0..n) by 0 and clips every finite one beyond +-HLD_MAX_SAMPLE to it;
 * returns how many it changed. Any thread. */
uint64_t hld_sanitize(float *x, size_t n);
/* Downmix (sound_decode.c; the stream decoder's too): interleaved frames of
 * ch > 2 channels to stereo, in place. */
void hld_downmix(float *d, uint32_t frames, uint32_t ch);
/* A preloaded sound's channels on output layout `layout` (HL_LAYOUT_*):
 * mono and stereo stay; 4, 6 and 8 channels (quad, 5.1, 7.1 in WAVE order)
 * on a surround layout become the layout's channels (wider files by the
 * BS.775 matrix, hl_layout_downmix; the same layout as is; narrower files
 * speaker to speaker, the missing speakers silent); anything else, or on
 * stereo, 2 (hld_downmix). hld_fold_matrix fills m (HL_LAYOUT_MAX_CH^2,
 * m[o * HL_LAYOUT_MAX_CH + i]) when the result has more than 2 channels
 * and returns the same count. Any thread. */
uint32_t hld_fold_channels(uint32_t ch, uint32_t layout);
uint32_t hld_fold_matrix(uint32_t ch, uint32_t layout, float *m);
/* Folds `frames` interleaved frames of ch channels to hld_fold_channels(ch,
 * layout) in place (d holds frames x the larger of the two counts), bounded
 * to +-HLD_MAX_SAMPLE: the preload's fold and the stream decoder's, so a
 * sound streamed or kept compressed keeps the channels it would keep
 * preloaded. Any thread. */
void hld_fold_frames(float *d, uint32_t frames, uint32_t ch, uint32_t layout);
/* Ogg Vorbis and Opus store 3, 5, 6, 7 and 8 channels in Vorbis order (L C
 * R ..., the LFE last), which libsndfile hands over as is: hld_ogg_order says
 * whether a file's frames need hld_ogg_to_wave (in place) before they are
 * WAVE order like every other file's. Any thread. */
int hld_ogg_order(const SF_INFO *info);
void hld_ogg_to_wave(float *d, uint32_t frames, uint32_t ch);

/* One decode, the loader's whole path from an open SNDFILE (also what
 * tests/fuzz drives over libsndfile's virtual I/O): caps, then the decoded
 * size is reserved from budget before any allocation, then decode, bound
 * the samples (hld_sanitize), downmix, resample to rate (bounded again). Any thread. */
typedef struct {
    /* in */
    uint32_t rate;       /* engine rate */
    uint32_t layout;     /* output speakers (HL_LAYOUT_*): a preload's channels fold to it */
    int stream;          /* 1: only check and probe the first chunk, keep nothing */
    _Atomic int *cancel; /* non-zero: stop at the next chunk (HELIOD_ECANCELED); may be NULL */
    hld_sounds_t *budget;
    hld_client_t *quota; /* the loading client's sample-byte quota, or NULL */
    /* out */
    uint64_t reserved; /* bytes held in budget->committed and quota (the caller gives them back) */
    int status;        /* 0 or a negative HELIOD_* code with msg */
    char msg[HL_MAX_MSG + 1];
    float *data; /* preloaded: frames x channels at rate (caller frees) */
    uint32_t frames, channels, source_rate, src_channels;
    uint64_t src_frames;
    uint64_t nonfinite;    /* samples hld_sanitize zeroed or clipped */
    uint64_t wanted;       /* with ENOMEM from the budget: the bytes it tried to reserve */
    hld_blob_t *blob;      /* hld_decode_compressed: the encoded bytes (reserved) */
    hld_marker_t *markers; /* the file's markers by position (caller frees), NULL: none */
    uint32_t nmarkers;
} hld_decode_t;

/* Fills d from sf (which the caller closes). Returns d->status. */
int hld_decode_sndfile(hld_decode_t *d, SNDFILE *sf, const SF_INFO *info);
/* The same from a file by path (hld_sound_open, then libsndfile), or from
 * an upload: the encoded file in memory (mem) or in a descriptor (fd >= 0,
 * read with pread) of len bytes. Return d->status. Any thread. */
int hld_decode_path(hld_decode_t *d, const char *path);
/* The same from a file already opened (hld_sound_open), read from its
 * start; fd stays open (the caller closes it). */
int hld_decode_fd(hld_decode_t *d, int fd);
/* hld_decode_path for bytes [off, off + len) of path (a pack file). */
int hld_decode_path_range(hld_decode_t *d, const char *path, uint64_t off, uint64_t len);
/* The same from a file already opened (path: for messages); fd stays open. */
int hld_decode_fd_range(hld_decode_t *d, int fd, const char *path, uint64_t off, uint64_t len);
/* HL_LOAD_COMPRESSED: reserves the range's size (budget, quota), reads the
 * encoded bytes into d->blob and probes them as a stream (d->stream must be
 * 1): the description is filled and the prefetched head (hld_blob_t.head,
 * reserved too) decoded, nothing more.
 * At most HL_MAX_UPLOAD bytes (ETOOBIG). Returns d->status. */
int hld_decode_compressed(hld_decode_t *d, const char *path, uint64_t off, uint64_t len);
/* The same from a file already opened (path: for messages); fd stays open. */
int hld_decode_compressed_fd(hld_decode_t *d, int fd, const char *path, uint64_t off, uint64_t len);
int hld_decode_upload(hld_decode_t *d, const uint8_t *mem, int fd, size_t len);
/* Ends a decode with status and the message fmt % detail: the data freed,
 * the reservation given back. Returns status. */
int hld_decode_fail(hld_decode_t *d, int status, const char *fmt, const char *detail);
/* Gives bytes of the decode's reservation back (budget and quota). */
void hld_decode_unreserve(hld_decode_t *d, uint64_t bytes);

/* The budget: a play marks the sound used (least recently used goes first). */
void hld_sounds_touch(hld_sounds_t *s, hld_sound_t *snd);
/* 1 if snd may be evicted: preloaded, loaded, unpinned, no voice or stream
 * start or seek using it. */
int hld_sound_evictable(const hld_sound_t *snd);
/* Evicts evictable sounds of cl's process (cl NULL: those charged to nobody),
 * least recently played first, until `need`
 * more bytes fit under --max-sample-mb; returns the bytes freed (maybe
 * less than needed: then nothing more can go). */
uint64_t hld_sounds_evict(hld_sounds_t *s, uint64_t need, const hld_client_t *cl);
/* Bytes held by pinned and by evictable sounds (STATS). */
void hld_sounds_budget(const hld_sounds_t *s, uint64_t *pinned, uint64_t *evictable);
/* Stops a load in flight: its decode stops at the next chunk and completes
 * with HELIOD_ECANCELED, giving its memory back. No effect on a loaded sound. */
void hld_sounds_cancel(hld_sound_t *snd);

/* Hot reload: decodes snd's file again on the load workers (a reload
 * already in flight is marked to run once more when it ends). On success
 * a new entry with the same name replaces snd in the table: new plays get
 * the new data; snd is retired and freed when its last voice, mixer voice
 * or stream open lets go (its bytes count in the budget until then). On a
 * failure snd stays as it was. Either way s->reload_done is called. */
void hld_sounds_reload(hld_sounds_t *s, hld_sound_t *snd);

/* Calls fn for every ready sound, in table order, until fn returns non-zero. */
void hld_sounds_foreach(hld_sounds_t *s, int (*fn)(void *user, const hld_sound_t *snd), void *user);
/* Reply/list form of an entry. */
void hld_sound_info(const hld_sound_t *snd, hl_sound_info_t *out);

#endif /* HLD_SOUNDS_H */
