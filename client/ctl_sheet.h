/*
 * ctl_sheet.h - one cue's or snapshot's definition read back from the daemon
 * and written as the cue-sheet section `cues load` reads (ctl_cues_save.c),
 * shared by `cues save` and `cue show` / `snapshot show` (ctl_show.c).
 * Private to heliodctl.
 */
#ifndef HL_CTL_SHEET_H
#define HL_CTL_SHEET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "heliod.h"
#include "hl_proto.h"

/* A reply fetched whole: its body (malloc'ed: free buf) and a reader over it. */
typedef struct {
    uint8_t *buf;
    size_t len;
    hl_rbuf_t r; /* over buf, once the reply came */
    int status, done;
    char msg[HL_MAX_MSG + 1]; /* the daemon's message of a refusal */
} ctl_list_t;

/* One request (body: len bytes, may be 0), its reply into l: 0, or an error
 * (l->msg then says the daemon's why). ctl_fetch: an empty body;
 * ctl_fetch_name: a NAME body. */
int ctl_fetch_body(heliod_t *h, uint16_t op, const void *body, size_t len, ctl_list_t *l);
int ctl_fetch(heliod_t *h, uint16_t op, ctl_list_t *l);
int ctl_fetch_name(heliod_t *h, uint16_t op, const char *name, ctl_list_t *l);

/* A control connection to the daemon at socket (NULL: the default): 0, or
 * the error said on stderr and NULL in *h. */
int ctl_sheet_connect(const char *socket, heliod_t **h);

/* A cue's `[cue NAME]` section, every key (from its CUES entry) ... */
void ctl_sheet_cue(FILE *f, const hl_cue_t *c);
/* ... and its CUE_DETAIL as bind, cone and attenuation keys: 0, 1 if the
 * daemon has no CUE_DETAIL (nothing written), or an error. */
int ctl_sheet_cue_detail(FILE *f, heliod_t *h, const char *cue);
/* The SHEET_KEYS entries (a reply fetched whole; buf NULL: a daemon without
 * SHEET_KEYS, nothing written) of section HL_SHEET_* as `key = value`
 * lines: of the cue `name` (its tempo map), or (name NULL) every music
 * section's under its [music NAME] heading. 0, or an error. */
int ctl_sheet_keys(FILE *f, const ctl_list_t *keys, uint8_t section, const char *name);
/* Each setting of snapshot `name` (its SNAPSHOT_DETAIL, in order): 0 or an
 * error. */
typedef void (*ctl_setting_fn)(void *user, const hl_snapshot_setting_t *e, uint32_t i);
int ctl_sheet_settings(heliod_t *h, const char *name, ctl_setting_fn fn, void *user);
/* A snapshot's `[snapshot NAME]` section from its SNAPSHOTS entry and its
 * SNAPSHOT_DETAIL: 0 or an error. */
int ctl_sheet_snapshot(FILE *f, heliod_t *h, const hl_snapshot_info_t *s);

#endif /* HL_CTL_SHEET_H */
