/*
 * ctl_args_voice.c - heliodctl's voice commands: play, stop, set, listener,
 * pause and resume, parsed into their wire messages with the helpers of
 * ctl_parse.h and validated with the same hl_validate_* the daemon uses.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_args_int.h"

int ctl__parse_play(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_play_t *m = &c->m.play;
    m->pitch = 1.0f;
    m->fade_in_ms = -1.0f;
    m->min_distance = 1.0f;
    m->max_distance = 100.0f;
    m->rolloff = 1.0f;
    m->model = HL_DIST_INVERSE;
    const char *sound = NULL;
    uint32_t post_mask = 0;
    int nsend = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        int r;
        if (a[0] != '-' || a[1] != '-') {
            if (sound) return ctl__fail(err, errlen, "play: unexpected argument '%s'", a);
            sound = a;
            continue;
        }
        long n;
        if (strcmp(a, "--loop") == 0) {
            m->flags |= HL_PLAY_LOOP;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--loop-start", &v)) != 0) {
            if (r < 0 || ctl_parse_int(v, 0, UINT32_MAX, &n) < 0)
                return ctl__fail(err, errlen, "--loop-start needs a frame number >= 0");
            m->loop_start = (uint32_t)n;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--loop-end", &v)) != 0) {
            if (r < 0 || ctl_parse_int(v, 1, UINT32_MAX, &n) < 0)
                return ctl__fail(err, errlen, "--loop-end needs a frame number > 0");
            m->loop_end = (uint32_t)n;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--loop-count", &v)) != 0) {
            if (r < 0 || ctl_parse_int(v, 1, UINT32_MAX, &n) < 0)
                return ctl__fail(err, errlen, "--loop-count needs a count >= 1");
            m->loop_count = (uint32_t)n;
            m->flags |= HL_PLAY_LOOP;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--xfade", &m->loop_xfade_ms, err,
                                       errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--interp", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--interp needs a value");
            uint32_t f = strcmp(v, "sinc") == 0     ? HL_PLAY_SINC
                         : strcmp(v, "cubic") == 0  ? HL_PLAY_CUBIC
                         : strcmp(v, "linear") == 0 ? HL_PLAY_LINEAR
                                                    : 0;
            if (!f) return ctl__fail(err, errlen, "--interp: '%s' is not linear, cubic or sinc", v);
            m->flags = (m->flags & ~(uint32_t)HL_PLAY_INTERP) | f;
        } else if (strcmp(a, "--wait") == 0) {
            c->wait = 1;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--gain", &m->gain_db, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--pan", &m->pan, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_PAN;
        } else if ((r = ctl__vec3_opt(argc, argv, &i, "--pos", m->pos, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->flags |= HL_PLAY_3D;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--pitch", &m->pitch, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--lfe", &m->lfe, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--priority", &v)) != 0) {
            long p;
            if (r < 0 || ctl_parse_int(v, -HL_MAX_PRIORITY, HL_MAX_PRIORITY, &p) < 0)
                return ctl__fail(err, errlen, "--priority needs an integer in [-1000, 1000]");
            m->priority = (int32_t)p;
            m->over |= HL_OVER_PRIORITY;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--fade-in", &m->fade_in_ms, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_FADE_IN;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--bus", &v)) != 0) {
            if (r < 0 || ctl__name_arg("bus", v, m->bus, sizeof m->bus, err, errlen) < 0)
                return r < 0 ? ctl__fail(err, errlen, "--bus needs a value") : -1;
            m->over |= HL_OVER_BUS;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--min-dist", &m->min_distance, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--min-distance", &m->min_distance, err,
                                       errlen)) != 0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_DISTANCE;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--max-dist", &m->max_distance, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--max-distance", &m->max_distance, err,
                                       errlen)) != 0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_DISTANCE;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--rolloff", &m->rolloff, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_DISTANCE;
        } else if ((r = ctl__enum_opt(argc, argv, &i, "--model", HL_ENUM_MODEL, &m->model, err,
                                      errlen)) != 0) {
            if (r < 0) return -1;
            m->over |= HL_OVER_DISTANCE;
        } else if ((r = ctl__vec3_opt(argc, argv, &i, "--vel", m->vel, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--emitter", &v)) != 0) {
            if (r < 0 ||
                ctl__name_arg("emitter", v, m->emitter, sizeof m->emitter, err, errlen) < 0)
                return r < 0 ? ctl__fail(err, errlen, "--emitter needs a value") : -1;
            m->flags |= HL_PLAY_3D;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--on", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--on needs beat or bar");
            if (strcmp(v, "beat") == 0)
                m->sync_on = HL_SYNC_BEAT;
            else if (strcmp(v, "bar") == 0)
                m->sync_on = HL_SYNC_BAR;
            else
                return ctl__fail(err, errlen, "--on: '%s' is not beat or bar", v);
        } else if ((r = ctl__opt_val(argc, argv, &i, "--of", &v)) != 0) {
            if (r < 0 || ctl_parse_u64(v, &m->sync_voice) < 0 || m->sync_voice == 0)
                return ctl__fail(err, errlen, "--of: '%s' is not a voice handle", r < 0 ? "" : v);
        } else if ((r = ctl__post_opt(argc, argv, &i, &m->post, &post_mask, &nsend, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
            if (post_mask & (HL_SET_LP | HL_SET_HP | HL_SET_OCCLUSION | HL_SET_OBSTRUCTION))
                m->over |= HL_OVER_FILTER;
            if (post_mask & HL_SET_SENDS) m->over |= HL_OVER_SENDS;
        } else {
            return ctl__fail(err, errlen, "play: unknown option '%s'", a);
        }
    }
    if (ctl__name_arg("sound name", sound, m->sound, sizeof m->sound, err, errlen) < 0) return -1;
    if ((m->sync_on != HL_SYNC_NONE) != (m->sync_voice != 0))
        return ctl__fail(err, errlen, "play: --on beat|bar and --of VOICE go together");
    if (!c->wait) m->flags |= HL_PLAY_DETACHED;
    const char *why;
    if (hl_validate_play(m, &why) < 0) return ctl__fail(err, errlen, "play: %s", why);
    return 0;
}

int ctl__parse_stop(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    int all = 0, curve = -1;
    const char *voice = NULL;
    float fade = HL_DEFAULT_STOP_MS;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (strcmp(argv[i], "--all") == 0) {
            all = 1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--fade", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--fade needs a value");
            if (ctl__num_opt("--fade", v, &fade, err, errlen) < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--curve", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--curve needs a value");
            curve = hl_enum_from(HL_ENUM_CURVE, v);
            if (curve < 0)
                return ctl__fail(err, errlen, "stop: --curve must be linear, equal-power or log");
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "stop: unknown option '%s'", argv[i]);
        } else if (voice) {
            return ctl__fail(err, errlen, "stop: unexpected argument '%s'", argv[i]);
        } else {
            voice = argv[i];
        }
    }
    const char *why;
    if (all) {
        if (voice) return ctl__fail(err, errlen, "stop: give a VOICE or --all, not both");
        if (curve >= 0) return ctl__fail(err, errlen, "stop: --curve is for one VOICE");
        c->kind = CTL_STOP_ALL;
        c->op = HL_OP_STOP_ALL;
        c->m.stop_all.fade_ms = fade;
        c->m.stop_all.scope = HL_STOP_ALL_EVERYONE;
        if (hl_validate_stop_all(&c->m.stop_all, &why) < 0)
            return ctl__fail(err, errlen, "stop: %s", why);
        return 0;
    }
    if (!voice) return ctl__fail(err, errlen, "stop: missing VOICE (or --all)");
    if (ctl_parse_u64(voice, &c->m.stop.voice) < 0 || c->m.stop.voice == 0)
        return ctl__fail(err, errlen, "stop: '%s' is not a voice handle", voice);
    c->m.stop.fade_ms = fade;
    c->m.stop.curve = curve < 0 ? 0 : HL_STOP_CURVE(curve);
    if (hl_validate_stop(&c->m.stop, &why) < 0) return ctl__fail(err, errlen, "stop: %s", why);
    return 0;
}

/* --loops forever|N: the passes left (-1 forever). */
static int parse_loops(const char *v, int32_t *out) {
    if (strcmp(v, "forever") == 0 || strcmp(v, "-1") == 0) {
        *out = -1;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < 0 || n > INT32_MAX) return -1;
    *out = (int32_t)n;
    return 0;
}

int ctl__parse_set(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_set_t *m = &c->m.set;
    const char *voice = NULL;
    int nsend = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if ((r = ctl__float_opt(argc, argv, &i, "--gain", &m->gain_db, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_GAIN;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--pan", &m->pan, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_PAN;
        } else if ((r = ctl__vec3_opt(argc, argv, &i, "--pos", m->pos, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_POS;
        } else if ((r = ctl__vec3_opt(argc, argv, &i, "--vel", m->vel, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_VEL;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--pitch", &m->pitch, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_PITCH;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--lfe", &m->lfe, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_SET_LFE;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--ramp", &m->ramp_ms, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--loops", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--loops needs a value");
            if (parse_loops(v, &m->loops) < 0)
                return ctl__fail(err, errlen,
                                 "--loops: forever, a count of passes left, or 0 to leave the "
                                 "loop after this pass (got '%s')",
                                 v);
            m->mask |= HL_SET_LOOPS;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--seek", &v)) != 0) {
            float sk = 0.0f;
            if (r < 0 || ctl__num_opt("--seek", v, &sk, err, errlen) < 0)
                return r < 0 ? ctl__fail(err, errlen, "--seek needs a value") : -1;
            m->seek_s = sk;
            m->mask |= HL_SET_SEEK;
        } else if (strcmp(argv[i], "--pause") == 0) {
            m->mask |= HL_SET_PAUSE;
        } else if (strcmp(argv[i], "--resume") == 0) {
            m->mask |= HL_SET_RESUME;
        } else if ((r = ctl__post_opt(argc, argv, &i, &m->post, &m->mask, &nsend, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "set: unknown option '%s'", argv[i]);
        } else if (voice) {
            return ctl__fail(err, errlen, "set: unexpected argument '%s'", argv[i]);
        } else {
            voice = argv[i];
        }
    }
    if (!voice) return ctl__fail(err, errlen, "set: missing VOICE");
    if (ctl_parse_u64(voice, &m->voice) < 0 || m->voice == 0)
        return ctl__fail(err, errlen, "set: '%s' is not a voice handle", voice);
    if (!m->mask)
        return ctl__fail(
            err, errlen,
            "set: nothing to set (--gain, --pan, --pos, --vel, --pitch, --seek, --pause or "
            "--resume)");
    const char *why;
    if (hl_validate_set(m, &why) < 0) return ctl__fail(err, errlen, "set: %s", why);
    return 0;
}

int ctl__parse_listener(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_listener_t *m = &c->m.listener;
    static const struct {
        const char *opt;
        uint32_t bit;
    } vo[] = {{"--pos", HL_LIS_POS},
              {"--forward", HL_LIS_FWD},
              {"--up", HL_LIS_UP},
              {"--vel", HL_LIS_VEL}};
    float *dst[] = {m->pos, m->fwd, m->up, m->vel};
    for (int i = 1; i < argc; i++) {
        int matched = 0;
        for (int k = 0; k < 4 && !matched; k++) {
            const char *v;
            int r = ctl__opt_val(argc, argv, &i, vo[k].opt, &v);
            if (r == 0) continue;
            if (r < 0) return ctl__fail(err, errlen, "%s needs a value", vo[k].opt);
            if (ctl__vec_opt(vo[k].opt, v, dst[k], err, errlen) < 0) return -1;
            m->mask |= vo[k].bit;
            matched = 1;
        }
        if (!matched) {
            long idx = 0;
            int r = ctl__int_opt(argc, argv, &i, "--index", 0, 3, &idx, err, errlen);
            if (r < 0) return -1;
            if (r > 0) {
                m->index = (uint8_t)idx;
                continue;
            }
            if (strcmp(argv[i], "--off") == 0) {
                m->off = 1;
                continue;
            }
            const char *w;
            if ((r = ctl__opt_val(argc, argv, &i, "--weight", &w)) != 0) {
                if (r < 0) return ctl__fail(err, errlen, "--weight needs W (0..1) or nearest");
                if (strcmp(w, "nearest") == 0) {
                    m->weight = -1.0f;
                } else if (ctl_parse_float(w, &m->weight) < 0 || !(m->weight > 0.0f)) {
                    return ctl__fail(err, errlen, "--weight: W in (0, 1] or nearest");
                }
                continue;
            }
            return ctl__fail(err, errlen, "listener: unknown argument '%s'", argv[i]);
        }
    }
    if (m->off && !m->index) return ctl__fail(err, errlen, "listener: --off needs --index 1..3");
    if (!m->mask && !m->off && m->weight == 0.0f)
        return ctl__fail(err, errlen,
                         "listener: nothing to set (--pos, --forward, --up, --vel or --weight)");
    const char *why;
    if (hl_validate_listener(m, &why) < 0) return ctl__fail(err, errlen, "listener: %s", why);
    return 0;
}

/* pause/resume VOICE [--ramp MS] -> SET; pause/resume --all -> PAUSE (everyone). */
int ctl__parse_pause(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    int all = 0, pause = c->kind == CTL_PAUSE;
    const char *voice = NULL;
    float ramp = 0;
    uint8_t scope = HL_PAUSE_EVERYONE;
    char group[HL_MAX_NAME + 1] = "";
    for (int i = 1; i < argc; i++) {
        int r;
        if (strcmp(argv[i], "--all") == 0) {
            all++;
        } else if ((r = ctl__name_opt(argc, argv, &i, "--bus", group, sizeof group, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
            all++;
            scope = HL_PAUSE_BUS;
        } else if ((r = ctl__name_opt(argc, argv, &i, "--category", group, sizeof group, err,
                                      errlen)) != 0) {
            if (r < 0) return -1;
            all++;
            scope = HL_PAUSE_CATEGORY;
        } else if ((r = ctl__float_opt(argc, argv, &i, "--ramp", &ramp, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "%s: unknown option '%s'", argv[0], argv[i]);
        } else if (voice) {
            return ctl__fail(err, errlen, "%s: unexpected argument '%s'", argv[0], argv[i]);
        } else {
            voice = argv[i];
        }
    }
    if (all) {
        if (voice || all > 1)
            return ctl__fail(err, errlen, "%s: give one of VOICE, --all, --bus or --category",
                             argv[0]);
        c->kind = CTL_PAUSE_ALL;
        c->op = HL_OP_PAUSE;
        c->m.pause.pause = (uint8_t)pause;
        c->m.pause.scope = scope;
        memcpy(c->m.pause.group, group, sizeof group);
        const char *why;
        if (hl_validate_pause(&c->m.pause, &why) < 0)
            return ctl__fail(err, errlen, "%s: %s", argv[0], why);
        return 0;
    }
    if (!voice)
        return ctl__fail(err, errlen, "%s: missing VOICE (or --all, --bus, --category)", argv[0]);
    hl_set_t *m = &c->m.set;
    if (ctl_parse_u64(voice, &m->voice) < 0 || m->voice == 0)
        return ctl__fail(err, errlen, "%s: '%s' is not a voice handle", argv[0], voice);
    c->kind = CTL_SET;
    m->mask = pause ? HL_SET_PAUSE : HL_SET_RESUME;
    m->pitch = 1.0f;
    m->ramp_ms = ramp;
    const char *why;
    if (hl_validate_set(m, &why) < 0) return ctl__fail(err, errlen, "%s: %s", argv[0], why);
    return 0;
}
