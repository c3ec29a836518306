/*
 * schema_dump.c - prints the protocol schema (hl_schema[], from
 * proto/hl_schema.h) as JSON: per message its name, its PROTOCOL.md heading
 * and its fields (kind, limit, check, range, default, version), plus `rows`,
 * the body as PROTOCOL.md's field tables spell it (one row per wire field,
 * arrays of pairs and counted lists expanded, nested messages by heading).
 * Read by tests/proto/check_protocol_md.py and the Python client's tests.
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

int main(void) {
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
