/*
 * ctl_top.c - `heliodctl top`: a full-screen live view of the daemon.
 *
 * Plain ANSI rather than ncurses: the view is one frame redrawn whole ten
 * times a second from state the events just replaced, so ncurses' job
 * (diffing a virtual screen, terminfo for exotic terminals, windows, input
 * decoding) buys nothing here, while it would add a build dependency and a
 * library that owns the terminal's state. What the view needs from the
 * terminal is five VT100 sequences every emulator in use speaks (alternate
 * screen, cursor home, erase to end of line / of screen, hide cursor), raw
 * input through termios and the size through TIOCGWINSZ.
 *
 * Data: PROFILE events (load, histogram, voices per bus, streams) and METER
 * events (bus meters with peak hold), both at 10 Hz; each redraw also asks
 * STATS (the header) and VOICES (the table). When the daemon goes away the
 * view says so and tries to reconnect every half second.
 *
 * Edit mode: up/down select a bus (the master first, then the buses in the
 * order the meters list them; the selected row starts with '>'), left/right
 * move its fader 0.5 dB (shift+left/right, PgUp/PgDn 3 dB) and m toggles its
 * mute: ordinary BUS requests of this control client, each one waited for,
 * so a refused one (a fader above +24 dB) shows its error on the status line.
 * The fader and mute shown come from BUSES on each redraw.
 *
 * Terminal hygiene: the original termios is restored on every way out (q,
 * SIGINT/SIGTERM/SIGHUP, errors), leaving the main screen as it was.
 */
#include "ctl_ui.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "heliod_errors.h"

#define TOP_HZ           10    /* redraws and events per second */
#define TOP_RETRY_MS     500   /* reconnect interval while the daemon is away */
#define TOP_MAX_VOICES   1024  /* voices read per refresh (the rest counted) */
#define TOP_MAX_STATS    512   /* STATS keys read per refresh */
#define TOP_METER_LO_DB  -60.0 /* left end of a bus meter */
#define TOP_FRAME_CAP    (256 * 1024)
#define TOP_MAX_BUSES    64    /* BUSES entries read per refresh (the daemon has <= 32) */
#define TOP_STEP_DB      0.5   /* left/right */
#define TOP_BIG_STEP_DB  3.0   /* shift+left/right, PgUp/PgDn */
#define TOP_FADER_LO_DB  -96.0 /* the lowest fader the keys go to (below: mute) */
#define TOP_FADER_HI_DB  24.0  /* the BUS request's limit */
#define TOP_EDIT_RAMP_MS 20.0f

static volatile sig_atomic_t g_quit, g_winch;
static struct termios g_saved;
static int g_raw;

static void on_quit(int sig) {
    (void)sig;
    g_quit = 1;
}
static void on_winch(int sig) {
    (void)sig;
    g_winch = 1;
}

static void term_restore(void) {
    if (!g_raw) return;
    static const char leave[] = "\x1b[0m\x1b[?25h\x1b[?1049l";
    ssize_t w = write(STDOUT_FILENO, leave, sizeof leave - 1);
    (void)w;
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved);
    g_raw = 0;
}

static int term_raw(void) {
    if (tcgetattr(STDIN_FILENO, &g_saved) != 0) return -1;
    struct termios t = g_saved;
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) != 0) return -1;
    g_raw = 1;
    static const char enter[] = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J";
    ssize_t w = write(STDOUT_FILENO, enter, sizeof enter - 1);
    (void)w;
    return 0;
}

/* ---- state ---------------------------------------------------------------- */

enum { SORT_LOUD, SORT_GAIN, SORT_PRIO, SORT_AGE, SORT_DIST, SORT_N };
static const char *const sort_name[SORT_N] = {"audibility", "gain", "priority", "age", "distance"};

typedef struct {
    heliod_voice_t voice;
    double first_s; /* when this view first saw it */
} seen_t;

typedef struct {
    const char *socket;
    heliod_t *h;
    char device[128];
    int have_profile, have_meter;
    heliod_profile_t prof;
    heliod_meter_t meter;
    heliod_meter_all_t ch; /* every channel of its levels (ch.channels of them) */
    heliod_stat_t *stats;
    size_t nstats;
    heliod_voice_info_t *voices;
    size_t nvoices, voices_total;
    heliod_bus_info_t *buses; /* faders and mutes (BUSES) */
    size_t nbuses;
    char sel[64];             /* the selected bus (edit mode) */
    char msg[160];            /* the last edit's outcome */
    seen_t *seen, *seen_next; /* sorted by voice */
    size_t nseen;
    double cmds_prev, cmds_prev_t, cmds_rate;
    int sort, paused;
    double next_retry;
    char why[160]; /* why we are not connected */
    int rows, cols;
    char *frame;
    size_t flen;
} top_t;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void on_event(void *user, const heliod_event_t *ev) {
    top_t *t = user;
    if (t->paused) return; /* the view stays as it was */
    if (ev->type == HELIOD_EVENT_PROFILE && ev->profile) {
        t->prof = *ev->profile;
        t->have_profile = 1;
    } else if (ev->type == HELIOD_EVENT_METER && ev->meter) {
        t->meter = *ev->meter;
        const heliod_meter_all_t *ch = heliod_meter_all(ev->meter);
        t->ch.channels = 0; /* none: the front pair of t->meter */
        if (ch) t->ch = *ch;
        t->have_meter = 1;
    }
}

static void disconnect(top_t *t, const char *why) {
    if (t->h) heliod_close(t->h);
    t->h = NULL;
    t->have_profile = t->have_meter = 0;
    snprintf(t->why, sizeof t->why, "%s", why);
    t->next_retry = now_s() + TOP_RETRY_MS / 1000.0;
}

static void try_connect(top_t *t) {
    if (t->h || now_s() < t->next_retry) return;
    heliod_t *h = NULL;
    if (heliod_connect_flags(&h, t->socket, "heliodctl-top", HELIOD_CONNECT_CONTROL) < 0) {
        disconnect(t, "heliod is not running");
        return;
    }
    heliod_set_timeout(h, 2000);
    heliod_set_event_callback(h, on_event, t);
    if (heliod_subscribe_profile(h, HELIOD_SUB_PROFILE | HELIOD_SUB_METER, TOP_HZ, TOP_HZ) < 0) {
        heliod_close(h);
        disconnect(t, "the daemon refused the PROFILE subscription (an older heliod?)");
        return;
    }
    t->h = h;
    t->why[0] = 0;
    t->device[0] = 0;
    heliod_device_info_t dev[64];
    size_t n = 0;
    if (heliod_devices(h, dev, 64, &n) == 0)
        for (size_t i = 0; i < n && i < 64; i++)
            if (dev[i].flags & 2) snprintf(t->device, sizeof t->device, "%s", dev[i].name);
    if (!t->device[0]) snprintf(t->device, sizeof t->device, "null");
    t->cmds_prev_t = 0;
}

static double stat(const top_t *t, const char *key) {
    for (size_t i = 0; i < t->nstats; i++)
        if (!strcmp(t->stats[i].key, key)) return t->stats[i].value;
    return 0.0;
}

static int seen_cmp(const void *a, const void *b) {
    heliod_voice_t x = ((const seen_t *)a)->voice, y = ((const seen_t *)b)->voice;
    return x < y ? -1 : x > y;
}

/* Keeps the first-seen time of every current voice (their age). */
static void track_ages(top_t *t, double now) {
    size_t n = t->nvoices;
    for (size_t i = 0; i < n; i++) {
        seen_t key = {.voice = t->voices[i].voice};
        seen_t *old = bsearch(&key, t->seen, t->nseen, sizeof *t->seen, seen_cmp);
        t->seen_next[i] = (seen_t){key.voice, old ? old->first_s : now};
    }
    qsort(t->seen_next, n, sizeof *t->seen_next, seen_cmp);
    seen_t *sw = t->seen;
    t->seen = t->seen_next;
    t->seen_next = sw;
    t->nseen = n;
}

static double age_of(const top_t *t, heliod_voice_t v, double now) {
    seen_t key = {.voice = v};
    seen_t *s = bsearch(&key, t->seen, t->nseen, sizeof *t->seen, seen_cmp);
    return s ? now - s->first_s : 0.0;
}

static double g_lis[3]; /* the listener's position (STATS; the origin if absent), set by refresh */

/* Distance of a voice from the listener. */
static double dist_of(const heliod_voice_info_t *v) {
    double dx = v->pos[0] - g_lis[0], dy = v->pos[1] - g_lis[1], dz = v->pos[2] - g_lis[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static top_t *g_sort_top; /* qsort has no user pointer */
static double g_sort_now;

static int voice_cmp(const void *a, const void *b) {
    const heliod_voice_info_t *x = a, *y = b;
    double kx, ky;
    switch (g_sort_top->sort) {
    case SORT_GAIN: kx = x->gain_db, ky = y->gain_db; break;
    case SORT_PRIO: kx = x->priority, ky = y->priority; break;
    case SORT_AGE:
        kx = age_of(g_sort_top, x->voice, g_sort_now);
        ky = age_of(g_sort_top, y->voice, g_sort_now);
        break;
    case SORT_DIST: kx = -dist_of(x), ky = -dist_of(y); break; /* nearest first */
    default: kx = x->audibility_db, ky = y->audibility_db; break;
    }
    if (kx != ky) return kx > ky ? -1 : 1;
    return x->voice < y->voice ? -1 : x->voice > y->voice;
}

/* STATS and VOICES for this redraw; a failure means the daemon went away. */
static void refresh(top_t *t) {
    if (!t->h) return;
    size_t n = 0;
    if (heliod_stats(t->h, t->stats, TOP_MAX_STATS, &n, 0) < 0) {
        disconnect(t, "heliod went away");
        return;
    }
    t->nstats = n < TOP_MAX_STATS ? n : TOP_MAX_STATS;
    g_lis[0] = stat(t, "listener_x");
    g_lis[1] = stat(t, "listener_y");
    g_lis[2] = stat(t, "listener_z");
    n = 0;
    if (heliod_voices(t->h, t->voices, TOP_MAX_VOICES, &n) < 0) {
        disconnect(t, "heliod went away");
        return;
    }
    t->voices_total = n;
    t->nvoices = n < TOP_MAX_VOICES ? n : TOP_MAX_VOICES;
    n = 0;
    if (heliod_buses(t->h, t->buses, TOP_MAX_BUSES, &n) < 0) {
        disconnect(t, "heliod went away");
        return;
    }
    t->nbuses = n < TOP_MAX_BUSES ? n : TOP_MAX_BUSES;
    double now = now_s(), cmds = stat(t, "cmds_applied");
    if (t->cmds_prev_t > 0 && now > t->cmds_prev_t)
        t->cmds_rate = (cmds - t->cmds_prev) / (now - t->cmds_prev_t);
    t->cmds_prev = cmds;
    t->cmds_prev_t = now;
    track_ages(t, now);
    g_sort_top = t;
    g_sort_now = now;
    qsort(t->voices, t->nvoices, sizeof *t->voices, voice_cmp);
}

/* ---- drawing ------------------------------------------------------------- */

static int g_line; /* lines emitted in this frame */

/* One screen line, cut to the width (bytes = columns: the view is ASCII). */
static void line(top_t *t, const char *fmt, ...) {
    if (g_line >= t->rows) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t n = strlen(buf);
    if (n > (size_t)t->cols) n = (size_t)t->cols;
    if (t->flen + n + 32 >= TOP_FRAME_CAP) return;
    /* each line placed by row, never by newline: writing the last row must
     * not scroll the screen */
    t->flen += (size_t)snprintf(t->frame + t->flen, 32, "\x1b[%d;1H", g_line + 1);
    memcpy(t->frame + t->flen, buf, n);
    t->flen += n;
    memcpy(t->frame + t->flen, "\x1b[K", 3);
    t->flen += 3;
    g_line++;
}

/* A bar of `width` cells filled to frac (0..1) with '#', the rest '.'. */
static void bar(char *out, int width, double frac, int mark) {
    if (width < 1) width = 1;
    if (width > 200) width = 200;
    int fill = (int)lround((frac < 0 ? 0 : frac > 1 ? 1 : frac) * width);
    for (int i = 0; i < width; i++)
        out[i] = i < fill ? '#' : '.';
    if (mark >= 0 && mark < width) out[mark] = '|';
    out[width] = 0;
}

static double db_frac(double db) {
    return (db - TOP_METER_LO_DB) / -TOP_METER_LO_DB;
}

/* The peak bar and hold of a METER level (bus i, or -1: the master): the
 * louder of every channel of the layout. */
static void level_pk(const top_t *t, int i, double *pk, double *hold) {
    const heliod_level_t *l = i < 0 ? &t->meter.master : &t->meter.bus[i];
    const heliod_level_all_t *c = i < 0 ? &t->ch.master : &t->ch.bus[i];
    const unsigned n = t->ch.channels ? t->ch.channels : 2;
    const float *p = t->ch.channels ? c->peak_db : l->peak_db;
    const float *h = t->ch.channels ? c->peak_hold_db : l->peak_hold_db;
    *pk = p[0];
    *hold = h[0];
    for (unsigned k = 1; k < n; k++) {
        *pk = p[k] > *pk ? p[k] : *pk;
        *hold = h[k] > *hold ? h[k] : *hold;
    }
}

/* The METER row of a bus, or -1. */
static int meter_of(const top_t *t, const char *bus) {
    if (!t->have_meter) return -1;
    for (unsigned i = 0; i < t->meter.nbuses; i++)
        if (!strcmp(t->meter.bus[i].name, bus)) return (int)i;
    return -1;
}

static const char *state_name(uint32_t s) {
    static const char *const n[] = {"play", "stop", "pause", "virt", "vpause"};
    return s < 5 ? n[s] : "?";
}

static heliod_bus_info_t *bus_info(const top_t *t, const char *name) {
    for (size_t i = 0; i < t->nbuses; i++)
        if (!strcmp(t->buses[i].name, name)) return &t->buses[i];
    return NULL;
}

/* A bus row's fader and mute columns (BUSES; "?" before the first). */
static void fader(const top_t *t, const char *name, char fd[16], char mu[8]) {
    const heliod_bus_info_t *i = bus_info(t, name);
    if (i)
        snprintf(fd, 16, "%.1f", i->gain_db);
    else
        snprintf(fd, 16, "?");
    snprintf(mu, 8, "%s", i && i->mute ? "mute" : "");
}

static char mark_of(const top_t *t, const char *name) {
    return strcmp(t->sel, name) ? ' ' : '>';
}

static void draw(top_t *t) {
    t->flen = 0;
    g_line = 0;

    double now = now_s();
    if (!t->h) {
        line(t, "heliodctl top - %s%s", t->why[0] ? t->why : "connecting",
             t->socket ? "" : " (default socket)");
        line(t, "waiting for it; retrying every %d ms.  q quits", TOP_RETRY_MS);
        goto done;
    }
    int up = (int)stat(t, "uptime_s");
    double period_us = stat(t, "period_us");
    /* the state first: it must show on a narrow terminal too */
    /* a surround layout (--layout) shows its channel count; stereo shows nothing */
    char chs[24] = "";
    if (stat(t, "output_channels") > 2)
        snprintf(chs, sizeof chs, "  %g ch", stat(t, "output_channels"));
    line(t, "heliod top%s  device %s  %g Hz%s  period %g (%.2f ms)  up %d:%02d:%02d  sort:%s",
         t->paused ? " [PAUSED]" : "", t->device, stat(t, "rate"), chs, stat(t, "period"),
         period_us / 1000.0, up / 3600, up / 60 % 60, up % 60, sort_name[t->sort]);
    line(t, "clients %g  commands/s %.0f  xruns %g  underruns %g  voices %g real / %g virtual",
         stat(t, "clients"), t->cmds_rate, stat(t, "xruns"), stat(t, "stream_underruns"),
         stat(t, "voices_real"), stat(t, "voices_virtual"));
    if (stat(t, "listeners") > 1.0) /* several listeners (1.1): the 3D voices each one hears */
        line(t, "listeners %g  3D voices heard by listener 0: %g  1: %g  2: %g  3: %g",
             stat(t, "listeners"), stat(t, "listener0_voices"), stat(t, "listener1_voices"),
             stat(t, "listener2_voices"), stat(t, "listener3_voices"));
    line(t, "");
    int bw = t->cols - 58; /* what the bus line leaves for its meter */
    if (bw > 60) bw = 60;
    if (bw < 8) bw = 8;
    char b[256];
    const heliod_profile_t *p = &t->prof;
    if (t->have_profile) {
        static const char *const lbl[3] = {"now  ", "p99  ", "worst"};
        const float v[3] = {p->load_now, p->load_p99, p->load_max};
        for (int k = 0; k < 3; k++) {
            bar(b, bw, v[k], -1);
            line(t, "audio %s [%s] %6.1f%% of %.0f us", lbl[k], b, v[k] * 100.0, p->period_us);
        }
        /* the window's callbacks by load, in 1/8 periods: one column per bin */
        uint32_t top = 1;
        for (int k = 0; k < HELIOD_PROFILE_HIST; k++)
            if (p->hist[k] > top) top = p->hist[k];
        static const char ramp[] = " .:-=+*#";
        char h[HELIOD_PROFILE_HIST * 4 + 1];
        for (int k = 0; k < HELIOD_PROFILE_HIST; k++) {
            int lvl = p->hist[k] ? 1 + (int)((double)p->hist[k] * 6 / top) : 0;
            memset(h + k * 4, ramp[lvl > 7 ? 7 : lvl], 3);
            h[k * 4 + 3] = ' ';
        }
        h[sizeof h - 1] = 0;
        line(t, "hist  0%% [%s] 100%%  (%u callbacks in the last window)", h, p->callbacks);
    } else {
        line(t, "audio: waiting for the first PROFILE event");
    }
    line(t, "");
    line(t, "  %-12s %7s %7s  %-*s  %6s %-4s %5s %5s", "BUS", "peak", "hold", bw, "-60 dBFS .. 0",
         "fader", "", "real", "virt");
    char fd[16], mu[8];
    if (t->have_profile || t->have_meter) { /* the master first: the bus watched most */
        double pk = p->master_peak_db, hold = p->master_peak_db;
        if (t->have_meter) level_pk(t, -1, &pk, &hold);
        int mark = hold > TOP_METER_LO_DB ? (int)(db_frac(hold) * (bw - 1)) : -1;
        bar(b, bw, db_frac(pk), mark);
        fader(t, "master", fd, mu);
        line(t, "%c %-12.12s %7.1f %7.1f  %s  %6s %-4s %5s %5s", mark_of(t, "master"), "master", pk,
             hold, b, fd, mu, "", "");
    }
    if (t->have_profile)
        for (unsigned i = 0; i < p->nbuses && g_line < t->rows - 4; i++) {
            const heliod_profile_bus_t *pb = &p->bus[i];
            const int mi = meter_of(t, pb->name);
            double pk = pb->peak_db, hold = pb->peak_hold_db;
            if (mi >= 0) level_pk(t, mi, &pk, &hold);
            int mark = hold > TOP_METER_LO_DB ? (int)(db_frac(hold) * (bw - 1)) : -1;
            bar(b, bw, db_frac(pk), mark);
            fader(t, pb->name, fd, mu);
            line(t, "%c %-12.12s %7.1f %7.1f  %s  %6s %-4s %5u %5u", mark_of(t, pb->name), pb->name,
                 pk, hold, b, fd, mu, pb->real, pb->virt);
        }
    line(t, "%s", t->msg[0] ? t->msg : "up/down: bus  left/right: fader  m: mute");
    int room = t->rows - g_line - 4;
    line(t, "VOICES %zu (sorted by %s; s: next sort)", t->voices_total, sort_name[t->sort]);
    line(t, "%-11s %-16s %-10s %-6s %7s %5s %7s %7s %8s", "VOICE", "SOUND", "BUS", "STATE", "GAIN",
         "PRIO", "AGE", "DIST", "POS");
    for (size_t i = 0; i < t->nvoices && (int)i < room; i++) {
        const heliod_voice_info_t *v = &t->voices[i];
        line(t, "%-11llu %-16.16s %-10.10s %-6s %7.1f %5d %6.1fs %7.1f %7.2fs",
             (unsigned long long)v->voice, v->sound, v->bus, state_name(v->state), v->gain_db,
             v->priority, age_of(t, v->voice, now), dist_of(v), v->position_s);
    }
    if (t->have_profile && g_line < t->rows) {
        line(t, "");
        line(t, "STREAMS %u open  decoder cpu %.1f%%", p->streams, p->decode_load * 100.0);
        for (unsigned i = 0; i < p->nstreams && g_line < t->rows; i++) {
            bar(b, 20, p->stream[i].fill, -1);
            line(t, "  %-20.20s [%s] %3.0f%%", p->stream[i].sound, b, p->stream[i].fill * 100.0);
        }
    }
done:
    if (t->flen + 32 < TOP_FRAME_CAP && g_line < t->rows) /* erase what a taller frame left */
        t->flen += (size_t)snprintf(t->frame + t->flen, 32, "\x1b[%d;1H\x1b[J", g_line + 1);
    size_t off = 0;
    while (off < t->flen) {
        ssize_t w = write(STDOUT_FILENO, t->frame + off, t->flen - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
}

static void get_size(top_t *t) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
        t->rows = ws.ws_row;
        t->cols = ws.ws_col;
    } else {
        t->rows = 24;
        t->cols = 80;
    }
    if (t->cols > 1000) t->cols = 1000;
}

/* ---- edit mode ----------------------------------------------------------- */

/* The bus rows in the order drawn: the master, then the meters' buses (the
 * BUSES list before the first PROFILE event). */
static size_t bus_rows(const top_t *t, const char **name, size_t cap) {
    size_t n = 0;
    name[n++] = "master";
    if (t->have_profile) {
        for (unsigned i = 0; i < t->prof.nbuses && n < cap; i++)
            name[n++] = t->prof.bus[i].name;
    } else {
        for (size_t i = 0; i < t->nbuses && n < cap; i++)
            if (t->buses[i].parent[0]) name[n++] = t->buses[i].name; /* not the master */
    }
    return n;
}

/* up/down: dir -1 / +1 through the rows, stopping at either end. */
static void select_bus(top_t *t, int dir) {
    const char *row[TOP_MAX_BUSES + 1];
    size_t n = bus_rows(t, row, TOP_MAX_BUSES + 1), at = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(row[i], t->sel)) at = i;
    if (dir < 0 && at > 0) at--;
    if (dir > 0 && at + 1 < n) at++;
    snprintf(t->sel, sizeof t->sel, "%s", row[at]);
}

/* Moves the selected bus's fader by step dB, or (step 0) toggles its mute. */
static void edit_bus(top_t *t, double step) {
    heliod_bus_info_t *b = t->h ? bus_info(t, t->sel) : NULL;
    if (!b) {
        snprintf(t->msg, sizeof t->msg, "bus %s: not known to the daemon (yet)", t->sel);
        return;
    }
    double g = b->gain_db + step;
    if (g > TOP_FADER_HI_DB) g = TOP_FADER_HI_DB;
    if (g < TOP_FADER_LO_DB) g = TOP_FADER_LO_DB;
    int rc = step != 0.0 ? heliod_bus_gain(t->h, b->name, (float)g, TOP_EDIT_RAMP_MS)
                         : heliod_bus_mute(t->h, b->name, !b->mute, TOP_EDIT_RAMP_MS);
    if (rc < 0) {
        const char *why = heliod_last_error(t->h);
        snprintf(t->msg, sizeof t->msg, "bus %s: %s", b->name,
                 why && *why ? why : heliod_strerror(rc));
        return;
    }
    if (step != 0.0)
        b->gain_db = (float)g; /* shown at once, even paused */
    else
        b->mute = !b->mute;
    snprintf(t->msg, sizeof t->msg, "bus %s: fader %.1f dB%s", b->name, b->gain_db,
             b->mute ? ", muted" : "");
}

/* One escape sequence at k (ESC [ or ESC O, parameters, a final byte): the
 * arrows, shift+arrows and PgUp/PgDn. Returns the bytes it took. */
static ssize_t read_escape(top_t *t, const char *k, ssize_t n) {
    if (n < 3 || (k[1] != '[' && k[1] != 'O')) return 1; /* a lone ESC */
    ssize_t j = 2;
    while (j < n && ((k[j] >= '0' && k[j] <= '9') || k[j] == ';'))
        j++;
    if (j >= n) return n; /* cut short: dropped */
    int shift = j - 2 == 3 && !strncmp(k + 2, "1;2", 3);
    double big = TOP_BIG_STEP_DB, small = TOP_STEP_DB;
    switch (k[j]) {
    case 'A': select_bus(t, -1); break;
    case 'B': select_bus(t, +1); break;
    case 'C': edit_bus(t, shift ? big : small); break;
    case 'D': edit_bus(t, shift ? -big : -small); break;
    case '~':
        if (j - 2 == 1 && k[2] == '5') edit_bus(t, big);
        if (j - 2 == 1 && k[2] == '6') edit_bus(t, -big);
        break;
    default: break;
    }
    return j + 1;
}

/* Keys: q quits, s changes the sort, p pauses; the edit keys above. */
static void read_keys(top_t *t) {
    char k[64];
    ssize_t n = read(STDIN_FILENO, k, sizeof k);
    for (ssize_t i = 0; i < n;) {
        if (k[i] == 0x1b) {
            i += read_escape(t, k + i, n - i);
            continue;
        }
        if (k[i] == 'q' || k[i] == 'Q' || k[i] == 3) g_quit = 1;
        if (k[i] == 's' || k[i] == 'S') t->sort = (t->sort + 1) % SORT_N;
        if (k[i] == 'p' || k[i] == 'P') t->paused = !t->paused;
        if (k[i] == 'm' || k[i] == 'M') edit_bus(t, 0.0);
        i++;
    }
}

const char ctl_top_usage[] =
    "usage: heliodctl top\n"
    "  A live full-screen view of the daemon: load, master and bus meters,\n"
    "  voices, streams.\n"
    "  Keys: q quits, s changes the voice sort (audibility, gain, priority, age,\n"
    "  distance from the listener), p pauses the view. Needs a terminal: for\n"
    "  scripts use `heliodctl stats --json` or `heliodctl profile`.\n"
    "  Edit keys (bus faders and mutes, sent as BUS requests; '>' marks the\n"
    "  selected bus, the master at first):\n"
    "    up, down               select a bus\n"
    "    left, right            its fader -/+ 0.5 dB (-96 .. +24 dB)\n"
    "    shift+left/right,\n"
    "    PgDn, PgUp             its fader -/+ 3 dB\n"
    "    m                      mute / unmute it (the fader is kept)\n";

int ctl_top_main(int argc, char **argv, const char *socket) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(ctl_top_usage, stdout);
            return 0;
        }
        fprintf(stderr, "heliodctl: top: unknown option %s\n%s", argv[i], ctl_top_usage);
        return 2;
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "heliodctl: top needs a terminal (stdin and stdout); "
                        "for scripts use `heliodctl stats --json` or `heliodctl profile`\n");
        return 1;
    }
    top_t *t = calloc(1, sizeof *t);
    if (!t) return 1;
    t->socket = socket;
    t->stats = calloc(TOP_MAX_STATS, sizeof *t->stats);
    t->voices = calloc(TOP_MAX_VOICES, sizeof *t->voices);
    t->buses = calloc(TOP_MAX_BUSES, sizeof *t->buses);
    snprintf(t->sel, sizeof t->sel, "master");
    t->seen = calloc(TOP_MAX_VOICES, sizeof *t->seen);
    t->seen_next = calloc(TOP_MAX_VOICES, sizeof *t->seen_next);
    t->frame = malloc(TOP_FRAME_CAP);
    int code = 1;
    if (!t->stats || !t->voices || !t->buses || !t->seen || !t->seen_next || !t->frame) goto out;
    struct sigaction sa = {.sa_handler = on_quit}; /* no SA_RESTART: poll returns at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, NULL);
    if (term_raw() != 0) {
        fprintf(stderr, "heliodctl: top: cannot set up the terminal: %s\n", strerror(errno));
        goto out;
    }
    get_size(t);
    double next_draw = 0;
    while (!g_quit) {
        if (g_winch) {
            g_winch = 0;
            get_size(t);
            static const char clear[] = "\x1b[2J";
            ssize_t w = write(STDOUT_FILENO, clear, sizeof clear - 1);
            (void)w;
            next_draw = 0; /* redraw at the new size now */
        }
        try_connect(t);
        double now = now_s();
        if (now >= next_draw) {
            if (!t->paused) {
                refresh(t);
                draw(t);
            } else {
                draw(t); /* the frozen state, at the current size */
            }
            next_draw = now + 1.0 / TOP_HZ;
        }
        struct pollfd pf[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = -1}};
        if (t->h) {
            pf[1].fd = heliod_fd(t->h);
            pf[1].events = POLLIN | (heliod_pending(t->h) ? POLLOUT : 0);
        }
        int wait = (int)((next_draw - now_s()) * 1000.0) + 1;
        if (wait < 0) wait = 0;
        int rc = poll(pf, 2, wait);
        if (rc < 0 && errno != EINTR) break;
        if (rc > 0 && (pf[0].revents & POLLIN)) read_keys(t);
        if (rc > 0 && (pf[0].revents & (POLLHUP | POLLERR))) g_quit = 1;
        /* events keep being read while paused (the daemon never waits for us) */
        if (t->h && heliod_dispatch(t->h) < 0) disconnect(t, "heliod went away");
    }
    code = 0;
out:
    term_restore();
    if (t->h) heliod_close(t->h);
    free(t->stats);
    free(t->voices);
    free(t->buses);
    free(t->seen);
    free(t->seen_next);
    free(t->frame);
    free(t);
    return code;
}
