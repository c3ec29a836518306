/* corpus_read.c - see corpus_read.h. */
#include "corpus_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl_proto.h"

static int unhex(const char *s, uint8_t **out, size_t *len) {
    size_t n = strlen(s) / 2;
    uint8_t *b = malloc(n ? n : 1);
    if (!b) return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) {
            free(b);
            return -1;
        }
        b[i] = (uint8_t)v;
    }
    *out = b;
    *len = n;
    return 0;
}

int corpus_load(corpus_t *c, const char *path) {
    memset(c, 0, sizeof *c);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        perror(path);
        return -1;
    }
    static char line[2 * HL_MAX_FRAME + 64];
    size_t cap = 0, last_hello[8] = {0};
    char kinds[8][160] = {""};
    corpus_frame_t *cur = NULL;
    size_t elen = 0;
    int rc = 0;
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = '\0';
        if (!cur) {
            if (strncmp(line, "frame ", 6) != 0) continue;
            if (c->n == cap) {
                cap = cap ? 2 * cap : 64;
                corpus_frame_t *nf = realloc(c->f, cap * sizeof *nf);
                if (!nf) {
                    rc = -1;
                    break;
                }
                c->f = nf;
            }
            cur = &c->f[c->n++];
            memset(cur, 0, sizeof *cur);
            const char *src = strchr(line + 6, ' ');
            snprintf(cur->source, sizeof cur->source, "%s", src ? src + 1 : "?");
            elen = 0;
            continue;
        }
        if (strncmp(line, "hex ", 4) == 0) {
            if (unhex(line + 4, &cur->frame, &cur->len) != 0 || cur->len < HL_FRAME_HDR) {
                rc = -1;
                break;
            }
            hl_frame_hdr_t h;
            if (hl_frame_peek(cur->frame, cur->len, &h) != 0) {
                rc = -1;
                break;
            }
            cur->op = h.op;
            cur->flags = h.flags;
            cur->id = h.id;
            continue;
        }
        if (strcmp(line, "end") == 0) {
            /* its client's HELLO: the latest HELLO of the same kind of client
             * (every heliodctl run sent the same one; the corpus keeps it once) */
            const char *kind =
                strncmp(cur->source, "heliodctl", 9) == 0 ? "heliodctl" : cur->source;
            int k = 0;
            while (k < 7 && kinds[k][0] && strcmp(kinds[k], kind) != 0)
                k++;
            snprintf(kinds[k], sizeof kinds[k], "%s", kind);
            if (cur->op == HL_OP_HELLO) last_hello[k] = c->n - 1;
            cur->hello = last_hello[k];
            cur = NULL;
            continue;
        }
        size_t n = strlen(line);
        char *e = realloc(cur->expect, elen + n + 2);
        if (!e) {
            rc = -1;
            break;
        }
        cur->expect = e;
        memcpy(e + elen, line, n);
        elen += n;
        e[elen++] = '\n';
        e[elen] = '\0';
    }
    fclose(fp);
    if (rc != 0 || cur) {
        fprintf(stderr, "%s: malformed corpus near frame %zu\n", path, c->n);
        corpus_free(c);
        return -1;
    }
    return 0;
}

void corpus_free(corpus_t *c) {
    for (size_t i = 0; i < c->n; i++) {
        free(c->f[i].frame);
        free(c->f[i].expect);
    }
    free(c->f);
    memset(c, 0, sizeof *c);
}

uint64_t corpus_field_u64(const corpus_frame_t *f, const char *key) {
    size_t k = strlen(key);
    for (const char *p = f->expect; p && *p;) {
        if (strncmp(p, key, k) == 0 && p[k] == '=') return strtoull(p + k + 1, NULL, 0);
        p = strchr(p, '\n');
        if (p) p++;
    }
    return 0;
}
