/*
 * sounds.c - the named sound table (see sounds.h): FNV-1a hashed chains,
 * lookup, insertion and removal, the eviction order (least recently played
 * first), the watched directories and each entry's end. The loader is
 * sounds_load.c, eviction sounds_evict.c (sounds_int.h).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>

#include "hugemem.h"
#include "sounds.h"
#include "sounds_int.h"

#define FNV_OFFSET 2166136261u
#define FNV_PRIME  16777619u
#define MIB        (1024ull * 1024ull)

static uint32_t hash_name(uint32_t ns, const char *s) {
    uint32_t h = FNV_OFFSET;
    for (int i = 0; i < 4; i++, ns >>= 8)
        h = (h ^ (ns & 0xffu)) * FNV_PRIME;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * FNV_PRIME;
    return h & (HLD_SOUND_BUCKETS - 1);
}

void hld_sounds_init(hld_sounds_t *s, uv_loop_t *loop, uint32_t rate, uint32_t max_sample_mb) {
    memset(s, 0, sizeof *s);
    s->loop = loop;
    s->rate = rate;
    s->max_bytes = (uint64_t)max_sample_mb * MIB;
    s->watch_fd = -1;
}

/* A compressed sound's encoded bytes, shared by its entry and every stream
 * decoding them (any thread). */
hld_blob_t *hld_blob_ref(hld_blob_t *b) {
    if (b) atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
    return b;
}

void hld_blob_unref(hld_blob_t *b) {
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1) {
        free(b->head);
        free(b);
    }
}

/* ---- watched directories (--watch-assets) ----------------------------------
 * A worker adds the directory of each file it loaded to the inotify fd
 * (inotify_add_watch gives the same wd for the same directory); the main
 * thread counts the entries using each wd and removes a watch nobody uses.
 * It does so only while no load is in flight, since a worker could be adding
 * the same directory at that moment (a watch left behind only costs events
 * that match no sound). */
static hld_watch_dir_t *wdir_find(hld_sounds_t *s, int wd) {
    for (uint32_t i = 0; i < s->nwdirs; i++)
        if (s->wdirs[i].wd == wd) return &s->wdirs[i];
    return NULL;
}

int hld_sounds_wdir_ref(hld_sounds_t *s, int wd) {
    hld_watch_dir_t *w = wdir_find(s, wd);
    if (!w) {
        if (s->nwdirs == s->cap_wdirs) {
            uint32_t cap = s->cap_wdirs ? s->cap_wdirs * 2 : 16;
            hld_watch_dir_t *n = realloc(s->wdirs, cap * sizeof *n);
            if (!n) return -1;
            s->wdirs = n;
            s->cap_wdirs = cap;
        }
        w = &s->wdirs[s->nwdirs++];
        *w = (hld_watch_dir_t){.wd = wd, .refs = 0};
    }
    w->refs++;
    return 0;
}

static void wdir_unref(hld_sounds_t *s, int wd) {
    hld_watch_dir_t *w = wdir_find(s, wd);
    if (!w || !w->refs) return;
    if (--w->refs || s->inflight) return;
    if (s->watch_fd >= 0) (void)inotify_rm_watch(s->watch_fd, wd);
    *w = s->wdirs[--s->nwdirs];
}

/* Frees an entry already out of the table, giving its bytes back to the
 * table's budget and to the client charged with them. */
void hld_sound_free(hld_sound_t *snd) {
    if (snd->wd >= 0 && snd->owner) wdir_unref(snd->owner, snd->wd);
    free(snd->wpath);
    if (snd->cl) {
        hld_client_unreserve_bytes(snd->cl, snd->bytes);
        hld_client_sound_gone(snd->cl);
    }
    hld_huge_free((void *)snd->pcm.data);
    hld_blob_unref(snd->blob);
    free(snd->path);
    free(snd->src);
    free(snd->markers);
    free(snd);
}

void hld_sounds_close(hld_sounds_t *s) {
    for (unsigned b = 0; b < HLD_SOUND_BUCKETS; b++) {
        hld_sound_t *n = s->buckets[b];
        while (n) {
            hld_sound_t *next = n->next;
            if (!n->loading) { /* a loading one is freed by its completion */
                atomic_fetch_sub_explicit(&s->committed, n->bytes, memory_order_relaxed);
                hld_sound_free(n);
            }
            n = next;
        }
        s->buckets[b] = NULL;
    }
    s->lru_head = s->lru_tail = NULL;
    while (s->retired) { /* no voice plays any more: what a reload replaced goes too */
        hld_sound_t *n = s->retired;
        s->retired = n->retired_next;
        atomic_fetch_sub_explicit(&s->committed, n->bytes, memory_order_relaxed);
        hld_sound_free(n);
    }
    s->nretired = 0;
    s->count = 0;
    s->bytes = 0;
    free(s->wdirs);
    s->wdirs = NULL;
    s->nwdirs = s->cap_wdirs = 0;
}

hld_sound_t *hld_sounds_find(hld_sounds_t *s, uint32_t ns, const char *name) {
    for (hld_sound_t *n = s->buckets[hash_name(ns, name)]; n; n = n->next)
        if (n->ns == ns && strcmp(n->name, name) == 0) return n;
    return NULL;
}

hld_sound_t *hld_sounds_lookup(hld_sounds_t *s, uint32_t client, const char *name) {
    hld_sound_t *snd = client ? hld_sounds_find(s, client, name) : NULL;
    return snd ? snd : hld_sounds_find(s, 0, name);
}

/* ---- the eviction order ---------------------------------------------------- */

void hld_sounds_lru_unlink(hld_sounds_t *s, hld_sound_t *snd) {
    if (snd->lru_prev)
        snd->lru_prev->lru_next = snd->lru_next;
    else if (s->lru_head == snd)
        s->lru_head = snd->lru_next;
    if (snd->lru_next)
        snd->lru_next->lru_prev = snd->lru_prev;
    else if (s->lru_tail == snd)
        s->lru_tail = snd->lru_prev;
    snd->lru_prev = snd->lru_next = NULL;
}

/* Links snd after `after` (NULL: at the head). */
void hld_sounds_lru_link_after(hld_sounds_t *s, hld_sound_t *snd, hld_sound_t *after) {
    snd->lru_prev = after;
    snd->lru_next = after ? after->lru_next : s->lru_head;
    if (snd->lru_next)
        snd->lru_next->lru_prev = snd;
    else
        s->lru_tail = snd;
    if (after)
        after->lru_next = snd;
    else
        s->lru_head = snd;
}

void hld_sounds_table_remove(hld_sounds_t *s, hld_sound_t *snd) {
    hld_sound_t **pp = &s->buckets[hash_name(snd->ns, snd->name)];
    while (*pp && *pp != snd)
        pp = &(*pp)->next;
    if (*pp) {
        *pp = snd->next;
        s->count--;
        hld_sounds_lru_unlink(s, snd);
    }
}

/* Takes an entry out of the table and frees it with its bytes. */
void hld_sounds_drop_entry(hld_sounds_t *s, hld_sound_t *snd) {
    if (snd->retired) {
        hld_sound_t **pp = &s->retired;
        while (*pp && *pp != snd)
            pp = &(*pp)->retired_next;
        if (*pp) {
            *pp = snd->retired_next;
            s->nretired--;
        }
    } else {
        hld_sounds_table_remove(s, snd);
    }
    s->bytes -= snd->bytes;
    atomic_fetch_sub_explicit(&s->committed, snd->bytes, memory_order_relaxed);
    hld_sound_free(snd);
}

void hld_sounds_table_insert(hld_sounds_t *s, hld_sound_t *snd) {
    uint32_t h = hash_name(snd->ns, snd->name);
    snd->next = s->buckets[h];
    s->buckets[h] = snd;
    s->count++;
    /* never played: first to go; else after every sound played before it */
    hld_sounds_lru_link_after(s, snd, snd->last_used ? s->lru_tail : NULL);
}

int hld_sounds_unload(hld_sounds_t *s, hld_sound_t *snd) {
    if (snd->playing || snd->mixing || snd->pending || snd->loading) return HELIOD_EINUSE;
    hld_sounds_drop_entry(s, snd);
    return 0;
}

void hld_sounds_drop_client(hld_sounds_t *s, uint32_t client) {
    if (!client) return;
    for (unsigned b = 0; b < HLD_SOUND_BUCKETS; b++) {
        hld_sound_t *n = s->buckets[b];
        while (n) {
            hld_sound_t *next = n->next;
            if (n->ns == client) {
                n->orphan = 1;
                hld_sounds_release(s, n);
            }
            n = next;
        }
    }
}

void hld_sounds_release(hld_sounds_t *s, hld_sound_t *snd) {
    if ((snd->orphan || snd->retired) && !snd->playing && !snd->mixing && !snd->pending &&
        !snd->loading)
        hld_sounds_drop_entry(s, snd);
}

void hld_sounds_touch(hld_sounds_t *s, hld_sound_t *snd) {
    snd->last_used = ++s->use_clock;
    if (!snd->retired && (snd->lru_prev || s->lru_head == snd)) { /* in the table: to the tail */
        hld_sounds_lru_unlink(s, snd);
        hld_sounds_lru_link_after(s, snd, s->lru_tail);
    }
}

void hld_sounds_cancel(hld_sound_t *snd) {
    if (snd->loading) atomic_store_explicit(&snd->cancel, 1, memory_order_relaxed);
}

void hld_sounds_foreach(hld_sounds_t *s, int (*fn)(void *user, const hld_sound_t *snd),
                        void *user) {
    for (unsigned b = 0; b < HLD_SOUND_BUCKETS; b++)
        for (hld_sound_t *n = s->buckets[b]; n; n = n->next)
            if (!n->loading && fn(user, n)) return;
}

void hld_sound_info(const hld_sound_t *snd, hl_sound_info_t *o) {
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", snd->name);
    o->frames = snd->pcm.frames;
    o->channels = (uint16_t)snd->pcm.channels;
    o->source_rate = snd->source_rate;
    o->flags = snd->flags & HL_LOAD_INFO_MASK; /* 1.0 clients know these */
    if (snd->blob) o->flags |= HL_LOAD_STREAM; /* decoded while it plays */
    o->playing = snd->playing;
    o->owner = snd->loader;
}
