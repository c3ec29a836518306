/*
 * heliod_events.h - libheliod: events, meters and the profiler.
 *
 * Part of heliod.h, which includes it after its common types (heliod_t,
 * heliod_voice_t): a game includes <heliod.h> only.
 */
#ifndef HELIOD_EVENTS_H
#define HELIOD_EVENTS_H

#ifndef HELIOD_H
#error "include <heliod.h>, not heliod_events.h"
#endif

/* ---- events ---- */
#define HELIOD_SUB_ENDED   0x1u
#define HELIOD_SUB_STARTED 0x2u
#define HELIOD_SUB_ALL     0x4u  /* events of every client's voices, not only this connection's */
#define HELIOD_SUB_VIRTUAL 0x8u  /* HELIOD_EVENT_VIRTUAL and HELIOD_EVENT_REAL */
#define HELIOD_SUB_DEVICE  0x10u /* HELIOD_EVENT_DEVICE_LOST and HELIOD_EVENT_DEVICE_BACK */
#define HELIOD_SUB_METER   0x20u /* HELIOD_EVENT_METER, at the rate heliod_subscribe_meter sets */
#define HELIOD_SUB_BANK    0x40u /* HELIOD_EVENT_BANK: a bank's state and progress */
#define HELIOD_SUB_ZONES   0x80u /* HELIOD_EVENT_ZONE_TICK: the world-zone scheduler's reports */
int heliod_subscribe(heliod_t *h, uint32_t mask);
/* As heliod_subscribe, with the rate of METER events: meter_hz 0 = 20 per
 * second, else 1..100. Returns 0, HELIOD_EINVAL or a connection error. Blocking. */
int heliod_subscribe_meter(heliod_t *h, uint32_t mask, float meter_hz);

#define HELIOD_EVENT_ERROR       1
#define HELIOD_EVENT_ENDED       2
#define HELIOD_EVENT_STARTED     3
#define HELIOD_EVENT_VIRTUAL     4 /* the voice stopped being mixed; reason HELIOD_VIRT_WHY_* */
#define HELIOD_EVENT_REAL        5 /* the voice is mixed again */
#define HELIOD_END_FINISHED      0
#define HELIOD_END_STOPPED       1
#define HELIOD_END_STOLEN        2
#define HELIOD_END_OWNER         3
#define HELIOD_END_SHUTDOWN      4
#define HELIOD_END_EVICTED       5 /* an overflow policy made room for a newer play */
#define HELIOD_END_DISTANCE      6 /* beyond max distance with beyond = release */
#define HELIOD_END_EMITTER       7 /* its emitter was destroyed */
#define HELIOD_END_KILLED        8 /* virtualised with virtual = kill */
#define HELIOD_END_LIFETIME      9 /* a detached loop reached the daemon's --detached-loop-max-s */
#define HELIOD_VIRT_WHY_RANK     0 /* more important voices hold every real voice */
#define HELIOD_VIRT_WHY_FLOOR    1 /* below the audibility floor */
#define HELIOD_VIRT_WHY_DISTANCE 2 /* beyond max distance */
#define HELIOD_VIRT_WHY_PAUSED   3 /* paused while real voices were short */
#define HELIOD_VIRT_WHY_GOVERNED 4 /* the daemon's CPU budget could not afford it */
/* HELIOD_EVENT_DEVICE_LOST: the output device stopped (message: its name;
 * time_ns: its last callback); the engine runs on the null driver's clock
 * meanwhile. HELIOD_EVENT_DEVICE_BACK: it is back (message: its name;
 * time_ns: when audio resumed). Subscription HELIOD_SUB_DEVICE. */
#define HELIOD_EVENT_DEVICE_LOST 6
#define HELIOD_EVENT_DEVICE_BACK 7
/* HELIOD_EVENT_METER (subscription HELIOD_SUB_METER): the daemon's meters.
 * Levels are dBFS per channel (0 left, 1 right), -144 for silence: the peak
 * bar (jumps to each peak, falls 20 dB/s), the peak-hold marker (held 1.5 s,
 * then falls) and the rms over the last 300 ms. The master is metered after
 * the limiter (what the device plays), each bus where it joins its parent.
 * Loudness (EBU R128, the master): momentary (400 ms), short-term (3 s) and
 * integrated (gated, since the daemon started or a STATS reset) in LUFS,
 * -144 until measurable; range (LRA) in LU. */
#define HELIOD_EVENT_METER     8
#define HELIOD_EVENT_BANK      9  /* bank: a bank's state or progress changed */
#define HELIOD_EVENT_ZONE_TICK 10 /* message: one world-zone scheduler tick's report */
/* HELIOD_EVENT_RELOAD (subscription HELIOD_SUB_BANK; a daemon run with
 * --watch-assets): a loaded sound's file changed and was decoded again.
 * sound: its name; status 0: new plays get the new data (frames: its new
 * length at the engine rate; voices already playing finish on the old);
 * status < 0: the reload failed, the old data stays (message says why). */
#define HELIOD_EVENT_RELOAD 11
/* HELIOD_EVENT_BEAT and HELIOD_EVENT_BAR (subscription HELIOD_SUB_MUSIC;
 * protocol 1.1): a beat of a voice whose cue has a tempo map (cue sheet
 * `tempo`). frame: the engine frame it falls on (the first at or after the
 * beat's position in the sound); time_ns: that frame's CLOCK_MONOTONIC time
 * on the engine's clock (add CLOCK's output latency for when it is heard);
 * beat and bar: 0-based since the sound's start; beat_in_bar; bpm there.
 * BAR replaces BEAT on a bar's first beat. Sent within about half an audio
 * period of time_ns, usually ahead of it. In heliod_event_t: voice, time_ns,
 * reason = beat_in_bar, frames = bar; the whole beat: heliod_event_beat.
 * HELIOD_EVENT_MARKER (same subscription): the voice passed a marker of its
 * sound's file (a WAV cue point, read at load): message = its label ("" if
 * none), frames = its cue point id; heliod_event_beat gives its frame and
 * time (beat = the id). */
#define HELIOD_SUB_MUSIC       0x400u
#define HELIOD_EVENT_BEAT      13
#define HELIOD_EVENT_BAR       14
#define HELIOD_EVENT_MARKER    15
#define HELIOD_METER_MAX_BUSES 32
typedef struct {
    char name[64]; /* the bus name; "master" for the master */
    float peak_db[2], peak_hold_db[2], rms_db[2];
} heliod_level_t;
typedef struct {
    uint64_t frame; /* engine frame the readings are as of */
    heliod_level_t master;
    unsigned nbuses;
    heliod_level_t bus[HELIOD_METER_MAX_BUSES];
    float momentary, short_term, integrated, range;
} heliod_meter_t;
/* Every channel of a surround layout (since 1.1): heliod_meter_t's levels
 * carry the front pair; heliod_meter_channels(meter) gives all of them, in
 * the layout's order (FL FR FC LFE BL BR SL SR: 4 quad FL FR BL BR, 6 5.1, 8
 * 7.1; 2 on stereo or from a daemon that sends no more), for the master and
 * the buses of meter->bus[] in the same order. */
#define HELIOD_METER_MAX_CH 8
typedef struct {
    float peak_db[HELIOD_METER_MAX_CH], peak_hold_db[HELIOD_METER_MAX_CH];
    float rms_db[HELIOD_METER_MAX_CH];
} heliod_level_ch_t;
typedef struct {
    unsigned channels; /* 2..8 */
    heliod_level_ch_t master;
    heliod_level_ch_t bus[HELIOD_METER_MAX_BUSES];
} heliod_meter_channels_t;
/* The channels of a METER event's meter the library delivered to the event
 * callback (valid during the callback), else NULL. On 7.1.4 (12 channels)
 * it holds the bed's 8 (channels 8): heliod_meter_all has all of them. */
const heliod_meter_channels_t *heliod_meter_channels(const heliod_meter_t *meter);
/* Every channel of a surround layout, 7.1.4's too (FL FR FC LFE BL BR SL SR
 * TFL TFR TBL TBR): as heliod_meter_channels, up to HELIOD_METER_ALL_CH
 * (9..12 from a daemon of protocol 1.2; a 1.1 daemon sends 8 at most). */
#define HELIOD_METER_ALL_CH 12
typedef struct {
    float peak_db[HELIOD_METER_ALL_CH], peak_hold_db[HELIOD_METER_ALL_CH];
    float rms_db[HELIOD_METER_ALL_CH];
} heliod_level_all_t;
typedef struct {
    unsigned channels; /* 2..12 */
    heliod_level_all_t master;
    heliod_level_all_t bus[HELIOD_METER_MAX_BUSES];
} heliod_meter_all_t;
const heliod_meter_all_t *heliod_meter_all(const heliod_meter_t *meter);
/* ---- profiler: HELIOD_EVENT_PROFILE (subscription HELIOD_SUB_PROFILE) ----
 * What the engine did in the window since the daemon's previous PROFILE
 * event, and where it stands now. Loads are callback durations over the
 * period: 1.0 is the deadline. */
#define HELIOD_SUB_PROFILE         0x100u
#define HELIOD_EVENT_PROFILE       20
#define HELIOD_PROFILE_HIST        8
#define HELIOD_PROFILE_MAX_STREAMS 16
#define HELIOD_PROFILE_MAX_BUSES   32
typedef struct {
    char name[64];
    float peak_db, peak_hold_db, rms_db; /* the louder channel, dBFS (-144 silence) */
    unsigned real, virt;                 /* voices on the bus: mixed / virtual */
} heliod_profile_bus_t;
typedef struct {
    uint64_t time_ns;                   /* daemon uptime */
    float period_us;                    /* the deadline */
    uint32_t callbacks;                 /* callbacks in the window */
    float load_now, load_peak;          /* the window's mean and longest callback / period */
    float load_p99, load_max;           /* since start or STATS reset */
    uint32_t hist[HELIOD_PROFILE_HIST]; /* window callbacks by load in 1/8 periods (last: >= 7/8) */
    uint64_t xruns, underruns;          /* device xruns, stream underruns (totals) */
    unsigned voices_real, voices_virtual;
    float decode_load; /* decoder CPU seconds per second over the window */
    unsigned streams;  /* streams open; the first nstreams are listed */
    unsigned nstreams;
    struct {
        char sound[64];
        float fill; /* ring fill, 0..1 */
    } stream[HELIOD_PROFILE_MAX_STREAMS];
    float master_peak_db, master_rms_db;
    unsigned nbuses;
    heliod_profile_bus_t bus[HELIOD_PROFILE_MAX_BUSES];
} heliod_profile_t;
/* As heliod_subscribe_meter, with the rate of PROFILE events: profile_hz 0 =
 * 10 per second, else 1..100. Returns 0, HELIOD_EINVAL or a connection
 * error. Blocking. */
int heliod_subscribe_profile(heliod_t *h, uint32_t mask, float meter_hz, float profile_hz);

typedef struct {
    int type;
    uint32_t request_id; /* the request it answers (ERROR), or 0 */
    int status;          /* ERROR: the heliod_errno_t code */
    const char *message; /* ERROR: the server's message; DEVICE_*: the device name;
                            valid during the callback */
    heliod_voice_t voice;
    int reason;       /* ENDED: HELIOD_END_*; VIRTUAL: HELIOD_VIRT_WHY_*; REAL: 0 */
    uint64_t time_ns; /* STARTED: server CLOCK_MONOTONIC when its first block was mixed */
    const heliod_meter_t *meter;         /* METER: the readings, valid during the callback */
    const struct heliod_bank_info *bank; /* BANK: valid during the callback */

    /* PROFILE: the figures, valid during the callback */
    const heliod_profile_t *profile;

    /* RELOAD: the sound's name (valid during the callback) and its frames;
     * status and message as above */
    const char *sound;
    uint32_t frames;
} heliod_event_t;
typedef void (*heliod_event_fn)(void *user, const heliod_event_t *ev);
/* A BEAT or BAR event's beat (HELIOD_EVENT_BEAT). */
typedef struct {
    heliod_voice_t voice;
    uint64_t frame;   /* engine frame the beat falls on */
    uint64_t time_ns; /* its CLOCK_MONOTONIC time on the engine clock */
    uint64_t beat;    /* 0-based since the sound's start */
    uint32_t bar, beat_in_bar;
    float bpm;
} heliod_beat_t;
/* The beat of a BEAT, BAR or MARKER event the library delivered to the
 * event callback (valid during the callback), else NULL (since 1.1). */
const heliod_beat_t *heliod_event_beat(const heliod_event_t *ev);
void heliod_set_event_callback(heliod_t *h, heliod_event_fn fn, void *user);

#endif /* HELIOD_EVENTS_H */
