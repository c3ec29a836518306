/*
 * hl_shm_stream.h - the shared memory of a client-fed stream (STREAM,
 * PROTOCOL.md "Client-fed streams"): a header and a single-producer /
 * single-consumer ring of frames, in a sealed memfd the client creates and
 * both sides map. The client writes frames and `write`, `eos`, `waiting`;
 * the daemon writes `read`, `underruns`, `state` and `wake`. Every field is
 * naturally aligned and written by one side only; each side publishes with
 * a release store and reads the other's with an acquire load. The daemon
 * never trusts what the client wrote: it keeps its own read position,
 * clamps `write - read` to the capacity, and never reads back its fields.
 *
 *   off  size  field      writer  meaning
 *   0    4     magic      client  HL_SHM_MAGIC
 *   4    4     version    client  HL_SHM_VERSION
 *   8    4     frames     client  ring capacity (a power of two), = STREAM frames
 *   12   4     channels   client  1 or 2, = STREAM channels
 *   16   4     format     client  HL_SHM_F32 / S16 / U8, = STREAM format
 *   20   4     rate       client  Hz, = STREAM rate (resolved: never 0)
 *   64   8     write      client  frames written since the start (free-running)
 *   72   4     eos        client  1: no more frames; the voice plays out and ends
 *   76   4     waiting    client  1 while the writer sleeps on `wake` for room
 *   128  8     read       daemon  frames taken from the ring (the consumed count)
 *   136  8     underruns  daemon  underrun episodes
 *   144  4     state      daemon  0 playing; 1 + HL_END_* once the voice ended
 *   148  4     wake       daemon  futex word: bumped (and FUTEX_WAKE) when the
 *                                 daemon's main loop saw `read` move while
 *                                 `waiting` was set, or the voice ended
 *   256  ...   ring       client  frames x channels samples of `format`,
 *                                 frame i at ring + (i % frames) * frame size
 *
 * The memfd's size is exactly HL_SHM_HDR + frames * channels * sample size,
 * sealed F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL before it is sent.
 */
#ifndef HL_SHM_STREAM_H
#define HL_SHM_STREAM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define HL_SHM_MAGIC      0x4d53484cu /* "LHSM" little-endian */
#define HL_SHM_VERSION    1u
#define HL_SHM_HDR        256u
#define HL_SHM_F32        0u
#define HL_SHM_S16        1u
#define HL_SHM_U8         2u
#define HL_SHM_MIN_FRAMES 256u
#define HL_SHM_MAX_FRAMES 4194304u /* 4 Mi frames: 32 MiB of stereo float at most */
#define HL_SHM_MIN_RATE   8000u
#define HL_SHM_MAX_RATE   384000u

typedef struct {
    uint32_t magic, version, frames, channels, format, rate;
    uint8_t pad0_[64 - 24];
    _Atomic uint64_t write;
    _Atomic uint32_t eos;
    _Atomic uint32_t waiting;
    uint8_t pad1_[128 - 80];
    _Atomic uint64_t read;
    _Atomic uint64_t underruns;
    _Atomic uint32_t state;
    _Atomic uint32_t wake;
    uint8_t pad2_[HL_SHM_HDR - 152];
} hl_shm_hdr_t;

_Static_assert(sizeof(hl_shm_hdr_t) == HL_SHM_HDR, "the header is 256 bytes");
_Static_assert(offsetof(hl_shm_hdr_t, write) == 64 && offsetof(hl_shm_hdr_t, eos) == 72 &&
                   offsetof(hl_shm_hdr_t, waiting) == 76 && offsetof(hl_shm_hdr_t, read) == 128 &&
                   offsetof(hl_shm_hdr_t, underruns) == 136 &&
                   offsetof(hl_shm_hdr_t, state) == 144 && offsetof(hl_shm_hdr_t, wake) == 148,
               "the documented offsets");

/* Bytes per sample of a format, 0 if unknown. */
static inline uint32_t hl_shm_sample_size(uint32_t format) {
    return format == HL_SHM_F32 ? 4u : format == HL_SHM_S16 ? 2u : format == HL_SHM_U8 ? 1u : 0u;
}

/* The memfd's size for a stream, 0 if the arguments are out of range. */
static inline uint64_t hl_shm_size(uint32_t frames, uint32_t channels, uint32_t format) {
    uint32_t ss = hl_shm_sample_size(format);
    if (!ss || (channels != 1 && channels != 2) || frames < HL_SHM_MIN_FRAMES ||
        frames > HL_SHM_MAX_FRAMES || (frames & (frames - 1)))
        return 0;
    return (uint64_t)HL_SHM_HDR + (uint64_t)frames * channels * ss;
}

#endif /* HL_SHM_STREAM_H */
