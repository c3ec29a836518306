/*
 * tempo.c - tempo maps (tempo.h): the cue sheet's syntax and beat <-> source
 * position arithmetic.
 */
#include "tempo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* A BPM, 1..1000 with up to three decimals, into milli-BPM; end after it. */
static int parse_bpm(const char *s, uint32_t *mbpm, const char **end) {
    char *e;
    double b = strtod(s, &e);
    if (e == s || !(b >= HLD_TEMPO_MIN_MBPM / 1000.0) || !(b <= HLD_TEMPO_MAX_MBPM / 1000.0))
        return -1;
    *mbpm = (uint32_t)llround(b * 1000.0);
    *end = e;
    return 0;
}

int hld_tempo_parse(hld_tempo_t *t, const char *v, const char **why) {
    hld_tempo_t n = {.n = 1, .num = 4, .den = 4};
    const char *s = skip_ws(v), *e;
    if (parse_bpm(s, &n.seg[0].mbpm, &e)) {
        *why = "tempo: expected BPM (1..1000) [NUM/DEN], e.g. 120 4/4";
        return -1;
    }
    s = skip_ws(e);
    if (*s) {
        char *x;
        long num = strtol(s, &x, 10);
        long den = 0;
        if (x != s && *x == '/') {
            const char *d = x + 1;
            den = strtol(d, &x, 10);
            if (x == d) den = 0;
        }
        if (num < 1 || num > 32 ||
            !(den == 1 || den == 2 || den == 4 || den == 8 || den == 16 || den == 32) ||
            *skip_ws(x)) {
            *why = "tempo: time signature NUM/DEN with NUM 1..32 and DEN 1, 2, 4, 8, 16 or 32";
            return -1;
        }
        n.num = (uint8_t)num;
        n.den = (uint8_t)den;
    }
    *t = n;
    return 0;
}

int hld_tempo_parse_change(hld_tempo_t *t, const char *v, const char **why) {
    if (t->n == 0) {
        *why = "tempo-change: set tempo = BPM NUM/DEN first";
        return -1;
    }
    const char *s = v;
    for (;;) {
        s = skip_ws(s);
        char *x;
        long beat = strtol(s, &x, 10);
        const char *e;
        uint32_t mbpm;
        if (x == s || *x != ':' || beat < 1 || beat > (long)HLD_TEMPO_MAX_BEAT ||
            parse_bpm(x + 1, &mbpm, &e)) {
            *why = "tempo-change: expected BEAT:BPM[, BEAT:BPM ...] (BEAT 1..1e8, BPM 1..1000)";
            return -1;
        }
        if ((uint32_t)beat <= t->seg[t->n - 1].beat) {
            *why = "tempo-change: beats must increase";
            return -1;
        }
        if (t->n >= HLD_TEMPO_MAX_SEGS) {
            *why = "tempo-change: more than 31 changes";
            return -1;
        }
        t->seg[t->n].beat = (uint32_t)beat;
        t->seg[t->n].mbpm = mbpm;
        t->n++;
        s = skip_ws(e);
        if (!*s) return 0;
        if (*s != ',') {
            *why = "tempo-change: expected BEAT:BPM[, BEAT:BPM ...] (BEAT 1..1e8, BPM 1..1000)";
            return -1;
        }
        s++;
    }
}

/* milli-BPM as the BPM a sheet gives: up to three decimals, none trailing */
static void put_bpm(char *buf, size_t cap, uint32_t mbpm) {
    int n = snprintf(buf, cap, "%u.%03u", mbpm / 1000, mbpm % 1000);
    while (n > 0 && (size_t)n < cap && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && (size_t)n < cap && buf[n - 1] == '.') buf[--n] = '\0';
}

int hld_tempo_line(const hld_tempo_t *t, unsigned i, char *buf, size_t cap) {
    if (i >= t->n) return -1;
    char bpm[24];
    put_bpm(bpm, sizeof bpm, t->seg[i].mbpm);
    if (i == 0)
        snprintf(buf, cap, "%s %u/%u", bpm, (unsigned)t->num, (unsigned)t->den);
    else
        snprintf(buf, cap, "%u:%s", (unsigned)t->seg[i].beat, bpm);
    return 0;
}

/* ceil(beats * 60000 * U / mbpm) without overflow: beats = q * mbpm + r */
static uint64_t span(uint64_t beats, uint32_t mbpm, uint32_t units_per_s) {
    uint64_t per = 60000ull * units_per_s;
    uint64_t q = beats / mbpm, r = beats % mbpm;
    return q * per + (r * per + mbpm - 1) / mbpm; /* r < 2^20, per < 2^36 */
}

const hld_tempo_seg_t *hld_tempo_seg_of(const hld_tempo_t *t, uint64_t k) {
    unsigned i = 0;
    while (i + 1u < t->n && k >= t->seg[i + 1].beat)
        i++;
    return &t->seg[i];
}

uint64_t hld_tempo_beat_pos(const hld_tempo_t *t, uint64_t k, uint32_t units_per_s) {
    uint64_t p = 0;
    unsigned i = 0;
    for (; i + 1u < t->n && k >= t->seg[i + 1].beat; i++)
        p += span(t->seg[i + 1].beat - t->seg[i].beat, t->seg[i].mbpm, units_per_s);
    return p + span(k - t->seg[i].beat, t->seg[i].mbpm, units_per_s);
}

uint64_t hld_tempo_beat_at(const hld_tempo_t *t, double pos, uint32_t units_per_s) {
    if (!(pos > 0.0)) return 0;
    uint64_t p = 0;
    unsigned i = 0;
    for (; i + 1u < t->n; i++) {
        uint64_t next = p + span(t->seg[i + 1].beat - t->seg[i].beat, t->seg[i].mbpm, units_per_s);
        if ((double)next >= pos) break;
        p = next;
    }
    /* estimate in the segment, then step to the exact first beat >= pos */
    double per = 60000.0 * units_per_s / t->seg[i].mbpm;
    double est = floor(((pos - (double)p) / per));
    uint64_t k = t->seg[i].beat + (est > 0 ? (uint64_t)est : 0);
    if (k > t->seg[i].beat) k--;
    while ((double)hld_tempo_beat_pos(t, k, units_per_s) < pos)
        k++;
    return k;
}
