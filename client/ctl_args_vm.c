/*
 * ctl_args_vm.c - heliodctl's voice-management commands: `cue`, `category`,
 * `cues` (list or load a cue sheet) and `emitter`, parsed into their wire
 * messages with the option helpers of ctl_args_int.h and validated with the
 * same hl_validate_* the daemon uses. No socket I/O.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_args_int.h"

/* cue NAME --sound S [--sound S2 ...] [options]: defaults from hl_cue_init. */
int ctl__parse_cue(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_cue_t *m = &c->m.cue;
    hl_cue_init(m);
    const char *name = NULL;
    uint32_t post_mask = 0;
    int nsend = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        long n;
        int r;
        if (a[0] != '-' || a[1] != '-') {
            if (name) return ctl__fail(err, errlen, "cue: unexpected argument '%s'", a);
            name = a;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--sound", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--sound needs a sound name");
            if (m->nsounds >= HL_MAX_CUE_SOUNDS)
                return ctl__fail(err, errlen, "cue: at most %d --sound", HL_MAX_CUE_SOUNDS);
            if (ctl__name_arg("sound name", v, m->sounds[m->nsounds], sizeof m->sounds[0], err,
                              errlen) < 0)
                return -1;
            m->nsounds++;
        } else if ((r = ctl__enum_opt(argc, argv, &i, "--pick", HL_ENUM_PICK, &m->pick, err,
                                      errlen)) != 0 ||
                   (r = ctl__enum_opt(argc, argv, &i, "--model", HL_ENUM_MODEL, &m->model, err,
                                      errlen)) != 0 ||
                   (r = ctl__enum_opt(argc, argv, &i, "--fade-curve", HL_ENUM_CURVE, &m->fade_curve,
                                      err, errlen)) != 0 ||
                   (r = ctl__enum_opt(argc, argv, &i, "--overflow", HL_ENUM_OVERFLOW, &m->overflow,
                                      err, errlen)) != 0 ||
                   (r = ctl__enum_opt(argc, argv, &i, "--beyond", HL_ENUM_BEYOND, &m->beyond, err,
                                      errlen)) != 0 ||
                   (r = ctl__enum_opt(argc, argv, &i, "--virtual", HL_ENUM_VIRT, &m->virt, err,
                                      errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--gain", &m->gain_db, err, errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--gain-rand", &m->gain_rand_db, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--pitch", &m->pitch, err, errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--pitch-rand", &m->pitch_rand_cents, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--pan", &m->pan, err, errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--min-distance", &m->min_distance, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--max-distance", &m->max_distance, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--rolloff", &m->rolloff, err, errlen)) !=
                       0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--fade-in", &m->fade_in_ms, err, errlen)) !=
                       0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--fade-out", &m->fade_out_ms, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--min-interval", &m->min_interval_ms, err,
                                       errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--doppler", &m->doppler, err, errlen)) !=
                       0 ||
                   (r = ctl__name_opt(argc, argv, &i, "--bus", m->bus, sizeof m->bus, err,
                                      errlen)) != 0 ||
                   (r = ctl__name_opt(argc, argv, &i, "--category", m->category, sizeof m->category,
                                      err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__int_opt(argc, argv, &i, "--priority", -HL_MAX_PRIORITY,
                                     HL_MAX_PRIORITY, &n, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->priority = (int32_t)n;
        } else if ((r = ctl__int_opt(argc, argv, &i, "--max-instances", 0, 65536, &n, err,
                                     errlen)) != 0) {
            if (r < 0) return -1;
            m->max_instances = (uint32_t)n;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--interp", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--interp needs a value");
            uint32_t f = strcmp(v, "sinc") == 0     ? HL_CUE_SINC
                         : strcmp(v, "cubic") == 0  ? HL_CUE_CUBIC
                         : strcmp(v, "linear") == 0 ? HL_CUE_LINEAR
                                                    : 0;
            if (!f) return ctl__fail(err, errlen, "--interp: '%s' is not linear, cubic or sinc", v);
            m->flags = (m->flags & ~(uint32_t)HL_PLAY_INTERP) | f;
        } else if (strcmp(a, "--3d") == 0) {
            m->flags |= HL_CUE_3D;
        } else if (strcmp(a, "--loop") == 0) {
            m->flags |= HL_CUE_LOOP;
        } else if ((r = ctl__post_opt(argc, argv, &i, &m->post, &post_mask, &nsend, err, errlen)) !=
                   0) {
            if (r < 0) return -1;
        } else {
            return ctl__fail(err, errlen, "cue: unknown option '%s'", a);
        }
    }
    if (ctl__name_arg("cue name", name, m->name, sizeof m->name, err, errlen) < 0) return -1;
    if (m->nsounds == 0) return ctl__fail(err, errlen, "cue: needs at least one --sound");
    const char *why;
    if (hl_validate_cue(m, &why) < 0) return ctl__fail(err, errlen, "cue: %s", why);
    return 0;
}

int ctl__parse_category(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_category_t *m = &c->m.category;
    hl_category_init(m);
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long n;
        int r;
        if (a[0] != '-' || a[1] != '-') {
            if (name) return ctl__fail(err, errlen, "category: unexpected argument '%s'", a);
            name = a;
        } else if ((r = ctl__int_opt(argc, argv, &i, "--max-instances", 0, 65536, &n, err,
                                     errlen)) != 0) {
            if (r < 0) return -1;
            m->max_instances = (uint32_t)n;
        } else if ((r = ctl__enum_opt(argc, argv, &i, "--overflow", HL_ENUM_OVERFLOW, &m->overflow,
                                      err, errlen)) != 0 ||
                   (r = ctl__enum_opt(argc, argv, &i, "--fade-curve", HL_ENUM_CURVE, &m->fade_curve,
                                      err, errlen)) != 0 ||
                   (r = ctl__float_opt(argc, argv, &i, "--fade-out", &m->fade_out_ms, err,
                                       errlen)) != 0) {
            if (r < 0) return -1;
        } else {
            return ctl__fail(err, errlen, "category: unknown option '%s'", a);
        }
    }
    if (ctl__name_arg("category name", name, m->name, sizeof m->name, err, errlen) < 0) return -1;
    const char *why;
    if (hl_validate_category(m, &why) < 0) return ctl__fail(err, errlen, "category: %s", why);
    return 0;
}

/* cues [--json] | cues load FILE; also stats --cues [--json]. */
int ctl__parse_cues(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    const char *file = NULL;
    int load = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            c->json = 1;
        } else if (strcmp(argv[0], "stats") == 0 && strcmp(a, "--cues") == 0) {
            /* already known */
        } else if (a[0] == '-' && a[1] == '-') {
            return ctl__fail(err, errlen, "%s: unknown option '%s'", argv[0], a);
        } else if (strcmp(argv[0], "cues") == 0 && i == 1 && strcmp(a, "load") == 0) {
            load = 1;
        } else if (load && !file) {
            file = a;
        } else {
            return ctl__fail(err, errlen, "%s: unexpected argument '%s'", argv[0], a);
        }
    }
    if (!load) return 0;
    if (c->json) return ctl__fail(err, errlen, "cues load: --json is a global option here");
    if (!file || !*file) return ctl__fail(err, errlen, "cues load: needs FILE");
    c->kind = CTL_CUES_LOAD;
    c->op = HL_OP_CUES_LOAD;
    /* the daemon has its own working directory: send an absolute path */
    char *path = NULL;
    if (file[0] != '/') {
        path = realpath(file, NULL);
        if (!path) {
            char *cwd = getcwd(NULL, 0);
            if (!cwd) return ctl__fail(err, errlen, "cues load: cannot get the current directory");
            size_t n = strlen(cwd) + 1 + strlen(file) + 1;
            path = malloc(n);
            if (path) snprintf(path, n, "%s/%s", cwd, file);
            free(cwd);
            if (!path) return ctl__fail(err, errlen, "out of memory");
        }
    }
    const char *p = path ? path : file;
    size_t n = strlen(p);
    if (n > HL_MAX_PATH) {
        free(path);
        return ctl__fail(err, errlen, "cues load: FILE path longer than %d bytes", HL_MAX_PATH);
    }
    memcpy(c->m.cues_load.path, p, n + 1);
    free(path);
    return 0;
}

/* emitter create|set|destroy ID [options] */
int ctl__parse_emitter(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_emitter_t *m = &c->m.emitter;
    if (argc < 2) return ctl__fail(err, errlen, "emitter: needs create, set or destroy");
    const char *act = argv[1];
    if (strcmp(act, "create") == 0) {
        m->action = HL_EMITTER_CREATE;
        m->mask = HL_EM_DETACHED; /* heliodctl exits at once: its emitters must outlive it */
    } else if (strcmp(act, "set") == 0) {
        m->action = HL_EMITTER_SET;
    } else if (strcmp(act, "destroy") == 0) {
        m->action = HL_EMITTER_DESTROY;
        c->kind = CTL_EMITTER_DESTROY;
    } else {
        return ctl__fail(err, errlen, "emitter: '%s' is not create, set or destroy", act);
    }
    m->fade_ms = -1.0f;
    const char *name = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (a[0] != '-' || a[1] != '-') {
            if (name) return ctl__fail(err, errlen, "emitter %s: unexpected argument '%s'", act, a);
            name = a;
        } else if (m->action != HL_EMITTER_DESTROY &&
                   (r = ctl__vec3_opt(argc, argv, &i, "--pos", m->pos, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_EM_POS;
        } else if (m->action != HL_EMITTER_DESTROY &&
                   (r = ctl__vec3_opt(argc, argv, &i, "--vel", m->vel, err, errlen)) != 0) {
            if (r < 0) return -1;
            m->mask |= HL_EM_VEL;
        } else if (m->action == HL_EMITTER_SET &&
                   (r = ctl__float_opt(argc, argv, &i, "--ramp", &m->ramp_ms, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if (m->action == HL_EMITTER_DESTROY &&
                   (r = ctl__float_opt(argc, argv, &i, "--fade", &m->fade_ms, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else {
            return ctl__fail(err, errlen, "emitter %s: unknown option '%s'", act, a);
        }
    }
    if (ctl__name_arg("emitter ID", name, m->name, sizeof m->name, err, errlen) < 0) return -1;
    if (m->action == HL_EMITTER_CREATE && !(m->mask & HL_EM_POS))
        return ctl__fail(err, errlen, "emitter create: --pos X,Y,Z is required");
    if (m->action == HL_EMITTER_SET && !(m->mask & (HL_EM_POS | HL_EM_VEL)))
        return ctl__fail(err, errlen, "emitter set: nothing to set (--pos or --vel)");
    const char *why;
    if (hl_validate_emitter(m, &why) < 0) return ctl__fail(err, errlen, "emitter %s: %s", act, why);
    return 0;
}
