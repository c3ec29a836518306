/*
 * heliodctl.c - command-line control of the heliod daemon for shell scripts,
 * CI and people: load and play sounds, move them, watch events, read stats.
 *
 * Every request command runs through one pipeline: parse (ctl_args.c), encode
 * the body, send it with heliod_raw_async(), wait until every reply is in, then
 * print the results in order. A single command is a batch of one; `batch`
 * sends all its lines before waiting for any reply. `play --wait`, `watch` and
 * `ping` have their own small loops. Text output is one line per result (lists
 * print one line per entry, joined with " | " inside a batch); --json prints one
 * JSON object per result. Errors: one "heliodctl: ..." line on stderr and a
 * non-zero exit status.
 */
#include "ctl_args.h"
#include "ctl_ui.h"
#include "heliod.h"
#include "hl_config.h"
#include "hl_proto.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CTL_EXIT_FAIL  1                    /* a request failed or the daemon is unreachable */
#define CTL_EXIT_USAGE 2                    /* bad command line */
#define CTL_LINE_MAX   (HL_MAX_PATH + 1024) /* longest batch line: a path plus options */

/* One request in flight and, once answered, its result. */
typedef struct {
    ctl_kind_t kind;
    int line; /* batch line number, 0 for a single command */
    int sent, done;
    int status;
    char *message;
    uint8_t *body;
    size_t len;
    double t_sent, t_done; /* ms, for ping */
    int at;                /* sent scheduled (HL_FLAG_AT) */
    uint64_t late;         /* then: frames it was late (applied at once) */
} result_t;

static ctl_opts_t opts;
static heliod_t *g_conn; /* the one connection: its replies' late-frames figures */

/* The event loops' state (watch, play --wait). */
typedef struct {
    heliod_voice_t wait_voice;
    int ended;
    int reason;
} evstate_t;
/* play --wait: its PLAY's reply names the voice to wait for, before any
 * event dispatched after it can be its ENDED */
static evstate_t *g_play_wait;

static double mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void errorf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("heliodctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- output: one line per result, or one JSON object ------------------- */

typedef struct {
    int joined; /* batch text mode: entries joined on one line */
    int n;      /* items written on the current line */
} sink_t;

static void sink_item(sink_t *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (s->joined && s->n) fputs(" | ", stdout);
    vprintf(fmt, ap);
    if (!s->joined) fputc('\n', stdout);
    s->n++;
    va_end(ap);
}

static void sink_end(sink_t *s) {
    if (s->joined) fputc('\n', stdout);
}

static void json_str(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

static void json_num(double v) {
    if (v != v || v > 1e308 || v < -1e308)
        fputs("null", stdout);
    else
        printf("%.15g", v);
}

static const char *state_name(unsigned s) {
    static const char *names[] = {"playing", "stopping", "paused", "virtual", "vpaused"};
    return s < 5 ? names[s] : "unknown";
}

static const char *reason_name(unsigned r) {
    static const char *names[] = {"finished", "stopped",  "stolen",  "owner",  "shutdown",
                                  "evicted",  "distance", "emitter", "killed", "lifetime"};
    return r < sizeof names / sizeof names[0] ? names[r] : "unknown";
}

/* Why a voice became virtual (HL_VIRT_WHY_*). */
static const char *virt_reason_name(unsigned r) {
    static const char *names[] = {"rank", "floor", "distance", "paused", "governed"};
    return r < sizeof names / sizeof names[0] ? names[r] : "unknown";
}

static const char *dash(const char *s) {
    return s[0] ? s : "-";
}

static const char *enum_str(hl_enum_kind_t kind, int v) {
    const char *n = hl_enum_name(kind, v);
    return n ? n : "unknown";
}

static void json_key_num(const char *key, double v) {
    printf(",\"%s\":", key);
    json_num(v);
}

static void json_key_str(const char *key, const char *v) {
    printf(",\"%s\":", key);
    json_str(v);
}

/* Table header of `cues` (text, not in a batch). */
static void cues_header(void) {
    printf("%-8s %-20s %-8s %-12s %5s %5s %-21s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %7s %7s\n",
           "KIND", "NAME", "BUS", "CATEGORY", "PRIO", "MAX", "OVERFLOW", "PLAYS", "R_INTVL",
           "R_DIST", "R_CUE", "R_CAT", "R_VOICE", "EV_CUE", "EV_CAT", "STOLEN", "VIRTLSD", "ACTIVE",
           "VIRTUAL");
}

/* One CUES entry: a table row, a key=value item (batch) or a JSON object. */
static void print_cue_entry(sink_t *s, const hl_cue_info_t *e, int json, int first, int batch) {
    int cue = e->kind == HL_CUES_KIND_CUE;
    const char *name = cue ? e->cue.name : e->cat.name;
    uint32_t max = cue ? e->cue.max_instances : e->cat.max_instances;
    int overflow = cue ? e->cue.overflow : e->cat.overflow;
    const hl_cue_counters_t *n = &e->n;
    if (json) {
        printf("%s{\"kind\":\"%s\",\"name\":", first ? "" : ",", cue ? "cue" : "category");
        json_str(name);
        if (cue) {
            const hl_cue_t *c = &e->cue;
            printf(",\"sounds\":[");
            for (unsigned i = 0; i < c->nsounds; i++) {
                if (i) putchar(',');
                json_str(c->sounds[i]);
            }
            printf("]");
            json_key_str("pick", enum_str(HL_ENUM_PICK, c->pick));
            printf(",\"loop\":%s,\"3d\":%s,\"interp\":\"%s\"",
                   (c->flags & HL_CUE_LOOP) ? "true" : "false",
                   (c->flags & HL_CUE_3D) ? "true" : "false",
                   (c->flags & HL_CUE_SINC)     ? "sinc"
                   : (c->flags & HL_CUE_CUBIC)  ? "cubic"
                   : (c->flags & HL_CUE_LINEAR) ? "linear"
                                                : "default");
            json_key_num("gain_db", c->gain_db);
            json_key_num("gain_rand_db", c->gain_rand_db);
            json_key_num("pitch", c->pitch);
            json_key_num("pitch_rand_cents", c->pitch_rand_cents);
            json_key_str("bus", c->bus[0] ? c->bus : "sfx");
            json_key_str("category", c->category);
            printf(",\"priority\":%d", c->priority);
            json_key_num("pan", c->pan);
            json_key_num("min_distance", c->min_distance);
            json_key_num("max_distance", c->max_distance);
            json_key_num("rolloff", c->rolloff);
            json_key_str("model", enum_str(HL_ENUM_MODEL, c->model));
            json_key_num("fade_in_ms", c->fade_in_ms);
            json_key_num("fade_out_ms", c->fade_out_ms);
            json_key_str("fade_curve", enum_str(HL_ENUM_CURVE, c->fade_curve));
            json_key_num("min_interval_ms", c->min_interval_ms);
            json_key_str("beyond", enum_str(HL_ENUM_BEYOND, c->beyond));
            json_key_str("virtual", enum_str(HL_ENUM_VIRT, c->virt));
            json_key_num("doppler", c->doppler);
        } else {
            json_key_num("fade_out_ms", e->cat.fade_out_ms);
            json_key_str("fade_curve", enum_str(HL_ENUM_CURVE, e->cat.fade_curve));
        }
        printf(",\"max_instances\":%u", max);
        json_key_str("overflow", enum_str(HL_ENUM_OVERFLOW, overflow));
        printf(",\"counters\":{\"plays\":%llu,\"refused_interval\":%llu,"
               "\"refused_distance\":%llu,\"refused_cue_limit\":%llu,"
               "\"refused_cat_limit\":%llu,\"refused_no_voice\":%llu,\"evicted_cue\":%llu,"
               "\"evicted_cat\":%llu,\"stolen\":%llu,\"virtualised\":%llu,\"active\":%u,"
               "\"virtual\":%u}}",
               (unsigned long long)n->plays, (unsigned long long)n->refused_interval,
               (unsigned long long)n->refused_distance, (unsigned long long)n->refused_cue_limit,
               (unsigned long long)n->refused_cat_limit, (unsigned long long)n->refused_no_voice,
               (unsigned long long)n->evicted_cue, (unsigned long long)n->evicted_cat,
               (unsigned long long)n->stolen, (unsigned long long)n->virtualised, n->active,
               n->virtual_now);
        return;
    }
    if (batch) {
        sink_item(s,
                  "%s %s max=%u overflow=%s plays=%llu refused_interval=%llu "
                  "refused_distance=%llu refused_cue_limit=%llu refused_cat_limit=%llu "
                  "refused_no_voice=%llu evicted_cue=%llu evicted_cat=%llu stolen=%llu "
                  "virtualised=%llu active=%u virtual=%u",
                  cue ? "cue" : "category", name, max, enum_str(HL_ENUM_OVERFLOW, overflow),
                  (unsigned long long)n->plays, (unsigned long long)n->refused_interval,
                  (unsigned long long)n->refused_distance, (unsigned long long)n->refused_cue_limit,
                  (unsigned long long)n->refused_cat_limit, (unsigned long long)n->refused_no_voice,
                  (unsigned long long)n->evicted_cue, (unsigned long long)n->evicted_cat,
                  (unsigned long long)n->stolen, (unsigned long long)n->virtualised, n->active,
                  n->virtual_now);
        return;
    }
    char prio[16] = "-", maxs[16] = "-";
    if (cue) snprintf(prio, sizeof prio, "%d", e->cue.priority);
    if (max) snprintf(maxs, sizeof maxs, "%u", max);
    printf("%-8s %-20s %-8s %-12s %5s %5s %-21s %8llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu "
           "%8llu %8llu %7u %7u\n",
           cue ? "cue" : "category", name, cue ? (e->cue.bus[0] ? e->cue.bus : "sfx") : "-",
           cue ? dash(e->cue.category) : "-", prio, maxs, enum_str(HL_ENUM_OVERFLOW, overflow),
           (unsigned long long)n->plays, (unsigned long long)n->refused_interval,
           (unsigned long long)n->refused_distance, (unsigned long long)n->refused_cue_limit,
           (unsigned long long)n->refused_cat_limit, (unsigned long long)n->refused_no_voice,
           (unsigned long long)n->evicted_cue, (unsigned long long)n->evicted_cat,
           (unsigned long long)n->stolen, (unsigned long long)n->virtualised, n->active,
           n->virtual_now);
    s->n++;
}

/* Prints a successful result. Returns 0, or -1 if the reply body is malformed. */
static const char *bank_state(int s) {
    static const char *const n[] = {"loading", "loaded", "failed", "unloading", "unloaded"};
    return s >= 0 && s <= 4 ? n[s] : "?";
}

/* One bank as a text line or a JSON object. */
static void print_bank(sink_t *s, const hl_bank_info_t *e, int json) {
    if (json) {
        printf("{\"name\":");
        json_str(e->name);
        json_key_str("path", e->path);
        json_key_str("state", bank_state(e->state));
        printf(",\"sounds\":%u,\"done\":%u,\"failed\":%u,\"bytes\":%llu", e->sounds, e->done,
               e->failed, (unsigned long long)e->bytes);
        json_key_str("error", e->error);
        putchar('}');
    } else {
        sink_item(s, "%s %s sounds=%u/%u failed=%u bytes=%llu%s%s", e->name, bank_state(e->state),
                  e->done, e->sounds, e->failed, (unsigned long long)e->bytes,
                  e->error[0] ? " error=" : "", e->error);
    }
}

/* FX parameters of a kind as "name=value" pairs (or JSON members). */
static void print_fx_params(const hl_fx_info_t *e, int json, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < HL_FX_PARAMS; k++) {
        const char *pn = hl_fx_param_name(e->kind, k);
        if (!pn) break;
        if (json) {
            json_key_num(pn, e->p[k]);
        } else if (len < cap) {
            int n = snprintf(buf + len, cap - len, " %s=%g", pn, (double)e->p[k]);
            if (n > 0) len += (size_t)n;
        }
    }
}

/* BUSES, FX_LIST and DUCKS replies. */
static int print_graph_list(hl_rbuf_t *r, ctl_kind_t kind, int json, int batch) {
    hl_list_head_t head;
    hl_get_list_head(r, &head);
    if (r->err) return -1;
    sink_t s = {.joined = batch && !json};
    if (json)
        printf(",\"truncated\":%s,\"%s\":[", head.truncated ? "true" : "false",
               kind == CTL_BUSES    ? "buses"
               : kind == CTL_DUCKS  ? "ducks"
               : kind == CTL_RZONES ? "reverb_zones"
               : kind == CTL_BANKS  ? "banks"
               : kind == CTL_ZONES  ? "zones"
                                    : "fx");
    for (unsigned i = 0; i < head.count; i++) {
        if (json && i) putchar(',');
        if (kind == CTL_BUSES) {
            hl_bus_info_t e;
            hl_get_bus_info(r, &e);
            if (r->err) return -1;
            if (json) {
                printf("{\"name\":");
                json_str(e.name);
                json_key_str("parent", e.parent);
                json_key_num("gain_db", e.gain_db);
                printf(",\"mute\":%s,\"fx\":%u,\"voices\":%u,\"sends\":%u",
                       e.mute ? "true" : "false", e.fx, e.voices, e.sends);
                json_key_num("duck_db", e.duck_db);
                json_key_num("path_gain_db", e.path_gain_db);
                printf(",\"bus_sends\":[");
                for (int k = 0, nk = 0; k < HL_BUS_SENDS_MAX; k++) {
                    if (!e.send[k][0]) continue;
                    printf("%s{\"bus\":", nk++ ? "," : "");
                    json_str(e.send[k]);
                    json_key_num("db", e.send_db[k]);
                    putchar('}');
                }
                printf("]}");
            } else {
                char sends[300] = "";
                size_t sl = 0;
                for (int k = 0; k < HL_BUS_SENDS_MAX && sl < sizeof sends; k++)
                    if (e.send[k][0])
                        sl += (size_t)snprintf(sends + sl, sizeof sends - sl, " send=%s:%.1f",
                                               e.send[k], (double)e.send_db[k]);
                sink_item(&s,
                          "%s parent=%s gain_db=%.1f%s fx=%u voices=%u sends=%u duck_db=%.1f "
                          "path_gain_db=%.1f%s",
                          e.name, e.parent[0] ? e.parent : "-", (double)e.gain_db,
                          e.mute ? " muted" : "", e.fx, e.voices, e.sends, (double)e.duck_db,
                          (double)e.path_gain_db, sends);
            }
        } else if (kind == CTL_BANKS) {
            hl_bank_info_t e;
            hl_get_bank_info(r, &e);
            if (r->err) return -1;
            print_bank(&s, &e, json);
        } else if (kind == CTL_ZONES) {
            hl_zone_info_t e;
            hl_get_zone_info(r, &e);
            if (r->err) return -1;
            static const char *const st[3] = {"out", "loading", "loaded"};
            const char *sn = e.state < 3 ? st[e.state] : "?";
            if (json) {
                printf("{\"name\":");
                json_str(e.zone.name);
                json_key_str("bank", e.zone.bank);
                printf(",\"pos\":[");
                json_num(e.zone.pos[0]);
                putchar(',');
                json_num(e.zone.pos[1]);
                putchar(',');
                json_num(e.zone.pos[2]);
                putchar(']');
                json_key_num("radius", e.zone.radius);
                json_key_str("state", sn);
                json_key_num("bytes", (double)e.bytes);
                json_key_num("distance", e.distance);
                putchar('}');
            } else {
                sink_item(&s, "%s %s bytes=%llu distance=%.1f radius=%g pos=%g,%g,%g bank=%s",
                          e.zone.name, sn, (unsigned long long)e.bytes, (double)e.distance,
                          (double)e.zone.radius, (double)e.zone.pos[0], (double)e.zone.pos[1],
                          (double)e.zone.pos[2], e.zone.bank);
            }
        } else if (kind == CTL_RZONES) {
            hl_rzone_info_t e;
            hl_get_rzone_info(r, &e);
            if (r->err) return -1;
            const hl_rzone_t *z = &e.zone;
            if (json) {
                printf("{\"name\":");
                json_str(z->name);
                printf(",\"pos\":[");
                json_num(z->pos[0]);
                putchar(',');
                json_num(z->pos[1]);
                putchar(',');
                json_num(z->pos[2]);
                putchar(']');
                json_key_num("radius", z->radius);
                json_key_num("fade", z->fade);
                json_key_str("bus", z->bus);
                json_key_str("feed", z->feed);
                json_key_num("weight", e.weight);
                json_key_num("send_db", e.send_db);
                putchar('}');
            } else {
                sink_item(&s,
                          "%s pos=%g,%g,%g radius=%g fade=%g bus=%s feed=%s weight=%.2f "
                          "send_db=%.1f",
                          z->name, (double)z->pos[0], (double)z->pos[1], (double)z->pos[2],
                          (double)z->radius, (double)z->fade, z->bus, z->feed, (double)e.weight,
                          (double)e.send_db);
            }
        } else if (kind == CTL_FX_LIST) {
            hl_fx_info_t e;
            hl_get_fx_info(r, &e);
            if (r->err) return -1;
            const char *kn = hl_fx_kind_name(e.kind), *tn = hl_fx_type_name(e.kind, e.type);
            char params[256];
            if (json) {
                printf("{\"bus\":");
                json_str(e.bus);
                printf(",\"index\":%u", e.index);
                json_key_str("kind", kn ? kn : "?");
                if (tn) json_key_str(e.kind == HL_FXK_REVERB ? "preset" : "type", tn);
                print_fx_params(&e, 1, params, sizeof params);
                putchar('}');
            } else {
                print_fx_params(&e, 0, params, sizeof params);
                sink_item(&s, "%s %u %s%s%s%s", e.bus, e.index, kn ? kn : "?",
                          tn ? (e.kind == HL_FXK_REVERB ? " preset=" : " type=") : "", tn ? tn : "",
                          params);
            }
        } else {
            hl_duck_info_t e;
            hl_get_duck_info(r, &e);
            if (r->err) return -1;
            const hl_duck_rule_t *d = &e.rule;
            if (json) {
                printf("{\"bus\":");
                json_str(d->bus);
                json_key_str("by", d->by);
                json_key_num("depth_db", d->depth_db);
                json_key_num("threshold_db", d->threshold_db);
                json_key_num("attack_ms", d->attack_ms);
                json_key_num("hold_ms", d->hold_ms);
                json_key_num("release_ms", d->release_ms);
                json_key_num("gain_db", e.gain_db);
                putchar('}');
            } else {
                char thr[32];
                if (d->threshold_db <= -144.0f)
                    snprintf(thr, sizeof thr, "voices");
                else
                    snprintf(thr, sizeof thr, "%g", (double)d->threshold_db);
                sink_item(&s,
                          "%s by=%s depth_db=%g threshold=%s attack_ms=%g hold_ms=%g "
                          "release_ms=%g gain_db=%.1f",
                          d->bus, d->by, (double)d->depth_db, thr, (double)d->attack_ms,
                          (double)d->hold_ms, (double)d->release_ms, (double)e.gain_db);
            }
        }
    }
    if (hl_rbuf_finish(r) < 0) return -1;
    if (json)
        printf("]");
    else if (s.n == 0)
        sink_item(&s, "(none)");
    else if (head.truncated)
        sink_item(&s, "(list truncated)");
    if (!json) sink_end(&s);
    return 0;
}

static int print_ok(heliod_t *h, const result_t *res, int batch) {
    hl_rbuf_t r;
    hl_rbuf_init(&r, res->body, res->len);
    sink_t s = {.joined = batch && !opts.json};
    int json = opts.json;
    if (json) printf("{");
    if (json && res->line) printf("\"line\":%d,", res->line);
    if (json) printf("\"ok\":true");

    switch (res->kind) {
    case CTL_PLAY: {
        hl_play_reply_t pr;
        hl_get_play_reply(&r, &pr);
        if (hl_rbuf_finish(&r) < 0) return -1;
        if (json)
            printf(",\"voice\":%llu,\"stolen\":%llu", (unsigned long long)pr.voice,
                   (unsigned long long)pr.stolen);
        else
            printf("%llu\n", (unsigned long long)pr.voice);
        break;
    }
    case CTL_LOAD: {
        hl_sound_info_t si;
        hl_get_sound_info(&r, &si);
        if (hl_rbuf_finish(&r) < 0) return -1;
        if (json) {
            printf(",\"name\":");
            json_str(si.name);
            printf(",\"frames\":%u,\"channels\":%u,\"source_rate\":%u,\"stream\":%s", si.frames,
                   si.channels, si.source_rate, (si.flags & HL_LOAD_STREAM) ? "true" : "false");
        } else {
            printf("%s frames=%u channels=%u source_rate=%u%s\n", si.name, si.frames, si.channels,
                   si.source_rate, (si.flags & HL_LOAD_STREAM) ? " stream" : "");
        }
        break;
    }
    case CTL_CUES_LOAD: {
        hl_cues_load_reply_t lr;
        hl_get_cues_load_reply(&r, &lr);
        if (hl_rbuf_finish(&r) < 0) return -1;
        if (json)
            printf(",\"cues\":%u,\"categories\":%u", lr.cues, lr.categories);
        else
            printf("%u cues, %u categories\n", lr.cues, lr.categories);
        break;
    }
    case CTL_DEVICE: {
        hl_device_reply_t dr;
        hl_get_device_reply(&r, &dr);
        if (hl_rbuf_finish(&r) < 0) return -1;
        if (json) {
            printf(",\"driver\":");
            json_str(dr.driver);
            printf(",\"device\":");
            json_str(dr.name);
            printf(",\"rate\":%u,\"period\":%u", dr.rate, dr.period);
        } else {
            printf("%s%s%s rate=%u period=%u\n", dr.driver, dr.name[0] ? " " : "", dr.name, dr.rate,
                   dr.period);
        }
        break;
    }
    case CTL_STOP_ALL:
    case CTL_EMITTER_DESTROY:
    case CTL_PAUSE_ALL: {
        hl_count_reply_t c;
        hl_get_count_reply(&r, &c);
        if (hl_rbuf_finish(&r) < 0) return -1;
        const char *what = res->kind == CTL_PAUSE_ALL ? "changed" : "stopped";
        if (json)
            printf(",\"%s\":%u", what, c.count);
        else
            printf("%s %u\n", what, c.count);
        break;
    }
    case CTL_CLOCK: {
        hl_clock_t k;
        hl_get_clock(&r, &k);
        if (hl_rbuf_finish(&r) < 0) return -1;
        if (json)
            printf(",\"frame\":%llu,\"time_ns\":%llu,\"rate\":%u,\"period\":%u,"
                   "\"output_latency_ns\":%llu",
                   (unsigned long long)k.frame, (unsigned long long)k.time_ns, k.rate, k.period,
                   (unsigned long long)k.output_latency_ns);
        else
            printf("frame=%llu time_ns=%llu rate=%u period=%u latency_ms=%.3f\n",
                   (unsigned long long)k.frame, (unsigned long long)k.time_ns, k.rate, k.period,
                   (double)k.output_latency_ns / 1e6);
        break;
    }
    case CTL_PING: {
        uint64_t t = hl_get_u64(&r);
        if (hl_rbuf_finish(&r) < 0) return -1;
        double ms = res->t_done - res->t_sent;
        if (json)
            printf(",\"rtt_ms\":%.3f,\"server_time_ns\":%llu", ms, (unsigned long long)t);
        else
            printf("%.3f ms\n", ms);
        break;
    }
    case CTL_FX: {
        hl_count_reply_t c;
        hl_get_count_reply(&r, &c);
        if (hl_rbuf_finish(&r) < 0) return -1;
        if (json)
            printf(",\"index\":%u", c.count);
        else
            printf("index %u\n", c.count);
        break;
    }
    case CTL_BANK:
        if (r.len > r.off) { /* load: the bank's state; unload: empty */
            hl_bank_info_t b;
            hl_get_bank_info(&r, &b);
            if (hl_rbuf_finish(&r) < 0) return -1;
            sink_t bs = {0};
            if (json) putchar(',');
            if (json) printf("\"bank\":");
            print_bank(&bs, &b, json);
        } else {
            if (hl_rbuf_finish(&r) < 0) return -1;
            if (!json) printf("ok\n");
        }
        break;
    case CTL_BANKS:
    case CTL_ZONES:
    case CTL_BUSES:
    case CTL_FX_LIST:
    case CTL_DUCKS:
    case CTL_RZONES:
        if (print_graph_list(&r, res->kind, json, batch) < 0) return -1;
        break;
    case CTL_SOUNDS:
    case CTL_VOICES:
    case CTL_DEVICES:
    case CTL_CUES:
    case CTL_STATS:
    case CTL_STATUS: {
        hl_list_head_t head;
        hl_get_list_head(&r, &head);
        if (r.err) return -1;
        const heliod_server_info_t *si = heliod_server_info(h);
        if (res->kind == CTL_STATUS) {
            if (json) {
                printf(",\"server_version\":");
                json_str(si->server_version);
                printf(",\"protocol\":%u,\"protocol_minor\":%u,\"rate\":%u,\"period\":%u,"
                       "\"voices\":%u,\"client_id\":%u,\"stats\":{",
                       si->protocol_version, heliod_protocol_minor(h), si->rate, si->period,
                       si->voices, si->client_id);
            } else {
                sink_item(&s, "server %s (protocol %u.%u)", si->server_version,
                          si->protocol_version, heliod_protocol_minor(h));
                sink_item(&s, "rate %u", si->rate);
                sink_item(&s, "period %u", si->period);
                sink_item(&s, "voices %u", si->voices);
            }
        } else if (json) {
            static const char *keys[] = {[CTL_SOUNDS] = "sounds",
                                         [CTL_VOICES] = "voices",
                                         [CTL_DEVICES] = "devices",
                                         [CTL_STATS] = "stats",
                                         [CTL_CUES] = "cues"};
            printf(",\"truncated\":%s,\"%s\":%s", head.truncated ? "true" : "false",
                   keys[res->kind], res->kind == CTL_STATS ? "{" : "[");
        }
        static const char *status_keys[] = {
            "uptime_s",
            "clients",
            "voices_active",
            "voices_virtual",
            "sounds",
            "sample_bytes",
            "cmds_busy",
            "xruns",
            "underruns",
            "callback_us_p99",
            "callback_us_max",
            "callback_load_max",
            "protocol_errors",
            "master_gain_db",
            "master.peak_db",
            "master.rms_db",
            "loudness.short_term",
        };
        int first = 1;
        for (unsigned i = 0; i < head.count; i++) {
            if (res->kind == CTL_SOUNDS) {
                hl_sound_info_t e;
                hl_get_sound_info(&r, &e);
                if (r.err) return -1;
                if (json) {
                    printf("%s{\"name\":", first ? "" : ",");
                    json_str(e.name);
                    printf(",\"frames\":%u,\"channels\":%u,\"source_rate\":%u,\"stream\":%s,"
                           "\"playing\":%u,\"shared\":%s,\"owner\":%u}",
                           e.frames, e.channels, e.source_rate,
                           (e.flags & HL_LOAD_STREAM) ? "true" : "false", e.playing,
                           (e.flags & HL_LOAD_SHARED) ? "true" : "false", e.owner);
                } else {
                    sink_item(&s,
                              "%s frames=%u channels=%u source_rate=%u playing=%u %s owner=%u%s",
                              e.name, e.frames, e.channels, e.source_rate, e.playing,
                              (e.flags & HL_LOAD_SHARED) ? "shared" : "private", e.owner,
                              (e.flags & HL_LOAD_STREAM) ? " stream" : "");
                }
            } else if (res->kind == CTL_VOICES) {
                hl_voice_info_t e;
                hl_get_voice_info(&r, &e);
                if (r.err) return -1;
                if (json) {
                    printf("%s{\"voice\":%llu,\"sound\":", first ? "" : ",",
                           (unsigned long long)e.voice);
                    json_str(e.sound);
                    printf(",\"owner\":%u,\"priority\":%d,\"flags\":%u,\"state\":\"%s\","
                           "\"gain_db\":",
                           e.owner, e.priority, e.flags, state_name(e.state));
                    json_num(e.gain_db);
                    printf(",\"pan\":");
                    json_num(e.pan);
                    printf(",\"pos\":[");
                    json_num(e.pos[0]);
                    putchar(',');
                    json_num(e.pos[1]);
                    putchar(',');
                    json_num(e.pos[2]);
                    printf("],\"pitch\":");
                    json_num(e.pitch);
                    printf(",\"bus\":");
                    json_str(e.bus);
                    json_key_str("cue", e.cue);
                    json_key_str("category", e.category);
                    json_key_str("emitter", e.emitter);
                    json_key_num("audibility_db", e.audibility_db);
                    json_key_num("position_s", e.position_s);
                    json_key_num("lp_hz", e.post.lp_hz);
                    json_key_num("hp_hz", e.post.hp_hz);
                    json_key_num("occlusion", e.post.occlusion);
                    json_key_num("obstruction", e.post.obstruction);
                    printf(",\"sends\":[");
                    for (int k = 0, n = 0; k < HL_VOICE_SENDS; k++) {
                        if (!e.post.send[k][0]) continue;
                        printf("%s{\"bus\":", n++ ? "," : "");
                        json_str(e.post.send[k]);
                        json_key_num("db", e.post.send_db[k]);
                        putchar('}');
                    }
                    printf("]}");
                } else {
                    char post[200] = "";
                    size_t pl = 0;
                    const float pv[4] = {e.post.lp_hz, e.post.hp_hz, e.post.occlusion,
                                         e.post.obstruction};
                    static const char *const pn[4] = {"lp_hz", "hp_hz", "occlusion", "obstruction"};
                    for (int k = 0; k < 4 && pl < sizeof post; k++)
                        if (pv[k] != 0.0f)
                            pl += (size_t)snprintf(post + pl, sizeof post - pl, " %s=%g", pn[k],
                                                   (double)pv[k]);
                    for (int k = 0; k < HL_VOICE_SENDS && pl < sizeof post; k++)
                        if (e.post.send[k][0])
                            pl += (size_t)snprintf(post + pl, sizeof post - pl, " send=%s:%g",
                                                   e.post.send[k], (double)e.post.send_db[k]);
                    sink_item(&s,
                              "%llu %s owner=%u priority=%d state=%s gain_db=%g pan=%g "
                              "pos=%g,%g,%g pitch=%g bus=%s cue=%s category=%s emitter=%s "
                              "audibility_db=%.1f position_s=%.3f%s%s%s",
                              (unsigned long long)e.voice, e.sound, e.owner, e.priority,
                              state_name(e.state), (double)e.gain_db, (double)e.pan,
                              (double)e.pos[0], (double)e.pos[1], (double)e.pos[2], (double)e.pitch,
                              e.bus[0] ? e.bus : "sfx", dash(e.cue), dash(e.category),
                              dash(e.emitter), (double)e.audibility_db, e.position_s,
                              (e.flags & HL_PLAY_LOOP) ? " loop" : "",
                              (e.flags & HL_PLAY_3D) ? " 3d" : "", post);
                }
            } else if (res->kind == CTL_CUES) {
                hl_cue_info_t e;
                hl_get_cue_info(&r, &e);
                if (r.err) return -1;
                if (first && !json && !batch) cues_header();
                print_cue_entry(&s, &e, json, first, batch);
            } else if (res->kind == CTL_DEVICES) {
                hl_device_info_t e;
                hl_get_device_info(&r, &e);
                if (r.err) return -1;
                if (json) {
                    printf("%s{\"index\":%u,\"name\":", first ? "" : ",", e.index);
                    json_str(e.name);
                    printf(",\"hostapi\":");
                    json_str(e.hostapi);
                    printf(",\"max_channels\":%u,\"default_rate\":", e.max_channels);
                    json_num(e.default_rate);
                    printf(",\"default\":%s,\"current\":%s}",
                           (e.flags & HL_DEV_DEFAULT) ? "true" : "false",
                           (e.flags & HL_DEV_CURRENT) ? "true" : "false");
                } else {
                    sink_item(&s, "%u %s (%s) channels=%u rate=%g%s%s", e.index, e.name, e.hostapi,
                              e.max_channels, e.default_rate,
                              (e.flags & HL_DEV_DEFAULT) ? " default" : "",
                              (e.flags & HL_DEV_CURRENT) ? " current" : "");
                }
            } else {
                hl_stat_t e;
                hl_get_stat(&r, &e);
                if (r.err) return -1;
                int show = res->kind == CTL_STATS;
                for (size_t k = 0; !show && k < sizeof status_keys / sizeof *status_keys; k++)
                    show = strcmp(e.key, status_keys[k]) == 0;
                if (!show) continue;
                if (json) {
                    printf("%s", first ? "" : ",");
                    json_str(e.key);
                    putchar(':');
                    json_num(e.value);
                } else {
                    sink_item(&s, "%s %.15g", e.key, e.value);
                }
            }
            first = 0;
        }
        if (hl_rbuf_finish(&r) < 0) return -1;
        if (json)
            printf(res->kind == CTL_STATS || res->kind == CTL_STATUS ? "}" : "]");
        else if (s.n == 0 && batch)
            printf("(none)");
        else if (head.truncated && !json)
            sink_item(&s, "(list truncated)");
        if (!json) sink_end(&s);
        break;
    }
    default:
        if (hl_rbuf_finish(&r) < 0) return -1;
        if (!json) printf("ok\n");
        break;
    }
    if (res->late) { /* a scheduled request that came late: applied at once */
        if (json)
            printf(",\"late_frames\":%llu", (unsigned long long)res->late);
        else if (res->line)
            errorf("line %d: late by %llu frames: applied at once", res->line,
                   (unsigned long long)res->late);
        else
            errorf("late by %llu frames: applied at once", (unsigned long long)res->late);
    }
    if (json) printf("}\n");
    return 0;
}

/* Reports a failed result: stderr always; stdout too inside a batch so every
 * command has its result line. */
static void print_fail(const result_t *res, int batch) {
    const char *msg = res->message ? res->message : heliod_strerror(res->status);
    if (res->line)
        errorf("line %d: %s: %s", res->line, hl_errname(res->status), msg);
    else
        errorf("%s: %s", hl_errname(res->status), msg);
    if (!batch) return;
    if (opts.json) {
        printf("{\"line\":%d,\"ok\":false,\"error\":\"%s\",\"code\":%d,\"message\":", res->line,
               hl_errname(res->status), res->status);
        json_str(msg);
        printf("}\n");
    } else {
        printf("error %s: %s\n", hl_errname(res->status), msg);
    }
}

/* ---- the pipeline -------------------------------------------------------- */

static void on_reply(void *user, uint32_t id, int status, const char *message, const uint8_t *body,
                     size_t len) {
    (void)id;
    result_t *res = user;
    res->done = 1;
    res->t_done = mono_ms();
    res->status = status;
    res->late = res->at && g_conn ? heliod_late_frames(g_conn) : 0; /* this reply's (heliod.h) */
    if (status < 0) {
        res->message = strdup(message ? message : heliod_strerror(status));
        return;
    }
    if (g_play_wait && res->kind == CTL_PLAY) {
        hl_rbuf_t r;
        hl_rbuf_init(&r, body, len);
        hl_play_reply_t pr;
        hl_get_play_reply(&r, &pr);
        if (!r.err) g_play_wait->wait_voice = pr.voice;
    }
    if (len) {
        res->body = malloc(len);
        if (!res->body) {
            res->status = HELIOD_ENOMEM;
            res->message = strdup("out of memory");
            return;
        }
        memcpy(res->body, body, len);
    }
    res->len = len;
}

/* Time: the engine frame "now" means for --at +MS and @+MS. A single command
 * reads the clock for itself; a batch reads it once, at its first timed
 * line, so a score keeps its relative times. */
typedef struct {
    int have;
    uint64_t origin; /* engine frame of "now" */
    uint32_t rate, period;
} timebase_t;
static timebase_t tbase;

static int timebase_read(heliod_t *h) {
    if (tbase.have) return 0;
    heliod_clock_t k;
    int rc = heliod_clock(h, &k);
    if (rc < 0) return rc;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    tbase.origin =
        heliod_clock_frame_at(&k, (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec);
    tbase.rate = k.rate;
    tbase.period = k.period;
    tbase.have = 1;
    return 0;
}

/* The frame c applies at (0: now, unscheduled). */
static int time_of(heliod_t *h, const ctl_cmd_t *c, uint64_t *frame) {
    *frame = 0;
    if (c->at.kind == CTL_AT_NONE && !c->at.quantize) return 0;
    if (!hl_op_schedulable(c->op)) return HELIOD_EINVAL;
    if (c->at.kind == CTL_AT_FRAME && !c->at.quantize) {
        *frame = c->at.frame;
        return 0;
    }
    int rc = timebase_read(h);
    if (rc < 0) return rc;
    /* quantised with no time: from two periods ahead, so it is not late */
    uint64_t origin = tbase.origin + (c->at.kind == CTL_AT_NONE ? 2u * tbase.period : 0u);
    ctl_at_t at = c->at;
    if (at.quantize && ctl_at_ref_is_voice(at.qref)) { /* a voice: its start frame */
        rc = heliod_voice_start_frame(h, at.qref, &at.qref);
        if (rc < 0) return rc;
    }
    *frame = ctl_at_resolve(&at, origin, tbase.rate);
    return 0;
}

static int send_cmd(heliod_t *h, const ctl_cmd_t *c, result_t *res) {
    static uint8_t body[HL_MAX_FRAME];
    int len = ctl_encode(c, body, sizeof body);
    if (len < 0) return len;
    uint64_t at = 0;
    int rc = time_of(h, c, &at);
    if (rc < 0) return rc;
    res->t_sent = mono_ms();
    res->at = at != 0;
    heliod_at_frame(h, at);
    rc = heliod_raw_async(h, c->op, body, (size_t)len, on_reply, res);
    heliod_at_frame(h, 0);
    if (rc < 0) return rc;
    res->sent = 1;
    return 0;
}

/* Pumps the connection until every sent request has its result, or the
 * timeout passes (then the rest fail with ETIMEDOUT). */
static int wait_all(heliod_t *h, result_t *res, size_t n) {
    double deadline = opts.timeout_ms > 0 ? mono_ms() + opts.timeout_ms : -1;
    for (;;) {
        int rc = heliod_dispatch(h);
        size_t left = 0;
        for (size_t i = 0; i < n; i++)
            left += res[i].sent && !res[i].done;
        if (!left) return 0;
        int fail = rc < 0 ? rc : 0;
        int wait = -1;
        if (!fail && deadline >= 0) {
            double rem = deadline - mono_ms();
            if (rem <= 0) fail = HELIOD_ETIMEDOUT;
            wait = (int)rem + 1;
        }
        if (fail) {
            for (size_t i = 0; i < n; i++) {
                if (res[i].sent && !res[i].done) {
                    res[i].done = 1;
                    res[i].status = fail;
                    res[i].message = strdup(heliod_strerror(fail));
                }
            }
            return fail;
        }
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        if (heliod_pending(h)) p.events |= POLLOUT;
        if (poll(&p, 1, wait) < 0 && errno != EINTR) return HELIOD_EIO;
    }
}

static void free_results(result_t *res, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(res[i].message);
        free(res[i].body);
    }
    free(res);
}

/* Prints results in order; returns the number that failed. */
static int report(heliod_t *h, result_t *res, size_t n, int batch) {
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (res[i].status == 0 && print_ok(h, &res[i], batch) < 0) {
            res[i].status = HELIOD_EPROTO;
            res[i].message = strdup("malformed reply from the daemon");
        }
        if (res[i].status < 0) {
            print_fail(&res[i], batch);
            failed++;
        }
    }
    fflush(stdout);
    return failed;
}

static int run_single(heliod_t *h, const ctl_cmd_t *c) {
    result_t *res = calloc(1, sizeof *res);
    if (!res) return CTL_EXIT_FAIL;
    res->kind = c->kind;
    if (c->kind == CTL_PING) {
        double t0 = mono_ms();
        uint64_t ns = 0;
        int rc = heliod_ping(h, &ns);
        res->t_sent = t0;
        res->t_done = mono_ms();
        res->status = rc;
        if (rc < 0) {
            res->message = strdup(heliod_last_error(h));
        } else {
            res->body = malloc(sizeof ns);
            hl_wbuf_t w;
            hl_wbuf_init(&w, res->body, res->body ? sizeof ns : 0);
            hl_put_u64(&w, ns);
            res->len = w.len;
        }
    } else {
        int rc = send_cmd(h, c, res);
        if (rc < 0) {
            res->status = rc;
            res->message = strdup(rc == HELIOD_EINVAL && !hl_op_schedulable(c->op)
                                      ? "this command cannot be scheduled"
                                      : heliod_last_error(h));
        } else {
            wait_all(h, res, 1);
        }
    }
    int failed = report(h, res, 1, 0);
    free_results(res, 1);
    return failed ? CTL_EXIT_FAIL : 0;
}

/* batch: every line parsed and sent before any reply is awaited, except
 * that a LOAD's reply is awaited before the next line is sent. */
static int run_batch(heliod_t *h, const char *file) {
    FILE *f = stdin;
    if (file && strcmp(file, "-") != 0) {
        f = fopen(file, "r");
        if (!f) {
            errorf("batch: cannot open '%s': %s", file, strerror(errno));
            return CTL_EXIT_FAIL;
        }
    }
    size_t cap = 64, n = 0;
    result_t *res = calloc(cap, sizeof *res);
    char *line = malloc(CTL_LINE_MAX);
    ctl_cmd_t *c = malloc(sizeof *c);
    if (!res || !line || !c) {
        errorf("out of memory");
        return CTL_EXIT_FAIL;
    }
    int lineno = 0, in_bundle = 0, bundle_lines = 0;
    while (fgets(line, CTL_LINE_MAX, f)) {
        lineno++;
        char err[CTL_ERR_LEN] = "";
        char *argv[CTL_MAX_ARGS];
        int status = 0;
        size_t ll = strlen(line);
        int argc = 0;
        if (ll == CTL_LINE_MAX - 1 && line[ll - 1] != '\n') {
            snprintf(err, sizeof err, "line too long");
            status = HELIOD_ETOOBIG;
            int ch;
            while ((ch = fgetc(f)) != EOF && ch != '\n') {
            }
        } else {
            argc = ctl_split_line(line, argv, CTL_MAX_ARGS, err, sizeof err);
            if (argc == 0) continue;
            if (argc < 0) status = HELIOD_EINVAL;
        }
        /* time: '{' and '}' lines bracket a bundle, '@TIME' starts a timed line */
        int brace = status == 0 && argc == 1 && (!strcmp(argv[0], "{") || !strcmp(argv[0], "}"));
        if (brace && argv[0][0] == '{') {
            if (in_bundle) {
                snprintf(err, sizeof err, "a bundle is already open");
                status = HELIOD_EINVAL;
            } else {
                /* room for a whole bundle's results now: growing waits for replies,
                 * and a bundle's replies only come at its end */
                if (cap - n < HL_BUNDLE_REQS + 2) {
                    wait_all(h, res, n);
                    result_t *nr = realloc(res, (cap + HL_BUNDLE_REQS + 2) * sizeof *res);
                    if (!nr) {
                        errorf("out of memory");
                        break;
                    }
                    memset(nr + cap, 0, (HL_BUNDLE_REQS + 2) * sizeof *res);
                    res = nr;
                    cap += HL_BUNDLE_REQS + 2;
                }
                (void)timebase_read(h); /* a blocking call: not inside the bundle */
                int rc = heliod_bundle_begin(h);
                if (rc < 0) {
                    snprintf(err, sizeof err, "%s", heliod_last_error(h));
                    status = rc;
                } else {
                    in_bundle = 1;
                    bundle_lines = 0;
                    continue;
                }
            }
        } else if (brace) {
            if (!in_bundle) {
                snprintf(err, sizeof err, "'}' without '{'");
                status = HELIOD_EINVAL;
            } else {
                in_bundle = 0;
                int rc = heliod_bundle_end(h, NULL);
                if (rc >= 0) continue;
                snprintf(err, sizeof err, "bundle: %s", heliod_last_error(h));
                status = rc;
            }
        } else if (in_bundle && ++bundle_lines > HL_BUNDLE_REQS) {
            snprintf(err, sizeof err, "bundle full (%d requests)", HL_BUNDLE_REQS);
            status = HELIOD_EBUSY;
        }
        ctl_at_t line_at = {0};
        if (status == 0 && argc > 0 && argv[0][0] == '@') {
            if (ctl_parse_at(argv[0] + 1, &line_at, err, sizeof err) < 0) status = HELIOD_EINVAL;
            for (int k = 1; k < argc; k++)
                argv[k - 1] = argv[k];
            argc--;
            if (status == 0 && argc == 0) {
                snprintf(err, sizeof err, "a time with no command");
                status = HELIOD_EINVAL;
            }
        }
        if (n == cap) {
            /* the replies in flight point into res: take them before it moves */
            wait_all(h, res, n);
            result_t *nr = realloc(res, 2 * cap * sizeof *res);
            if (!nr) {
                errorf("out of memory");
                break;
            }
            memset(nr + cap, 0, cap * sizeof *res);
            res = nr;
            cap *= 2;
        }
        result_t *r = &res[n++];
        r->line = lineno;
        if (status == 0 && ctl_parse_command(argc, argv, c, err, sizeof err) < 0)
            status = HELIOD_EINVAL;
        if (status == 0 && line_at.kind != CTL_AT_NONE) {
            if (!hl_op_schedulable(c->op)) {
                snprintf(err, sizeof err, "'%s' cannot be scheduled", argv[0]);
                status = HELIOD_EINVAL;
            }
            c->at.kind = line_at.kind;
            c->at.frame = line_at.frame;
            c->at.ms = line_at.ms;
        }
        if (status == 0 && (c->help || c->kind == CTL_WATCH || c->kind == CTL_METER ||
                            c->kind == CTL_BATCH || c->wait || (c->kind == CTL_LOAD && c->file))) {
            snprintf(err, sizeof err, "'%s%s' cannot run inside a batch", argv[0],
                     c->wait   ? " --wait"
                     : c->help ? " --help"
                               : "");
            status = HELIOD_EINVAL;
        }
        if (status == 0) {
            r->kind = c->kind;
            int rc = send_cmd(h, c, r);
            if (rc < 0) {
                status = rc;
                snprintf(err, sizeof err, "%s", heliod_last_error(h));
            } else if (c->kind == CTL_LOAD) {
                /* a load decodes on the daemon's threads: the lines after it
                 * (play, unload, sounds) see the sound once it is answered */
                wait_all(h, res, n);
            }
        }
        if (status < 0) {
            r->done = 1;
            r->status = status;
            r->message = strdup(err);
        }
    }
    if (in_bundle && heliod_bundle_end(h, NULL) < 0) /* an unclosed bundle still goes out */
        errorf("batch: bundle: %s", heliod_last_error(h));
    int rerr = ferror(f);
    if (f != stdin) fclose(f);
    free(line);
    free(c);
    wait_all(h, res, n);
    int failed = report(h, res, n, 1);
    free_results(res, n);
    if (rerr) {
        errorf("batch: read error");
        return CTL_EXIT_FAIL;
    }
    return failed ? CTL_EXIT_FAIL : 0;
}

/* ---- event loops: watch and play --wait ---------------------------------- */

static void print_event(const heliod_event_t *ev) {
    if (opts.json) {
        switch (ev->type) {
        case HELIOD_EVENT_ENDED:
            printf("{\"event\":\"ended\",\"voice\":%llu,\"reason\":\"%s\"}\n",
                   (unsigned long long)ev->voice, reason_name((unsigned)ev->reason));
            break;
        case HELIOD_EVENT_STARTED:
            printf("{\"event\":\"started\",\"voice\":%llu,\"time_ns\":%llu}\n",
                   (unsigned long long)ev->voice, (unsigned long long)ev->time_ns);
            break;
        case HELIOD_EVENT_VIRTUAL:
            printf("{\"event\":\"virtual\",\"voice\":%llu,\"reason\":\"%s\"}\n",
                   (unsigned long long)ev->voice, virt_reason_name((unsigned)ev->reason));
            break;
        case HELIOD_EVENT_REAL:
            printf("{\"event\":\"real\",\"voice\":%llu}\n", (unsigned long long)ev->voice);
            break;
        case HELIOD_EVENT_DEVICE_LOST:
        case HELIOD_EVENT_DEVICE_BACK:
            printf("{\"event\":\"%s\",\"device\":",
                   ev->type == HELIOD_EVENT_DEVICE_LOST ? "device-lost" : "device-back");
            json_str(ev->message ? ev->message : "");
            printf(",\"time_ns\":%llu}\n", (unsigned long long)ev->time_ns);
            break;
        case HELIOD_EVENT_RELOAD:
            printf("{\"event\":\"reload\",\"sound\":");
            json_str(ev->sound ? ev->sound : "");
            printf(",\"status\":\"%s\",\"frames\":%u,\"message\":",
                   ev->status ? hl_errname(ev->status) : "ok", ev->frames);
            json_str(ev->message ? ev->message : "");
            printf("}\n");
            break;
        case HELIOD_EVENT_BANK: break; /* bank load prints those */
        default:
            printf("{\"event\":\"error\",\"request_id\":%u,\"error\":\"%s\",\"message\":",
                   ev->request_id, hl_errname(ev->status));
            json_str(ev->message ? ev->message : "");
            printf("}\n");
            break;
        }
    } else {
        switch (ev->type) {
        case HELIOD_EVENT_ENDED:
            printf("ended %llu %s\n", (unsigned long long)ev->voice,
                   reason_name((unsigned)ev->reason));
            break;
        case HELIOD_EVENT_STARTED:
            printf("started %llu %llu\n", (unsigned long long)ev->voice,
                   (unsigned long long)ev->time_ns);
            break;
        case HELIOD_EVENT_VIRTUAL:
            printf("virtual %llu %s\n", (unsigned long long)ev->voice,
                   virt_reason_name((unsigned)ev->reason));
            break;
        case HELIOD_EVENT_REAL: printf("real %llu\n", (unsigned long long)ev->voice); break;
        case HELIOD_EVENT_DEVICE_LOST:
        case HELIOD_EVENT_DEVICE_BACK:
            printf("%s %s %llu\n",
                   ev->type == HELIOD_EVENT_DEVICE_LOST ? "device-lost" : "device-back",
                   ev->message ? ev->message : "", (unsigned long long)ev->time_ns);
            break;
        case HELIOD_EVENT_RELOAD:
            if (ev->status == 0)
                printf("reload %s frames=%u\n", ev->sound ? ev->sound : "", ev->frames);
            else
                printf("reload %s failed %s: %s (the old data stays)\n", ev->sound ? ev->sound : "",
                       hl_errname(ev->status), ev->message ? ev->message : "");
            break;
        case HELIOD_EVENT_BANK: break;
        default:
            printf("error %u %s: %s\n", ev->request_id, hl_errname(ev->status),
                   ev->message ? ev->message : "");
            break;
        }
    }
    fflush(stdout);
}

static void on_event(void *user, const heliod_event_t *ev) {
    evstate_t *st = user;
    if (!st->wait_voice) {
        print_event(ev);
        return;
    }
    if (ev->type == HELIOD_EVENT_ENDED && ev->voice == st->wait_voice) {
        st->ended = 1;
        st->reason = ev->reason;
    }
}

/* Runs the event loop until st->ended (play --wait) or the daemon goes away. */
static int event_loop(heliod_t *h, evstate_t *st) {
    for (;;) {
        int rc = heliod_dispatch(h);
        if (st->wait_voice && st->ended) return 0;
        if (rc < 0) return rc;
        struct pollfd p = {.fd = heliod_fd(h), .events = POLLIN};
        if (heliod_pending(h)) p.events |= POLLOUT;
        if (poll(&p, 1, -1) < 0 && errno != EINTR) return HELIOD_EIO;
    }
}

static int run_watch(heliod_t *h) {
    evstate_t st = {0};
    heliod_set_event_callback(h, on_event, &st);
    int rc = heliod_subscribe(h, HELIOD_SUB_ENDED | HELIOD_SUB_STARTED | HELIOD_SUB_ALL |
                                     HELIOD_SUB_VIRTUAL | HELIOD_SUB_DEVICE | HELIOD_SUB_BANK);
    if (rc < 0) {
        errorf("watch: %s", heliod_last_error(h));
        return CTL_EXIT_FAIL;
    }
    rc = event_loop(h, &st);
    if (rc == HELIOD_ECLOSED) return 0; /* the daemon went away: the watch is over */
    errorf("watch: %s", heliod_strerror(rc));
    return CTL_EXIT_FAIL;
}

/* ---- meter: one line per METER event ----------------------------------- */

typedef struct {
    long left; /* events still to print (--count), or -1 */
} meterstate_t;

static float louder(const float v[2]) {
    return v[0] > v[1] ? v[0] : v[1];
}

static void json_level(const heliod_level_t *l) {
    printf("{\"name\":");
    json_str(l->name);
    static const char *const key[3] = {"peak_db", "peak_hold_db", "rms_db"};
    const float *v[3] = {l->peak_db, l->peak_hold_db, l->rms_db};
    for (int k = 0; k < 3; k++) {
        printf(",\"%s\":[", key[k]);
        json_num(v[k][0]);
        putchar(',');
        json_num(v[k][1]);
        putchar(']');
    }
    putchar('}');
}

static void print_meter(const heliod_meter_t *m) {
    if (opts.json) {
        printf("{\"event\":\"meter\",\"frame\":%llu,\"master\":", (unsigned long long)m->frame);
        json_level(&m->master);
        printf(",\"buses\":[");
        for (unsigned i = 0; i < m->nbuses; i++) {
            if (i) putchar(',');
            json_level(&m->bus[i]);
        }
        printf("],\"loudness\":{\"momentary\":");
        json_num(m->momentary);
        printf(",\"short_term\":");
        json_num(m->short_term);
        printf(",\"integrated\":");
        json_num(m->integrated);
        printf(",\"range\":");
        json_num(m->range);
        printf("}}\n");
    } else {
        const heliod_level_t *l = &m->master;
        printf("master %.1f/%.1f/%.1f", (double)louder(l->peak_db), (double)louder(l->peak_hold_db),
               (double)louder(l->rms_db));
        for (unsigned i = 0; i < m->nbuses; i++) {
            l = &m->bus[i];
            printf(" %s %.1f/%.1f/%.1f", l->name, (double)louder(l->peak_db),
                   (double)louder(l->peak_hold_db), (double)louder(l->rms_db));
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
        print_event(ev);
    }
}

static int run_meter(heliod_t *h, const ctl_cmd_t *c) {
    meterstate_t st = {.left = c->m.meter.count > 0 ? c->m.meter.count : -1};
    heliod_set_event_callback(h, on_meter_event, &st);
    int rc = heliod_subscribe_meter(h, HELIOD_SUB_METER, c->m.meter.hz);
    if (rc < 0) {
        errorf("meter: %s", heliod_last_error(h));
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
    errorf("meter: %s", heliod_strerror(rc));
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
                (unsigned long long)b->bytes, bank_state(b->state));
    }
    if (b->state == HELIOD_BANK_LOADED) st->done = 1;
    if (b->state == HELIOD_BANK_FAILED) st->done = -1;
}

static int run_bank_wait(heliod_t *h, const ctl_cmd_t *c) {
    bankstate_t st = {.tty = isatty(2)};
    heliod_set_event_callback(h, on_bank_event, &st);
    int rc = heliod_subscribe(h, HELIOD_SUB_BANK);
    heliod_bank_info_t b;
    if (rc == 0) rc = heliod_bank_load(h, c->m.bank.arg, &b);
    if (rc < 0) {
        errorf("bank load: %s: %s", hl_errname(rc), heliod_last_error(h));
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
        if (opts.json)
            printf("{\"ok\":true,\"bank\":\"%s\",\"sounds\":%u,\"bytes\":%llu}\n", st.name,
                   st.last.done, (unsigned long long)st.last.bytes);
        else
            printf("%s loaded: %u sounds, %llu bytes\n", st.name, st.last.done,
                   (unsigned long long)st.last.bytes);
        return 0;
    }
    errorf("bank %s: %s", st.name[0] ? st.name : c->m.bank.arg,
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

static int run_zones_watch(heliod_t *h) {
    heliod_set_event_callback(h, on_zone_tick, NULL);
    int rc = heliod_subscribe(h, HELIOD_SUB_ZONES);
    if (rc < 0) {
        errorf("zones --watch: %s", heliod_last_error(h));
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
    errorf("zones --watch: %s", heliod_strerror(rc));
    return CTL_EXIT_FAIL;
}

/* load NAME -: the file from stdin, uploaded (LOAD_DATA chunks). */
static int run_load_stdin(heliod_t *h, const ctl_cmd_t *c) {
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= HL_MAX_UPLOAD) {
                errorf("load: stdin is larger than %u MiB", HL_MAX_UPLOAD >> 20);
                free(buf);
                return CTL_EXIT_FAIL;
            }
            unsigned char *nb = realloc(buf, cap * 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0) break;
    }
    if (!buf || n == 0) {
        free(buf);
        errorf("load: %s", buf ? "nothing on stdin" : "out of memory");
        return CTL_EXIT_FAIL;
    }
    heliod_sound_info_t si;
    int rc = heliod_load_memory(h, c->m.load.name, buf, n,
                                c->m.load.flags & (HELIOD_LOAD_SHARED | HELIOD_LOAD_PIN), &si);
    free(buf);
    if (rc < 0) {
        errorf("load: %s: %s", hl_errname(rc), heliod_last_error(h));
        return CTL_EXIT_FAIL;
    }
    if (opts.json)
        printf("{\"ok\":true,\"name\":\"%s\",\"frames\":%u,\"channels\":%u,\"source_rate\":%u}\n",
               si.name, si.frames, si.channels, si.source_rate);
    else
        printf("%s frames=%u channels=%u source_rate=%u (uploaded %zu bytes)\n", si.name, si.frames,
               si.channels, si.source_rate, n);
    return 0;
}

/* play --wait: the very request a play without --wait sends (ctl_encode of
 * the parsed command, so no field of it can be left out on this path), never
 * detached (it is waited for); prints its result the same way, then waits
 * for the voice's ENDED. */
static int run_play_wait(heliod_t *h, const ctl_cmd_t *c) {
    evstate_t st = {0};
    heliod_set_event_callback(h, on_event, &st);
    int rc = heliod_subscribe(h, HELIOD_SUB_ENDED);
    if (rc < 0) {
        errorf("play: %s", heliod_last_error(h));
        return CTL_EXIT_FAIL;
    }
    ctl_cmd_t *w = malloc(sizeof *w);
    result_t *res = calloc(1, sizeof *res);
    if (!w || !res) {
        free(w);
        free(res);
        return CTL_EXIT_FAIL;
    }
    *w = *c;
    w->m.play.flags &= ~HL_PLAY_DETACHED;
    res->kind = CTL_PLAY;
    g_play_wait = &st;
    rc = send_cmd(h, w, res);
    free(w);
    if (rc < 0) {
        res->status = rc;
        res->message = strdup(heliod_last_error(h));
    } else {
        wait_all(h, res, 1);
    }
    g_play_wait = NULL;
    int failed = report(h, res, 1, 0);
    free_results(res, 1);
    if (failed) return CTL_EXIT_FAIL;
    heliod_voice_t v = st.wait_voice;
    rc = event_loop(h, &st);
    if (rc < 0) {
        errorf("play --wait: %s", heliod_strerror(rc));
        return CTL_EXIT_FAIL;
    }
    if (opts.json)
        printf("{\"event\":\"ended\",\"voice\":%llu,\"reason\":\"%s\"}\n", (unsigned long long)v,
               reason_name((unsigned)st.reason));
    return 0;
}

int main(int argc, char **argv) {
    char err[CTL_ERR_LEN];
    int next;
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (ctl_parse_global(argc, argv, &opts, &next, err, sizeof err) < 0) {
        errorf("%s", err);
        return CTL_EXIT_USAGE;
    }
    if (opts.version) {
        printf("heliodctl %s (protocol %d.%d)\n", HELIOD_VERSION, HL_PROTO_VERSION, HL_PROTO_MINOR);
        return 0;
    }
    if (opts.help || (next < argc && strcmp(argv[next], "help") == 0)) {
        const char *topic = next + 1 < argc ? argv[next + 1] : NULL;
        const char *ui = ctl_ui_usage(topic); /* top, profile, wait, events (ctl_ui.h) */
        fputs(topic && ui ? ui : ctl_usage(topic), stdout);
        if (!topic) fputs(ui, stdout);
        return 0;
    }
    if (next >= argc) {
        errorf("missing command (try --help)");
        return CTL_EXIT_USAGE;
    }
    /* the event-driven views parse their own options (ctl_ui.h) */
    if (strcmp(argv[next], "top") == 0) return ctl_top_main(argc - next, argv + next, opts.socket);
    if (strcmp(argv[next], "profile") == 0)
        return ctl_profile_main(argc - next, argv + next, opts.socket);
    if (strcmp(argv[next], "wait") == 0)
        return ctl_wait_main(argc - next, argv + next, opts.socket, opts.json);
    if (strcmp(argv[next], "events") == 0) { /* `watch --json` under the name scripts expect */
        opts.json = 1;
        argv[next] = "watch";
    }
    ctl_cmd_t *c = calloc(1, sizeof *c);
    if (!c) return CTL_EXIT_FAIL;
    if (ctl_parse_command(argc - next, argv + next, c, err, sizeof err) < 0) {
        errorf("%s", err);
        free(c);
        return CTL_EXIT_USAGE;
    }
    if (c->help) {
        fputs(ctl_usage(argv[next]), stdout);
        free(c);
        return 0;
    }
    if (c->json) opts.json = 1; /* cues --json, stats --cues --json */
    heliod_t *h = NULL;
    /* a control client: people and scripts act on every client's voices */
    int rc = heliod_connect_flags(&h, opts.socket, "heliodctl", HELIOD_CONNECT_CONTROL);
    g_conn = h;
    if (rc < 0) {
        char path[256] = "";
        if (opts.socket)
            snprintf(path, sizeof path, "%s", opts.socket);
        else
            heliod_default_socket(path, sizeof path);
        /* the daemon's own refusal ("server full ...") or the system's reason */
        const char *why = heliod_last_error(NULL);
        if (rc == HELIOD_ECONNECT)
            errorf("%s: is heliod running?", why);
        else
            errorf("%s: %s: %s", path, hl_errname(rc), why);
        free(c);
        return CTL_EXIT_FAIL;
    }
    heliod_set_timeout(h, opts.timeout_ms);
    int code;
    switch (c->kind) {
    case CTL_WATCH: code = run_watch(h); break;
    case CTL_METER: code = run_meter(h, c); break;
    case CTL_BATCH: code = run_batch(h, c->file); break;
    case CTL_PLAY: code = c->wait ? run_play_wait(h, c) : run_single(h, c); break;
    case CTL_LOAD: code = c->file ? run_load_stdin(h, c) : run_single(h, c); break;
    case CTL_BANK:
        code = c->wait && c->m.bank.action == HL_BANK_LOAD ? run_bank_wait(h, c) : run_single(h, c);
        break;
    case CTL_ZONES: code = c->wait ? run_zones_watch(h) : run_single(h, c); break;
    default: code = run_single(h, c); break;
    }
    heliod_close(h);
    free(c);
    return code;
}
