/*
 * cue_sheet_snap.c - the [snapshot NAME] sections of a cue sheet
 * (cue_sheet_int.h): each becomes a SNAPSHOT define request, then one
 * request per gain, mute or fx line, handed to the graph's snapshot table
 * (hld_cues_t.snap_fn) when the sheet is applied.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cue_sheet_int.h"

/* Appends a SNAPSHOT request of the sheet (line: the current one). */
static int snap_add(hld_sheet_t *L, const hl_snapshot_t *m) {
    if (L->nsnaps >= HL_MAX_SNAPSHOTS * (HL_SNAP_ENTRIES + 1u))
        return hld_sheet_fail(L, L->line, HELIOD_ENOMEM, "more than %d snapshot lines in one file",
                              HL_MAX_SNAPSHOTS * (HL_SNAP_ENTRIES + 1));
    uint32_t cl = L->cap_lines;
    if (hld_sheet_grow((void **)&L->snaps, &L->capsnaps, L->nsnaps, UINT32_MAX, sizeof *L->snaps) ||
        hld_sheet_grow((void **)&L->snap_line, &cl, L->nsnaps, UINT32_MAX, sizeof *L->snap_line))
        return hld_sheet_fail(L, L->line, HELIOD_ENOMEM, "out of memory");
    L->cap_lines = cl;
    L->snaps[L->nsnaps] = *m;
    L->snap_line[L->nsnaps++] = L->line;
    return 0;
}

/* A key of a [snapshot NAME] section: priority = N, fade = MS, and any
 * number of gain = BUS DB, mute = BUS [on|off], fx = BUS INDEX PARAM VALUE. */
int hld_sheet_snap_key(hld_sheet_t *L, const char *key, char *val) {
    hl_snapshot_t *def = &L->snaps[L->cur_snap];
    char *end = NULL;
    if (strcmp(key, "priority") == 0) {
        long v = strtol(val, &end, 10);
        if (end == val || *end || v < -HL_MAX_PRIORITY || v > HL_MAX_PRIORITY)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                                  "priority: an integer in [-1000, 1000]");
        def->priority = (int32_t)v;
        return 0;
    }
    if (strcmp(key, "fade") == 0) {
        float v = strtof(val, &end);
        if (end == val || *end || !(v >= 0.0f && v <= HL_MAX_FADE_MS))
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "fade: milliseconds in [0, 60000]");
        def->fade_ms = v;
        return 0;
    }
    hl_snapshot_t m;
    hl_snapshot_init(&m);
    m.action = HL_SNAP_SET;
    memcpy(m.name, def->name, sizeof m.name);
    char *tok[5], *save = NULL;
    int n = 0;
    for (char *t = strtok_r(val, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (n < 5)
            tok[n++] = t;
        else
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: too many values", key);
    if (n < 1 || strlen(tok[0]) > HL_MAX_NAME)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "%s: a bus name first", key);
    memcpy(m.bus, tok[0], strlen(tok[0]) + 1);
    int ok = 0;
    if (strcmp(key, "gain") == 0 && n == 2) {
        m.target = HL_SNAPT_GAIN;
        m.value = strcmp(tok[1], "-inf") == 0 ? -HUGE_VALF : strtof(tok[1], &end);
        ok = strcmp(tok[1], "-inf") == 0 || (end != tok[1] && !*end);
    } else if (strcmp(key, "mute") == 0 && (n == 1 || n == 2)) {
        m.target = HL_SNAPT_MUTE;
        m.value = n == 1 || strcmp(tok[1], "on") == 0 ? 1.0f : 0.0f;
        ok = n == 1 || strcmp(tok[1], "on") == 0 || strcmp(tok[1], "off") == 0;
    } else if (strcmp(key, "fx") == 0 && n == 4) {
        m.target = HL_SNAPT_FX;
        char *e1 = NULL, *e2 = NULL;
        long idx = strtol(tok[1], &e1, 10), par = strtol(tok[2], &e2, 10);
        m.value = strtof(tok[3], &end);
        ok = e1 != tok[1] && !*e1 && e2 != tok[2] && !*e2 && end != tok[3] && !*end && idx >= 0 &&
             idx < 8 && par >= 0 && par < HL_FX_PARAMS;
        m.fx_index = (uint32_t)(ok ? idx : 0);
        m.param = (uint8_t)(ok ? par : 0);
    } else if (strcmp(key, "gain") && strcmp(key, "mute") && strcmp(key, "fx")) {
        return hld_sheet_fail(
            L, L->line, HELIOD_EINVAL,
            "unknown key '%.64s' in a snapshot section (priority, fade, gain, mute, fx)", key);
    }
    if (!ok)
        return hld_sheet_fail(
            L, L->line, HELIOD_EINVAL,
            "%s: expected gain = BUS DB | mute = BUS [on|off] | fx = BUS INDEX PARAM "
            "VALUE",
            key);
    const char *why = NULL;
    if (hl_validate_snapshot(&m, &why) != 0)
        return hld_sheet_fail(L, L->line, HELIOD_EINVAL, "snapshot %s: %s", m.name, why);
    return snap_add(L, &m);
}

int hld_sheet_snap_open(hld_sheet_t *L, const char *name) {
    for (uint32_t i = 0; i < L->nsnaps; i++)
        if (L->snaps[i].action == HL_SNAP_DEFINE && strcmp(L->snaps[i].name, name) == 0)
            return hld_sheet_fail(L, L->line, HELIOD_EINVAL,
                                  "snapshot %s: already defined at line %u", name,
                                  (unsigned)L->snap_line[i]);
    hl_snapshot_t m;
    hl_snapshot_init(&m);
    m.action = HL_SNAP_DEFINE;
    m.fade_ms = 0.0f;
    memcpy(m.name, name, strlen(name) + 1);
    if (snap_add(L, &m)) return HELIOD_ENOMEM;
    L->in_snap = 1;
    L->cur_snap = L->nsnaps - 1;
    return 0;
}
