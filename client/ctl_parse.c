/*
 * ctl_parse.c - the ground floor of heliodctl's command language: strict
 * number parsing, the option helpers the per-area parsers share, times
 * (--at), the post-stage options, and batch line splitting. Knows no
 * command; see ctl_parse.h.
 */
#include "ctl_parse.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ------------------------------------------------------------ */

int ctl_parse_float(const char *s, float *out) {
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || end == s || errno == ERANGE || !isfinite(v) || fabs(v) > (double)3.0e38f) return -1;
    *out = (float)v;
    return 0;
}

int ctl_parse_int(const char *s, long min, long max, long *out) {
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || end == s || errno == ERANGE || v < min || v > max) return -1;
    *out = v;
    return 0;
}

int ctl_parse_u64(const char *s, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE) return -1;
    *out = (uint64_t)v;
    return 0;
}

int ctl_parse_vec3(const char *s, float out[3]) {
    char buf[256];
    if (!s || strlen(s) >= sizeof buf) return -1;
    memcpy(buf, s, strlen(s) + 1);
    char *p = buf;
    for (int i = 0; i < 3; i++) {
        char *comma = strchr(p, ',');
        if (i < 2) {
            if (!comma) return -1;
            *comma = '\0';
        } else if (comma) {
            return -1;
        }
        if (ctl_parse_float(p, &out[i]) < 0) return -1;
        p = comma ? comma + 1 : p;
    }
    return 0;
}

/* ---- helpers ------------------------------------------------------------ */

int ctl__fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Option matching "--name VALUE" and "--name=VALUE". Returns 1 when argv[*i]
 * is this option (with *val set, *i advanced past the value), 0 when it is not,
 * -1 when the value is missing. */
int ctl__opt_val(int argc, char **argv, int *i, const char *name, const char **val) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0') return 0;
    if (*i + 1 >= argc) return -1;
    *val = argv[++*i];
    return 1;
}

/* Parses the float value of option `name`. */
int ctl__num_opt(const char *name, const char *v, float *out, char *err, size_t errlen) {
    if (ctl_parse_float(v, out) < 0)
        return ctl__fail(err, errlen, "%s: '%s' is not a finite number", name, v);
    return 0;
}

int ctl__vec_opt(const char *name, const char *v, float out[3], char *err, size_t errlen) {
    if (ctl_parse_vec3(v, out) < 0)
        return ctl__fail(err, errlen, "%s: '%s' is not X,Y,Z (three finite numbers)", name, v);
    return 0;
}

/* An option taking a number (--gain -6, --gain=-6): 0 if argv[*i] is not
 * `name`, 1 when *out was set, -1 (message in err) when its value is missing
 * or not a finite number. */
int ctl__float_opt(int argc, char **argv, int *i, const char *name, float *out, char *err,
                   size_t errlen) {
    const char *v;
    int r = ctl__opt_val(argc, argv, i, name, &v);
    if (r < 0) return ctl__fail(err, errlen, "%s needs a value", name);
    if (r == 0) return 0;
    return ctl__num_opt(name, v, out, err, errlen) < 0 ? -1 : 1;
}

/* The same for an X,Y,Z option. */
int ctl__vec3_opt(int argc, char **argv, int *i, const char *name, float out[3], char *err,
                  size_t errlen) {
    const char *v;
    int r = ctl__opt_val(argc, argv, i, name, &v);
    if (r < 0) return ctl__fail(err, errlen, "%s needs a value", name);
    if (r == 0) return 0;
    return ctl__vec_opt(name, v, out, err, errlen) < 0 ? -1 : 1;
}

int ctl__sphere_opt(int argc, char **argv, int *i, float pos[3], float *radius, int *seen,
                    char *err, size_t errlen) {
    int r = ctl__vec3_opt(argc, argv, i, "--pos", pos, err, errlen);
    if (r > 0) *seen |= 1;
    if (r != 0) return r;
    r = ctl__float_opt(argc, argv, i, "--radius", radius, err, errlen);
    if (r > 0) *seen |= 2;
    return r;
}

int ctl__name_arg(const char *what, const char *v, char *dst, size_t cap, char *err,
                  size_t errlen) {
    if (!v) return ctl__fail(err, errlen, "missing %s", what);
    if (!hl_name_valid(v))
        return ctl__fail(err, errlen, "invalid %s '%s' (1..63 of [A-Za-z0-9_.-])", what, v);
    snprintf(dst, cap, "%s", v);
    return 0;
}

/* An option taking one of the names of an hl_enum_kind_t (--overflow
 * steal-quietest): 0 if argv[*i] is not `name`, 1 when *out was set, -1 (with
 * the accepted names in err) when its value is missing or unknown. */
int ctl__enum_opt(int argc, char **argv, int *i, const char *name, hl_enum_kind_t kind,
                  uint8_t *out, char *err, size_t errlen) {
    const char *v;
    int r = ctl__opt_val(argc, argv, i, name, &v);
    if (r == 0) return 0;
    char names[160] = "";
    size_t len = 0;
    for (int k = 0; hl_enum_name(kind, k) && len < sizeof names; k++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "",
                                hl_enum_name(kind, k));
    if (r < 0) return ctl__fail(err, errlen, "%s needs a value (%s)", name, names);
    int e = hl_enum_from(kind, v);
    if (e < 0) return ctl__fail(err, errlen, "%s: '%s' is not one of %s", name, v, names);
    *out = (uint8_t)e;
    return 1;
}

/* An integer option in [min, max]. */
int ctl__int_opt(int argc, char **argv, int *i, const char *name, long min, long max, long *out,
                 char *err, size_t errlen) {
    const char *v;
    int r = ctl__opt_val(argc, argv, i, name, &v);
    if (r == 0) return 0;
    if (r < 0 || ctl_parse_int(v, min, max, out) < 0)
        return ctl__fail(err, errlen, "%s needs an integer in [%ld, %ld]", name, min, max);
    return 1;
}

/* A name option (--bus sfx). */
int ctl__name_opt(int argc, char **argv, int *i, const char *name, char *dst, size_t cap, char *err,
                  size_t errlen) {
    const char *v;
    int r = ctl__opt_val(argc, argv, i, name, &v);
    if (r == 0) return 0;
    if (r < 0) return ctl__fail(err, errlen, "%s needs a value", name);
    if (!hl_name_valid(v))
        return ctl__fail(err, errlen, "%s: invalid name '%s' (1..63 of [A-Za-z0-9_.-])", name, v);
    snprintf(dst, cap, "%s", v);
    return 1;
}

int ctl__post_opt(int argc, char **argv, int *i, hl_vpost_t *p, uint32_t *set_mask, int *nsend,
                  char *err, size_t errlen) {
    static const struct {
        const char *name;
        uint32_t bit;
    } nums[] = {{"--lp", HL_SET_LP},
                {"--hp", HL_SET_HP},
                {"--occlusion", HL_SET_OCCLUSION},
                {"--obstruction", HL_SET_OBSTRUCTION}};
    float *dst[] = {&p->lp_hz, &p->hp_hz, &p->occlusion, &p->obstruction};
    int r;
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        if ((r = ctl__float_opt(argc, argv, i, nums[k].name, dst[k], err, errlen)) != 0) {
            if (r > 0) *set_mask |= nums[k].bit;
            return r;
        }
    }
    const char *v;
    if ((r = ctl__opt_val(argc, argv, i, "--send", &v)) == 0) return 0;
    if (r < 0) return ctl__fail(err, errlen, "--send needs BUS:DB (e.g. reverb_hall:-12)");
    if (*nsend >= HL_VOICE_SENDS)
        return ctl__fail(err, errlen, "--send: at most %d sends per voice", HL_VOICE_SENDS);
    const char *colon = strrchr(v, ':');
    char name[HL_MAX_NAME + 1];
    size_t n = colon ? (size_t)(colon - v) : 0;
    if (!colon || n == 0 || n > HL_MAX_NAME)
        return ctl__fail(err, errlen, "--send %s: expected BUS:DB (e.g. reverb_hall:-12)", v);
    memcpy(name, v, n);
    name[n] = '\0';
    if (ctl__name_arg("send bus", name, p->send[*nsend], sizeof p->send[*nsend], err, errlen) < 0)
        return -1;
    if (ctl_parse_float(colon + 1, &p->send_db[*nsend]) < 0)
        return ctl__fail(err, errlen, "--send %s: the level after ':' must be dB", v);
    (*nsend)++;
    *set_mask |= HL_SET_SENDS;
    return 1;
}

/* ---- time ------------------------------------------------------------------ */

int ctl_parse_at(const char *s, ctl_at_t *at, char *err, size_t errlen) {
    if (s && s[0] == '+') {
        char num[64];
        size_t n = strlen(s + 1);
        double scale = 1.0;
        if (n > 2 && strcmp(s + 1 + n - 2, "ms") == 0) {
            n -= 2;
        } else if (n > 1 && s[n] == 's') {
            n -= 1;
            scale = 1000.0;
        }
        float v;
        if (n == 0 || n >= sizeof num) return ctl__fail(err, errlen, "bad time '%s'", s);
        memcpy(num, s + 1, n);
        num[n] = 0;
        if (ctl_parse_float(num, &v) < 0 || v < 0.0f || (double)v * scale > 86400000.0)
            return ctl__fail(err, errlen, "bad time '%s' (+MS, +MSms, +Ss or FRAME)", s);
        at->kind = CTL_AT_MS;
        at->ms = (double)v * scale;
        return 0;
    }
    uint64_t f;
    if (s && strcmp(s, "0") == 0) { /* frame 0: the start of a score, or "now" */
        at->kind = CTL_AT_NONE;
        return 0;
    }
    if (!s || ctl_parse_u64(s, &f) < 0 || f == 0)
        return ctl__fail(err, errlen, "bad time '%s' (+MS, +MSms, +Ss or FRAME)", s ? s : "");
    at->kind = CTL_AT_FRAME;
    at->frame = f;
    return 0;
}

uint64_t ctl_at_resolve(const ctl_at_t *at, uint64_t origin_frame, uint32_t rate) {
    uint64_t f = origin_frame;
    if (at->kind == CTL_AT_FRAME) f = at->frame;
    if (at->kind == CTL_AT_MS) f = origin_frame + (uint64_t)(at->ms * rate / 1000.0 + 0.5);
    if (at->quantize) {
        uint64_t q = at->quantize, ref = at->qref;
        if (f <= ref) return ref;
        f = ref + (f - ref + q - 1) / q * q;
    }
    return f;
}

int ctl_split_line(char *line, char **argv, int max, char *err, size_t errlen) {
    int argc = 0;
    char *p = line, *out = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p || *p == '#') break;
        if (argc == max) return ctl__fail(err, errlen, "too many words (max %d)", max);
        argv[argc++] = out;
        char quote = 0;
        while (*p) {
            char ch = *p;
            if (quote) {
                if (ch == quote) {
                    quote = 0;
                    p++;
                    continue;
                }
                if (ch == '\\' && quote == '"' && p[1]) {
                    *out++ = p[1];
                    p += 2;
                    continue;
                }
                *out++ = ch;
                p++;
                continue;
            }
            if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') break;
            if (ch == '\'' || ch == '"') {
                quote = ch;
                p++;
                continue;
            }
            if (ch == '\\' && p[1]) {
                *out++ = p[1];
                p += 2;
                continue;
            }
            *out++ = ch;
            p++;
        }
        if (quote) return ctl__fail(err, errlen, "unterminated %c quote", quote);
        int at_end = (*p == '\0');
        if (!at_end) p++;
        *out++ = '\0';
        if (at_end) break;
    }
    return argc;
}
