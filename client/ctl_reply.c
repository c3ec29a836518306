/*
 * ctl_reply.c - how each reply body prints (ctl_print_ok): the status, sound,
 * voice and stats lines, the lists (cues, banks, buses, effects, ducking
 * rules, reverb and world zones), as text or JSON (ctl_out.h).
 */
#include "ctl_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Table header of `cues` (text, not in a batch). */
static void cues_header(void) {
    printf("%-8s %-20s %-8s %-12s %5s %5s %-21s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %7s %7s\n",
           "KIND", "NAME", "BUS", "CATEGORY", "PRIO", "MAX", "OVERFLOW", "PLAYS", "R_INTVL",
           "R_DIST", "R_CUE", "R_CAT", "R_VOICE", "EV_CUE", "EV_CAT", "STOLEN", "VIRTLSD", "ACTIVE",
           "VIRTUAL");
}

void ctl_json_cue_fields(const hl_cue_t *c) {
    printf(",\"sounds\":[");
    for (unsigned i = 0; i < c->nsounds; i++) {
        if (i) putchar(',');
        ctl_json_str(c->sounds[i]);
    }
    printf("]");
    ctl_json_key_str("pick", ctl_enum_str(HL_ENUM_PICK, c->pick));
    printf(",\"loop\":%s,\"3d\":%s,\"interp\":\"%s\"", (c->flags & HL_CUE_LOOP) ? "true" : "false",
           (c->flags & HL_CUE_3D) ? "true" : "false",
           (c->flags & HL_CUE_SINC)     ? "sinc"
           : (c->flags & HL_CUE_CUBIC)  ? "cubic"
           : (c->flags & HL_CUE_LINEAR) ? "linear"
                                        : "default");
    ctl_json_key_num("gain_db", c->gain_db);
    ctl_json_key_num("gain_rand_db", c->gain_rand_db);
    ctl_json_key_num("pitch", c->pitch);
    ctl_json_key_num("pitch_rand_cents", c->pitch_rand_cents);
    ctl_json_key_str("bus", c->bus[0] ? c->bus : "sfx");
    ctl_json_key_str("category", c->category);
    printf(",\"priority\":%d", c->priority);
    ctl_json_key_num("pan", c->pan);
    ctl_json_key_num("min_distance", c->min_distance);
    ctl_json_key_num("max_distance", c->max_distance);
    ctl_json_key_num("rolloff", c->rolloff);
    ctl_json_key_str("model", ctl_enum_str(HL_ENUM_MODEL, c->model));
    ctl_json_key_num("fade_in_ms", c->fade_in_ms);
    ctl_json_key_num("fade_out_ms", c->fade_out_ms);
    ctl_json_key_str("fade_curve", ctl_enum_str(HL_ENUM_CURVE, c->fade_curve));
    ctl_json_key_num("min_interval_ms", c->min_interval_ms);
    ctl_json_key_str("beyond", ctl_enum_str(HL_ENUM_BEYOND, c->beyond));
    ctl_json_key_str("virtual", ctl_enum_str(HL_ENUM_VIRT, c->virt));
    ctl_json_key_num("doppler", c->doppler);
}

/* One CUES entry: a table row, a key=value item (batch) or a JSON object. */
static void print_cue_entry(ctl_sink_t *s, const hl_cue_info_t *e, int json, int first, int batch) {
    int cue = e->kind == HL_CUES_KIND_CUE;
    const char *name = cue ? e->cue.name : e->cat.name;
    uint32_t max = cue ? e->cue.max_instances : e->cat.max_instances;
    int overflow = cue ? e->cue.overflow : e->cat.overflow;
    const hl_cue_counters_t *n = &e->n;
    if (json) {
        printf("%s{\"kind\":\"%s\",\"name\":", first ? "" : ",", cue ? "cue" : "category");
        ctl_json_str(name);
        if (cue) {
            ctl_json_cue_fields(&e->cue);
        } else {
            ctl_json_key_num("fade_out_ms", e->cat.fade_out_ms);
            ctl_json_key_str("fade_curve", ctl_enum_str(HL_ENUM_CURVE, e->cat.fade_curve));
        }
        printf(",\"max_instances\":%u", max);
        ctl_json_key_str("overflow", ctl_enum_str(HL_ENUM_OVERFLOW, overflow));
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
        ctl_sink_item(s,
                      "%s %s max=%u overflow=%s plays=%llu refused_interval=%llu "
                      "refused_distance=%llu refused_cue_limit=%llu refused_cat_limit=%llu "
                      "refused_no_voice=%llu evicted_cue=%llu evicted_cat=%llu stolen=%llu "
                      "virtualised=%llu active=%u virtual=%u",
                      cue ? "cue" : "category", name, max, ctl_enum_str(HL_ENUM_OVERFLOW, overflow),
                      (unsigned long long)n->plays, (unsigned long long)n->refused_interval,
                      (unsigned long long)n->refused_distance,
                      (unsigned long long)n->refused_cue_limit,
                      (unsigned long long)n->refused_cat_limit,
                      (unsigned long long)n->refused_no_voice, (unsigned long long)n->evicted_cue,
                      (unsigned long long)n->evicted_cat, (unsigned long long)n->stolen,
                      (unsigned long long)n->virtualised, n->active, n->virtual_now);
        return;
    }
    char prio[16] = "-", maxs[16] = "-";
    if (cue) snprintf(prio, sizeof prio, "%d", e->cue.priority);
    if (max) snprintf(maxs, sizeof maxs, "%u", max);
    printf("%-8s %-20s %-8s %-12s %5s %5s %-21s %8llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu "
           "%8llu %8llu %7u %7u\n",
           cue ? "cue" : "category", name, cue ? (e->cue.bus[0] ? e->cue.bus : "sfx") : "-",
           cue ? ctl_dash(e->cue.category) : "-", prio, maxs,
           ctl_enum_str(HL_ENUM_OVERFLOW, overflow), (unsigned long long)n->plays,
           (unsigned long long)n->refused_interval, (unsigned long long)n->refused_distance,
           (unsigned long long)n->refused_cue_limit, (unsigned long long)n->refused_cat_limit,
           (unsigned long long)n->refused_no_voice, (unsigned long long)n->evicted_cue,
           (unsigned long long)n->evicted_cat, (unsigned long long)n->stolen,
           (unsigned long long)n->virtualised, n->active, n->virtual_now);
    s->n++;
}

/* Prints a successful result. Returns 0, or -1 if the reply body is malformed. */

/* One bank as a text line or a JSON object. */
static void print_bank(ctl_sink_t *s, const hl_bank_info_t *e, int json) {
    if (json) {
        printf("{\"name\":");
        ctl_json_str(e->name);
        ctl_json_key_str("path", e->path);
        ctl_json_key_str("state", ctl_bank_state(e->state));
        printf(",\"sounds\":%u,\"done\":%u,\"failed\":%u,\"bytes\":%llu", e->sounds, e->done,
               e->failed, (unsigned long long)e->bytes);
        ctl_json_key_str("error", e->error);
        putchar('}');
    } else {
        ctl_sink_item(s, "%s %s sounds=%u/%u failed=%u bytes=%llu%s%s", e->name,
                      ctl_bank_state(e->state), e->done, e->sounds, e->failed,
                      (unsigned long long)e->bytes, e->error[0] ? " error=" : "", e->error);
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
            ctl_json_key_num(pn, e->p[k]);
        } else if (len < cap) {
            int n = snprintf(buf + len, cap - len, " %s=%g", pn, (double)e->p[k]);
            if (n > 0) len += (size_t)n;
        }
    }
}

/* A list reply's head (count, truncated); JSON opens the array named key.
 * -1: a bad body. */
static int list_open(hl_rbuf_t *r, hl_list_head_t *head, int json, const char *key) {
    hl_get_list_head(r, head);
    if (r->err) return -1;
    if (json) printf(",\"truncated\":%s,\"%s\":[", head->truncated ? "true" : "false", key);
    return 0;
}

/* Its end: the JSON array closed, or the text's last item "(none)" or
 * "(list truncated)". -1: a bad body. */
static int list_close(hl_rbuf_t *r, ctl_sink_t *s, int json, int truncated) {
    if (hl_rbuf_finish(r) < 0) return -1;
    if (json)
        printf("]");
    else if (s->n == 0)
        ctl_sink_item(s, "(none)");
    else if (truncated)
        ctl_sink_item(s, "(list truncated)");
    if (!json) ctl_sink_end(s);
    return 0;
}

/* BUSES, FX_LIST and DUCKS replies. */
static int print_graph_list(hl_rbuf_t *r, ctl_kind_t kind, int json, int batch) {
    hl_list_head_t head;
    if (list_open(r, &head, json,
                  kind == CTL_BUSES       ? "buses"
                  : kind == CTL_DUCKS     ? "ducks"
                  : kind == CTL_RZONES    ? "reverb_zones"
                  : kind == CTL_SNAPSHOTS ? "snapshots"
                  : kind == CTL_BANKS     ? "banks"
                  : kind == CTL_ZONES     ? "zones"
                                          : "fx"))
        return -1;
    ctl_sink_t s = {.joined = batch && !json};
    for (unsigned i = 0; i < head.count; i++) {
        if (json && i) putchar(',');
        if (kind == CTL_BUSES) {
            hl_bus_info_t e;
            hl_get_bus_info(r, &e);
            if (r->err) return -1;
            if (json) {
                printf("{\"name\":");
                ctl_json_str(e.name);
                ctl_json_key_str("parent", e.parent);
                ctl_json_key_num("gain_db", e.gain_db);
                printf(",\"mute\":%s,\"fx\":%u,\"voices\":%u,\"sends\":%u",
                       e.mute ? "true" : "false", e.fx, e.voices, e.sends);
                ctl_json_key_num("duck_db", e.duck_db);
                ctl_json_key_num("path_gain_db", e.path_gain_db);
                printf(",\"bus_sends\":[");
                for (int k = 0, nk = 0; k < HL_BUS_SENDS_MAX; k++) {
                    if (!e.send[k][0]) continue;
                    printf("%s{\"bus\":", nk++ ? "," : "");
                    ctl_json_str(e.send[k]);
                    ctl_json_key_num("db", e.send_db[k]);
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
                ctl_sink_item(&s,
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
                ctl_json_str(e.zone.name);
                ctl_json_key_str("bank", e.zone.bank);
                printf(",\"pos\":[");
                ctl_json_num(e.zone.pos[0]);
                putchar(',');
                ctl_json_num(e.zone.pos[1]);
                putchar(',');
                ctl_json_num(e.zone.pos[2]);
                putchar(']');
                ctl_json_key_num("radius", e.zone.radius);
                ctl_json_key_str("state", sn);
                ctl_json_key_num("bytes", (double)e.bytes);
                ctl_json_key_num("distance", e.distance);
                putchar('}');
            } else {
                ctl_sink_item(&s, "%s %s bytes=%llu distance=%.1f radius=%g pos=%g,%g,%g bank=%s",
                              e.zone.name, sn, (unsigned long long)e.bytes, (double)e.distance,
                              (double)e.zone.radius, (double)e.zone.pos[0], (double)e.zone.pos[1],
                              (double)e.zone.pos[2], e.zone.bank);
            }
        } else if (kind == CTL_SNAPSHOTS) {
            hl_snapshot_info_t e;
            hl_get_snapshot_info(r, &e);
            if (r->err) return -1;
            static const char *const st[] = {"idle", "fading-in", "on", "fading-out"};
            const char *state = e.state <= HL_SNAP_STATE_OUT ? st[e.state] : "?";
            if (json) {
                printf("{\"name\":");
                ctl_json_str(e.name);
                ctl_json_key_num("priority", e.priority);
                ctl_json_key_num("fade_ms", e.fade_ms);
                ctl_json_key_num("settings", e.settings);
                ctl_json_key_str("state", state);
                ctl_json_key_num("intensity", e.intensity);
                ctl_json_key_num("target", e.target);
                ctl_json_key_num("owner", e.owner);
                putchar('}');
            } else {
                ctl_sink_item(&s,
                              "%s priority=%d fade=%gms settings=%u state=%s intensity=%.3f "
                              "target=%.3f owner=%u",
                              e.name, (int)e.priority, (double)e.fade_ms, (unsigned)e.settings,
                              state, (double)e.intensity, (double)e.target, (unsigned)e.owner);
            }
        } else if (kind == CTL_RZONES) {
            hl_rzone_info_t e;
            hl_get_rzone_info(r, &e);
            if (r->err) return -1;
            const hl_rzone_t *z = &e.zone;
            if (json) {
                printf("{\"name\":");
                ctl_json_str(z->name);
                printf(",\"pos\":[");
                ctl_json_num(z->pos[0]);
                putchar(',');
                ctl_json_num(z->pos[1]);
                putchar(',');
                ctl_json_num(z->pos[2]);
                putchar(']');
                ctl_json_key_num("radius", z->radius);
                ctl_json_key_num("fade", z->fade);
                ctl_json_key_str("bus", z->bus);
                ctl_json_key_str("feed", z->feed);
                ctl_json_key_num("weight", e.weight);
                ctl_json_key_num("send_db", e.send_db);
                putchar('}');
            } else {
                ctl_sink_item(&s,
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
                ctl_json_str(e.bus);
                printf(",\"index\":%u", e.index);
                ctl_json_key_str("kind", kn ? kn : "?");
                if (tn) ctl_json_key_str(e.kind == HL_FXK_REVERB ? "preset" : "type", tn);
                print_fx_params(&e, 1, params, sizeof params);
                putchar('}');
            } else {
                print_fx_params(&e, 0, params, sizeof params);
                ctl_sink_item(&s, "%s %u %s%s%s%s", e.bus, e.index, kn ? kn : "?",
                              tn ? (e.kind == HL_FXK_REVERB ? " preset=" : " type=") : "",
                              tn ? tn : "", params);
            }
        } else {
            hl_duck_info_t e;
            hl_get_duck_info(r, &e);
            if (r->err) return -1;
            const hl_duck_rule_t *d = &e.rule;
            if (json) {
                printf("{\"bus\":");
                ctl_json_str(d->bus);
                ctl_json_key_str("by", d->by);
                ctl_json_key_num("depth_db", d->depth_db);
                ctl_json_key_num("threshold_db", d->threshold_db);
                ctl_json_key_num("attack_ms", d->attack_ms);
                ctl_json_key_num("hold_ms", d->hold_ms);
                ctl_json_key_num("release_ms", d->release_ms);
                ctl_json_key_num("gain_db", e.gain_db);
                putchar('}');
            } else {
                char thr[32];
                if (d->threshold_db <= -144.0f)
                    snprintf(thr, sizeof thr, "voices");
                else
                    snprintf(thr, sizeof thr, "%g", (double)d->threshold_db);
                ctl_sink_item(&s,
                              "%s by=%s depth_db=%g threshold=%s attack_ms=%g hold_ms=%g "
                              "release_ms=%g gain_db=%.1f",
                              d->bus, d->by, (double)d->depth_db, thr, (double)d->attack_ms,
                              (double)d->hold_ms, (double)d->release_ms, (double)e.gain_db);
            }
        }
    }
    return list_close(r, &s, json, head.truncated);
}

/* PARAMS: one parameter a line (or a JSON array). */
static int print_params(hl_rbuf_t *r, int json, int batch) {
    hl_list_head_t head;
    if (list_open(r, &head, json, "params")) return -1;
    ctl_sink_t s = {.joined = batch && !json};
    for (unsigned i = 0; i < head.count; i++) {
        hl_param_info_t e;
        hl_get_param_info(r, &e);
        if (r->err) return -1;
        if (json) {
            printf("%s{\"name\":", i ? "," : "");
            ctl_json_str(e.def.name);
            ctl_json_key_num("min", e.def.min);
            ctl_json_key_num("max", e.def.max);
            ctl_json_key_num("default", e.def.def);
            ctl_json_key_num("seek", e.def.seek);
            ctl_json_key_num("value", e.value);
            ctl_json_key_num("target", e.target);
            printf(",\"owner\":%u,\"scoped\":%u}", e.owner, e.scoped);
        } else {
            ctl_sink_item(&s,
                          "%s min=%g max=%g default=%g seek=%g value=%g target=%g owner=%u "
                          "scoped=%u",
                          e.def.name, (double)e.def.min, (double)e.def.max, (double)e.def.def,
                          (double)e.def.seek, (double)e.value, (double)e.target, e.owner, e.scoped);
        }
    }
    return list_close(r, &s, json, head.truncated);
}

/* The core lists: sounds, voices, devices, cues, stats and status (the
 * server's facts first). */
static int print_list(heliod_t *h, const ctl_result_t *res, hl_rbuf_t *r, ctl_sink_t *s, int json,
                      int batch) {
    hl_list_head_t head;
    hl_get_list_head(r, &head);
    if (r->err) return -1;
    const heliod_server_info_t *si = heliod_server_info(h);
    if (res->kind == CTL_STATUS) {
        if (json) {
            printf(",\"server_version\":");
            ctl_json_str(si->server_version);
            printf(",\"protocol\":%u,\"protocol_minor\":%u,\"rate\":%u,\"period\":%u,"
                   "\"voices\":%u,\"client_id\":%u,\"stats\":{",
                   si->protocol_version, heliod_protocol_minor(h), si->rate, si->period, si->voices,
                   si->client_id);
        } else {
            ctl_sink_item(s, "server %s (protocol %u.%u)", si->server_version, si->protocol_version,
                          heliod_protocol_minor(h));
            ctl_sink_item(s, "rate %u", si->rate);
            ctl_sink_item(s, "period %u", si->period);
            ctl_sink_item(s, "voices %u", si->voices);
        }
    } else if (json) {
        static const char *keys[] = {[CTL_SOUNDS] = "sounds",
                                     [CTL_VOICES] = "voices",
                                     [CTL_DEVICES] = "devices",
                                     [CTL_STATS] = "stats",
                                     [CTL_CUES] = "cues"};
        printf(",\"truncated\":%s,\"%s\":%s", head.truncated ? "true" : "false", keys[res->kind],
               res->kind == CTL_STATS ? "{" : "[");
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
            hl_get_sound_info(r, &e);
            if (r->err) return -1;
            if (json) {
                printf("%s{\"name\":", first ? "" : ",");
                ctl_json_str(e.name);
                printf(",\"frames\":%u,\"channels\":%u,\"source_rate\":%u,\"stream\":%s,"
                       "\"playing\":%u,\"shared\":%s,\"owner\":%u}",
                       e.frames, e.channels, e.source_rate,
                       (e.flags & HL_LOAD_STREAM) ? "true" : "false", e.playing,
                       (e.flags & HL_LOAD_SHARED) ? "true" : "false", e.owner);
            } else {
                ctl_sink_item(s, "%s frames=%u channels=%u source_rate=%u playing=%u %s owner=%u%s",
                              e.name, e.frames, e.channels, e.source_rate, e.playing,
                              (e.flags & HL_LOAD_SHARED) ? "shared" : "private", e.owner,
                              (e.flags & HL_LOAD_STREAM) ? " stream" : "");
            }
        } else if (res->kind == CTL_VOICES) {
            hl_voice_info_t e;
            hl_get_voice_info(r, &e);
            if (r->err) return -1;
            if (json) {
                printf("%s{\"voice\":%llu,\"sound\":", first ? "" : ",",
                       (unsigned long long)e.voice);
                ctl_json_str(e.sound);
                printf(",\"owner\":%u,\"priority\":%d,\"flags\":%u,\"state\":\"%s\","
                       "\"gain_db\":",
                       e.owner, e.priority, e.flags, ctl_state_name(e.state));
                ctl_json_num(e.gain_db);
                printf(",\"pan\":");
                ctl_json_num(e.pan);
                printf(",\"pos\":[");
                ctl_json_num(e.pos[0]);
                putchar(',');
                ctl_json_num(e.pos[1]);
                putchar(',');
                ctl_json_num(e.pos[2]);
                printf("],\"pitch\":");
                ctl_json_num(e.pitch);
                printf(",\"bus\":");
                ctl_json_str(e.bus);
                ctl_json_key_str("cue", e.cue);
                ctl_json_key_str("category", e.category);
                ctl_json_key_str("emitter", e.emitter);
                ctl_json_key_num("audibility_db", e.audibility_db);
                ctl_json_key_num("position_s", e.position_s);
                ctl_json_key_num("lp_hz", e.post.lp_hz);
                ctl_json_key_num("hp_hz", e.post.hp_hz);
                ctl_json_key_num("occlusion", e.post.occlusion);
                ctl_json_key_num("obstruction", e.post.obstruction);
                printf(",\"sends\":[");
                for (int k = 0, n = 0; k < HL_VOICE_SENDS; k++) {
                    if (!e.post.send[k][0]) continue;
                    printf("%s{\"bus\":", n++ ? "," : "");
                    ctl_json_str(e.post.send[k]);
                    ctl_json_key_num("db", e.post.send_db[k]);
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
                ctl_sink_item(s,
                              "%llu %s owner=%u priority=%d state=%s gain_db=%g pan=%g "
                              "pos=%g,%g,%g pitch=%g bus=%s cue=%s category=%s emitter=%s "
                              "audibility_db=%.1f position_s=%.3f%s%s%s",
                              (unsigned long long)e.voice, e.sound, e.owner, e.priority,
                              ctl_state_name(e.state), (double)e.gain_db, (double)e.pan,
                              (double)e.pos[0], (double)e.pos[1], (double)e.pos[2], (double)e.pitch,
                              e.bus[0] ? e.bus : "sfx", ctl_dash(e.cue), ctl_dash(e.category),
                              ctl_dash(e.emitter), (double)e.audibility_db, e.position_s,
                              (e.flags & HL_PLAY_LOOP) ? " loop" : "",
                              (e.flags & HL_PLAY_3D) ? " 3d" : "", post);
            }
        } else if (res->kind == CTL_CUES) {
            hl_cue_info_t e;
            hl_get_cue_info(r, &e);
            if (r->err) return -1;
            if (first && !json && !batch) cues_header();
            print_cue_entry(s, &e, json, first, batch);
        } else if (res->kind == CTL_DEVICES) {
            hl_device_info_t e;
            hl_get_device_info(r, &e);
            if (r->err) return -1;
            if (json) {
                printf("%s{\"index\":%u,\"name\":", first ? "" : ",", e.index);
                ctl_json_str(e.name);
                printf(",\"hostapi\":");
                ctl_json_str(e.hostapi);
                printf(",\"max_channels\":%u,\"default_rate\":", e.max_channels);
                ctl_json_num(e.default_rate);
                printf(",\"default\":%s,\"current\":%s}",
                       (e.flags & HL_DEV_DEFAULT) ? "true" : "false",
                       (e.flags & HL_DEV_CURRENT) ? "true" : "false");
            } else {
                ctl_sink_item(s, "%u %s (%s) channels=%u rate=%g%s%s", e.index, e.name, e.hostapi,
                              e.max_channels, e.default_rate,
                              (e.flags & HL_DEV_DEFAULT) ? " default" : "",
                              (e.flags & HL_DEV_CURRENT) ? " current" : "");
            }
        } else {
            hl_stat_t e;
            hl_get_stat(r, &e);
            if (r->err) return -1;
            int show = res->kind == CTL_STATS;
            for (size_t k = 0; !show && k < sizeof status_keys / sizeof *status_keys; k++)
                show = strcmp(e.key, status_keys[k]) == 0;
            if (!show) continue;
            if (json) {
                printf("%s", first ? "" : ",");
                ctl_json_str(e.key);
                putchar(':');
                ctl_json_num(e.value);
            } else {
                ctl_sink_item(s, "%s %.15g", e.key, e.value);
            }
        }
        first = 0;
    }
    if (hl_rbuf_finish(r) < 0) return -1;
    if (json)
        printf(res->kind == CTL_STATS || res->kind == CTL_STATUS ? "}" : "]");
    else if (s->n == 0 && batch)
        printf("(none)");
    else if (head.truncated && !json)
        ctl_sink_item(s, "(list truncated)");
    if (!json) ctl_sink_end(s);
    return 0;
}

/* A count reply: requests captured, voices stopped or changed, an effect's
 * index. */
static void print_count(ctl_kind_t kind, uint32_t n, int json) {
    const char *what = kind == CTL_CAPTURE     ? "captured"
                       : kind == CTL_FX        ? "index"
                       : kind == CTL_PAUSE_ALL ? "changed"
                                               : "stopped";
    if (json)
        printf(",\"%s\":%u", what, n);
    else if (kind == CTL_CAPTURE && !n)
        printf("ok\n");
    else if (kind == CTL_CAPTURE)
        printf("captured %u requests\n", n);
    else
        printf("%s %u\n", what, n);
}

int ctl_print_ok(heliod_t *h, const ctl_result_t *res, int batch) {
    hl_rbuf_t r;
    hl_rbuf_init(&r, res->body, res->len);
    ctl_sink_t s = {.joined = batch && !ctl_opts.json};
    int json = ctl_opts.json;
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
            ctl_json_str(si.name);
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
            ctl_json_str(dr.driver);
            printf(",\"device\":");
            ctl_json_str(dr.name);
            printf(",\"rate\":%u,\"period\":%u", dr.rate, dr.period);
        } else {
            printf("%s%s%s rate=%u period=%u\n", dr.driver, dr.name[0] ? " " : "", dr.name, dr.rate,
                   dr.period);
        }
        break;
    }
    case CTL_CAPTURE:
    case CTL_STOP_ALL:
    case CTL_EMITTER_DESTROY:
    case CTL_PAUSE_ALL:
    case CTL_FX: {
        hl_count_reply_t c;
        hl_get_count_reply(&r, &c);
        if (hl_rbuf_finish(&r) < 0) return -1;
        print_count(res->kind, c.count, json);
        break;
    }
    case CTL_MUSIC: {
        hl_music_reply_t mr;
        hl_get_music_reply(&r, &mr);
        if (hl_rbuf_finish(&r) < 0) return -1;
        if (json)
            printf(",\"frame\":%llu,\"voice\":%llu", (unsigned long long)mr.frame,
                   (unsigned long long)mr.voice);
        else
            printf("frame=%llu voice=%llu\n", (unsigned long long)mr.frame,
                   (unsigned long long)mr.voice);
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
    case CTL_BANK:
        if (r.len > r.off) { /* load: the bank's state; unload: empty */
            hl_bank_info_t b;
            hl_get_bank_info(&r, &b);
            if (hl_rbuf_finish(&r) < 0) return -1;
            ctl_sink_t bs = {0};
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
    case CTL_SNAPSHOTS:
        if (print_graph_list(&r, res->kind, json, batch) < 0) return -1;
        break;
    case CTL_PARAMS:
        if (print_params(&r, json, batch) < 0) return -1;
        break;
    case CTL_SOUNDS:
    case CTL_VOICES:
    case CTL_DEVICES:
    case CTL_CUES:
    case CTL_STATS:
    case CTL_STATUS: {
        if (print_list(h, res, &r, &s, json, batch) < 0) return -1;
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
            ctl_errorf("line %d: late by %llu frames: applied at once", res->line,
                       (unsigned long long)res->late);
        else
            ctl_errorf("late by %llu frames: applied at once", (unsigned long long)res->late);
    }
    if (json) printf("}\n");
    return 0;
}
