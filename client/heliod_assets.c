/*
 * heliod_assets.c - libheliod's asset calls: banks and world zones.
 */
#include <stdio.h>
#include <string.h>

#include "heliod_conv.h"
#include "heliod_int.h"

static int bank_call(heliod_t *h, uint8_t action, const char *arg, heliod_bank_info_t *out) {
    if (!arg || !arg[0] || strlen(arg) > HL_MAX_PATH)
        return hlc_set_error(h, HELIOD_EINVAL, "a manifest path or a bank name is required");
    hl_bank_t m = {.action = action};
    snprintf(m.arg, sizeof m.arg, "%s", arg);
    uint32_t id;
    int rc = hlc_req_bank(h, HL_OP_BANK, 0, &m, &id);
    if (rc < 0) return rc;
    if (action == HL_BANK_UNLOAD) return hlc_simple_call(h, id, HL_OP_BANK);
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_BANK, &r)) < 0) return rc;
    hl_bank_info_t info;
    hl_get_bank_info(&r, &info);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (out) hlc_from_bank_info(&info, out);
    return 0;
}

int heliod_bank_load(heliod_t *h, const char *path, heliod_bank_info_t *out) {
    return bank_call(h, HL_BANK_LOAD, path, out);
}

int heliod_bank_unload(heliod_t *h, const char *name) {
    return bank_call(h, HL_BANK_UNLOAD, name, NULL);
}

int heliod_banks(heliod_t *h, heliod_bank_info_t *arr, size_t cap, size_t *count) {
    HLC_LIST(h, HL_OP_BANKS, bank_info, arr, cap, count);
}

static int zone_call(heliod_t *h, const hl_zone_t *m) {
    const char *why = NULL;
    if (hl_validate_zone(m, &why) < 0) return hlc_set_error(h, HELIOD_EINVAL, why);
    return hlc_call_zone(h, HL_OP_ZONE, m);
}

int heliod_zone_add(heliod_t *h, const char *name, const char *bank, const float pos[3],
                    float radius) {
    if (!name || !bank || !pos || strlen(bank) > HL_MAX_PATH || !hl_name_valid(name))
        return hlc_set_error(h, HELIOD_EINVAL, "a zone needs a name, a bank path and a position");
    hl_zone_t m = {.action = HL_ZONE_ADD, .radius = radius};
    snprintf(m.name, sizeof m.name, "%s", name);
    snprintf(m.bank, sizeof m.bank, "%s", bank);
    memcpy(m.pos, pos, sizeof m.pos);
    return zone_call(h, &m);
}

int heliod_zone_remove(heliod_t *h, const char *name) {
    if (!name || !hl_name_valid(name)) return hlc_set_error(h, HELIOD_ENAME, "invalid zone name");
    hl_zone_t m = {.action = HL_ZONE_REMOVE};
    snprintf(m.name, sizeof m.name, "%s", name);
    return zone_call(h, &m);
}

int heliod_zones(heliod_t *h, heliod_zone_info_t *arr, size_t cap, size_t *count) {
    HLC_LIST(h, HL_OP_ZONES, zone_info, arr, cap, count);
}
