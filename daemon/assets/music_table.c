/*
 * music_table.c - the transition table of a `[music NAME]` section and the
 * plan of one transition (music_table.h).
 */
#include "music_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits the next whitespace-separated word of *s into w (cap bytes). */
static int word(const char **s, char *w, size_t cap) {
    const char *p = *s;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\t')
        n++;
    if (n == 0 || n >= cap) return n == 0 ? 0 : -1;
    memcpy(w, p, n);
    w[n] = '\0';
    *s = p + n;
    return 1;
}

int hld_music_state(const hld_music_def_t *m, const char *name) {
    for (uint32_t i = 0; i < m->nstates; i++)
        if (strcmp(m->state[i], name) == 0) return (int)i;
    return -1;
}

int hld_music_add_state(hld_music_def_t *m, const char *val, const char **why) {
    char s[HL_MAX_NAME + 1], c[HL_MAX_NAME + 1], extra[2];
    if (word(&val, s, sizeof s) != 1 || !hl_name_valid(s))
        return *why = "state: expected NAME CUE (a valid state name)", -1;
    if (word(&val, c, sizeof c) != 1 || !hl_name_valid(c))
        return *why = "state: expected NAME CUE (a valid cue name)", -1;
    if (word(&val, extra, sizeof extra) != 0) return *why = "state: expected NAME CUE only", -1;
    if (strcmp(s, "*") == 0) return *why = "state: '*' means any state", -1;
    if (hld_music_state(m, s) >= 0) return *why = "state: defined twice", -1;
    if (m->nstates >= HLD_MUSIC_MAX_STATES) return *why = "state: more than 32 states", -1;
    memcpy(m->state[m->nstates], s, sizeof s);
    memcpy(m->cue[m->nstates], c, sizeof c);
    m->nstates++;
    return 0;
}

int hld_music_add_layer(hld_music_def_t *m, const char *val, const char **why) {
    char s[HL_MAX_NAME + 1], c[HL_MAX_NAME + 1], extra[2];
    if (word(&val, s, sizeof s) != 1 || word(&val, c, sizeof c) != 1 || !hl_name_valid(c) ||
        word(&val, extra, sizeof extra) != 0)
        return *why = "layer: expected STATE CUE", -1;
    int st = hld_music_state(m, s);
    if (st < 0) return *why = "layer: STATE: no such state (declare it first)", -1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nlayers; i++)
        n += m->layer_state[i] == st;
    if (n >= HLD_MUSIC_STATE_LAYERS) return *why = "layer: more than 8 layers for one state", -1;
    if (m->nlayers >= HLD_MUSIC_MAX_LAYERS) return *why = "layer: more than 16", -1;
    m->layer_state[m->nlayers] = (uint8_t)st;
    memcpy(m->layer_cue[m->nlayers++], c, sizeof c);
    return 0;
}

static int parse_curve(const char *s, uint8_t *curve) {
    if (!s || !*s || strcmp(s, "equal-power") == 0)
        *curve = HL_CURVE_EQUAL_POWER;
    else if (strcmp(s, "linear") == 0)
        *curve = HL_CURVE_LINEAR;
    else if (strcmp(s, "log") == 0)
        *curve = HL_CURVE_LOG;
    else
        return -1;
    return 0;
}

static int parse_ms(const char *s, float *ms) {
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || (*end && *end != ':') || !isfinite(v) || v < 0 || v > HL_R_FADE_MS_HI)
        return -1;
    *ms = (float)v;
    return 0;
}

static int parse_when(hld_music_trans_t *t, const char *w) {
    if (strcmp(w, "now") == 0)
        t->when = HLD_MW_NOW;
    else if (strcmp(w, "beat") == 0)
        t->when = HLD_MW_BEAT;
    else if (strcmp(w, "bar") == 0)
        t->when = HLD_MW_BAR;
    else if (strcmp(w, "marker") == 0)
        t->when = HLD_MW_MARKER;
    else if (strcmp(w, "end") == 0)
        t->when = HLD_MW_END;
    else if (strncmp(w, "bars:", 5) == 0) {
        char *end = NULL;
        long n = strtol(w + 5, &end, 10);
        if (end == w + 5 || *end || n < 1 || n > HLD_MUSIC_MAX_BARS) return -1;
        t->when = HLD_MW_BARS;
        t->bars = (uint32_t)n;
    } else
        return -1;
    return 0;
}

static int parse_how(hld_music_trans_t *t, char *w) {
    char *arg = strchr(w, ':');
    if (!arg) return -1;
    *arg++ = '\0';
    char *arg2 = strchr(arg, ':');
    if (arg2) *arg2++ = '\0';
    if (strcmp(w, "xfade") == 0 || strcmp(w, "fadeout") == 0) {
        t->how = w[0] == 'x' ? HLD_MH_XFADE : HLD_MH_FADEOUT;
        return parse_ms(arg, &t->fade_ms) || parse_curve(arg2, &t->curve) ? -1 : 0;
    }
    if (strcmp(w, "segment") == 0) {
        t->how = HLD_MH_SEGMENT;
        if (!hl_name_valid(arg)) return -1;
        snprintf(t->segment, sizeof t->segment, "%s", arg);
        t->curve = HL_CURVE_EQUAL_POWER;
        return arg2 && parse_ms(arg2, &t->fade_ms) ? -1 : 0;
    }
    return -1;
}

int hld_music_add_transition(hld_music_def_t *m, const char *val, const char **why) {
    char from[HL_MAX_NAME + 1], to[HL_MAX_NAME + 1], when[16], how[HL_MAX_NAME + 32], tail[8];
    hld_music_trans_t t;
    memset(&t, 0, sizeof t);
    if (word(&val, from, sizeof from) != 1 || word(&val, to, sizeof to) != 1)
        return *why = "transition: expected FROM TO WHEN HOW [tail]", -1;
    t.from = strcmp(from, "*") == 0 ? -1 : hld_music_state(m, from);
    if (t.from < 0 && strcmp(from, "*") != 0)
        return *why = "transition: FROM: no such state (declare it first, or '*')", -1;
    if ((t.to = hld_music_state(m, to)) < 0)
        return *why = "transition: TO: no such state (declare it first)", -1;
    if (word(&val, when, sizeof when) != 1 || parse_when(&t, when))
        return *why = "transition: WHEN: now, beat, bar, bars:N (1..64), marker or end", -1;
    if (word(&val, how, sizeof how) != 1 || parse_how(&t, how))
        return *why = "transition: HOW: xfade:MS[:CURVE], fadeout:MS[:CURVE] or "
                      "segment:CUE[:MS] (MS 0.." HL_RANGE_STR(
                          HL_R_FADE_MS_HI) ", CURVE linear, equal-power or log)",
               -1;
    int w = word(&val, tail, sizeof tail);
    if (w == 1 && strcmp(tail, "tail") == 0) {
        t.tail = 1;
        w = word(&val, tail, sizeof tail);
    }
    if (w != 0) return *why = "transition: expected FROM TO WHEN HOW [tail] only", -1;
    for (uint32_t i = 0; i < m->ntrans; i++)
        if (m->trans[i].from == t.from && m->trans[i].to == t.to)
            return *why = "transition: FROM TO defined twice", -1;
    if (m->ntrans >= HLD_MUSIC_MAX_TRANS) return *why = "transition: more than 64", -1;
    m->trans[m->ntrans++] = t;
    return 0;
}

static const char *curve_name(uint8_t c) {
    return c == HL_CURVE_LINEAR ? "linear" : c == HL_CURVE_LOG ? "log" : "equal-power";
}

int hld_music_line(const hld_music_def_t *m, unsigned i, const char **key, char *buf, size_t cap) {
    if (i < m->nstates) {
        *key = "state";
        snprintf(buf, cap, "%s %s", m->state[i], m->cue[i]);
        return 0;
    }
    i -= m->nstates;
    if (i < m->nlayers) {
        *key = "layer";
        snprintf(buf, cap, "%s %s", m->state[m->layer_state[i]], m->layer_cue[i]);
        return 0;
    }
    i -= m->nlayers;
    if (i >= m->ntrans) return -1;
    const hld_music_trans_t *t = &m->trans[i];
    static const char *const when[] = {"now", "beat", "bar", "bars", "marker", "end"};
    char w[16], how[HL_MAX_NAME + 48];
    if (t->when == HLD_MW_BARS)
        snprintf(w, sizeof w, "bars:%u", (unsigned)t->bars);
    else
        snprintf(w, sizeof w, "%s", when[t->when]);
    if (t->how == HLD_MH_SEGMENT)
        snprintf(how, sizeof how, "segment:%s:%.9g", t->segment, (double)t->fade_ms);
    else
        snprintf(how, sizeof how, "%s:%.9g:%s", t->how == HLD_MH_XFADE ? "xfade" : "fadeout",
                 (double)t->fade_ms, curve_name(t->curve));
    *key = "transition";
    snprintf(buf, cap, "%s %s %s %s%s", t->from < 0 ? "*" : m->state[t->from], m->state[t->to], w,
             how, t->tail ? " tail" : "");
    return 0;
}

const hld_music_trans_t *hld_music_find(const hld_music_def_t *m, int from, int to) {
    const hld_music_trans_t *any = NULL;
    for (uint32_t i = 0; i < m->ntrans; i++) {
        const hld_music_trans_t *t = &m->trans[i];
        if (t->to != to) continue;
        if (from >= 0 && t->from == from) return t;
        if (t->from < 0) any = t;
    }
    return any;
}

static uint32_t ms_frames(float ms, uint32_t rate) {
    return (uint32_t)llround((double)ms * rate / 1000.0);
}

void hld_music_plan(const hld_music_trans_t *t, uint64_t at, uint32_t rate, uint64_t seg_frames,
                    hld_music_plan_t *p) {
    uint32_t fade = ms_frames(t->fade_ms, rate);
    p->curve = t->curve;
    p->old_stop = t->tail ? UINT64_MAX : at;
    p->old_fade = t->tail ? 0 : fade;
    p->seg_start = UINT64_MAX;
    p->new_fade_in = 0;
    switch (t->how) {
    case HLD_MH_XFADE:
        p->new_start = at;
        p->new_fade_in = fade;
        break;
    case HLD_MH_FADEOUT: p->new_start = at + (t->tail ? 0 : fade); break;
    case HLD_MH_SEGMENT:
        p->seg_start = at;
        p->new_start = at + seg_frames;
        break;
    }
}
