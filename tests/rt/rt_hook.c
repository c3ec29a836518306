/*
 * rt_hook.c - LD_PRELOAD library that proves the audio thread never
 * allocates, frees or takes a mutex.
 *
 * It interposes malloc, calloc, realloc, free, posix_memalign, aligned_alloc,
 * memalign and pthread_mutex_lock, forwards every call to the next
 * definition (resolved with dlsym(RTLD_NEXT) in a constructor), and counts
 * the calls made while the calling thread's heliod_rt_thread_flag is set:
 * the daemon defines that thread-local flag, sets it for the duration of its
 * RT render wrapper and exports it (export_dynamic), and this library
 * declares it weak so it also loads into programs without it.
 *
 * dlsym itself may allocate before the real functions are known: those
 * early requests are served from a static arena and never freed.
 *
 * At exit the counts go to the file named by $HELIOD_RT_HOOK_OUT as
 * "key value" lines: malloc, calloc, realloc, free, posix_memalign,
 * aligned_alloc, memalign, mutex_lock, total, and flag_resolved (1 if the
 * program defines the flag, so a zero total means something).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern _Thread_local int heliod_rt_thread_flag __attribute__((weak));

enum {
    C_MALLOC,
    C_CALLOC,
    C_REALLOC,
    C_FREE,
    C_POSIX_MEMALIGN,
    C_ALIGNED_ALLOC,
    C_MEMALIGN,
    C_MUTEX_LOCK,
    C_COUNT
};
static const char *const g_names[C_COUNT] = {"malloc",   "calloc",         "realloc",
                                             "free",     "posix_memalign", "aligned_alloc",
                                             "memalign", "mutex_lock"};
static _Atomic unsigned long g_counts[C_COUNT];

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static int (*real_mutex_lock)(pthread_mutex_t *);

#define ARENA_SIZE (64 * 1024) /* dlsym's early allocations fit easily */
static _Alignas(64) unsigned char g_arena[ARENA_SIZE];
static _Atomic size_t g_arena_used;

static void *arena_alloc(size_t n) {
    n = (n + 15) & ~(size_t)15;
    size_t off = atomic_fetch_add(&g_arena_used, n);
    if (off + n > ARENA_SIZE) return NULL;
    return g_arena + off;
}

static int in_arena(const void *p) {
    return (const unsigned char *)p >= g_arena && (const unsigned char *)p < g_arena + ARENA_SIZE;
}

static void count(int which) {
    if (&heliod_rt_thread_flag != NULL && heliod_rt_thread_flag)
        atomic_fetch_add_explicit(&g_counts[which], 1, memory_order_relaxed);
}

/* dlsym returns void *; memcpy into the function pointer avoids the
 * object-to-function pointer cast ISO C forbids. */
#define RESOLVE(var, name)                                                                         \
    do {                                                                                           \
        void *sym_ = dlsym(RTLD_NEXT, name);                                                       \
        memcpy(&(var), &sym_, sizeof(var));                                                        \
    } while (0)

static _Atomic int g_resolving;

/* Resolves the real functions on first use (other libraries' constructors may
 * allocate before ours runs); allocations made by dlsym meanwhile come from
 * the arena. */
__attribute__((constructor)) static void hook_init(void) {
    if (real_malloc || atomic_exchange(&g_resolving, 1)) return;
    RESOLVE(real_calloc, "calloc");
    RESOLVE(real_realloc, "realloc");
    RESOLVE(real_free, "free");
    RESOLVE(real_posix_memalign, "posix_memalign");
    RESOLVE(real_aligned_alloc, "aligned_alloc");
    RESOLVE(real_memalign, "memalign");
    RESOLVE(real_mutex_lock, "pthread_mutex_lock");
    RESOLVE(real_malloc, "malloc"); /* last: it marks the set complete */
}

__attribute__((destructor)) static void hook_fini(void) {
    const char *path = getenv("HELIOD_RT_HOOK_OUT");
    if (!path) return;
    char buf[1024];
    size_t len = 0;
    unsigned long total = 0;
    for (int i = 0; i < C_COUNT; i++) {
        unsigned long v = atomic_load(&g_counts[i]);
        total += v;
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s %lu\n", g_names[i], v);
    }
    len += (size_t)snprintf(buf + len, sizeof buf - len, "total %lu\nflag_resolved %d\n", total,
                            &heliod_rt_thread_flag != NULL);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    ssize_t w = write(fd, buf, len);
    (void)w;
    close(fd);
}

void *malloc(size_t n) {
    if (!real_malloc) hook_init();
    if (!real_malloc) return arena_alloc(n);
    count(C_MALLOC);
    return real_malloc(n);
}

void *calloc(size_t a, size_t b) {
    if (!real_malloc) hook_init();
    if (!real_malloc) {
        if (b && a > SIZE_MAX / b) return NULL;
        return arena_alloc(a * b); /* static storage is already zero */
    }
    count(C_CALLOC);
    return real_calloc(a, b);
}

void *realloc(void *p, size_t n) {
    if (!real_malloc) hook_init();
    if (!real_malloc || in_arena(p)) {
        void *q = real_malloc ? real_malloc(n) : arena_alloc(n);
        if (q && p) memcpy(q, p, n); /* arena blocks are followed by arena bytes */
        return q;
    }
    count(C_REALLOC);
    return real_realloc(p, n);
}

void free(void *p) {
    if (!p || in_arena(p)) return;
    count(C_FREE);
    if (real_free) real_free(p);
}

int posix_memalign(void **out, size_t align, size_t n) {
    if (!real_malloc) hook_init();
    count(C_POSIX_MEMALIGN);
    return real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n) {
    if (!real_malloc) hook_init();
    count(C_ALIGNED_ALLOC);
    return real_aligned_alloc(align, n);
}

void *memalign(size_t align, size_t n) {
    if (!real_malloc) hook_init();
    count(C_MEMALIGN);
    return real_memalign(align, n);
}

int pthread_mutex_lock(pthread_mutex_t *m) {
    if (!real_malloc) hook_init();
    if (!real_mutex_lock) return 0; /* only while dlsym runs, before any thread exists */
    count(C_MUTEX_LOCK);
    return real_mutex_lock(m);
}
