/*
 * ctl_watch.c - heliodctl's commands that wait on events: watch (and
 * `events`), meter, bank load with its progress, zones --watch, and play
 * --wait, whose request goes through the same pipeline as every other
 * (ctl_run_single) before it waits for the voice's ENDED.
 */
#include "ctl_run.h"

#include "ctl_out.h"
#include "heliod.h"
#include "hl_proto.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_event(void *user, const heliod_event_t *ev) {
    ctl_evstate_t *st = user;
    if (!st->wait_voice) {
        ctl_print_event(ev);
        return;
    }
    if (ev->type == HELIOD_EVENT_ENDED && ev->voice == st->wait_voice) {
        st->ended = 1;
        st->reason = ev->reason;
    }
}

/* Runs the event loop until st->ended (play --wait) or the daemon goes away. */
static int event_loop(heliod_t *h, ctl_evstate_t *st) {
    for (;;) {
        int rc = heliod_dispatch(h);
        if (st->wait_voice && st->ended) return 0;
        if (rc < 0) return rc;
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        if (heliod_pending(h)) p.events |= POLLOUT;
        if (poll(&p, 1, -1) < 0 && errno != EINTR) return HELIOD_EIO;
    }
}

int ctl_run_watch(heliod_t *h) {
    ctl_evstate_t st = {0};
    heliod_set_event_callback(h, on_event, &st);
    int rc = heliod_subscribe(h, HELIOD_SUB_ENDED | HELIOD_SUB_STARTED | HELIOD_SUB_ALL |
                                     HELIOD_SUB_VIRTUAL | HELIOD_SUB_DEVICE | HELIOD_SUB_BANK);
    if (rc < 0) {
        ctl_errorf("watch: %s", heliod_last_error(h));
        return CTL_EXIT_FAIL;
    }
    rc = event_loop(h, &st);
    if (rc == HELIOD_ECLOSED) return 0; /* the daemon went away: the watch is over */
    ctl_errorf("watch: %s", heliod_strerror(rc));
    return CTL_EXIT_FAIL;
}

/* ---- meter: one line per METER event ----------------------------------- */

typedef struct {
    long left; /* events still to print (--count), or -1 */
} meterstate_t;

/* The louder of a level's n channels. */
static float louder(const float *v, unsigned n) {
    float top = v[0];
    for (unsigned c = 1; c < n; c++)
        top = v[c] > top ? v[c] : top;
    return top;
}

static void json_level(const char *name, const heliod_level_all_t *l, unsigned n) {
    printf("{\"name\":");
    ctl_json_str(name);
    static const char *const key[3] = {"peak_db", "peak_hold_db", "rms_db"};
    const float *v[3] = {l->peak_db, l->peak_hold_db, l->rms_db};
    for (int k = 0; k < 3; k++) {
        printf(",\"%s\":[", key[k]);
        for (unsigned c = 0; c < n; c++) {
            if (c) putchar(',');
            ctl_json_num(v[k][c]);
        }
        putchar(']');
    }
    putchar('}');
}

/* A level of every channel: the library's (heliod_meter_all), else the front pair. */
static void level_of(const heliod_level_t *l, const heliod_level_all_t *ch, heliod_level_all_t *o) {
    if (ch) {
        *o = *ch;
        return;
    }
    memcpy(o->peak_db, l->peak_db, sizeof l->peak_db);
    memcpy(o->peak_hold_db, l->peak_hold_db, sizeof l->peak_hold_db);
    memcpy(o->rms_db, l->rms_db, sizeof l->rms_db);
}

static void print_meter(const heliod_meter_t *m) {
    const heliod_meter_all_t *ch = heliod_meter_all(m);
    const unsigned n = ch ? ch->channels : 2;
    heliod_level_all_t l;
    if (ctl_opts.json) {
        printf("{\"event\":\"meter\",\"frame\":%llu,\"channels\":%u,\"master\":",
               (unsigned long long)m->frame, n);
        level_of(&m->master, ch ? &ch->master : NULL, &l);
        json_level(m->master.name, &l, n);
        printf(",\"buses\":[");
        for (unsigned i = 0; i < m->nbuses; i++) {
            if (i) putchar(',');
            level_of(&m->bus[i], ch ? &ch->bus[i] : NULL, &l);
            json_level(m->bus[i].name, &l, n);
        }
        printf("],\"loudness\":{\"momentary\":");
        ctl_json_num(m->momentary);
        printf(",\"short_term\":");
        ctl_json_num(m->short_term);
        printf(",\"integrated\":");
        ctl_json_num(m->integrated);
        printf(",\"range\":");
        ctl_json_num(m->range);
        printf("}}\n");
    } else {
        level_of(&m->master, ch ? &ch->master : NULL, &l);
        printf("master %.1f/%.1f/%.1f", (double)louder(l.peak_db, n),
               (double)louder(l.peak_hold_db, n), (double)louder(l.rms_db, n));
        for (unsigned i = 0; i < m->nbuses; i++) {
            level_of(&m->bus[i], ch ? &ch->bus[i] : NULL, &l);
            printf(" %s %.1f/%.1f/%.1f", m->bus[i].name, (double)louder(l.peak_db, n),
                   (double)louder(l.peak_hold_db, n), (double)louder(l.rms_db, n));
        }
        printf(" M %.1f S %.1f I %.1f LRA %.1f\n", (double)m->momentary, (double)m->short_term,
               (double)m->integrated, (double)m->range);
    }
    fflush(stdout);
}

static void on_meter_event(void *user, const heliod_event_t *ev) {
    meterstate_t *st = user;
    if (ev->type == HELIOD_EVENT_METER && ev->meter && st->left != 0) {
        print_meter(ev->meter);
        if (st->left > 0) st->left--;
    } else if (ev->type == HELIOD_EVENT_ERROR) {
        ctl_print_event(ev);
    }
}

int ctl_run_meter(heliod_t *h, const ctl_cmd_t *c) {
    meterstate_t st = {.left = c->m.meter.count > 0 ? c->m.meter.count : -1};
    heliod_set_event_callback(h, on_meter_event, &st);
    int rc = heliod_subscribe_meter(h, HELIOD_SUB_METER, c->m.meter.hz);
    if (rc < 0) {
        ctl_errorf("meter: %s", heliod_last_error(h));
        return CTL_EXIT_FAIL;
    }
    while (st.left != 0) {
        rc = heliod_dispatch(h);
        if (rc < 0) break;
        if (st.left == 0) break;
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        if (heliod_pending(h)) p.events |= POLLOUT;
        if (poll(&p, 1, -1) < 0 && errno != EINTR) {
            rc = HELIOD_EIO;
            break;
        }
    }
    if (st.left == 0 || rc == HELIOD_ECLOSED) return 0; /* done, or the daemon went away */
    ctl_errorf("meter: %s", heliod_strerror(rc));
    return CTL_EXIT_FAIL;
}

/* ---- bank load (waits, with progress) and zones --watch ---------------------- */

typedef struct {
    char name[HL_MAX_NAME + 1];
    int done; /* 1 loaded, -1 failed */
    int tty;
    heliod_bank_info_t last;
} bankstate_t;

static void on_bank_event(void *user, const heliod_event_t *ev) {
    bankstate_t *st = user;
    if (ev->type != HELIOD_EVENT_BANK || !ev->bank || strcmp(ev->bank->name, st->name) != 0) return;
    const heliod_bank_info_t *b = ev->bank;
    st->last = *b;
    uint32_t n = b->done + b->failed;
    if (st->tty) { /* a bar, redrawn in place */
        int w = 30, fill = b->sounds ? (int)((uint64_t)w * n / b->sounds) : w;
        fprintf(stderr, "\r%s [%.*s%*s] %u/%u sounds %.1f MB", b->name, fill,
                "##############################", w - fill, "", n, b->sounds,
                (double)b->bytes / 1048576.0);
    } else {
        fprintf(stderr, "bank %s: %u/%u sounds, %llu bytes, %s\n", b->name, n, b->sounds,
                (unsigned long long)b->bytes, ctl_bank_state(b->state));
    }
    if (b->state == HELIOD_BANK_LOADED) st->done = 1;
    if (b->state == HELIOD_BANK_FAILED) st->done = -1;
}

int ctl_run_bank_wait(heliod_t *h, const ctl_cmd_t *c) {
    bankstate_t st = {.tty = isatty(2)};
    heliod_set_event_callback(h, on_bank_event, &st);
    int rc = heliod_subscribe(h, HELIOD_SUB_BANK);
    heliod_bank_info_t b;
    if (rc == 0) rc = heliod_bank_load(h, c->m.bank.arg, &b);
    if (rc < 0) {
        ctl_errorf("bank load: %s: %s", hl_errname(rc), heliod_last_error(h));
        return CTL_EXIT_FAIL;
    }
    snprintf(st.name, sizeof st.name, "%s", b.name);
    if (b.state == HELIOD_BANK_FAILED) st.done = -1, st.last = b;
    while (!st.done) {
        rc = heliod_dispatch(h);
        if (rc < 0 || st.done) break;
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        if (heliod_pending(h)) p.events |= POLLOUT;
        if (poll(&p, 1, -1) < 0 && errno != EINTR) break;
    }
    if (st.tty) fputc('\n', stderr);
    if (st.done == 1) {
        if (ctl_opts.json)
            printf("{\"ok\":true,\"bank\":\"%s\",\"sounds\":%u,\"bytes\":%llu}\n", st.name,
                   st.last.done, (unsigned long long)st.last.bytes);
        else
            printf("%s loaded: %u sounds, %llu bytes\n", st.name, st.last.done,
                   (unsigned long long)st.last.bytes);
        return 0;
    }
    ctl_errorf("bank %s: %s", st.name[0] ? st.name : c->m.bank.arg,
               st.done < 0 ? (st.last.error[0] ? st.last.error : "failed") : heliod_strerror(rc));
    return CTL_EXIT_FAIL;
}

static void on_zone_tick(void *user, const heliod_event_t *ev) {
    (void)user;
    if (ev->type == HELIOD_EVENT_ZONE_TICK && ev->message) {
        printf("%s\n", ev->message);
        fflush(stdout);
    }
}

int ctl_run_zones_watch(heliod_t *h) {
    heliod_set_event_callback(h, on_zone_tick, NULL);
    int rc = heliod_subscribe(h, HELIOD_SUB_ZONES);
    if (rc < 0) {
        ctl_errorf("zones --watch: %s", heliod_last_error(h));
        return CTL_EXIT_FAIL;
    }
    for (;;) {
        rc = heliod_dispatch(h);
        if (rc < 0) break;
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        if (heliod_pending(h)) p.events |= POLLOUT;
        if (poll(&p, 1, -1) < 0 && errno != EINTR) {
            rc = HELIOD_EIO;
            break;
        }
    }
    if (rc == HELIOD_ECLOSED) return 0;
    ctl_errorf("zones --watch: %s", heliod_strerror(rc));
    return CTL_EXIT_FAIL;
}

/* play --wait: the very request a play without --wait sends, through the
 * same runner (ctl_run_single: ctl_encode of the parsed command, so no field
 * of it can be left out on this path; the parser leaves it attached, as it
 * is waited for); prints its result the same way, then waits for the
 * voice's ENDED. */
int ctl_run_play_wait(heliod_t *h, const ctl_cmd_t *c) {
    ctl_evstate_t st = {0};
    heliod_set_event_callback(h, on_event, &st);
    int rc = heliod_subscribe(h, HELIOD_SUB_ENDED);
    if (rc < 0) {
        ctl_errorf("play: %s", heliod_last_error(h));
        return CTL_EXIT_FAIL;
    }
    ctl_play_wait = &st;
    int code = ctl_run_single(h, c);
    ctl_play_wait = NULL;
    if (code) return CTL_EXIT_FAIL;
    heliod_voice_t v = st.wait_voice;
    rc = event_loop(h, &st);
    if (rc < 0) {
        ctl_errorf("play --wait: %s", heliod_strerror(rc));
        return CTL_EXIT_FAIL;
    }
    if (ctl_opts.json)
        printf("{\"event\":\"ended\",\"voice\":%llu,\"reason\":\"%s\"}\n", (unsigned long long)v,
               ctl_reason_name((unsigned)st.reason));
    return 0;
}
