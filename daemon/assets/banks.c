/*
 * banks.c - sound banks loaded and unloaded as one (see banks.h).
 */
#include "banks.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cues.h"
#include "fileio.h"
#include "hld_text.h"
#include "log.h"

/* One sound's load in flight: which bank, which entry. */
typedef struct {
    hld_banks_t *banks;
    hld_bank_t *bank;
    uint32_t index;
} bank_load_t;

/* The bank's cue sheet, read on the worker pool once its sounds are in. */
typedef struct {
    hld_fjob_t j; /* first */
    char path[HL_MAX_PATH + 1];
    char *text;
    size_t len;
    hld_banks_t *banks;
    hld_bank_t *bank; /* NULL: the bank went meanwhile */
} cue_job_t;

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
    if (k->cue_job) ((cue_job_t *)k->cue_job)->bank = NULL; /* its read ends unheeded */
    free(k->entries);
    free(k->sounds);
    free(k);
}

void hld_banks_close(hld_banks_t *b) {
    for (int i = 0; i < HLD_MAX_BANKS; i++) {
        bank_free(b->bank[i]);
        b->bank[i] = NULL;
    }
}

hld_bank_t *hld_banks_find_in(hld_banks_t *b, const char *name, hld_ns_rank_fn rank,
                              const void *ctx, int *r) {
    hld_bank_t *best = NULL;
    int bkey = 0;
    for (int i = 0; i < HLD_MAX_BANKS; i++) {
        hld_bank_t *k = b->bank[i];
        if (!k || strcmp(k->name, name) != 0) continue;
        int kr = rank ? rank(ctx, k->client) : 1;
        if (kr <= 0) continue;
        /* of one rank, a bank still in use before one unloading, then the oldest */
        int key = kr * 2 + (k->state != HLD_BANK_UNLOADING);
        if (key > bkey || (key == bkey && k->seq < best->seq)) {
            best = k;
            bkey = key;
        }
    }
    if (r) *r = bkey / 2;
    return best;
}

void hld_banks_drop_client(hld_banks_t *b, uint32_t client) {
    if (!client) return;
    for (int i = 0; i < HLD_MAX_BANKS; i++) {
        hld_bank_t *k = b->bank[i];
        if (!k || k->ns != client || k->state == HLD_BANK_UNLOADING) continue;
        char msg[HL_MAX_MSG + 1];
        (void)hld_banks_unload(b, k, msg, sizeof msg);
    }
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

typedef struct hld_bank_entry {
    char name[HL_MAX_NAME + 1];
    char path[HL_MAX_PATH + 1];
    uint32_t flags;
    uint64_t off, len; /* PATH@OFFSET+LENGTH: a range of a pack file (0, 0: all) */
} entry_t;

/* path relative to the manifest's directory `dir` (absolute paths kept) */
static int resolve(const char *dir, const char *p, char *out, size_t cap) {
    int n = p[0] == '/' ? snprintf(out, cap, "%s", p) : snprintf(out, cap, "%s/%s", dir, p);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* Parses the manifest (text: its bytes, NUL-terminated) into k (name,
 * cues) and entries (*out, *n). 0 or a code with msg "PATH:LINE: ...". */
static int parse(const char *path, char *text, hld_bank_t *k, entry_t **out, uint32_t *n, char *msg,
                 size_t cap) {
    char dirbuf[HL_MAX_PATH + 1], base[HL_MAX_PATH + 1];
    snprintf(dirbuf, sizeof dirbuf, "%s", path);
    snprintf(base, sizeof base, "%s", path);
    const char *dir = dirname(dirbuf);
    char *bn = basename(base), *dot = strrchr(bn, '.');
    if (dot && dot != bn) *dot = '\0';
    snprintf(k->name, sizeof k->name, "%.*s", HL_MAX_NAME, bn);
    entry_t *e = calloc(HLD_MAX_BANK_SOUNDS, sizeof *e);
    if (!e) {
        snprintf(msg, cap, "out of memory");
        return HELIOD_ENOMEM;
    }
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
    for (char *line = text, *next; line && *line; line = next) {
        lineno++;
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl) *nl = '\0';
        if ((size_t)(nl ? nl - line : (ptrdiff_t)strlen(line)) > HLD_BANK_LINE_MAX)
            BAD("line longer than %d bytes", HLD_BANK_LINE_MAX);
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
            if (cnt >= HLD_MAX_BANK_SOUNDS)
                BAD("more than %d sounds (a bank lists at most %d)", HLD_MAX_BANK_SOUNDS,
                    HLD_MAX_BANK_SOUNDS);
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
            char plain[HL_MAX_PATH + 1]; /* PATH@OFFSET+LENGTH: a range of a pack file */
            if (hl_pack_split(val, plain, sizeof plain, &cur->off, &cur->len) < 0)
                BAD("path: PATH@OFFSET+LENGTH needs numbers up to 2^64-1, LENGTH >= 1, "
                    "OFFSET+LENGTH within 2^64-1");
            if (!*plain || resolve(dir, plain, cur->path, sizeof cur->path) != 0)
                BAD("path: empty or too long");
        } else if (!strcmp(key, "stream") || !strcmp(key, "pin") || !strcmp(key, "compressed")) {
            int y = yes_no(val);
            if (y < 0) BAD("%s: '%.16s' is not yes or no", key, val);
            uint32_t bit = key[0] == 's'   ? HL_LOAD_STREAM
                           : key[0] == 'c' ? HL_LOAD_COMPRESSED
                                           : HL_LOAD_PIN;
            cur->flags = y ? cur->flags | bit : cur->flags & ~bit;
            if ((cur->flags & HL_LOAD_STREAM) && (cur->flags & HL_LOAD_COMPRESSED))
                BAD("sound %s: stream or compressed, not both", cur->name);
        } else {
            BAD("unknown key '%.64s' (path, stream, compressed, pin)", key);
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
    if (rc != 0) {
        free(e);
        return rc;
    }
    *out = e;
    *n = cnt;
    return 0;
}

/* ---- reading a manifest on the worker pool ------------------------------------ */

struct hld_manifest {
    hld_fjob_t j; /* first: the file job */
    char path[HL_MAX_PATH + 1];
    int estimate;
    uint32_t rate, layout; /* the engine's: a preload's size follows its folded channels */
    hld_bank_t *k;         /* name, path, cues; NULL once hld_banks_start took it */
    entry_t *e;
    uint32_t n;
    uint64_t bytes;
    hld_manifest_fn fn;
    void *user;
};

/* The decoded bytes of the preloaded sounds, from their headers (a pack
 * file's range: the header at its offset), and the encoded bytes of the
 * sounds kept compressed. */
static void estimate(hld_manifest_t *m) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        if (m->e[i].flags & HL_LOAD_STREAM) continue; /* decoded while it plays */
        char why[HL_MAX_MSG + 1];
        int fd = hld_fjob_open_sound(&m->j, m->e[i].path, why, sizeof why);
        if (fd < 0) {
            m->j.status = fd;
            snprintf(m->j.msg, sizeof m->j.msg, "bank %s: sound %s: %.100s", m->k->name,
                     m->e[i].name, why);
            return;
        }
        const entry_t *e = &m->e[i];
        struct stat st;
        uint64_t fsize = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
        uint64_t n = e->len ? e->len : fsize > e->off ? fsize - e->off : 0;
        if ((e->off || e->len) && (e->off >= fsize || !n || e->off + n > fsize)) {
            close(fd);
            hld_fjob_io_end(&m->j);
            m->j.status = HELIOD_EINVAL;
            snprintf(m->j.msg, sizeof m->j.msg,
                     "bank %s: sound %s: range: bytes %llu+%llu are outside its file (%llu bytes)",
                     m->k->name, e->name, (unsigned long long)e->off, (unsigned long long)e->len,
                     (unsigned long long)fsize);
            return;
        }
        if (e->flags & HL_LOAD_COMPRESSED) { /* its encoded bytes are what it keeps */
            close(fd);
            hld_fjob_io_end(&m->j);
            total += n;
            continue;
        }
        SF_INFO info = {0};
        hld_vio_t v = {.fd = fd, .base = e->off, .len = (size_t)n};
        SNDFILE *sf =
            e->off || e->len ? hld_vio_open(&v, &info) : sf_open_fd(fd, SFM_READ, &info, SF_TRUE);
        int bad = sf ? hld_sound_check_info(&info, 0, why, sizeof why) : HELIOD_EDECODE;
        if (!sf) snprintf(why, sizeof why, "cannot decode: %s", sf_error_number(sf_error(NULL)));
        if (sf) sf_close(sf);
        if (e->off || e->len) close(fd); /* else sf_open_fd owns it */
        hld_fjob_io_end(&m->j);
        if (bad) {
            m->j.status = bad;
            snprintf(m->j.msg, sizeof m->j.msg, "bank %s: sound %s: %.100s", m->k->name,
                     m->e[i].name, why);
            return;
        }
        double frames = (double)info.frames * m->rate / info.samplerate;
        total +=
            (uint64_t)frames * (uint64_t)hld_fold_channels((uint32_t)info.channels, m->layout) * 4u;
    }
    m->bytes = total;
}

static void manifest_work(hld_fjob_t *j) {
    hld_manifest_t *m = (hld_manifest_t *)j;
    char *text = NULL;
    size_t len = 0;
    if (hld_fjob_read(j, m->path, HLD_MAX_MANIFEST_BYTES, "bank manifest", &text, &len) != 0)
        return;
    if (memchr(text, '\0', len)) {
        free(text);
        j->status = HELIOD_EINVAL;
        snprintf(j->msg, sizeof j->msg, "bank manifest %.200s: a NUL byte (not a text file)",
                 m->path);
        return;
    }
    m->k = calloc(1, sizeof *m->k);
    if (!m->k) {
        free(text);
        j->status = HELIOD_ENOMEM;
        snprintf(j->msg, sizeof j->msg, "out of memory");
        return;
    }
    snprintf(m->k->path, sizeof m->k->path, "%s", m->path);
    j->status = parse(m->path, text, m->k, &m->e, &m->n, j->msg, sizeof j->msg);
    free(text);
    if (j->status == 0 && m->estimate) estimate(m);
}

static void manifest_done(hld_fjob_t *j) {
    hld_manifest_t *m = (hld_manifest_t *)j;
    m->fn(m->user, j->answer_status, j->answer_msg, j->answer_status == 0 ? m : NULL);
}

static void bank_free(hld_bank_t *k);

static void manifest_cleanup(hld_fjob_t *j) {
    hld_manifest_t *m = (hld_manifest_t *)j;
    free(m->e);
    bank_free(m->k);
}

int hld_banks_read(hld_banks_t *b, const char *path, int est, uint32_t rate, uint64_t who,
                   hld_manifest_fn fn, void *user, char *msg, size_t cap) {
    if (path[0] != '/') {
        snprintf(msg, cap,
                 "path: must be absolute (the daemon's working directory is not the "
                 "client's)");
        return HELIOD_EINVAL;
    }
    hld_manifest_t *m = hld_fjob_new(sizeof *m);
    if (!m) {
        snprintf(msg, cap, "out of memory");
        return HELIOD_ENOMEM;
    }
    snprintf(m->path, sizeof m->path, "%s", path);
    m->estimate = est;
    m->rate = rate;
    m->layout = b->sounds ? b->sounds->layout : 0;
    m->fn = fn;
    m->user = user;
    m->j.work = manifest_work;
    m->j.done = manifest_done;
    m->j.cleanup = manifest_cleanup;
    m->j.who = who;
    hld_files_submit(b->files, &m->j);
    return 0;
}

uint64_t hld_manifest_bytes(const hld_manifest_t *m) {
    return m->bytes;
}

/* ---- loading ------------------------------------------------------------------ */

static void finish(hld_banks_t *b, hld_bank_t *k) {
    k->state = k->nfailed ? HLD_BANK_FAILED : HLD_BANK_LOADED;
    hld_info("bank %s %s: %u of %u sounds, %llu bytes%s%s", k->name,
             k->nfailed ? "failed" : "loaded", k->ndone, k->nsounds, (unsigned long long)k->bytes,
             k->error[0] ? ": " : "", k->error);
    (void)b;
}

static void cue_work(hld_fjob_t *j) {
    cue_job_t *c = (cue_job_t *)j;
    (void)hld_fjob_read(j, c->path, HLD_MAX_CUE_SHEET_BYTES, "cue sheet", &c->text, &c->len);
}

static void cue_done(hld_fjob_t *j) {
    cue_job_t *c = (cue_job_t *)j;
    hld_bank_t *k = c->bank;
    if (!k) return;
    k->cue_job = NULL;
    if (k->state != HLD_BANK_LOADING) return; /* unloading meanwhile */
    char err[HL_MAX_MSG + 1] = "";
    int rc = j->answer_status;
    if (rc == 0) {
        uint32_t nc = 0, ncat = 0;
        if (c->banks->sheet && k->client && !k->control) /* as its loader, never another's */
            rc = c->banks->sheet(c->banks->user, k->client, c->path, c->text, c->len, err,
                                 sizeof err);
        else
            rc = hld_cues_load_mem(c->banks->cues, c->path, c->text, c->len, &nc, &ncat, err,
                                   sizeof err);
    } else {
        snprintf(err, sizeof err, "%s", j->answer_msg);
    }
    if (rc != 0) {
        snprintf(k->error, sizeof k->error, "cues: %.240s", err);
        k->nfailed++;
    }
    finish(c->banks, k);
    changed(c->banks, k);
}

static void cue_cleanup(hld_fjob_t *j) {
    free(((cue_job_t *)j)->text);
}

static void finish_if_done(hld_banks_t *b, hld_bank_t *k) {
    if (k->state != HLD_BANK_LOADING || k->cue_job || k->ndone + k->nfailed < k->nsounds) return;
    if (!k->nfailed && k->cues[0]) { /* the cue sheet, off the loop; loaded when it is read */
        cue_job_t *c = hld_fjob_new(sizeof *c);
        if (c) {
            snprintf(c->path, sizeof c->path, "%s", k->cues);
            c->banks = b;
            c->bank = k;
            c->j.work = cue_work;
            c->j.done = cue_done;
            c->j.cleanup = cue_cleanup;
            c->j.who = b->ledger ? hld_clients_who(b->ledger, k->client) : 0;
            k->cue_job = c;
            hld_files_submit(b->files, &c->j);
            return;
        }
        snprintf(k->error, sizeof k->error, "cues: out of memory");
        k->nfailed++;
    }
    finish(b, k);
}

/* The bank's sound i, if it is (still) the bank's. */
static hld_sound_t *bank_sound(hld_banks_t *b, hld_bank_t *k, uint32_t i) {
    hld_sound_t *snd = hld_sounds_find(b->sounds, k->ns, k->sounds[i]);
    return snd && snd->bank == k ? snd : NULL;
}

static void start_pending(hld_banks_t *b);
static void entries_done(hld_banks_t *b, hld_bank_t *k);

static void sound_done(void *user, int status, const char *msg, const hld_sound_t *snd) {
    bank_load_t *l = user;
    hld_banks_t *b = l->banks;
    hld_bank_t *k = l->bank;
    free(l);
    b->inflight--;
    if (status == 0) {
        k->ndone++;
        k->bytes += snd->bytes;
    } else {
        k->nfailed++;
        if (!k->error[0] && status != HELIOD_ECANCELED)
            snprintf(k->error, sizeof k->error, "%.63s: %.180s", "sound", msg ? msg : "failed");
    }
    if (k->state == HLD_BANK_UNLOADING) {
        if (status == 0) { /* unloaded while it decoded: it goes (no voice can use it) */
            hld_sound_t *mine = hld_sounds_find(b->sounds, k->ns, snd->name);
            if (mine && mine->bank == k) {
                k->bytes -= mine->bytes;
                /* dropped by the loader once this returns (sounds.c load_after
                 * reads it after: freeing it here was a use after free) */
                mine->orphan = 1;
            }
        }
        changed(b, k);
        start_pending(b);
        return;
    }
    finish_if_done(b, k);
    changed(b, k);
    start_pending(b);
}

/* Every sound of k has started (or never will): its queue goes, and the
 * hold on its client's record (hld_banks_start) is let go. */
static void entries_done(hld_banks_t *b, hld_bank_t *k) {
    free(k->entries);
    k->entries = NULL;
    hld_client_t *cl = k->client ? hld_clients_get(b->ledger, k->client) : NULL;
    if (cl) hld_client_sound_gone(cl);
}

/* Starts the load of bank k's next sound: 1 started (or failed for good),
 * 0 the loader is full (try again when a load ends). */
static int start_one(hld_banks_t *b, hld_bank_t *k) {
    uint32_t i = k->next;
    const entry_t *e = &k->entries[i];
    /* charged to the client that asked, found by its id now (the bank may
     * have waited): its sample quota, checked before anything is decoded */
    hld_client_t *cl = k->client ? hld_clients_get(b->ledger, k->client) : NULL;
    bank_load_t *l = malloc(sizeof *l);
    char m[HL_MAX_MSG + 1] = "out of memory";
    int lr = !l ? HELIOD_ENOMEM
             : k->client && !cl
                 ? (snprintf(m, sizeof m, "client %u that loaded the bank is gone", k->client),
                    HELIOD_ECANCELED)
                 : hld_sounds_load_range_for(
                       b->sounds, cl, k->who, e->name, e->path, e->off, e->len,
                       (k->ns ? e->flags & ~(uint32_t)HL_LOAD_SHARED : e->flags | HL_LOAD_SHARED) |
                           HLD_LOAD_BANK,
                       sound_done, l, m, sizeof m);
    if (lr == HELIOD_EBUSY) { /* the decode jobs in flight are at their cap: it waits */
        free(l);
        return 0;
    }
    k->next++;
    if (lr != 0) {
        free(l);
        k->nfailed++;
        if (!k->error[0]) snprintf(k->error, sizeof k->error, "%.63s: %.180s", e->name, m);
        return 1;
    }
    *l = (bank_load_t){.banks = b, .bank = k, .index = i};
    b->inflight++;
    hld_sound_t *ph = hld_sounds_find(b->sounds, k->ns, e->name);
    if (ph) ph->bank = k; /* the placeholder: a play answers ELOADING naming the bank */
    return 1;
}

/* Starts the queued sounds of every loading bank, oldest bank first, while
 * the banks' share of the loader (HLD_BANK_LOADS_INFLIGHT) has room. */
static void start_pending(hld_banks_t *b) {
    for (int progress = 1; progress;) {
        progress = 0;
        hld_bank_t *k = NULL;
        for (int i = 0; i < HLD_MAX_BANKS; i++) {
            hld_bank_t *c = b->bank[i];
            if (c && c->state == HLD_BANK_LOADING && c->entries && c->next < c->nsounds &&
                (!k || c->seq < k->seq))
                k = c;
        }
        if (!k || b->inflight >= HLD_BANK_LOADS_INFLIGHT) return;
        uint32_t failed = k->nfailed;
        if (!start_one(b, k)) return;
        progress = 1;
        if (k->next == k->nsounds) entries_done(b, k);
        if (k->nfailed != failed) { /* a start that failed at once */
            finish_if_done(b, k);
            changed(b, k);
        }
    }
}

int hld_banks_start(hld_banks_t *b, hld_manifest_t *m, uint32_t client, int priv, uint64_t who,
                    hld_ns_rank_fn rank, const void *ctx, hld_bank_t **out, char *msg, size_t cap) {
    int slot = -1;
    for (int i = 0; i < HLD_MAX_BANKS && slot < 0; i++)
        if (!b->bank[i]) slot = i;
    if (slot < 0) {
        snprintf(msg, cap, "already %d banks", HLD_MAX_BANKS);
        return HELIOD_ENOMEM;
    }
    hld_bank_t *k = m->k;
    /* a client's bank name: its process's namespace (or the shared one);
     * a world zone's bank is known by pointer, never by name */
    for (int i = 0; i < HLD_MAX_BANKS && client; i++) {
        const hld_bank_t *o = b->bank[i];
        if (!o || !o->client || o->state == HLD_BANK_UNLOADING || strcmp(o->name, k->name) != 0)
            continue; /* one unloading (its loader gone, say) leaves its name */
        if (rank && rank(ctx, o->client) < 2) continue; /* another live process's */
        snprintf(msg, cap, "a bank named %s is loaded (bank unload %s first)", k->name, k->name);
        return HELIOD_EEXIST;
    }
    uint32_t ns = priv && client ? client : 0;
    for (uint32_t i = 0; i < m->n; i++)
        if (hld_sounds_find(b->sounds, ns, m->e[i].name)) {
            snprintf(msg, cap, "bank %s: a %s sound named %s is already loaded", k->name,
                     ns ? "private" : "shared", m->e[i].name);
            return HELIOD_EEXIST;
        }
    uint32_t n = m->n;
    k->sounds = calloc(n, sizeof *k->sounds);
    entry_t *e = realloc(m->e, n * sizeof *e); /* only the entries it lists */
    if (e) m->e = e;
    if (!k->sounds || !e) {
        free(k->sounds);
        k->sounds = NULL;
        snprintf(msg, cap, "out of memory");
        return HELIOD_ENOMEM;
    }
    m->e = NULL;
    m->k = NULL;
    k->entries = e;
    k->nsounds = n;
    k->owner = b;
    k->state = HLD_BANK_LOADING;
    k->seq = ++b->seq;
    b->bank[slot] = k;
    for (uint32_t i = 0; i < n; i++)
        snprintf(k->sounds[i], sizeof k->sounds[i], "%s", e[i].name);
    k->client = client;
    k->ns = ns;
    k->who = who;
    hld_client_t *cl = client ? hld_clients_get(b->ledger, client) : NULL;
    if (cl) hld_client_sound_added(cl); /* its record stays until the last sound starts */
    start_pending(b);
    if (k->entries && k->next == k->nsounds) entries_done(b, k); /* nothing to start */
    finish_if_done(b, k); /* every start failed: failed at once */
    *out = k;
    changed(b, k);
    return 0;
}

int hld_banks_unload(hld_banks_t *b, hld_bank_t *k, char *msg, size_t cap) {
    if (k->state == HLD_BANK_UNLOADING) {
        snprintf(msg, cap, "no bank named %s (already unloading)", k->name);
        return HELIOD_ENOSOUND;
    }
    k->state = HLD_BANK_UNLOADING;
    if (k->entries) { /* the sounds still queued are never started */
        k->nfailed += k->nsounds - k->next;
        k->next = k->nsounds;
        entries_done(b, k);
    }
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
    start_pending(b); /* other clients' loads may have left room */
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
