/*
 * log.c - levelled logging to stderr (see log.h). The level is a relaxed
 * atomic so worker threads may log while the main thread changes it.
 */
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <strings.h>

static _Atomic int g_level = HLD_LOG_INFO;

static const char *const g_names[] = {"error", "warn", "info", "debug"};

void hld_log_set_level(hld_log_level_t level) {
    atomic_store_explicit(&g_level, (int)level, memory_order_relaxed);
}

int hld_log_enabled(hld_log_level_t level) {
    return (int)level <= atomic_load_explicit(&g_level, memory_order_relaxed);
}

int hld_log_parse_level(const char *s) {
    for (int i = 0; i <= HLD_LOG_DEBUG; i++) {
        if (strcasecmp(s, g_names[i]) == 0) return i;
    }
    if (strcasecmp(s, "warning") == 0) return HLD_LOG_WARN;
    return -1;
}

void hld_log(hld_log_level_t level, const char *fmt, ...) {
    if ((int)level > atomic_load_explicit(&g_level, memory_order_relaxed)) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "heliod: %s: %s\n", g_names[level], line);
}
