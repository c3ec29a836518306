/*
 * al_core.c - heliod's OpenAL library: the core under every other file.
 * The process-wide state (g_al) and its lock, the current context, AL and
 * ALC errors, the engine clock as the library estimates it, and the
 * helpers every request goes through (bundles, flushes, the check that
 * turns a lost connection into stopped sources). It calls nothing of the
 * library above it: a lost connection is handed up through g_al.conn_lost.
 */
#include <string.h>
#include <strings.h>
#include <time.h>

#include "al_int.h"

alh_global_t g_al = {.lock = PTHREAD_MUTEX_INITIALIZER};
__thread ALCcontext *alh_tls_ctx;

void alh_lock(void) {
    pthread_mutex_lock(&g_al.lock);
}
void alh_unlock(void) {
    pthread_mutex_unlock(&g_al.lock);
}

uint64_t alh_mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- contexts, devices, errors ---- */

ALCcontext *alh_ctx(void) {
    ALCcontext *c = alh_tls_ctx ? alh_tls_ctx : g_al.current;
    return c && c->used ? c : NULL;
}

void alh_set_error(ALCcontext *c, ALenum e) {
    if (c && c->error == AL_NO_ERROR) c->error = e;
}

void alh_error(ALenum e) {
    alh_lock();
    alh_set_error(alh_ctx(), e);
    alh_unlock();
}

const char *alh_error_text(int e, int alc) {
    static const char *const al[5] = {"Invalid Name", "Invalid Enum", "Invalid Value",
                                      "Invalid Operation", "Out of Memory"};
    static const char *const alcs[5] = {"Invalid Device", "Invalid Context", "Invalid Enum",
                                        "Invalid Value", "Out of Memory"};
    if (e == AL_NO_ERROR) return "No Error";
    if (e < AL_INVALID_NAME || e > AL_OUT_OF_MEMORY) return NULL;
    return (alc ? alcs : al)[e - AL_INVALID_NAME];
}

int alh_array_ok(ALCcontext *c, ALsizei n, const void *a) {
    if (n >= 0 && (n == 0 || a)) return 1;
    alh_set_error(c, AL_INVALID_VALUE);
    return 0;
}

ALCdevice *alh_dev_ok(ALCdevice *d) {
    for (size_t i = 0; i < sizeof g_al.devs / sizeof g_al.devs[0]; i++)
        if (d == &g_al.devs[i] && d->used) return d;
    return NULL;
}

ALCcontext *alh_ctx_ok(ALCcontext *c) {
    for (size_t i = 0; i < sizeof g_al.ctxs / sizeof g_al.ctxs[0]; i++)
        if (c == &g_al.ctxs[i] && c->used) return c;
    return NULL;
}

void alh_dev_error(ALCdevice *d, ALCenum e) {
    ALCdevice *ok = alh_dev_ok(d);
    if (ok) {
        if (ok->error == ALC_NO_ERROR) ok->error = e;
    } else if (g_al.null_error == ALC_NO_ERROR) {
        g_al.null_error = e;
    }
}

int alh_ext_in(const char *list, const char *name) {
    const size_t n = strlen(name);
    if (!n) return 0;
    for (const char *p = list; *p;) {
        while (*p == ' ')
            p++;
        const char *e = strchr(p, ' ');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncasecmp(p, name, n) == 0) return 1;
        p += len;
    }
    return 0;
}

/* ---- the clock and requests ---- */

uint64_t alh_now_frame(ALCdevice *d) {
    if (d->paused) return d->pause_frame; /* sources do not advance */
    const uint64_t now = alh_mono_ns();
    if (!d->clk.rate) return 0;
    return heliod_clock_frame_at(&d->clk, now);
}

void alh_conn_check(ALCdevice *d, int rc) {
    if (rc == HELIOD_ECLOSED || rc == HELIOD_EIO || rc == HELIOD_ETIMEDOUT ||
        rc == HELIOD_ECONNECT || rc == HELIOD_EPROTO) {
        if (g_al.conn_lost) g_al.conn_lost(d);
    }
}

void alh_flush(ALCdevice *d) {
    if (d->h && !d->suspended) alh_conn_check(d, heliod_flush(d->h));
}

void alh_req(ALCdevice *d) {
    if (!d->suspended || !d->h) return;
    if (++d->bundle_n < 60) return;
    d->bundle_n = 1;
    alh_conn_check(d, heliod_bundle_end(d->h, NULL));
    if (d->h && heliod_bundle_begin(d->h) != 0) d->suspended = 0;
}
