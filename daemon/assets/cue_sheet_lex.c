/*
 * cue_sheet_lex.c - the cue-sheet loader's lowest layer (cue_sheet_int.h):
 * the error line every parser writes, the value parsers, the growing arrays
 * and the line reader.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cue_sheet_int.h"

int hld_sheet_fail(hld_sheet_t *L, uint32_t line, int rc, const char *fmt, ...) {
    if (!L->err || !L->errcap) return rc;
    int n = snprintf(L->err, L->errcap, "%s:%u: ", L->path, (unsigned)line);
    if (n < 0 || (size_t)n >= L->errcap) return rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->err + n, L->errcap - (size_t)n, fmt, ap);
    va_end(ap);
    return rc;
}

int hld_sheet_float(const char *v, float *out) {
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno == ERANGE || !isfinite(d) || fabs(d) > 3.4e38) return -1;
    *out = (float)d;
    return 0;
}

int hld_sheet_int(const char *v, long long lo, long long hi, long long *out) {
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno == ERANGE || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

int hld_sheet_bool(const char *v) {
    if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcmp(v, "1")) return 1;
    if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcmp(v, "0")) return 0;
    return -1;
}

int hld_sheet_grow(void **arr, uint32_t *cap, uint32_t n, uint32_t max, size_t elem) {
    if (n < *cap) return 0;
    uint32_t nc = *cap ? *cap * 2u : 16u;
    if (nc > max) nc = max;
    void *p = realloc(*arr, (size_t)nc * elem);
    if (!p) return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

int hld_sheet_read_line(hld_sheet_t *L, FILE *f, char *buf) {
    size_t n = 0;
    int ch;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (ch == '\0') return hld_sheet_fail(L, L->line, -1, "NUL byte in line");
        if (n >= HLD_SHEET_MAX_LINE)
            return hld_sheet_fail(L, L->line, -1, "line longer than %d bytes", HLD_SHEET_MAX_LINE);
        buf[n++] = (char)ch;
    }
    buf[n] = '\0';
    if (ch == EOF) {
        if (ferror(f)) return -2;
        if (n == 0) return 0;
    }
    return 1;
}

void hld_sheet_end_section(hld_sheet_t *L) {
    L->cur_cue = NULL;
    L->cur_cat = NULL;
    L->in_snap = 0;
    L->cur_mus = NULL;
}
