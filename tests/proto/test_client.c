/*
 * test_client.c - libheliod and heliodctl against an in-process fake daemon.
 *
 * The fake daemon is a thread serving a Unix socket with blocking I/O and the
 * proto/ codec; magic sound names script its behaviour ("missing" -> ENOSOUND,
 * "crash" -> it closes the connection, "hang" -> it never answers, "short" ->
 * an ENDED event follows the reply). It can also write every reply one byte at
 * a time to exercise partial reads. The real daemon is tested end to end by
 * the integration suite.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "heliod.h"
#include "hl_proto.h"

#define FAKE_VOICE_BASE 0x100000000ull /* generation 1, slot 0 */
#define FAKE_DEAD_VOICE 0xdeadull      /* STOP of this voice answers ENOVOICE */

static char sock_path[108];
static char sock_dir[64];
static int listen_fd = -1;
static pthread_t server_thread;
static volatile int dribble; /* write replies one byte at a time */

/* ---- fake daemon ---------------------------------------------------------- */

static int read_full(int fd, uint8_t *p, size_t n) {
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int write_full(int fd, const uint8_t *p, size_t n) {
    size_t step = dribble ? 1 : n;
    while (n) {
        ssize_t w = send(fd, p, n < step ? n : step, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
        if (dribble) usleep(50);
    }
    return 0;
}

typedef struct {
    int fd;
    uint32_t subs;
    uint64_t next_voice;
    uint8_t out[HL_MAX_FRAME];
} fconn_t;

static int send_error(fconn_t *c, const hl_frame_hdr_t *h, int status, const char *msg) {
    hl_wbuf_t w;
    hl_wbuf_init(&w, c->out, sizeof c->out);
    if (h->flags & HL_FLAG_NOREPLY) {
        hl_event_t e;
        memset(&e, 0, sizeof e);
        e.type = HL_EVENT_ERROR;
        e.req_op = h->op;
        e.status = status;
        snprintf(e.message, sizeof e.message, "%s", msg);
        hl_frame_begin(&w, HL_OP_EVENT, 0, h->id);
        hl_put_event(&w, &e);
    } else {
        hl_reply_head_t rh = {h->op, status};
        hl_frame_begin(&w, HL_OP_REPLY, 0, h->id);
        hl_put_reply_head(&w, &rh);
        hl_put_str(&w, msg, HL_MAX_MSG);
    }
    if (hl_frame_end(&w) < 0) return -1;
    return write_full(c->fd, c->out, w.len);
}

/* Serves one connection until it closes. */
static void serve(int fd) {
    fconn_t *c = calloc(1, sizeof *c);
    static uint8_t in[HL_MAX_FRAME];
    c->fd = fd;
    c->next_voice = FAKE_VOICE_BASE;
    for (;;) {
        hl_frame_hdr_t h;
        if (read_full(fd, in, HL_FRAME_HDR) < 0 || hl_frame_peek(in, HL_FRAME_HDR, &h) != 0) break;
        if (read_full(fd, in + HL_FRAME_HDR, h.size - HL_FRAME_HDR) < 0) break;
        hl_rbuf_t r;
        hl_rbuf_init(&r, in + HL_FRAME_HDR, h.size - HL_FRAME_HDR);
        hl_wbuf_t w;
        hl_wbuf_init(&w, c->out, sizeof c->out);
        hl_frame_begin(&w, HL_OP_REPLY, 0, h.id);
        hl_reply_head_t ok = {h.op, 0};
        int quiet = (h.flags & HL_FLAG_NOREPLY) != 0;
        int ended_after = 0;
        uint64_t voice = 0;
        switch (h.op) {
        case HL_OP_HELLO: {
            hl_hello_t m;
            hl_get_hello(&r, &m);
            if (m.version != HL_PROTO_VERSION) {
                send_error(c, &h, HELIOD_EVERSION, "version");
                goto out;
            }
            hl_put_reply_head(&w, &ok);
            hl_hello_reply_t hr = {HL_PROTO_VERSION, 48000, 256, 64, 7, "fake-0.1", 0, 0};
            hl_put_hello_reply(&w, &hr);
            break;
        }
        case HL_OP_PING:
            hl_put_reply_head(&w, &ok);
            hl_put_u64(&w, 123456789ull);
            break;
        case HL_OP_LOAD: {
            hl_load_t m;
            hl_get_load(&r, &m);
            if (strstr(m.path, "nofile")) {
                send_error(c, &h, HELIOD_EFILE, "cannot open file");
                continue;
            }
            hl_put_reply_head(&w, &ok);
            hl_sound_info_t si = {.frames = 480, .channels = 1, .source_rate = 44100};
            snprintf(si.name, sizeof si.name, "%s", m.name);
            hl_put_sound_info(&w, &si);
            break;
        }
        case HL_OP_PLAY: {
            hl_play_t m;
            hl_get_play(&r, &m);
            if (hl_rbuf_finish(&r) < 0) {
                send_error(c, &h, HELIOD_EPROTO, "bad play");
                goto out;
            }
            if (strcmp(m.sound, "crash") == 0) goto out;
            if (strcmp(m.sound, "hang") == 0) continue;
            if (strcmp(m.sound, "missing") == 0) {
                send_error(c, &h, HELIOD_ENOSOUND, "no such sound: missing");
                continue;
            }
            voice = c->next_voice++;
            ended_after = strcmp(m.sound, "short") == 0 && (c->subs & HL_SUB_ENDED);
            hl_put_reply_head(&w, &ok);
            hl_play_reply_t pr = {voice, 0};
            hl_put_play_reply(&w, &pr);
            break;
        }
        case HL_OP_STOP: {
            hl_stop_t m;
            hl_get_stop(&r, &m);
            if (m.voice == FAKE_DEAD_VOICE) {
                send_error(c, &h, HELIOD_ENOVOICE, "no such voice");
                continue;
            }
            hl_put_reply_head(&w, &ok);
            break;
        }
        case HL_OP_STOP_ALL: {
            hl_stop_all_t m;
            hl_get_stop_all(&r, &m);
            hl_put_reply_head(&w, &ok);
            hl_count_reply_t cr = {m.scope == HL_STOP_ALL_EVERYONE ? 5u : 3u};
            hl_put_count_reply(&w, &cr);
            break;
        }
        case HL_OP_SUBSCRIBE: {
            hl_subscribe_t m;
            hl_get_subscribe(&r, &m);
            c->subs = m.mask;
            hl_put_reply_head(&w, &ok);
            break;
        }
        case HL_OP_SOUNDS: {
            hl_put_reply_head(&w, &ok);
            hl_list_head_t lh = {3, 0};
            hl_put_list_head(&w, &lh);
            for (int i = 0; i < 3; i++) {
                hl_sound_info_t si = {.frames = (uint32_t)i, .channels = 2, .source_rate = 48000};
                snprintf(si.name, sizeof si.name, "s%d", i);
                hl_put_sound_info(&w, &si);
            }
            break;
        }
        case HL_OP_VOICES: {
            hl_put_reply_head(&w, &ok);
            hl_list_head_t lh = {1, 1};
            hl_put_list_head(&w, &lh);
            hl_voice_info_t vi = {.voice = FAKE_VOICE_BASE,
                                  .sound = "boom",
                                  .owner = 7,
                                  .state = HL_VOICE_PLAYING,
                                  .pitch = 1,
                                  .bus = "sfx"};
            hl_put_voice_info(&w, &vi);
            break;
        }
        case HL_OP_DEVICES: {
            hl_put_reply_head(&w, &ok);
            hl_list_head_t lh = {1, 0};
            hl_put_list_head(&w, &lh);
            hl_device_info_t d = {.index = 0,
                                  .name = "null",
                                  .hostapi = "none",
                                  .max_channels = 2,
                                  .default_rate = 48000,
                                  .flags = HL_DEV_DEFAULT | HL_DEV_CURRENT};
            hl_put_device_info(&w, &d);
            break;
        }
        case HL_OP_STATS: {
            hl_stats_req_t m;
            hl_get_stats_req(&r, &m);
            hl_put_reply_head(&w, &ok);
            hl_list_head_t lh = {3, 0};
            hl_put_list_head(&w, &lh);
            hl_stat_t s1 = {"uptime_s", 12.5}, s2 = {"xruns", 2}, s3 = {"reset", m.flags};
            hl_put_stat(&w, &s1);
            hl_put_stat(&w, &s2);
            hl_put_stat(&w, &s3);
            break;
        }
        case HL_OP_CUE: {
            hl_cue_t m;
            hl_get_cue(&r, &m);
            const char *why;
            if (hl_rbuf_finish(&r) < 0 || hl_validate_cue(&m, &why) < 0) {
                send_error(c, &h, HELIOD_EINVAL, "bad cue");
                continue;
            }
            if (strcmp(m.category, "nocat") == 0) {
                send_error(c, &h, HELIOD_ENOCATEGORY, "no such category: nocat");
                continue;
            }
            hl_put_reply_head(&w, &ok);
            break;
        }
        case HL_OP_CUES: {
            hl_put_reply_head(&w, &ok);
            hl_list_head_t lh = {2, 0};
            hl_put_list_head(&w, &lh);
            hl_cue_info_t e;
            memset(&e, 0, sizeof e);
            e.kind = HL_CUES_KIND_CUE;
            hl_cue_init(&e.cue);
            strcpy(e.cue.name, "step");
            e.cue.nsounds = 2;
            strcpy(e.cue.sounds[0], "step1");
            strcpy(e.cue.sounds[1], "step2");
            strcpy(e.cue.category, "foot");
            e.cue.max_instances = 4;
            e.cue.overflow = HL_OVERFLOW_STEAL_QUIETEST;
            e.n.plays = 12;
            e.n.refused_interval = 3;
            e.n.virtualised = 2;
            e.n.active = 4;
            e.n.virtual_now = 1;
            hl_put_cue_info(&w, &e);
            memset(&e, 0, sizeof e);
            e.kind = HL_CUES_KIND_CATEGORY;
            hl_category_init(&e.cat);
            strcpy(e.cat.name, "foot");
            e.cat.max_instances = 8;
            e.n.evicted_cat = 5;
            hl_put_cue_info(&w, &e);
            break;
        }
        case HL_OP_CUES_LOAD: {
            hl_cues_load_t m;
            hl_get_cues_load(&r, &m);
            if (m.path[0] != '/') {
                send_error(c, &h, HELIOD_EINVAL, "relative path");
                continue;
            }
            hl_put_reply_head(&w, &ok);
            hl_cues_load_reply_t lr = {3, 1};
            hl_put_cues_load_reply(&w, &lr);
            break;
        }
        case HL_OP_EMITTER: {
            hl_emitter_t m;
            hl_get_emitter(&r, &m);
            const char *why;
            if (hl_rbuf_finish(&r) < 0 || hl_validate_emitter(&m, &why) < 0) {
                send_error(c, &h, HELIOD_EINVAL, "bad emitter");
                continue;
            }
            if (strcmp(m.name, "ghost") == 0) {
                send_error(c, &h, HELIOD_ENOEMITTER, "no such emitter: ghost");
                continue;
            }
            hl_put_reply_head(&w, &ok);
            if (m.action == HL_EMITTER_DESTROY) {
                hl_count_reply_t cr = {2};
                hl_put_count_reply(&w, &cr);
            }
            break;
        }
        case HL_OP_PAUSE: {
            hl_pause_t m;
            hl_get_pause(&r, &m);
            const char *why;
            if (hl_rbuf_finish(&r) < 0 || hl_validate_pause(&m, &why) < 0) {
                send_error(c, &h, HELIOD_EINVAL, "bad pause");
                continue;
            }
            hl_put_reply_head(&w, &ok);
            hl_count_reply_t cr = {m.scope == HL_PAUSE_CATEGORY ? 4u : 6u};
            hl_put_count_reply(&w, &cr);
            break;
        }
        default: hl_put_reply_head(&w, &ok); break;
        }
        if (hl_frame_end(&w) < 0) break;
        if (!quiet && write_full(fd, c->out, w.len) < 0) break;
        if (ended_after) {
            hl_wbuf_init(&w, c->out, sizeof c->out);
            hl_frame_begin(&w, HL_OP_EVENT, 0, 0);
            hl_event_t e;
            memset(&e, 0, sizeof e);
            e.type = HL_EVENT_ENDED;
            e.voice = voice;
            e.reason = HL_END_FINISHED;
            hl_put_event(&w, &e);
            if (hl_frame_end(&w) < 0 || write_full(fd, c->out, w.len) < 0) break;
        }
    }
out:
    close(fd);
    free(c);
}

static void *server_main(void *arg) {
    (void)arg;
    for (;;) {
        int fd = accept(listen_fd, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR) continue;
            return NULL;
        }
        serve(fd);
    }
}

static int setup(void **state) {
    (void)state;
    snprintf(sock_dir, sizeof sock_dir, "/tmp/heliod-test-XXXXXX");
    if (!mkdtemp(sock_dir)) return -1;
    snprintf(sock_path, sizeof sock_path, "%s/s.sock", sock_dir);
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock_path);
    if (bind(listen_fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(listen_fd, 8) < 0)
        return -1;
    return pthread_create(&server_thread, NULL, server_main, NULL);
}

static int teardown(void **state) {
    (void)state;
    shutdown(listen_fd, SHUT_RDWR);
    close(listen_fd);
    pthread_join(server_thread, NULL);
    unlink(sock_path);
    rmdir(sock_dir);
    return 0;
}

/* ---- libheliod ------------------------------------------------------------ */

static heliod_t *conn(void) {
    heliod_t *h = NULL;
    assert_int_equal(heliod_connect(&h, sock_path, "test"), 0);
    assert_non_null(h);
    return h;
}

static void test_connect(void **state) {
    (void)state;
    heliod_t *h = conn();
    const heliod_server_info_t *si = heliod_server_info(h);
    assert_int_equal(si->protocol_version, HL_PROTO_VERSION);
    assert_int_equal(si->rate, 48000);
    assert_int_equal(si->period, 256);
    assert_int_equal(si->client_id, 7);
    assert_string_equal(si->server_version, "fake-0.1");
    uint64_t t = 0;
    assert_int_equal(heliod_ping(h, &t), 0);
    assert_true(t == 123456789ull);
    heliod_close(h);

    heliod_t *bad = NULL;
    assert_int_equal(heliod_connect(&bad, "/nonexistent/heliod.sock", NULL), HELIOD_ECONNECT);
    assert_null(bad);
    assert_int_equal(heliod_connect(&bad, sock_path, "bad name"), HELIOD_ENAME);
    char longp[200];
    memset(longp, 'a', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    assert_int_equal(heliod_connect(&bad, longp, NULL), HELIOD_EINVAL);

    char buf[256];
    setenv("HELIOD_SOCKET", "/run/x.sock", 1);
    assert_int_equal(heliod_default_socket(buf, sizeof buf), 0);
    assert_string_equal(buf, "/run/x.sock");
    unsetenv("HELIOD_SOCKET");
    setenv("XDG_RUNTIME_DIR", "/run/user/1", 1);
    assert_int_equal(heliod_default_socket(buf, sizeof buf), 0);
    assert_string_equal(buf, "/run/user/1/heliod/heliod.sock");
    assert_int_equal(heliod_default_socket(buf, 5), HELIOD_EINVAL);
    heliod_close(NULL);
}

static void test_blocking_calls(void **state) {
    (void)state;
    heliod_t *h = conn();
    heliod_sound_info_t si;
    assert_int_equal(heliod_load(h, "boom", "/tmp/boom.wav", 0, &si), 0);
    assert_string_equal(si.name, "boom");
    assert_int_equal(si.frames, 480);
    assert_int_equal(heliod_load(h, "boom", "/tmp/nofile.wav", 0, NULL), HELIOD_EFILE);
    assert_int_equal(heliod_load(h, "bad/name", "/x", 0, NULL), HELIOD_ENAME);

    heliod_sound_info_t list[2];
    size_t n = 0;
    assert_int_equal(heliod_sounds(h, list, 2, &n), 1); /* 3 on the server, cap 2 */
    assert_int_equal(n, 2);
    assert_string_equal(list[1].name, "s1");

    heliod_voice_t v = 0, stolen = 99;
    assert_int_equal(heliod_play(h, "boom", NULL, &v, &stolen), 0);
    assert_true(v == FAKE_VOICE_BASE);
    assert_true(stolen == 0);
    assert_int_equal(heliod_play(h, "missing", NULL, &v, NULL), HELIOD_ENOSOUND);
    assert_string_equal(heliod_last_error(h), "no such sound: missing");
    heliod_play_params_t p;
    heliod_play_params_init(&p);
    p.pitch = 10;
    assert_int_equal(heliod_play(h, "boom", &p, &v, NULL), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "pitch"));

    assert_int_equal(heliod_stop(h, FAKE_VOICE_BASE, 10), 0);
    assert_int_equal(heliod_stop(h, FAKE_DEAD_VOICE, 10), HELIOD_ENOVOICE);
    assert_int_equal(heliod_stop(h, 0, 10), HELIOD_EINVAL);
    uint32_t count = 0;
    assert_int_equal(heliod_stop_all(h, 5, 0, &count), 0);
    assert_int_equal(count, 3);
    assert_int_equal(heliod_stop_all(h, 5, 1, &count), 0);
    assert_int_equal(count, 5);

    heliod_voice_set_t s = {.mask = HELIOD_SET_GAIN, .gain_db = -6};
    assert_int_equal(heliod_set(h, v, &s), 0);
    heliod_listener_t l = {.mask = HELIOD_LIS_POS, .pos = {1, 2, 3}};
    assert_int_equal(heliod_set_listener(h, &l), 0);
    assert_int_equal(heliod_bus_gain(h, "music", -12, 50), 0);
    assert_int_equal(heliod_bus_gain(h, "music", 30, 50), HELIOD_EINVAL);

    heliod_voice_info_t vi[4];
    assert_int_equal(heliod_voices(h, vi, 4, &n), 1); /* server set 'truncated' */
    assert_int_equal(n, 1);
    assert_string_equal(vi[0].sound, "boom");
    heliod_device_info_t d[2];
    assert_int_equal(heliod_devices(h, d, 2, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(d[0].flags, 3);
    heliod_stat_t st[8];
    assert_int_equal(heliod_stats(h, st, 8, &n, 1), 0);
    assert_int_equal(n, 3);
    assert_string_equal(st[0].key, "uptime_s");
    assert_true(st[2].value == 1.0); /* reset flag reached the server */
    assert_int_equal(heliod_subscribe(h, HELIOD_SUB_ENDED), 0);
    assert_int_equal(heliod_subscribe(h, 0x800), HELIOD_EINVAL);
    heliod_close(h);
}

typedef struct {
    int replies, errors, ended;
    uint32_t last_error_id;
    int last_error_status;
    heliod_voice_t voices[64];
} cb_state_t;

static void on_reply(void *user, const heliod_reply_t *r) {
    cb_state_t *s = user;
    if (r->status == 0 && s->replies < 64) s->voices[s->replies] = r->voice;
    s->replies++;
}

static void on_event(void *user, const heliod_event_t *ev) {
    cb_state_t *s = user;
    if (ev->type == HELIOD_EVENT_ERROR) {
        s->errors++;
        s->last_error_id = ev->request_id;
        s->last_error_status = ev->status;
    } else if (ev->type == HELIOD_EVENT_ENDED) {
        s->ended++;
    }
}

static void test_async(void **state) {
    (void)state;
    heliod_t *h = conn();
    cb_state_t cs;
    memset(&cs, 0, sizeof cs);
    heliod_set_event_callback(h, on_event, &cs);
    int ids[40];
    for (int i = 0; i < 40; i++) {
        ids[i] = heliod_play_async(h, "boom", NULL, on_reply, &cs);
        assert_true(ids[i] > 0);
        if (i) assert_true(ids[i] != ids[i - 1]);
    }
    assert_true(heliod_pending(h) > 0);
    int bad = heliod_stop_async(h, FAKE_DEAD_VOICE, 5); /* NOREPLY: failure is an event */
    assert_true(bad > 0);
    assert_true(heliod_stop_async(h, FAKE_VOICE_BASE, 5) > 0); /* success is silent */
    heliod_voice_set_t s = {.mask = HELIOD_SET_PAN, .pan = 0.5f};
    assert_true(heliod_set_async(h, FAKE_VOICE_BASE, &s) > 0);
    heliod_listener_t l = {.mask = HELIOD_LIS_VEL};
    assert_true(heliod_set_listener_async(h, &l) > 0);
    assert_int_equal(cs.replies, 0); /* nothing is delivered before dispatch/sync */
    assert_int_equal(heliod_sync(h), 0);
    assert_int_equal(cs.replies, 40);
    for (int i = 0; i < 40; i++)
        assert_true(cs.voices[i] == FAKE_VOICE_BASE + (uint64_t)i); /* in order */
    assert_int_equal(cs.errors, 1);
    assert_int_equal(cs.last_error_id, (uint32_t)bad);
    assert_int_equal(cs.last_error_status, HELIOD_ENOVOICE);

    /* non-blocking dispatch loop */
    memset(&cs, 0, sizeof cs);
    for (int i = 0; i < 5; i++)
        assert_true(heliod_play_async(h, "boom", NULL, on_reply, &cs) > 0);
    for (int spins = 0; spins < 2000 && cs.replies < 5; spins++) {
        int rc = heliod_dispatch(h);
        assert_true(rc >= 0);
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        poll(&p, 1, 10);
    }
    assert_int_equal(cs.replies, 5);

    /* events queued during a blocking call arrive at the next dispatch */
    memset(&cs, 0, sizeof cs);
    assert_int_equal(heliod_subscribe(h, HELIOD_SUB_ENDED), 0);
    heliod_voice_t v;
    assert_int_equal(heliod_play(h, "short", NULL, &v, NULL), 0);
    assert_int_equal(heliod_ping(h, NULL), 0);
    assert_int_equal(cs.ended, 0);
    assert_true(heliod_dispatch(h) >= 1);
    assert_int_equal(cs.ended, 1);
    heliod_close(h);
}

static void test_partial_reads(void **state) {
    (void)state;
    dribble = 1;
    heliod_t *h = conn();
    heliod_stat_t st[8];
    size_t n = 0;
    assert_int_equal(heliod_stats(h, st, 8, &n, 0), 0);
    assert_int_equal(n, 3);
    assert_true(st[1].value == 2.0);
    cb_state_t cs;
    memset(&cs, 0, sizeof cs);
    for (int i = 0; i < 10; i++)
        assert_true(heliod_play_async(h, "boom", NULL, on_reply, &cs) > 0);
    assert_int_equal(heliod_sync(h), 0);
    assert_int_equal(cs.replies, 10);
    dribble = 0;
    heliod_close(h);
}

static void test_daemon_disappears(void **state) {
    (void)state;
    /* SIGPIPE keeps its default action: a send() without MSG_NOSIGNAL would
     * kill this test. */
    heliod_t *h = conn();
    assert_int_equal(heliod_play(h, "crash", NULL, NULL, NULL), HELIOD_ECLOSED);
    assert_int_equal(heliod_ping(h, NULL), HELIOD_ECLOSED);
    assert_true(heliod_play_async(h, "boom", NULL, NULL, NULL) == HELIOD_ECLOSED);
    assert_int_equal(heliod_dispatch(h), HELIOD_ECLOSED);
    heliod_close(h);

    /* async traffic into a closed socket */
    h = conn();
    assert_true(heliod_play_async(h, "crash", NULL, NULL, NULL) > 0);
    assert_int_equal(heliod_flush(h), 0);
    int rc = 0;
    for (int i = 0; i < 200 && rc >= 0; i++) {
        heliod_stop_async(h, FAKE_VOICE_BASE, 1);
        rc = heliod_dispatch(h);
        usleep(1000);
    }
    assert_int_equal(rc, HELIOD_ECLOSED);
    heliod_close(h);
}

static void test_timeout(void **state) {
    (void)state;
    heliod_t *h = conn();
    heliod_set_timeout(h, 100);
    assert_int_equal(heliod_play(h, "hang", NULL, NULL, NULL), HELIOD_ETIMEDOUT);
    /* the connection is still usable */
    assert_int_equal(heliod_ping(h, NULL), 0);
    heliod_close(h);
}

/* ---- heliodctl against the fake daemon ------------------------------------ */

/* Runs heliodctl with args (stdin from `input` if not NULL); captures output. */
static int run_ctl(const char *const *args, const char *input, char *out, size_t outcap,
                   char *errout, size_t errcap) {
    const char *exe = getenv("HELIODCTL");
    if (!exe) return -100;
    char infile[] = "/tmp/heliodctl-in-XXXXXX", outfile[] = "/tmp/heliodctl-out-XXXXXX",
         errfile[] = "/tmp/heliodctl-err-XXXXXX";
    int in = mkstemp(infile), ofd = mkstemp(outfile), efd = mkstemp(errfile);
    if (input && write(in, input, strlen(input)) < 0) return -101;
    lseek(in, 0, SEEK_SET);
    pid_t pid = fork();
    if (pid == 0) {
        const char *argv[32];
        int n = 0;
        argv[n++] = exe;
        argv[n++] = "--socket";
        argv[n++] = sock_path;
        for (int i = 0; args[i] && n < 31; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        dup2(in, 0);
        dup2(ofd, 1);
        dup2(efd, 2);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    ssize_t k = pread(ofd, out, outcap - 1, 0);
    out[k > 0 ? k : 0] = '\0';
    k = pread(efd, errout, errcap - 1, 0);
    errout[k > 0 ? k : 0] = '\0';
    close(in);
    close(ofd);
    close(efd);
    unlink(infile);
    unlink(outfile);
    unlink(errfile);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_voice_management(void **state) {
    (void)state;
    heliod_t *h = conn();
    heliod_cue_t cue;
    heliod_cue_init(&cue);
    assert_true(cue.pitch == 1.0f && cue.fade_in_ms == -1.0f && cue.doppler == 1.0f);
    assert_int_equal(cue.distance_model, HELIOD_DIST_INVERSE);
    assert_int_equal(cue.overflow, HELIOD_OVERFLOW_REFUSE);
    strcpy(cue.name, "step");
    /* checked locally: no sound */
    assert_int_equal(heliod_cue_define(h, &cue), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "sounds"));
    cue.nsounds = 2;
    strcpy(cue.sounds[0], "step1");
    strcpy(cue.sounds[1], "step2");
    cue.overflow = 6;
    assert_int_equal(heliod_cue_define(h, &cue), HELIOD_EINVAL);
    cue.overflow = 256; /* would wrap to 0 on the wire */
    assert_int_equal(heliod_cue_define(h, &cue), HELIOD_EINVAL);
    cue.overflow = HELIOD_OVERFLOW_FADE_OLDEST;
    cue.max_instances = 4;
    assert_int_equal(heliod_cue_define(h, &cue), 0);
    strcpy(cue.category, "nocat");
    assert_int_equal(heliod_cue_define(h, &cue), HELIOD_ENOCATEGORY);

    heliod_category_t cat;
    heliod_category_init(&cat);
    assert_int_equal(heliod_category_define(h, &cat), HELIOD_EINVAL); /* no name */
    strcpy(cat.name, "foot");
    cat.max_instances = 8;
    assert_int_equal(heliod_category_define(h, &cat), 0);

    uint32_t nc = 0, nk = 0;
    assert_int_equal(heliod_cues_load(h, "/tmp/cues.ini", &nc, &nk), 0);
    assert_int_equal(nc, 3);
    assert_int_equal(nk, 1);
    assert_int_equal(heliod_cues_load(h, "rel.ini", NULL, NULL), HELIOD_EINVAL);

    heliod_cue_info_t info[4];
    size_t n = 0;
    assert_int_equal(heliod_cues(h, info, 4, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(info[0].kind, HELIOD_CUES_KIND_CUE);
    assert_string_equal(info[0].cue.name, "step");
    assert_int_equal(info[0].cue.nsounds, 2);
    assert_string_equal(info[0].cue.sounds[1], "step2");
    assert_int_equal(info[0].cue.overflow, HELIOD_OVERFLOW_STEAL_QUIETEST);
    assert_true(info[0].counters.plays == 12 && info[0].counters.refused_interval == 3);
    assert_int_equal(info[0].counters.virtual_now, 1);
    assert_int_equal(info[1].kind, HELIOD_CUES_KIND_CATEGORY);
    assert_string_equal(info[1].category.name, "foot");
    assert_int_equal(info[1].category.max_instances, 8);
    assert_true(info[1].counters.evicted_cat == 5);
    assert_int_equal(heliod_cues(h, info, 1, &n), 1); /* more than cap */
    assert_int_equal(n, 1);

    float pos[3] = {1, 2, 3}, vel[3] = {0, 0, -10};
    assert_int_equal(heliod_emitter_create(h, "car", pos, NULL, 0), 0);
    assert_int_equal(heliod_emitter_create(h, "car", pos, vel, HELIOD_EM_DETACHED), 0);
    assert_int_equal(heliod_emitter_create(h, "car", NULL, NULL, 0), HELIOD_EINVAL);
    assert_int_equal(heliod_emitter_create(h, "car", pos, NULL, 0x8), HELIOD_EINVAL);
    assert_int_equal(heliod_emitter_create(h, "c r", pos, NULL, 0), HELIOD_ENAME);
    assert_int_equal(heliod_emitter_set(h, "car", HELIOD_EM_POS, pos, NULL, 50), 0);
    assert_int_equal(heliod_emitter_set(h, "car", HELIOD_EM_VEL, NULL, NULL, 0), HELIOD_EINVAL);
    assert_int_equal(heliod_emitter_set(h, "car", HELIOD_EM_POS, pos, NULL, -1), HELIOD_EINVAL);
    assert_int_equal(heliod_emitter_set(h, "ghost", HELIOD_EM_POS, pos, NULL, 0),
                     HELIOD_ENOEMITTER);
    assert_true(heliod_emitter_set_async(h, "car", HELIOD_EM_POS | HELIOD_EM_VEL, pos, vel, 16) >
                0);
    pos[0] = 2e6f;
    assert_int_equal(heliod_emitter_set_async(h, "car", HELIOD_EM_POS, pos, NULL, 0),
                     HELIOD_EINVAL);
    uint32_t count = 0;
    assert_int_equal(heliod_emitter_destroy(h, "car", -1, &count), 0);
    assert_int_equal(count, 2);
    assert_int_equal(heliod_emitter_destroy(h, "car", -2, &count), HELIOD_EINVAL);
    assert_int_equal(heliod_emitter_destroy(h, "ghost", 0, NULL), HELIOD_ENOEMITTER);

    assert_int_equal(heliod_pause_group(h, HELIOD_PAUSE_CATEGORY, "foot", 1, &count), 0);
    assert_int_equal(count, 4);
    assert_int_equal(heliod_pause_group(h, HELIOD_PAUSE_BUS, "music", 0, &count), 0);
    assert_int_equal(count, 6);
    assert_int_equal(heliod_pause_group(h, 1, "music", 0, &count), HELIOD_EINVAL);
    assert_int_equal(heliod_pause_group(h, HELIOD_PAUSE_BUS, "", 0, &count), HELIOD_ENAME);

    heliod_play_params_t p;
    heliod_play_params_init(&p);
    assert_int_equal(p.over, 0);
    assert_int_equal(p.emitter[0], '\0');
    assert_true(p.vel[0] == 0 && p.vel[1] == 0 && p.vel[2] == 0);
    strcpy(p.emitter, "car");
    p.over = HELIOD_OVER_PRIORITY | HELIOD_OVER_BUS;
    heliod_voice_t v = 0;
    assert_int_equal(heliod_play(h, "step", &p, &v, NULL), 0);
    p.over = 0x80;
    assert_int_equal(heliod_play(h, "step", &p, &v, NULL), HELIOD_EINVAL);
    p.over = HELIOD_OVER_FILTER | HELIOD_OVER_SENDS;
    p.post.occlusion = 1.5f; /* outside [0, 1]: refused before it is sent */
    assert_int_equal(heliod_play(h, "step", &p, &v, NULL), HELIOD_EINVAL);
    p.post.occlusion = 0.5f;
    strcpy(p.post.send[0], "reverb");
    p.post.send_db[0] = -12.0f;
    assert_int_equal(heliod_play(h, "step", &p, &v, NULL), 0);
    memset(&p.post, 0, sizeof p.post);
    p.over = 0;
    strcpy(p.emitter, "c r");
    assert_int_equal(heliod_play(h, "step", &p, &v, NULL), HELIOD_EINVAL);

    heliod_voice_set_t st = {.mask = HELIOD_SET_VEL, .vel = {1, 0, 0}};
    assert_int_equal(heliod_set(h, v, &st), 0);
    st.vel[0] = 1.0f / 0.0f;
    assert_int_equal(heliod_set(h, v, &st), HELIOD_EINVAL);
    assert_int_equal(heliod_subscribe(h, HELIOD_SUB_ENDED | HELIOD_SUB_VIRTUAL), 0);
    assert_int_equal(heliod_sync(h), 0);
    heliod_close(h);
}

static void test_heliodctl(void **state) {
    (void)state;
    char out[8192], err[4096];
    if (!getenv("HELIODCTL")) skip();
    const char *play[] = {"play", "boom", "--gain", "-6", NULL};
    assert_int_equal(run_ctl(play, NULL, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "4294967296\n");

    const char *missing[] = {"play", "missing", NULL};
    assert_int_equal(run_ctl(missing, NULL, out, sizeof out, err, sizeof err), 1);
    assert_string_equal(out, "");
    assert_non_null(strstr(err, "heliodctl: ENOSOUND: no such sound: missing"));

    const char *json[] = {"--json", "stop", "--all", NULL};
    assert_int_equal(run_ctl(json, NULL, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "{\"ok\":true,\"stopped\":5}\n");

    const char *status[] = {"status", NULL};
    assert_int_equal(run_ctl(status, NULL, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "server fake-0.1"));
    assert_non_null(strstr(out, "xruns 2\n"));

    const char *wait[] = {"play", "short", "--wait", NULL};
    assert_int_equal(run_ctl(wait, NULL, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "4294967296\n");

    const char *badopt[] = {"play", "boom", "--gain", "x", NULL};
    assert_int_equal(run_ctl(badopt, NULL, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "heliodctl: "));

    const char *batch[] = {"batch", "-", NULL};
    const char *script = "# a comment\n"
                         "play boom\n"
                         "\n"
                         "play missing\n"
                         "stop 4294967296 --fade 5\n"
                         "set --gain\n"
                         "sounds\n"
                         "ping\n";
    assert_int_equal(run_ctl(batch, script, out, sizeof out, err, sizeof err), 1);
    /* one result line per command, in order */
    const char *expect_prefix = "4294967296\nerror ENOSOUND: no such sound: missing\nok\n"
                                "error EINVAL: ";
    assert_true(strncmp(out, expect_prefix, strlen(expect_prefix)) == 0);
    assert_non_null(
        strstr(out, "s0 frames=0 channels=2 source_rate=48000 playing=0 private owner=0 | s1"));
    assert_non_null(strstr(out, " ms\n"));
    int lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 6);
    assert_non_null(strstr(err, "line 4: ENOSOUND"));
    assert_non_null(strstr(err, "line 6: EINVAL"));

    const char *cues[] = {"cues", NULL};
    assert_int_equal(run_ctl(cues, NULL, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "KIND"));
    assert_non_null(strstr(out, "PLAYS"));
    assert_non_null(strstr(out, "cue      step "));
    assert_non_null(strstr(out, "steal-quietest"));
    assert_non_null(strstr(out, "category foot "));
    const char *cues_json[] = {"stats", "--cues", "--json", NULL};
    assert_int_equal(run_ctl(cues_json, NULL, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "{\"ok\":true,\"truncated\":false,\"cues\":[{\"kind\":\"cue\","
                                "\"name\":\"step\",\"sounds\":[\"step1\",\"step2\"]"));
    assert_non_null(strstr(out, "\"plays\":12,\"refused_interval\":3"));
    assert_non_null(strstr(out, "{\"kind\":\"category\",\"name\":\"foot\""));
    const char *load[] = {"cues", "load", "rel/cues.ini", NULL}; /* made absolute */
    assert_int_equal(run_ctl(load, NULL, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "3 cues, 1 categories\n");
    const char *destroy[] = {"emitter", "destroy", "car", NULL};
    assert_int_equal(run_ctl(destroy, NULL, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "stopped 2\n");
    const char *ghost[] = {"emitter", "set", "ghost", "--pos", "1,2,3", NULL};
    assert_int_equal(run_ctl(ghost, NULL, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "heliodctl: ENOEMITTER: no such emitter: ghost"));
    const char *pausecat[] = {"pause", "--category", "foot", NULL};
    assert_int_equal(run_ctl(pausecat, NULL, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "changed 4\n");
    const char *cue17[] = {"cue", "x", "--sound", "a", "--sound", "b", "--pick", "never", NULL};
    assert_int_equal(run_ctl(cue17, NULL, out, sizeof out, err, sizeof err), 2);
    const char *voices[] = {"voices", NULL};
    assert_int_equal(run_ctl(voices, NULL, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "cue=- category=- emitter=- audibility_db="));

    const char *nodaemon[] = {"--socket", "/nonexistent/x.sock", "ping", NULL};
    assert_int_equal(run_ctl(nodaemon, NULL, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "is heliod running?"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_connect),
        cmocka_unit_test(test_blocking_calls),
        cmocka_unit_test(test_async),
        cmocka_unit_test(test_partial_reads),
        cmocka_unit_test(test_daemon_disappears),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_voice_management),
        cmocka_unit_test(test_heliodctl),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
