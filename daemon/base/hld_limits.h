/*
 * hld_limits.h - the daemon's own constants (the engine's capacities live in
 * daemon/mixer/hl_limits.h, the protocol's in proto/hl_proto.h). Each value
 * carries the reason it is what it is.
 */
#ifndef HLD_LIMITS_H
#define HLD_LIMITS_H

/* A table reads better aligned than wrapped. */
/* clang-format off */

#define HLD_DEFAULT_RATE      48000 /* what most game audio and most devices run at */
#define HLD_DEFAULT_PERIOD    256   /* 5.3 ms at 48 kHz: low latency, comfortable budget */
#define HLD_MIN_RATE          8000  /* below this nothing sounds like a game */
#define HLD_MAX_RATE          192000
#define HLD_MIN_PERIOD        16    /* smaller periods cost more in wake-ups than they save */
#define HLD_MAX_PERIOD        8192  /* 170 ms at 48 kHz: beyond that commands feel late */
#define HLD_CHANNELS          2     /* the engine renders interleaved stereo */
#define HLD_OWNER_FADE_MS     50.0f /* fade of voices whose connection closed, and at shutdown */
#define HLD_SHUTDOWN_WAIT_MS  150   /* longest wait for the shutdown fades to end */
#define HLD_SHUTDOWN_TICK_MS  5     /* how often shutdown checks whether the fades ended */
#define HLD_POLL_MIN_MS       1     /* event poll timer floor (uv timers are in ms) */
#define HLD_LISTEN_BACKLOG    128   /* pending connections the kernel queues for us */
#define HLD_RECORD_POLL_MS    20    /* record writer wake-up: well inside HL_RECORD_SECONDS */
#define HLD_DECODE_CHUNK      65536 /* frames decoded per sf_readf_float call */
#define HLD_CB_HIST_SUB       4     /* callback histogram: 4 buckets per octave (19% steps) */
#define HLD_CB_HIST_BUCKETS   (64 * HLD_CB_HIST_SUB) /* covers every uint64 nanosecond value */
#define HLD_NS_PER_S          1000000000ull
#define HLD_NS_PER_MS         1000000ull
#define HLD_NS_PER_US         1000ull
#define HLD_MS_PER_S          1000.0
#define HLD_ERRLOG_INTERVAL_S 10    /* accept errors (EMFILE) are logged at most this often */
#define HLD_DIR_MODE          0700  /* socket directory: this user only */
#define HLD_SOCK_MODE         0600  /* socket: this user only */
#define HLD_MAX_CONFIG_LINE   8192  /* INI lines longer than this are an error */
#define HLD_WRITE_BATCH       65536 /* replies to one client are batched into writes this big */
#define HLD_HANDSHAKE_MS      5000  /* HELLO must arrive this soon after connect: silent sockets
                                     * cannot sit on the HL_MAX_CLIENTS slots */
#define HLD_UPLOAD_IDLE_MS    5000  /* a LOAD_DATA upload with no chunk this long is dropped and
                                     * its memory freed (ETIMEDOUT error, id 0) */
#define HLD_FRAME_TIMEOUT_MS  5000  /* a frame, once its first byte arrived, must be complete this
                                     * soon (slowloris); a Unix socket delivers it in microseconds */
#define HLD_RING_HOLD_ROOM    4096  /* free command-ring slots (a quarter of HL_CMD_RING) below
                                     * which no client's request is dispatched: its connection
                                     * waits, unread, for the audio thread to drain (conn.c) */
#define HLD_RING_HOLD_POLL_MS 1     /* held connections: how often the ring's room is looked at */
#define HLD_RING_HOLD_MAX_MS  250   /* the ring gained no room this long (audio thread stuck):
                                     * held requests are dispatched anyway, answered EBUSY */
#define HLD_RING_HOLD_QUANTUM 64    /* frames each held connection dispatches per round */
#define HLD_RING_QUEUE_MAX    12288 /* commands queued to the audio thread before connections
                                     * are held (HL_CMD_RING less HLD_RING_HOLD_ROOM: three
                                     * quarters of the default ring, whatever its size) */
#define HLD_OWNER_GONE        0xFFFFFFFFu /* owner of an object whose process has gone, kept
                                     * only while a detached voice still needs it: no name
                                     * finds it, nobody may change it, then it is reclaimed */
#define HLD_RECLAIM_MS        20    /* how often what a gone process left is checked for release */
#define HLD_LINGER_MS         2000  /* a connection closed after an error reply gets this long to
                                     * take it; a peer that never reads cannot pin its fd */

/* streaming (decoder.c) */
#define HLD_DECODER_THREADS   2     /* bounded pool: 2 cores keep 16+ Vorbis streams well ahead */
#define HL_MAX_STREAMS        256   /* streaming voices at once: each holds a fd and ~0.3 MiB */
#define HLD_STREAM_RING_MS    500   /* ring length (rounded up to a power of two): rides out
                                     * a decoder that is descheduled for hundreds of ms */
#define HLD_STREAM_CHUNK      1024  /* source frames per decode step: small enough to interleave
                                     * streams fairly, big enough to amortise the call */
#define HLD_STREAM_SLACK      64    /* extra output frames a resampler step may emit */
#define HLD_STREAM_PREFILL    4096  /* engine frames decoded before a stream voice starts (85 ms
                                     * at 48 kHz): more than a period at max pitch, no underrun */
#define HLD_LOOP_MARKS        64    /* loop jumps remembered per stream for a seek's loop count:
                                     * a half-second ring holds fewer unless the region is < 8 ms */
#define HLD_DECODER_WAIT_MS   4     /* idle decoder re-check period: under a period's worth of
                                     * drain at 4x pitch for a half-second ring */
#define HLD_DECODER_QUANTUM   4096  /* engine frames a decoder thread adds to the neediest ring
                                     * before it picks again (85 ms at 48 kHz) */
#define HLD_HEAD_FRAMES       8192  /* a compressed sound's prefetched head, source frames (170 ms
                                     * at 48 kHz): a play starts from it at once while a decoder
                                     * thread opens the bytes and decodes them up to its end */
#define HLD_HEAD_MAX_BYTES    131072 /* ... and at most this many bytes of float PCM (stereo:
                                      * 64 KiB; 6 channels: 5461 frames) */

#define HLD_RT_PRIORITY 70 /* SCHED_FIFO priority of the null driver's thread, when allowed (JACK uses ~70-80) */

/* systemd watchdog, shutdown bound (loop.c, recorder.c) */
#define HLD_SHUTDOWN_HARD_MS  750   /* from SIGTERM: past this the shutdown guard finalises the
                                     * recording and exits (_exit) even if a thread hangs in I/O */
#define HLD_SHUTDOWN_FINAL_MS 150   /* the guard's budget for finalising the recording: the
                                     * process is gone within 900 ms, under the 1 s promise */
#define HLD_RECORD_CLOSE_MS   300   /* longest wait for the record writer at close (hung disk) */
#define HLD_RECORD_FINAL_DRAINS 8   /* drains after quit: enough to empty a stopped ring, bounded
                                     * if the audio thread still writes (hard exit) */
#define HLD_GUARD_STACK       (64 * 1024) /* the guard thread only sleeps, logs, exits */
#define HLD_WATCHDOG_MIN_MS   10    /* floor of the watchdog ping interval (WATCHDOG_USEC / 2) */

/* connections and the socket (server.c, conn.c) */
#define HLD_OUTQ_TOTAL_MAX    (64u * 1024 * 1024) /* unsent output of all clients together:
                                     * HL_MAX_CLIENTS readers paused at HL_OUTQ_PAUSE fit in it,
                                     * while 256 non-readers at HL_OUTQ_MAX would pin 1 GiB; past it
                                     * the biggest non-reading clients are dropped first */
#define HLD_OUTQ_TOTAL_CHECK  HLD_WRITE_BATCH /* the total is summed only when one client's queue
                                     * passes this: smaller queues add at most 16 MiB unnoticed */
#define HLD_ACCEPT_BATCH      64    /* connections accepted per listener wake-up (fairness) */
#define HLD_ACCEPT_BACKOFF_MS 100   /* out of descriptors with no spare left to shed pending
                                     * connections: stop accepting this long instead of spinning */
#define HLD_BIND_UMASK        0177  /* around bind(): the socket is created 0600, never wider */
#define HLD_CONTROL_PLACES    4     /* connections above --max-clients kept for control clients:
                                     * an operator's heliodctl gets in when games fill the rest */

/* per-client quotas (clients.c): defaults leave every shared resource at
 * least half free for the other clients */
#define HLD_DEFAULT_LOGICAL_MIN 1024 /* --virtual-voices default: 4 per real voice, at least this */
#define HLD_QUOTA_VOICES_DIV   2    /* voices: half of the logical pool */
#define HLD_QUOTA_DETACHED_DIV 2    /* detached voices: half of the pool, as voices (a script's
                                     * 256-line batch of loops fits the default 1024); a client
                                     * that leaves its loops behind cannot fill the pool */
#define HLD_QUOTA_STREAMS_DIV  4    /* streamed voices: a quarter of HL_MAX_STREAMS */
#define HLD_QUOTA_LOADS_DIV    4    /* loads in flight: a quarter of HL_MAX_LOADS_INFLIGHT */
#define HLD_QUOTA_BYTES_DIV    2    /* sample memory: half of --max-sample-mb */
#define HLD_QUOTA_OBJ_DIV      4    /* cues, categories, emitters, buses, reverb zones: a quarter
                                     * of each table: one process cannot fill one */
#define HLD_QUOTA_SCHED_DIV    4    /* scheduled commands: a quarter of HL_SCHED_MAX (1024) */
#define HLD_LIFETIME_CHECK_MS  250  /* detached loops are checked against their cap this often */

/* CPU-budget governor (governor.c) */
#define HLD_GOV_DEFAULT_PCT    70   /* callback budget, % of the period: headroom for the OS */
#define HLD_GOV_CALIB_VOICES   256  /* worst-case voices rendered at start-up to price one */
#define HLD_GOV_CALIB_BLOCKS   12   /* blocks timed (the cheapest counts) */
#define HLD_GOV_CALIB_SLOTS    2048 /* mixer slots of the calibration on several mix threads (256
                                     * voices a partition): the partitions have this many at least */
#define HLD_GOV_CALIB_SAFETY   2.0  /* a cache-warm private mixer prices a voice low: the daemon's
                                     * memory traffic and a busy machine cost up to twice that */
#define HLD_GOV_START          0.25 /* slow start: a quarter of what the price says fits; the limit
                                     * grows from there as measured costs allow (~100 ms) */
#define HLD_GOV_CUT_TO         0.85 /* over budget: cut to what fits in 85% of it */
#define HLD_GOV_CUT_MIN        0.75 /* ... but by a quarter at most per poll (fade-outs cost) */
#define HLD_GOV_GROW_TO        0.85 /* grow towards what the cost per voice fits in 85% */
#define HLD_GOV_LOW            0.75 /* grow only while the worst block is under 75% */
#define HLD_GOV_MIN_STEP       16   /* growth per poll: an eighth of the limit, at least this */
#define HLD_GOV_HOLD_MS        1000 /* after a cut the limit holds this long before it grows: no
                                     * cut-grow oscillation, whose fades cost blocks */
#define HLD_GOV_CUBIC_SAVING   0.25 /* a cubic voice stepped down to linear saves this much of a voice's cost
                                      * (bench/mix: cubic costs 1.36-1.74x linear, so 26-43%; the low end) */
#define HLD_GOV_TRANSITION     4.0  /* a voice fading in or out runs the full path: until it
                                     * settles it costs up to 4 steady voices; growth is sized so
                                     * the voices it brings in fit the headroom at that price */
#define HLD_GOV_MIN_SAMPLE     16   /* real voices needed to measure the cost of one */
#define HLD_GOV_DECAY          0.02 /* per poll: how fast a lower cost per voice is believed */
#define HLD_GOV_WINDOW         9    /* polls whose median block cost is the typical block: up to 4
                                       preempted blocks among 9 move neither it nor the cost per voice */

/* clang-format on */

/* the offline renderer (render.c): a score is a file too, trusted no more than a client */
/* clang-format off */
#define HLD_RENDER_DEFAULT_SECONDS 600        /* --max-seconds: 10 min, 230 MB of float stereo */
#define HLD_RENDER_MAX_SECONDS     14400      /* 4 h at most (5.5 GB at 48 kHz) */
#define HLD_RENDER_SCORE_MAX_BYTES (16u << 20) /* a score: 16 MiB of text */
#define HLD_RENDER_LINE_MAX        5119       /* bytes per score line: a path (4095) and options */
#define HLD_RENDER_LINE_MAX_S      "5119"
/* clang-format on */

/* decoding untrusted files (sounds.c, decoder.c) */
/* clang-format off */
#define HLD_MAX_SRC_CHANNELS   12     /* 7.1.4 is the most a game ships; more is refused, > 2 folded */
#define HLD_MIN_SRC_RATE       8000   /* telephone quality; lower is a broken or hostile header */
#define HLD_MAX_SRC_RATE       384000 /* the highest rate real converters use */
#define HLD_MAX_STREAM_SECONDS 86400  /* a day: a streamed file's length is only a loop bound */
#define HLD_OPEN_THREADS       2      /* stream opens run on these, apart from the decoding threads */
#define HLD_OPEN_TIMEOUT_MS    2000   /* an open (queued or running) answered ETIMEDOUT after this */
#define HLD_OPEN_ABANDON_MAX   4      /* opener threads left behind in a hung open, at most */
#define HLD_INLINE_OPEN_MS     4      /* a compressed sound's opens run on the main thread up to
                                         * this much of its time per loop turn (decoder.h) */
#define HLD_MAX_SAMPLE         16.0f  /* |sample| a decoded file may hold (+24 dBFS): hot masters
                                       * and inter-sample peaks fit; a finite 1e30 from a broken
                                       * pipeline is clipped here, so no voice holds the master
                                       * limiter down (NaN/Inf become 0) */
/* meters and loudness (meter_tap.c, metering.c) */
#define HLD_METER_LEVEL_RING  256   /* level records in flight (~3.2 KB each): 1.4 s of 256-frame
                                     * periods; a fuller ring folds calls together, losing nothing */
#define HLD_METER_PCM_SECONDS 1     /* output buffered for the loudness meter: the main thread
                                     * drains it every poll tick, so 1 s rides out any stall */
#define HLD_METER_TICK_MS     5     /* METER event timer while someone subscribed: 100 Hz events
                                     * keep their average rate, with at most 5 ms of jitter */
#define HLD_METER_OUTQ_MAX    (32 * 1024) /* a client with more unsent output than this skips
                                     * METER events (each is a snapshot: the next one replaces
                                     * it), so a subscriber that never reads cannot grow the
                                     * daemon's memory through meters */

#define HLD_TAG_SNAPSHOTS   0xFFFFFFFFu /* mixer cancellation tag of the snapshot plans' commands:
                                     * never a client id (conn.c skips it) */
#define HLD_SNAP_SCHED_MAX  1024 /* scheduled commands the snapshot plans hold in the mixer at
                                  * once (a quarter of HL_SCHED_MAX): beyond, EBUSY */

/* clang-format on */

#endif /* HLD_LIMITS_H */
