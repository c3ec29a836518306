/*
 * heliod_sounds.h - libheliod: loading and unloading sounds.
 *
 * Part of heliod.h, which includes it after its common types (heliod_t,
 * heliod_voice_t): a game includes <heliod.h> only.
 */
#ifndef HELIOD_SOUNDS_H
#define HELIOD_SOUNDS_H

#ifndef HELIOD_H
#error "include <heliod.h>, not heliod_sounds.h"
#endif

/* ---- sounds ---- */
/* HELIOD_LOAD_STREAM: open and validate now, decode while playing (music,
 * long sounds): each voice gets its own decoder position and a small ring. */
#define HELIOD_LOAD_STREAM 0x1u
/* HELIOD_LOAD_COMPRESSED (protocol 1.1): the encoded file (Ogg Vorbis, Opus,
 * FLAC...) stays in the daemon's memory and each voice decodes it while it
 * plays, like a stream without disk I/O. Not with HELIOD_LOAD_STREAM. The
 * sound's info reports it with HELIOD_LOAD_STREAM. */
#define HELIOD_LOAD_COMPRESSED 0x8u
/* HELIOD_LOAD_SHARED: visible to every client under its name (default: this
 * connection's own, gone when it closes). Only the loader or a control
 * client may unload it. A client's own sound hides a shared one of the same
 * name from that client. */
#define HELIOD_LOAD_SHARED 0x2u
typedef struct {
    char name[64];
    uint32_t frames; /* at the engine rate */
    uint32_t channels;
    uint32_t source_rate;
    uint32_t flags; /* HELIOD_LOAD_* */
    uint32_t playing;
    uint32_t owner; /* client id of the connection that loaded it */
} heliod_sound_info_t;
int heliod_ping(heliod_t *h, uint64_t *server_time_ns);
/* Decodes path (any format libsndfile reads) into a named sound. info may be NULL.
 * A relative path is resolved against the caller's working directory first
 * (the daemon has its own and takes absolute paths only). */
int heliod_load(heliod_t *h, const char *name, const char *path, uint32_t flags,
                heliod_sound_info_t *info);
/* As heliod_load for `length` bytes at byte `offset` of path (a pack file
 * holding whole encoded files; length 0: to the file's end). A range not
 * inside the file is HELIOD_EINVAL. Preloaded, HELIOD_LOAD_STREAM or
 * HELIOD_LOAD_COMPRESSED alike. Needs a protocol 1.1 daemon (HELIOD_EVERSION
 * on a 1.0 one, as does HELIOD_LOAD_COMPRESSED). */
int heliod_load_range(heliod_t *h, const char *name, const char *path, uint64_t offset,
                      uint64_t length, uint32_t flags, heliod_sound_info_t *info);
int heliod_unload(heliod_t *h, const char *name);
/* Loads a sound from an encoded file in memory (Ogg, FLAC, WAV ... as
 * heliod_load reads them), sent over the socket: for games that do not share
 * a filesystem with the daemon. Up to 256 MiB, counted against the
 * daemon's sample-memory budget before it allocates anything. flags:
 * HELIOD_LOAD_SHARED, HELIOD_LOAD_PIN (an upload is preloaded, never
 * streamed). Blocking: returns when the sound is decoded.
 * How it travels: the bytes are copied into a sealed memfd whose descriptor
 * goes with one LOAD_FD frame (SCM_RIGHTS; the daemon reads it, nothing is
 * copied through the socket); when that is not available (memfd_create
 * fails, a daemon that answers LOAD_FD with EBADOP, or the environment
 * variable HELIOD_UPLOAD=chunks) in LOAD_DATA chunks of 60000 bytes. The
 * daemon's STATS uploads_fd and uploads_chunked count each way. */
int heliod_load_memory(heliod_t *h, const char *name, const void *data, size_t size, uint32_t flags,
                       heliod_sound_info_t *info);
/* Fills up to cap entries; *count = entries filled. Returns 0 or 1 if the
 * server's list was truncated, or an error. */
int heliod_sounds(heliod_t *h, heliod_sound_info_t *arr, size_t cap, size_t *count);

#endif /* HELIOD_SOUNDS_H */
