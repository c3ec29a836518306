/*
 * ctl_args_assets.c - heliodctl's asset commands: load, bank (load, unload),
 * banks, zone (add, remove), zones [--watch].
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_args_int.h"

/* A path the daemon can open: relative paths are made absolute here (the
 * daemon has its own working directory). */
static int abs_path(const char *what, const char *p, char *dst, size_t cap, char *err,
                    size_t errlen) {
    char *abs = p[0] != '/' ? realpath(p, NULL) : NULL;
    const char *use = abs ? abs : p;
    int ok = strlen(use) < cap && use[0];
    if (ok) snprintf(dst, cap, "%s", use);
    free(abs);
    return ok ? 0 : ctl__fail(err, errlen, "%s: missing or too long path '%s'", what, p);
}

/* bank load FILE [--no-wait] | bank unload NAME */
int ctl__parse_bank(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_bank_t *m = &c->m.bank;
    if (argc >= 3 && strcmp(argv[1], "load") == 0) {
        m->action = HL_BANK_LOAD;
        c->wait = 1;
        const char *file = NULL;
        for (int i = 2; i < argc; i++) {
            if (strcmp(argv[i], "--no-wait") == 0)
                c->wait = 0;
            else if (argv[i][0] == '-' && argv[i][1] == '-')
                return ctl__fail(err, errlen, "bank load: unknown option '%s'", argv[i]);
            else if (file)
                return ctl__fail(err, errlen, "bank load: unexpected argument '%s'", argv[i]);
            else
                file = argv[i];
        }
        if (!file) return ctl__fail(err, errlen, "bank load: needs a manifest FILE");
        return abs_path("bank load", file, m->arg, sizeof m->arg, err, errlen);
    }
    if (argc == 3 && strcmp(argv[1], "unload") == 0) {
        m->action = HL_BANK_UNLOAD;
        char name[HL_MAX_NAME + 1];
        if (ctl__name_arg("bank name", argv[2], name, sizeof name, err, errlen) < 0) return -1;
        snprintf(m->arg, sizeof m->arg, "%s", name);
        return 0;
    }
    return ctl__fail(err, errlen, "bank: load FILE [--no-wait] or unload NAME");
}

/* zone add NAME --bank FILE --pos X,Y,Z --radius R | zone remove NAME */
int ctl__parse_zone(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_zone_t *m = &c->m.zone;
    if (argc == 3 && strcmp(argv[1], "remove") == 0) {
        m->action = HL_ZONE_REMOVE;
        return ctl__name_arg("zone name", argv[2], m->name, sizeof m->name, err, errlen);
    }
    if (argc < 3 || strcmp(argv[1], "add") != 0)
        return ctl__fail(err, errlen,
                         "zone: add NAME --bank FILE --pos X,Y,Z --radius R, or "
                         "remove NAME");
    m->action = HL_ZONE_ADD;
    if (ctl__name_arg("zone name", argv[2], m->name, sizeof m->name, err, errlen) < 0) return -1;
    int seen = 0;
    for (int i = 3; i < argc; i++) {
        const char *v;
        int r;
        if ((r = ctl__sphere_opt(argc, argv, &i, m->pos, &m->radius, &seen, err, errlen)) != 0) {
            if (r < 0) return -1;
        } else if ((r = ctl__opt_val(argc, argv, &i, "--bank", &v)) != 0) {
            if (r < 0) return ctl__fail(err, errlen, "--bank needs a manifest FILE");
            if (abs_path("--bank", v, m->bank, sizeof m->bank, err, errlen) < 0) return -1;
        } else {
            return ctl__fail(err, errlen, "zone add: unknown argument '%s'", argv[i]);
        }
    }
    if (!m->bank[0] || seen != 3)
        return ctl__fail(err, errlen, "zone add: --bank, --pos and --radius are required");
    const char *why;
    if (hl_validate_zone(m, &why) < 0) return ctl__fail(err, errlen, "zone: %s", why);
    return 0;
}

/* zones [--watch] */
int ctl__parse_zones(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--watch") == 0)
            c->wait = 1;
        else
            return ctl__fail(err, errlen, "zones: unexpected argument '%s' (--watch)", argv[i]);
    }
    return 0;
}

int ctl__parse_load(int argc, char **argv, ctl_cmd_t *c, char *err, size_t errlen) {
    hl_load_t *m = &c->m.load;
    const char *pos[2] = {NULL, NULL};
    int npos = 0, priv = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--stream") == 0) {
            m->flags |= HL_LOAD_STREAM;
        } else if (strcmp(argv[i], "--compressed") == 0) {
            m->flags |= HL_LOAD_COMPRESSED;
        } else if (strcmp(argv[i], "--shared") == 0) {
            priv = 0;
        } else if (strcmp(argv[i], "--private") == 0) {
            priv = 1;
        } else if (strcmp(argv[i], "--pin") == 0) {
            m->flags |= HL_LOAD_PIN;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return ctl__fail(err, errlen, "load: unknown option '%s'", argv[i]);
        } else if (npos == 2) {
            return ctl__fail(err, errlen, "load: unexpected argument '%s'", argv[i]);
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (npos < 2) return ctl__fail(err, errlen, "load: needs NAME FILE");
    if (!priv) m->flags |= HL_LOAD_SHARED;
    if (ctl__name_arg("sound name", pos[0], m->name, sizeof m->name, err, errlen) < 0) return -1;
    const char *path = pos[1];
    if (strcmp(path, "-") == 0) { /* the file's bytes from stdin, uploaded over the socket */
        if (m->flags & (HL_LOAD_STREAM | HL_LOAD_COMPRESSED))
            return ctl__fail(err, errlen, "load: an upload (FILE -) is preloaded, not streamed");
        c->file = "-";
        return 0;
    }
    if ((m->flags & HL_LOAD_STREAM) && (m->flags & HL_LOAD_COMPRESSED))
        return ctl__fail(err, errlen, "load: --stream or --compressed, not both");
    /* FILE@OFFSET+LENGTH: a sound inside a pack file */
    char plain[HL_MAX_PATH + 1];
    int pk = hl_pack_split(path, plain, sizeof plain, &m->offset, &m->length);
    if (pk < 0)
        return ctl__fail(err, errlen,
                         "load: FILE@OFFSET+LENGTH: numbers up to 2^64-1, LENGTH >= 1, "
                         "OFFSET+LENGTH within 2^64-1 (%s)",
                         path);
    path = plain;
    char *abs = path[0] != '/' ? realpath(path, NULL) : NULL;
    if (abs) path = abs;
    size_t n = strlen(path);
    if (n == 0 || n > HL_MAX_PATH) {
        free(abs);
        return ctl__fail(err, errlen, "load: FILE path empty or longer than %d bytes", HL_MAX_PATH);
    }
    memcpy(m->path, path, n + 1);
    free(abs);
    return 0;
}
