/*
 * log.h - levelled logging to stderr for the daemon.
 *
 * heliod runs in the foreground and leaves timestamps and persistence to the
 * supervisor (systemd's journal, a terminal), so a log line is just
 * "heliod: <level>: <message>". Safe on the main thread and on worker threads
 * (one fprintf per line); never call it from the audio thread.
 */
#ifndef HLD_LOG_H
#define HLD_LOG_H

typedef enum {
    HLD_LOG_ERROR = 0,
    HLD_LOG_WARN = 1,
    HLD_LOG_INFO = 2,
    HLD_LOG_DEBUG = 3,
} hld_log_level_t;

/* Sets the most verbose level that is printed (default HLD_LOG_INFO). */
void hld_log_set_level(hld_log_level_t level);
/* 1 if messages at `level` are printed. */
int hld_log_enabled(hld_log_level_t level);
/* "error", "warn", "info", "debug" -> level; returns the level or -1. */
int hld_log_parse_level(const char *s);
/* printf-style message at `level`. Any thread except the audio thread. */
void hld_log(hld_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define hld_error(...) hld_log(HLD_LOG_ERROR, __VA_ARGS__)
#define hld_warn(...)  hld_log(HLD_LOG_WARN, __VA_ARGS__)
#define hld_info(...)  hld_log(HLD_LOG_INFO, __VA_ARGS__)
#define hld_debug(...) hld_log(HLD_LOG_DEBUG, __VA_ARGS__)

#endif /* HLD_LOG_H */
