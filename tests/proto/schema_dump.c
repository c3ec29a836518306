/*
 * schema_dump.c - prints the protocol schema (hl_schema[], from
 * proto/hl_schema.h) as JSON: per message its name, its PROTOCOL.md heading
 * and its fields (kind, limit, check, range, default, version), plus `rows`,
 * the body as PROTOCOL.md's field tables spell it (one row per wire field,
 * arrays of pairs and counted lists expanded, nested messages by heading).
 * Read by tests/proto/check_protocol_md.py and the Python client's tests.
 *
 * schema_dump --constants prints the named values the messages' fields
 * carry, as JSON: the flag bits of each flag field and the pause scopes
 * (under the Python client's names), and the names of the cue enumerations
 * (hl_enum_name). client/python/gen_schema.py writes the Python client's
 * tables (client/python/heliod/_schema.py) from both.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hl_proto.h"

static const char *doc_of(const char *msg) {
    for (unsigned i = 0; i < hl_schema_count; i++)
        if (strcmp(hl_schema[i].name, msg) == 0) return hl_schema[i].doc;
    return "?";
}

/* The wire type of a plain field as PROTOCOL.md writes it. */
static void wire_type(const hl_schema_field_t *f, char *out, size_t cap) {
    static const struct {
        const char *kind, *wire;
    } k_map[] = {{"U8", "u8"},       {"ENUM8", "u8"},  {"FLAGS8", "u8"},   {"U16", "u16"},
                 {"COUNT16", "u16"}, {"U32", "u32"},   {"FLAGS32", "u32"}, {"I32", "i32"},
                 {"STATUS", "i32"},  {"MINOR", "u16"}, {"U64", "u64"},     {"F32", "f32"},
                 {"F32OPT", "f32"},  {"F64", "f64"},   {"VEC3", "vec3"},   {"BLOB", "len x u8"}};
    if (strcmp(f->kind, "STR") == 0) {
        snprintf(out, cap, "str(%.0f)", f->arg);
        return;
    }
    if (strcmp(f->kind, "F32N") == 0) {
        snprintf(out, cap, "%.0f x f32", f->arg);
        return;
    }
    if (strcmp(f->kind, "SUB") == 0) {
        snprintf(out, cap, "%s", doc_of(f->sub));
        return;
    }
    for (size_t i = 0; i < sizeof k_map / sizeof k_map[0]; i++)
        if (strcmp(k_map[i].kind, f->kind) == 0) {
            snprintf(out, cap, "%s", k_map[i].wire);
            return;
        }
    snprintf(out, cap, "?");
}

static void num(double v) {
    if (isfinite(v))
        printf("%.17g", v);
    else
        printf("null");
}

static void row(int *first, const char *field, const char *type) {
    printf("%s{\"field\": \"%s\", \"type\": \"%s\"}", *first ? "" : ", ", field, type);
    *first = 0;
}

/* The flag bits of the flag fields (and PAUSE's scopes), under the Python
 * client's names; the Python tests check each group ORs to its field's mask. */
#define C_(py, hl)                                                                                 \
    { py, (long)(hl) }
static const struct {
    const char *name;
    long value;
} k_consts[] = {
    C_("PLAY_LOOP", HL_PLAY_LOOP),
    C_("PLAY_3D", HL_PLAY_3D),
    C_("PLAY_DETACHED", HL_PLAY_DETACHED),
    C_("PLAY_PAUSED", HL_PLAY_PAUSED),
    C_("PLAY_CUBIC", HL_PLAY_CUBIC),
    C_("PLAY_SINC", HL_PLAY_SINC),
    C_("PLAY_LINEAR", HL_PLAY_LINEAR),
    C_("SET_GAIN", HL_SET_GAIN),
    C_("SET_PAN", HL_SET_PAN),
    C_("SET_POS", HL_SET_POS),
    C_("SET_PITCH", HL_SET_PITCH),
    C_("SET_PAUSE", HL_SET_PAUSE),
    C_("SET_RESUME", HL_SET_RESUME),
    C_("SET_SEEK", HL_SET_SEEK),
    C_("SET_VEL", HL_SET_VEL),
    C_("SET_LP", HL_SET_LP),
    C_("SET_HP", HL_SET_HP),
    C_("SET_OCCLUSION", HL_SET_OCCLUSION),
    C_("SET_OBSTRUCTION", HL_SET_OBSTRUCTION),
    C_("SET_SENDS", HL_SET_SENDS),
    C_("SET_LFE", HL_SET_LFE),
    C_("SET_LOOPS", HL_SET_LOOPS),
    C_("LST_POS", HL_LIS_POS),
    C_("LST_FWD", HL_LIS_FWD),
    C_("LST_UP", HL_LIS_UP),
    C_("LST_VEL", HL_LIS_VEL),
    C_("SUB_ENDED", HL_SUB_ENDED),
    C_("SUB_STARTED", HL_SUB_STARTED),
    C_("SUB_ALL", HL_SUB_ALL),
    C_("SUB_VIRTUAL", HL_SUB_VIRTUAL),
    C_("SUB_DEVICE", HL_SUB_DEVICE),
    C_("SUB_METER", HL_SUB_METER),
    C_("SUB_BANK", HL_SUB_BANK),
    C_("SUB_ZONES", HL_SUB_ZONES),
    C_("SUB_PROFILE", HL_SUB_PROFILE),
    C_("SUB_STREAM", HL_SUB_STREAM),
    C_("SUB_MUSIC", HL_SUB_MUSIC),
    C_("LOAD_STREAM", HL_LOAD_STREAM),
    C_("LOAD_SHARED", HL_LOAD_SHARED),
    C_("LOAD_PIN", HL_LOAD_PIN),
    C_("LOAD_COMPRESSED", HL_LOAD_COMPRESSED),
    C_("OVER_PRIORITY", HL_OVER_PRIORITY),
    C_("OVER_BUS", HL_OVER_BUS),
    C_("OVER_FADE_IN", HL_OVER_FADE_IN),
    C_("OVER_DISTANCE", HL_OVER_DISTANCE),
    C_("OVER_PAN", HL_OVER_PAN),
    C_("OVER_FILTER", HL_OVER_FILTER),
    C_("OVER_SENDS", HL_OVER_SENDS),
    C_("BUS_GAIN", HL_BUS_GAIN),
    C_("BUS_MUTE", HL_BUS_MUTE),
    C_("BUS_CREATE", HL_BUS_CREATE),
    C_("BUS_REMOVE", HL_BUS_REMOVE),
    C_("BUS_PARENT", HL_BUS_PARENT),
    C_("BUS_SEND", HL_BUS_SEND),
    C_("PAUSE_MINE", HL_PAUSE_MINE),
    C_("PAUSE_EVERYONE", HL_PAUSE_EVERYONE),
    C_("PAUSE_BUS", HL_PAUSE_BUS),
    C_("PAUSE_CATEGORY", HL_PAUSE_CATEGORY),
    C_("EM_POS", HL_EM_POS),
    C_("EM_VEL", HL_EM_VEL),
    C_("EM_DETACHED", HL_EM_DETACHED),
    C_("FXP_TYPE", HL_FXP_TYPE),
};

/* The cue enumerations' names in wire order, under the Python client's names. */
static const struct {
    const char *name;
    hl_enum_kind_t kind;
} k_enums[] = {{"MODELS", HL_ENUM_MODEL},       {"PICKS", HL_ENUM_PICK},
               {"OVERFLOWS", HL_ENUM_OVERFLOW}, {"BEYONDS", HL_ENUM_BEYOND},
               {"VIRTS", HL_ENUM_VIRT},         {"CURVES", HL_ENUM_CURVE}};

static int constants(void) {
    printf("{\"flags\": [\n");
    size_t n = sizeof k_consts / sizeof k_consts[0];
    for (size_t i = 0; i < n; i++)
        printf("  [\"%s\", %ld]%s\n", k_consts[i].name, k_consts[i].value, i + 1 < n ? "," : "");
    printf("], \"enums\": [\n");
    n = sizeof k_enums / sizeof k_enums[0];
    for (size_t i = 0; i < n; i++) {
        printf("  [\"%s\", [", k_enums[i].name);
        const char *s;
        for (int v = 0; (s = hl_enum_name(k_enums[i].kind, v)); v++)
            printf("%s\"%s\"", v ? ", " : "", s);
        printf("]]%s\n", i + 1 < n ? "," : "");
    }
    printf("]}\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--constants") == 0) return constants();
    printf("[\n");
    for (unsigned i = 0; i < hl_schema_count; i++) {
        const hl_schema_msg_t *m = &hl_schema[i];
        printf("  {\"name\": \"%s\", \"doc\": \"%s\", \"fields\": [\n", m->name, m->doc);
        for (unsigned j = 0; j < m->nfields; j++) {
            const hl_schema_field_t *f = &m->fields[j];
            printf("    {\"name\": \"%s\", \"kind\": \"%s\", \"arg\": ", f->name, f->kind);
            num(f->arg);
            printf(", \"sub\": %s%s%s, \"check\": \"%s\", \"range\": \"%s\", \"lo\": ",
                   f->sub ? "\"" : "", f->sub ? f->sub : "null", f->sub ? "\"" : "", f->check,
                   f->range);
            num(f->lo);
            printf(", \"hi\": ");
            num(f->hi);
            printf(", \"default\": ");
            num(f->def);
            printf(", \"since\": \"%u.%u\"}%s\n", f->since >> 8, f->since & 0xffu,
                   j + 1 < m->nfields ? "," : "");
        }
        printf("  ], \"rows\": [");
        int first = 1;
        for (unsigned j = 0; j < m->nfields; j++) {
            const hl_schema_field_t *f = &m->fields[j];
            char name[128], type[64];
            if (strcmp(f->kind, "SENDS") == 0) {
                for (int k = 0; k < (int)f->arg; k++) {
                    snprintf(name, sizeof name, "%s[%d]", f->name, k);
                    row(&first, name, "str(63)");
                    snprintf(name, sizeof name, "%s_db[%d]", f->name, k);
                    row(&first, name, "f32");
                }
            } else if (strcmp(f->kind, "NSTR") == 0) {
                snprintf(name, sizeof name, "n%s", f->name);
                row(&first, name, "u8");
                snprintf(type, sizeof type, "n%s x str(63)", f->name);
                row(&first, f->name, type);
            } else {
                wire_type(f, type, sizeof type);
                row(&first, f->name, type);
            }
        }
        printf("]}%s\n", i + 1 < hl_schema_count ? "," : "");
    }
    printf("]\n");
    return 0;
}
