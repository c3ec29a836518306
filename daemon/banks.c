/*
 * banks.c - sound banks loaded and unloaded as one (see banks.h).
 */
#include "banks.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cues.h"
#include "hld_text.h"
#include "log.h"

/* One sound's load in flight: which bank, which entry. */
typedef struct {
    hld_banks_t *banks;
    hld_bank_t *bank;
    uint32_t index;
} bank_load_t;

void hld_banks_init(hld_banks_t *b, hld_sounds_t *sounds, hld_cues_t *cues, hld_bank_fn fn,
                    void *user) {
    memset(b, 0, sizeof *b);
    b->sounds = sounds;
    b->cues = cues;
    b->changed = fn;
    b->user = user;
}

static void bank_free(hld_bank_t *k) {
    if (!k) return;
    free(k->sounds);
    free(k);
}

void hld_banks_close(hld_banks_t *b) {
    for (int i = 0; i < HLD_MAX_BANKS; i++) {
        bank_free(b->bank[i]);
        b->bank[i] = NULL;
    }
}

hld_bank_t *hld_banks_find(hld_banks_t *b, const char *name) {
    for (int i = 0; i < HLD_MAX_BANKS; i++)
        if (b->bank[i] && strcmp(b->bank[i]->name, name) == 0) return b->bank[i];
    return NULL;
}

const char *hld_bank_name(const struct hld_bank *bank) {
    return bank->name;
}

void hld_bank_info(const hld_bank_t *k, hl_bank_info_t *o) {
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", k->name);
    snprintf(o->path, sizeof o->path, "%s", k->path);
    o->state = (uint8_t)k->state;
    o->sounds = k->nsounds;
    o->done = k->ndone;
    o->failed = k->nfailed;
    o->bytes = k->bytes;
    snprintf(o->error, sizeof o->error, "%s", k->error);
}

static void changed(hld_banks_t *b, const hld_bank_t *k) {
    if (b->changed) b->changed(b->user, k);
}

/* ---- the manifest ------------------------------------------------------------- */

static int yes_no(const char *v) {
    if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1")) return 1;
    if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0")) return 0;
    return -1;
}

typedef struct {
    char name[HL_MAX_NAME + 1];
    char path[HL_MAX_PATH + 1];
    uint32_t flags;
} entry_t;

/* path relative to the manifest's directory `dir` (absolute paths kept) */
static int resolve(const char *dir, const char *p, char *out, size_t cap) {
    int n = p[0] == '/' ? snprintf(out, cap, "%s", p) : snprintf(out, cap, "%s/%s", dir, p);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* Parses the manifest into k (name, cues) and entries (*out, *n). 0 or a
 * code with msg "PATH:LINE: ...". */
static int parse(const char *path, hld_bank_t *k, entry_t **out, uint32_t *n, char *msg,
                 size_t cap) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(msg, cap, "cannot open bank %s: %s", path, strerror(errno));
        return HELIOD_EFILE;
    }
    char dirbuf[HL_MAX_PATH + 1], base[HL_MAX_PATH + 1];
    snprintf(dirbuf, sizeof dirbuf, "%s", path);
    snprintf(base, sizeof base, "%s", path);
    const char *dir = dirname(dirbuf);
    char *bn = basename(base), *dot = strrchr(bn, '.');
    if (dot && dot != bn) *dot = '\0';
    snprintf(k->name, sizeof k->name, "%.*s", HL_MAX_NAME, bn);
    entry_t *e = calloc(HLD_MAX_BANK_SOUNDS, sizeof *e);
    if (!e) {
        fclose(f);
        snprintf(msg, cap, "out of memory");
        return HELIOD_ENOMEM;
    }
    char line[HL_MAX_PATH + 64];
    int lineno = 0, rc = 0;
    entry_t *cur = NULL;
    uint32_t cnt = 0;
#define BAD(...)                                                                                   \
    do {                                                                                           \
        int o_ = snprintf(msg, cap, "%s:%d: ", path, lineno);                                      \
        if (o_ > 0 && (size_t)o_ < cap) snprintf(msg + o_, cap - (size_t)o_, __VA_ARGS__);         \
        rc = HELIOD_EINVAL;                                                                        \
        goto done;                                                                                 \
    } while (0)
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = hld_trim(line);
        if (!*s || *s == '#' || *s == ';') continue;
        if (*s == '[') {
            size_t l = strlen(s);
            if (s[l - 1] != ']') BAD("a section header ends with ]");
            s[l - 1] = '\0';
            char *h = hld_trim(s + 1);
            if (strncmp(h, "sound", 5) != 0 || (h[5] != ' ' && h[5] != '\t'))
                BAD("unknown section [%.64s] (sound NAME)", h);
            char *name = hld_trim(h + 5);
            if (!hl_name_valid(name)) BAD("invalid sound name '%.64s'", name);
            for (uint32_t i = 0; i < cnt; i++)
                if (!strcmp(e[i].name, name)) BAD("sound %s is listed twice", name);
            if (cnt >= HLD_MAX_BANK_SOUNDS) BAD("more than %d sounds", HLD_MAX_BANK_SOUNDS);
            cur = &e[cnt++];
            snprintf(cur->name, sizeof cur->name, "%s", name);
            cur->flags = HL_LOAD_SHARED;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) BAD("expected key = value");
        *eq = '\0';
        char *key = hld_trim(s), *val = hld_trim(eq + 1);
        if (!cur) {
            if (!strcmp(key, "name")) {
                if (!hl_name_valid(val)) BAD("invalid bank name '%.64s'", val);
                snprintf(k->name, sizeof k->name, "%s", val);
            } else if (!strcmp(key, "cues")) {
                if (resolve(dir, val, k->cues, sizeof k->cues) != 0) BAD("cues: path too long");
            } else {
                BAD("unknown key '%.64s' (name, cues, then [sound NAME] sections)", key);
            }
            continue;
        }
        if (!strcmp(key, "path")) {
            if (!*val || resolve(dir, val, cur->path, sizeof cur->path) != 0)
                BAD("path: empty or too long");
        } else if (!strcmp(key, "stream") || !strcmp(key, "pin")) {
            int y = yes_no(val);
            if (y < 0) BAD("%s: '%.16s' is not yes or no", key, val);
            uint32_t bit = key[0] == 's' ? HL_LOAD_STREAM : HL_LOAD_PIN;
            cur->flags = y ? cur->flags | bit : cur->flags & ~bit;
        } else {
            BAD("unknown key '%.64s' (path, stream, pin)", key);
        }
    }
    for (uint32_t i = 0; i < cnt; i++)
        if (!e[i].path[0]) {
            lineno = 0;
            BAD("sound %s has no path", e[i].name);
        }
    if (cnt == 0) {
        lineno = 0;
        BAD("no [sound NAME] section");
    }
#undef BAD
done:
    fclose(f);
    if (rc != 0) {
        free(e);
        return rc;
    }
    *out = e;
    *n = cnt;
    return 0;
}

int hld_bank_estimate(const char *path, uint32_t rate, uint64_t *bytes, char *msg, size_t cap) {
    hld_bank_t k;
    memset(&k, 0, sizeof k);
    entry_t *e = NULL;
    uint32_t n = 0;
    int rc = parse(path, &k, &e, &n, msg, cap);
    if (rc != 0) return rc;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        if (e[i].flags & HL_LOAD_STREAM) continue; /* decoded while it plays */
        SF_INFO info = {0};
        SNDFILE *sf = sf_open(e[i].path, SFM_READ, &info);
        if (!sf) {
            snprintf(msg, cap, "bank %s: sound %s: cannot open %s", k.name, e[i].name, e[i].path);
            rc = HELIOD_EFILE;
            break;
        }
        double frames = (double)info.frames * rate / (info.samplerate > 0 ? info.samplerate : 1);
        total += (uint64_t)frames * (uint64_t)(info.channels > 2 ? 2 : info.channels) * 4u;
        sf_close(sf);
    }
    free(e);
    if (rc == 0) *bytes = total;
    return rc;
}

/* ---- loading ------------------------------------------------------------------ */

static void finish_if_done(hld_banks_t *b, hld_bank_t *k) {
    if (k->state != HLD_BANK_LOADING || k->ndone + k->nfailed < k->nsounds) return;
    if (!k->nfailed && k->cues[0]) {
        char err[HL_MAX_MSG + 1];
        uint32_t nc = 0, ncat = 0;
        if (hld_cues_load_file(b->cues, k->cues, &nc, &ncat, err, sizeof err) != 0) {
            snprintf(k->error, sizeof k->error, "cues: %.240s", err);
            k->nfailed++;
        }
    }
    k->state = k->nfailed ? HLD_BANK_FAILED : HLD_BANK_LOADED;
    hld_info("bank %s %s: %u of %u sounds, %llu bytes%s%s", k->name,
             k->nfailed ? "failed" : "loaded", k->ndone, k->nsounds, (unsigned long long)k->bytes,
             k->error[0] ? ": " : "", k->error);
}

/* The bank's sound i, if it is (still) the bank's. */
static hld_sound_t *bank_sound(hld_banks_t *b, hld_bank_t *k, uint32_t i) {
    hld_sound_t *snd = hld_sounds_find(b->sounds, 0, k->sounds[i]);
    return snd && snd->bank == k ? snd : NULL;
}

static void sound_done(void *user, int status, const char *msg, const hld_sound_t *snd) {
    bank_load_t *l = user;
    hld_banks_t *b = l->banks;
    hld_bank_t *k = l->bank;
    free(l);
    if (status == 0) {
        k->ndone++;
        k->bytes += snd->bytes;
    } else {
        k->nfailed++;
        if (!k->error[0] && status != HELIOD_ECANCELED)
            snprintf(k->error, sizeof k->error, "%.63s: %.180s", "sound", msg ? msg : "failed");
    }
    if (k->state == HLD_BANK_UNLOADING) {
        if (status == 0) { /* unloaded while it decoded: it goes now (no voice can use it) */
            hld_sound_t *mine = hld_sounds_find(b->sounds, 0, snd->name);
            if (mine && mine->bank == k) {
                k->bytes -= mine->bytes;
                hld_sounds_unload(b->sounds, mine);
            }
        }
        changed(b, k);
        return;
    }
    finish_if_done(b, k);
    changed(b, k);
}

int hld_banks_load(hld_banks_t *b, const char *path, hld_bank_t **out, char *msg, size_t cap) {
    int slot = -1;
    for (int i = 0; i < HLD_MAX_BANKS && slot < 0; i++)
        if (!b->bank[i]) slot = i;
    if (slot < 0) {
        snprintf(msg, cap, "already %d banks", HLD_MAX_BANKS);
        return HELIOD_ENOMEM;
    }
    hld_bank_t *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(msg, cap, "out of memory");
        return HELIOD_ENOMEM;
    }
    snprintf(k->path, sizeof k->path, "%s", path);
    entry_t *e = NULL;
    uint32_t n = 0;
    int rc = parse(path, k, &e, &n, msg, cap);
    if (rc != 0) {
        bank_free(k);
        return rc;
    }
    if (hld_banks_find(b, k->name)) {
        snprintf(msg, cap, "a bank named %s is loaded (bank unload %s first)", k->name, k->name);
        free(e);
        bank_free(k);
        return HELIOD_EEXIST;
    }
    for (uint32_t i = 0; i < n; i++)
        if (hld_sounds_find(b->sounds, 0, e[i].name)) {
            snprintf(msg, cap, "bank %s: a shared sound named %s is already loaded", k->name,
                     e[i].name);
            free(e);
            bank_free(k);
            return HELIOD_EEXIST;
        }
    k->sounds = calloc(n, sizeof *k->sounds);
    if (!k->sounds) {
        free(e);
        bank_free(k);
        snprintf(msg, cap, "out of memory");
        return HELIOD_ENOMEM;
    }
    k->nsounds = n;
    k->owner = b;
    k->state = HLD_BANK_LOADING;
    b->bank[slot] = k;
    for (uint32_t i = 0; i < n; i++) {
        snprintf(k->sounds[i], sizeof k->sounds[i], "%s", e[i].name);
        bank_load_t *l = malloc(sizeof *l);
        char m[HL_MAX_MSG + 1] = "out of memory";
        int lr = l ? hld_sounds_load(b->sounds, NULL, e[i].name, e[i].path, e[i].flags, sound_done,
                                     l, m, sizeof m)
                   : HELIOD_ENOMEM;
        if (lr != 0) {
            free(l);
            k->nfailed++;
            if (!k->error[0]) snprintf(k->error, sizeof k->error, "%.63s: %.180s", e[i].name, m);
            continue;
        }
        *l = (bank_load_t){.banks = b, .bank = k, .index = i};
        hld_sound_t *ph = hld_sounds_find(b->sounds, 0, e[i].name);
        if (ph) ph->bank = k; /* the placeholder: a play answers ELOADING naming the bank */
    }
    free(e);
    finish_if_done(b, k); /* every start failed: failed at once */
    *out = k;
    changed(b, k);
    return 0;
}

int hld_banks_unload(hld_banks_t *b, const char *name, char *msg, size_t cap) {
    hld_bank_t *k = hld_banks_find(b, name);
    if (!k || k->state == HLD_BANK_UNLOADING) {
        snprintf(msg, cap, "no bank named %s%s", name, k ? " (already unloading)" : "");
        return HELIOD_ENOSOUND;
    }
    k->state = HLD_BANK_UNLOADING;
    for (uint32_t i = 0; i < k->nsounds; i++) {
        hld_sound_t *snd = bank_sound(b, k, i);
        if (!snd) continue;
        if (snd->loading) {
            hld_sounds_cancel(snd); /* its decode stops and gives its memory back */
            continue;
        }
        if (hld_sounds_unload(b->sounds, snd) != 0) {
            snd->orphan = 1; /* in use: freed when its last voice lets go */
            hld_sounds_release(b->sounds, snd);
        }
    }
    hld_banks_tick(b);
    return 0;
}

void hld_banks_tick(hld_banks_t *b) {
    for (int i = 0; i < HLD_MAX_BANKS; i++) {
        hld_bank_t *k = b->bank[i];
        if (!k || k->state != HLD_BANK_UNLOADING) continue;
        int left = 0;
        uint64_t bytes = 0;
        for (uint32_t s = 0; s < k->nsounds; s++) {
            hld_sound_t *snd = bank_sound(b, k, s);
            if (snd) {
                left++;
                bytes += snd->bytes;
            }
        }
        k->bytes = bytes;
        if (left) continue;
        k->state = HLD_BANK_UNLOADING + 1; /* HL_BANK_STATE_GONE for the last report */
        changed(b, k);
        b->bank[i] = NULL;
        hld_info("bank %s unloaded", k->name);
        bank_free(k);
    }
}
