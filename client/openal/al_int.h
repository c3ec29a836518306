/*
 * al_int.h - heliod's OpenAL 1.1 library: its internal state and the core
 * every other file stands on.
 *
 * One process-wide lock (g_al.lock) guards everything: the devices, their
 * connection to heliod (a heliod_t is not thread-safe), the contexts,
 * buffers and sources. Every entry point takes it; the event thread takes
 * it to dispatch what the daemon sends (voice ends, play replies) and to
 * reconnect. Sources and buffers are local records: a daemon voice exists
 * only while a source plays, a buffer is one daemon sound uploaded once.
 *
 * The files, each calling only the ones below it:
 *   al_names.c                 alGetProcAddress / alGetEnumValue: every entry point by name
 *   al_state.c                 the context's global state and the listener
 *   alc.c, alc_query.c         devices and contexts; ALC strings, integers, errors
 *   alc_conn.c                 a device's connection to heliod and the event thread
 *   al_source.c ... al_queue.c sources (al_src.h lists them)
 *   al_buffer.c, al_math.c     buffers (one daemon sound each); OpenAL's 3D math
 *   al_core.c                  the lock, errors, the engine clock, requests
 * A lower file reaches a higher one only through a hook it is given
 * (g_al.conn_lost).
 */
#ifndef AL_INT_H
#define AL_INT_H

#include <AL/al.h>
#include <AL/alc.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "heliod.h"

#define ALH_EXPORT __attribute__((visibility("default")))

/* The ALC extension entry points that <AL/alext.h> declares only with
 * AL_ALEXT_PROTOTYPES (alc.c defines them, al_names.c lists them). */
ALH_EXPORT void ALC_APIENTRY alcDevicePauseSOFT(ALCdevice *device);
ALH_EXPORT void ALC_APIENTRY alcDeviceResumeSOFT(ALCdevice *device);
ALH_EXPORT ALCboolean ALC_APIENTRY alcSetThreadContext(ALCcontext *context);
ALH_EXPORT const ALCchar *ALC_APIENTRY alcGetStringiSOFT(ALCdevice *device, ALCenum param,
                                                         ALCsizei index);
ALH_EXPORT ALCboolean ALC_APIENTRY alcResetDeviceSOFT(ALCdevice *device, const ALCint *attribs);
ALH_EXPORT ALCcontext *ALC_APIENTRY alcGetThreadContext(void);

/* Every AL entry point: the lock and the current context `c` (an error-less
 * return when there is none, as OpenAL Soft); ALH_LEAVE unlocks and returns. */
#define ALH_ENTER(ret)                                                                             \
    alh_lock();                                                                                    \
    ALCcontext *c = alh_ctx();                                                                     \
    if (!c) {                                                                                      \
        alh_unlock();                                                                              \
        return ret;                                                                                \
    }
#define ALH_LEAVE(ret)                                                                             \
    do {                                                                                           \
        alh_unlock();                                                                              \
        return ret;                                                                                \
    } while (0)

#define ALH_MAX_SOURCES 4096
#define ALH_MAX_BUFFERS 65536
#define ALH_QMAX        65536 /* buffers queued on one source */

struct ALCdevice_struct {
    int used;
    heliod_t *h;        /* NULL while heliod is away */
    int connected;      /* ALC_CONNECTED */
    int pan_law;        /* 1: the daemon speaks protocol 1.1 (per-voice pan law) */
    uint32_t rate;      /* the engine's rate */
    uint32_t period;    /* its period */
    heliod_clock_t clk; /* engine frame <-> CLOCK_MONOTONIC */
    uint64_t clk_read_ns;
    int suspended;        /* a bundle is open (alcSuspendContext) */
    int paused;           /* alcDevicePauseSOFT: voices held, the clock frozen */
    int daemon_hrtf;      /* the daemon renders its 3D voices binaurally (STATS "hrtf") */
    int hrtf_req;         /* the program asked ALC_HRTF_SOFT = ALC_TRUE */
    int hrtf_on;          /* both: mono sources play as daemon 3D voices (binaural) */
    ALCenum hrtf_status;  /* ALC_HRTF_STATUS_SOFT: what the last ALC_HRTF_SOFT request got */
    uint64_t pause_frame; /* the engine frame it paused on */
    int bundle_n;         /* requests in it (a bundle holds at most 64) */
    ALCenum error;
    uint64_t retry_ns; /* next reconnect attempt */
    char socket[256];
};

typedef struct {
    float pos[3], vel[3], at[3], up[3], gain;
} alh_listener_t;

struct ALCcontext_struct {
    int used;
    ALCdevice *dev;
    ALenum error;
    alh_listener_t lis;
    ALenum dist_model;
    float doppler, doppler_vel, sound_speed;
    int attr_freq, attr_mono, attr_stereo, attr_refresh, attr_sync;
};

typedef struct {
    int used;
    ALCdevice *dev;
    ALuint id;
    uint32_t gen; /* its upload's serial (process-wide): part of the daemon sound's name */
    int channels; /* 1, 2: what plays (data's layout) */
    int bits;     /* 8, 16, 32 (float) */
    int al_channels, al_bits; /* what the program gave (AL_EXT_MCFORMATS: 2..8 channels,
                               * downmixed at alBufferData into stereo float data) */
    ALsizei freq;
    void *data; /* the PCM as given (kept to upload again after a reconnect) */
    size_t size;
    uint32_t frames;     /* source frames */
    uint32_t eng_frames; /* frames at the engine rate, as the daemon decoded it */
    int uploaded;
    char sound[64];
    int refs; /* sources holding it (AL_BUFFER or queued) */
} alh_buffer_t;

typedef struct {
    ALuint buf;
    heliod_voice_t voice;
    uint32_t serial; /* the play in flight for this entry (0: none) */
    uint64_t start;  /* engine frame its voice starts */
    uint64_t len;    /* its length in engine frames at the pitch it plays */
    double off0;     /* source frames into its buffer it started from */
    int started;     /* a voice was requested */
    int ended;       /* its voice ended (event) */
} alh_qent_t;

typedef struct {
    int used;
    ALCcontext *ctx;
    ALuint id;
    float gain, min_gain, max_gain, pitch;
    float pos[3], vel[3], dir[3];
    float cone_in, cone_out, cone_out_gain;
    float ref_dist, max_dist, rolloff;
    int relative, looping;
    int direct;    /* AL_DIRECT_CHANNELS_SOFT: stereo passes through (it always does) */
    ALenum type;   /* AL_UNDETERMINED, AL_STATIC, AL_STREAMING */
    ALenum state;  /* AL_INITIAL, AL_PLAYING, AL_PAUSED, AL_STOPPED */
    alh_qent_t *q; /* the queue (a static source: one entry), grown as needed */
    int qn, qcap;
    /* playback bookkeeping (engine frames of the device's clock) */
    double ratio;       /* source frames per engine frame while playing */
    double paused_off;  /* PAUSED: source frames into the queue */
    double pending_off; /* INITIAL/STOPPED/PAUSED: where the next play starts (-1 none) */
    int started_exact;  /* the STARTED event fixed q[0].start */
    double off_hi;      /* the highest offset read since the play (offsets never go back) */
    /* a queue on a client-fed stream (NULL: one voice per buffer) */
    heliod_stream_t *st;
    int st_wi;        /* the entry being written into the ring */
    uint32_t st_woff; /* frames of it written */
    int64_t st_base;  /* stream frame where q[0] starts (negative: played from inside) */
    /* what the daemon voices were last told */
    float sent_gain_db, sent_pan, sent_pitch, sent_dir[3];
    int sent_valid;
} alh_source_t;

typedef struct {
    pthread_mutex_t lock;
    ALCdevice devs[4];
    ALCcontext ctxs[16];
    ALCcontext *current;
    alh_source_t *src;  /* ALH_MAX_SOURCES, id = index + 1 */
    alh_buffer_t **buf; /* ALH_MAX_BUFFERS pointers, id = index + 1 */
    uint32_t serial;
    pthread_t thread;
    int thread_running, thread_stop;
    int wake[2];        /* pipe: wakes the event thread */
    ALCenum null_error; /* ALC errors of a NULL / unknown device */
    /* what a lost connection does (alc_conn.c sets it when it connects) */
    void (*conn_lost)(ALCdevice *d);
} alh_global_t;

extern alh_global_t g_al;
extern __thread ALCcontext *alh_tls_ctx;

/* ---- the core (al_core.c) ---- */
void alh_lock(void);
void alh_unlock(void);
/* The context this thread uses (thread-local one first), or NULL. Locked. */
ALCcontext *alh_ctx(void);
void alh_set_error(ALCcontext *c, ALenum e);
/* alh_set_error on the current context, from an entry point not holding the lock. */
void alh_error(ALenum e);
/* The text of an AL error (alc 0) or an ALC error (alc 1): the two share the
 * codes 0, 0xA001..0xA005 under other names. NULL if e is none. */
const char *alh_error_text(int e, int alc);
/* An array argument of n elements: 1, or 0 and AL_INVALID_VALUE on c. */
int alh_array_ok(ALCcontext *c, ALsizei n, const void *a);
/* Checks a device / context pointer (NULL if not one of ours). Locked. */
ALCdevice *alh_dev_ok(ALCdevice *d);
ALCcontext *alh_ctx_ok(ALCcontext *c);
/* An ALC error on d, or on the NULL device if d is not one of ours. Locked. */
void alh_dev_error(ALCdevice *d, ALCenum e);
/* Is name (case-insensitive) one of the space-separated list? 1 or 0, an
 * int that alIsExtensionPresent and alcIsExtensionPresent return as it is:
 * a program that reads their ALboolean as an int (ctypes' default restype)
 * then sees no bits above it. */
int alh_ext_in(const char *list, const char *name);
/* Estimated engine frame now. Locked. */
uint64_t alh_now_frame(ALCdevice *d);
uint64_t alh_mono_ns(void);
/* A failed libheliod call on d: a lost connection stops every source
 * (g_al.conn_lost). Locked. */
void alh_conn_check(ALCdevice *d, int rc);
/* Before each async request: a bundle that is nearly full is sent and a
 * new one opened (one bundle carries at most 64 requests). Locked. */
void alh_req(ALCdevice *d);
/* Sends the batch unless a bundle is open. Locked. */
void alh_flush(ALCdevice *d);

/* ---- a device's connection and the event thread (alc_conn.c) ---- */
/* Connects d to heliod (locked). 0 or a heliod error. */
int alh_dev_connect(ALCdevice *d);
/* ALC_HRTF_STATUS_SOFT from what was asked and what the daemon renders. */
void alh_hrtf_status(ALCdevice *d);
void alh_thread_start(void);
/* Stops the event thread when no device is left (unlocks while it joins). */
void alh_thread_stop_if_idle(void);

/* ---- buffers (al_buffer.c) ---- */
alh_buffer_t *alh_buffer_get(ALuint id);
int alh_buffer_upload(alh_buffer_t *b); /* locked; 0 or a heliod error */
void alh_buffers_reupload(ALCdevice *d);
void alh_buffers_lost(ALCdevice *d); /* the daemon went away: its sounds with it */
void alh_buffers_drop_device(ALCdevice *d);

/* ---- sources, for the files above them (al_play.c) ---- */
void alh_sources_lost(ALCdevice *d); /* the daemon went away */
void alh_sources_context_gone(ALCcontext *c);
void alh_sources_respatialise(ALCcontext *c); /* listener or global change */
void alh_on_event(ALCdevice *d, const heliod_event_t *ev);
void alh_sources_tick(ALCdevice *d);                   /* the event thread: queue bookkeeping */
void alh_sources_shift(ALCdevice *d, uint64_t frames); /* a device pause ended */

/* ---- 3D: OpenAL's math (al_math.c) ---- */
typedef struct {
    float gain;   /* linear, before the pan law */
    float pan;    /* [-1, 1] for the voice's pan law */
    float pitch;  /* pitch x Doppler */
    int hrtf;     /* ALC_SOFT_HRTF on (a mono source): a daemon 3D voice at dir, 1 m away,
                   * rendered binaurally; gain is then the gain before any panning */
    float dir[3]; /* the unit direction to the source in the listener's frame */
} alh_voice_mix_t;
void alh_spatialise(const ALCcontext *c, const alh_source_t *s, int channels, int openal_law,
                    alh_voice_mix_t *out);

#endif
