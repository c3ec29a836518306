/*
 * asset_ops.c - the asset requests: BANK (load, unload), BANKS, ZONE (add,
 * remove), ZONES; BANK events to subscribers. The banks live in banks.c,
 * the world-zone scheduler in world_zones.c and zone_sched.c.
 */
#include <stdio.h>
#include <string.h>

#include "dispatch_int.h"

/* banks.c's change callback: a BANK event to subscribers, then the zone a
 * bank belongs to (which may unload it: the event goes first). */
void hld_assets_bank_changed(void *user, const hld_bank_t *b) {
    hld_daemon_t *d = user;
    static hl_event_t ev; /* large (the meter body): not on the stack */
    memset(&ev, 0, sizeof ev);
    ev.type = HL_EVENT_BANK;
    hld_bank_info(b, &ev.bank);
    static uint8_t buf[HL_MAX_PATH + HL_MAX_MSG + 256];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_EVENT, 0, 0);
    hl_put_event(&w, &ev);
    int n = hl_frame_end(&w);
    if (n > 0)
        for (hld_conn_t *c = d->conns; c; c = c->next)
            if (c->sub & HL_SUB_BANK) hld_conn_send(c, buf, (size_t)n);
    if (b->tag) hld_wzones_bank_changed(&d->wzones, b);
}

/* sounds.c's reload callback: a RELOAD event to BANK subscribers who may
 * see the sound (its own client's private sound, or a shared one). */
void hld_assets_reloaded(void *user, const hld_sound_t *snd, int status, const char *msg) {
    hld_daemon_t *d = user;
    static hl_event_t ev; /* large (the meter body): not on the stack */
    memset(&ev, 0, sizeof ev);
    ev.type = HL_EVENT_RELOAD;
    snprintf(ev.sound, sizeof ev.sound, "%s", snd->name);
    ev.status = status;
    ev.frames = snd->pcm.frames;
    snprintf(ev.message, sizeof ev.message, "%s", msg ? msg : "");
    uint8_t buf[HL_MAX_NAME + HL_MAX_MSG + 64];
    hl_wbuf_t w;
    hl_wbuf_init(&w, buf, sizeof buf);
    hl_frame_begin(&w, HL_OP_EVENT, 0, 0);
    hl_put_event(&w, &ev);
    int n = hl_frame_end(&w);
    if (n > 0)
        for (hld_conn_t *c = d->conns; c; c = c->next)
            if ((c->sub & HL_SUB_BANK) && (snd->ns == 0 || snd->ns == c->id))
                hld_conn_send(c, buf, (size_t)n);
}

int hld_op_bank(hld_req_t *q) {
    hl_bank_t m;
    hl_get_bank(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    hld_daemon_t *d = q->c->d;
    char msg[HL_MAX_MSG + 1];
    if (!m.arg[0])
        return hld_fail(q, HELIOD_EINVAL, "a manifest path (load) or bank name (unload)");
    if (m.action == HL_BANK_UNLOAD) {
        /* its loader's, or a control client's; a world zone's bank is the
         * zone scheduler's (ZONE remove) */
        const hld_bank_t *k = hld_banks_find(&d->banks, m.arg);
        if (k && !hld_may_change(q, k->tag ? 0 : k->client, "bank", m.arg)) return 0;
        int rc = hld_banks_unload(&d->banks, m.arg, msg, sizeof msg);
        if (rc != 0) return hld_fail(q, rc, msg);
        return hld_reply_ok(q);
    }
    hld_bank_t *b = NULL;
    d->banks.charge = q->c->cl; /* its sounds count against this client's sample quota */
    int rc = hld_banks_load(&d->banks, m.arg, &b, msg, sizeof msg);
    d->banks.charge = NULL;
    if (rc != 0) return hld_fail(q, rc, msg);
    b->client = q->c->id;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hl_bank_info_t info;
    hld_bank_info(b, &info);
    hld_reply_begin(q);
    hl_put_bank_info(&q->w, &info);
    return hld_reply_end(q);
}

int hld_op_banks(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    hld_list_t l;
    hld_list_begin(&l, q);
    for (int i = 0; i < HLD_MAX_BANKS; i++) {
        const hld_bank_t *b = q->c->d->banks.bank[i];
        if (!b) continue;
        hl_bank_info_t info;
        hld_bank_info(b, &info);
        size_t before = q->w.len;
        hl_put_bank_info(&q->w, &info);
        if (hld_list_entry_done(&l, before)) break;
    }
    return hld_list_end(&l);
}

int hld_op_zone(hld_req_t *q) {
    hl_zone_t m;
    hl_get_zone(&q->r, &m);
    if (!hld_body_ok(q)) return CLOSE_CONN;
    const char *why = NULL;
    if (hl_validate_zone(&m, &why) != 0) return hld_fail(q, HELIOD_EINVAL, why);
    char msg[HL_MAX_MSG + 1];
    hld_daemon_t *d = q->c->d;
    int slot = hld_zs_find(&d->wzones.zs, m.name);
    if (slot >= 0 && !hld_may_change(q, d->wzones.owner[slot], "zone", m.name)) return 0;
    int rc = m.action == HL_ZONE_ADD ? hld_wzones_add(&d->wzones, &m, msg, sizeof msg)
                                     : hld_wzones_remove(&d->wzones, m.name, msg, sizeof msg);
    if (rc != 0) return hld_fail(q, rc, msg);
    if (m.action == HL_ZONE_ADD && slot < 0 && (slot = hld_zs_find(&d->wzones.zs, m.name)) >= 0)
        d->wzones.owner[slot] = q->c->id;
    return hld_reply_ok(q);
}

int hld_op_zones(hld_req_t *q) {
    if (!hld_body_ok(q)) return CLOSE_CONN;
    if (q->h->flags & HL_FLAG_NOREPLY) return 0;
    static hl_zone_info_t info[HLD_ZS_MAX_ZONES]; /* 1 MB of paths: not on the stack */
    uint32_t n = hld_wzones_list(&q->c->d->wzones, info, HLD_ZS_MAX_ZONES);
    hld_list_t l;
    hld_list_begin(&l, q);
    for (uint32_t i = 0; i < n; i++) {
        size_t before = q->w.len;
        hl_put_zone_info(&q->w, &info[i]);
        if (hld_list_entry_done(&l, before)) break;
    }
    return hld_list_end(&l);
}
