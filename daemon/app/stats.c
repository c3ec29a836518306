/*
 * stats.c - builds the STATS key/value list (see stats.h). rss_bytes comes
 * from /proc/self/statm (resident pages times the page size).
 */
#include "stats.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "conn.h"
#include "device.h"
#include "hl_dsp.h"
#include "hl_layout.h"
#include "hld_limits.h"
#include "hugemem.h"
#include "metering.h"
#include "mix_workers.h"
#include "world_zones.h"

/* 3D logical voices by the listener nearest to them (the one that hears them). */
typedef struct {
    const hl_mixer_t *mx;
    uint32_t n[HL_MIX_LISTENERS];
} hld_lis_count_t;

static int lis_count(void *user, uint64_t voice, const hld_lvoice_t *lv) {
    (void)voice;
    hld_lis_count_t *c = user;
    if (lv->p.flags & HL_MIX_3D) c->n[hl_mixer_nearest_listener(c->mx, lv->p.pos)]++;
    return 0;
}

typedef struct {
    hl_stat_t *a;
    size_t n, cap;
} acc_t;

static void put(acc_t *s, const char *key, double v) {
    if (s->n >= s->cap) return;
    snprintf(s->a[s->n].key, sizeof s->a[s->n].key, "%s", key);
    s->a[s->n].value = v;
    s->n++;
}

static double rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long size = 0, res = 0;
    int ok = fscanf(f, "%lu %lu", &size, &res) == 2;
    fclose(f);
    return ok ? (double)res * (double)sysconf(_SC_PAGESIZE) : 0;
}

/* The speaker on channel c of layout: FL, FR, FC, LFE, BL, BR, SL, SR, TFL, TFR,
 * TBL, TBR ("?" if none). */
static const char *speaker_name(int layout, uint32_t c) {
    static const struct {
        uint32_t bit;
        const char *name;
    } spk[] = {{HL_SPK_FL, "FL"},   {HL_SPK_FR, "FR"},   {HL_SPK_FC, "FC"},   {HL_SPK_LFE, "LFE"},
               {HL_SPK_BL, "BL"},   {HL_SPK_BR, "BR"},   {HL_SPK_SL, "SL"},   {HL_SPK_SR, "SR"},
               {HL_SPK_TFL, "TFL"}, {HL_SPK_TFR, "TFR"}, {HL_SPK_TBL, "TBL"}, {HL_SPK_TBR, "TBR"}};
    const uint32_t bit = hl_layout_speaker((hl_layout_t)layout, c);
    for (size_t k = 0; k < sizeof spk / sizeof spk[0]; k++)
        if (bit == spk[k].bit) return spk[k].name;
    return "?";
}

/* The held meter figures (metering.c), in dBFS: the louder channel (of every
 * channel of the layout) of the peak bar, the peak-hold marker and the 300 ms
 * rms of the master (also per channel: _l, _r, then by speaker past the
 * front pair) and of every live bus; the master's EBU R128 loudness. */
static void put_level(acc_t *s, const char *who, const hl_meter_level_t *l,
                      const hl_meter_more_t *more, const hl_meter_rest_t *r, int layout) {
    char key[HL_MAX_NAME + 1];
    static const char *const what[3] = {"peak", "peak_hold", "rms"};
    const float *v[3] = {l->peak_db, l->peak_hold_db, l->rms_db};
    const float *w[3] = {r->peak_db, r->peak_hold_db, r->rms_db};
    for (int k = 0; k < 3; k++) {
        snprintf(key, sizeof key, "%.49s.%s_db", who, what[k]);
        put(s, key, hld_metering_louder(v[k], more, w[k]));
        if (layout < 0) continue;
        snprintf(key, sizeof key, "%s.%s_l_db", who, what[k]);
        put(s, key, v[k][0]);
        snprintf(key, sizeof key, "%s.%s_r_db", who, what[k]);
        put(s, key, v[k][1]);
        for (uint32_t c = 2; c < more->channels; c++) {
            snprintf(key, sizeof key, "%s.%s_%s_db", who, what[k], speaker_name(layout, c));
            put(s, key, w[k][c - 2]);
        }
    }
}

static void put_meters(acc_t *s, hld_daemon_t *d) {
    static hl_meter_t m;       /* ~3 KiB: off the stack; main thread only */
    static hl_meter_more_t mo; /* the same */
    hld_metering_poll(&d->tel);
    hld_metering_read(&d->tel, &m, &mo);
    put_level(s, "master", &m.master, &mo, &mo.master, d->cfg.layout);
    for (unsigned i = 0; i < m.nbuses; i++) {
        char who[HL_MAX_NAME + 1];
        snprintf(who, sizeof who, "bus.%.40s", m.bus[i].name);
        put_level(s, who, &m.bus[i], &mo, &mo.bus[i], -1);
    }
    put(s, "loudness.momentary", m.momentary);
    put(s, "loudness.short_term", m.short_term);
    put(s, "loudness.integrated", m.integrated);
    put(s, "loudness.range", m.range);
    hld_metering_stats_t ms;
    hld_metering_stats(&d->tel, &ms);
    put(s, "meter_events", (double)ms.events_sent);
    put(s, "meter_events_skipped", (double)ms.events_skipped);
    put(s, "meter_coalesced", (double)ms.coalesced);
    put(s, "loudness_dropped_frames", (double)ms.pcm_dropped);
    put(s, "outq_bytes", (double)hld_conn_outq_total(&d->net));
}

size_t hld_stats_collect(hld_daemon_t *d, hl_stat_t *out, size_t cap) {
    acc_t s = {out, 0, cap};
    hld_engine_t *e = &d->engine;
    hld_engine_stats_t es;
    hld_engine_stats(e, &es);
    hl_mixer_stats_t ms;
    hl_mixer_stats(e->mixer, &ms);
    double period_us = (double)e->period * HLD_MS_PER_S * HLD_MS_PER_S / e->rate;

    put(&s, "uptime_s", (double)(hld_now_ns() - d->start_ns) / HLD_NS_PER_S);
    put(&s, "rate", e->rate);
    hl_listener_state_t lis;
    hl_mixer_get_listener(e->mixer, &lis);
    put(&s, "listener_x", lis.pos[0]);
    put(&s, "listener_y", lis.pos[1]);
    put(&s, "listener_z", lis.pos[2]);
    put(&s, "period", e->period);
    put(&s, "period_us", period_us);
    put(&s, "clients", d->net.clients);
    put(&s, "clients_total", (double)d->n.clients_total);
    put(&s, "clients_rejected", (double)d->n.clients_rejected);
    put(&s, "clients_refused_uid", (double)d->n.clients_refused_uid);
    put(&s, "protocol_errors", (double)d->n.protocol_errors);
    put(&s, "fds_received", (double)d->n.fds_received);
    put(&s, "fds_closed", (double)d->n.fds_closed);
    put(&s, "uploads_fd", (double)d->n.uploads_fd);
    put(&s, "uploads_chunked", (double)d->n.uploads_chunked);
    put(&s, "uploads_timed_out", (double)d->n.uploads_timed_out);
    put(&s, "clients_control", d->net.clients - d->net.plain);
    put(&s, "client_records", d->ledger.count);    /* connected, or still holding voices/sounds */
    put(&s, "client_processes", d->ledger.nprocs); /* what the quotas are charged to */
    put(&s, "denied", (double)d->n.denied);
    {
        const hld_snaps_t *sn = &d->snaps;
        uint32_t active = 0;
        for (int i = 0; i < HL_MAX_SNAPSHOTS; i++)
            active += sn->s[i].name[0] && sn->s[i].active;
        put(&s, "snapshots", sn->n);
        put(&s, "snapshots_active", active);
        put(&s, "snapshot_plans", (double)sn->plans);
        put(&s, "snapshot_cmds", (double)sn->cmds);
        put(&s, "snapshot_plan_us_mean",
            sn->plans ? (double)sn->plan_ns_total / (double)sn->plans / 1e3 : 0.0);
        put(&s, "snapshot_plan_us_max", (double)sn->plan_ns_max / 1e3);
    }
    {
        hld_lis_count_t lc = {.mx = d->engine.mixer};
        hld_vm_foreach(d->vm, lis_count, &lc);
        uint32_t on = 0;
        hl_listener_state_t l;
        for (uint32_t k = 0; k < HL_MIX_LISTENERS; k++)
            on += (uint32_t)hl_mixer_get_listener_at(d->engine.mixer, k, &l);
        put(&s, "listeners", on);
        static const char *const key[HL_MIX_LISTENERS] = {"listener0_voices", "listener1_voices",
                                                          "listener2_voices", "listener3_voices"};
        for (uint32_t k = 0; k < HL_MIX_LISTENERS; k++)
            put(&s, key[k], lc.n[k]);
    }
    static const char *const quota_key[HLD_QUOTA_KINDS] = {
        [HLD_QUOTA_VOICES] = "voices",       [HLD_QUOTA_DETACHED] = "detached",
        [HLD_QUOTA_STREAMS] = "streams",     [HLD_QUOTA_LOADS] = "loads",
        [HLD_QUOTA_BYTES] = "sample_bytes",  [HLD_QUOTA_SCHED] = "scheduled",
        [HLD_QUOTA_CUES] = "cues",           [HLD_QUOTA_CATEGORIES] = "categories",
        [HLD_QUOTA_EMITTERS] = "emitters",   [HLD_QUOTA_BUSES] = "buses",
        [HLD_QUOTA_RZONES] = "reverb_zones", [HLD_QUOTA_PARAMS] = "params",
        [HLD_QUOTA_SNAPSHOTS] = "snapshots",
    };
    const hld_quota_t *qt = &d->ledger.quota;
    for (int k = 0; k < HLD_QUOTA_KINDS; k++) {
        char key[HL_MAX_NAME + 1];
        snprintf(key, sizeof key, "quota_%s", quota_key[k]);
        put(&s, key, (double)hld_quota_limit(qt, k));
        snprintf(key, sizeof key, "quota_refused_%s", quota_key[k]);
        put(&s, key, (double)d->ledger.refused[k]);
    }
    put(&s, "detached_expired", (double)d->n.detached_expired);
    put(&s, "cmds_applied", (double)ms.cmds_applied);
    put(&s, "cmds_busy", (double)d->n.cmds_busy);
    put(&s, "conn_holds", (double)d->net.holds);
    put(&s, "conn_waits", (double)d->net.waits);
    put(&s, "cmd_ring_free", d->engine.mixer ? (double)hl_mixer_cmd_room(d->engine.mixer) : 0.0);
    put(&s, "capture_dropped", (double)hld_capture_dropped(d->capture));
    put(&s, "capture_unsure", (double)d->n.capture_unsure);
    put(&s, "requests_late", (double)d->n.requests_late);
    put(&s, "cmd_cap_hits", (double)ms.cmd_cap_hits);
    put(&s, "cmd_wait_us_max", es.wait_max_us);
    put(&s, "cmd_wait_us_p99", es.wait_p99_us);
    /* time: scheduled commands (daemon/mixer/mixer_sched.c) */
    put(&s, "sched_pending", ms.sched_pending);
    put(&s, "sched_late", (double)ms.sched_late);
    put(&s, "sched_late_max_frames", (double)ms.sched_late_max_frames);
    hld_vm_stats_t vs;
    hld_vm_stats(d->vm, &vs);
    put(&s, "voices_capacity", d->cfg.voices);
    put(&s, "voices_logical_capacity", vs.logical);
    put(&s, "voices_active", vs.active);
    put(&s, "voices_real", vs.real);
    put(&s, "voices_virtual", vs.virtual_now);
    put(&s, "voices_fading", vs.fading);
    put(&s, "voices_governed", vs.governed);
    put(&s, "voices_real_cap", vs.real_cap);
    put(&s, "voices_lowq", vs.lowq);
    put(&s, "governor_steps_down", (double)d->governor.steps_down);
    put(&s, "governor_budget_us", d->governor.budget_ns / 1e3);
    put(&s, "governor_hits", (double)d->governor.hits);
    put(&s, "governor_cuts", (double)d->governor.cuts);
    put(&s, "governor_spikes", (double)d->governor.spikes);
    put(&s, "governor_voice_us", d->governor.voice_ns / 1e3);
    put(&s, "governor_calib_voice_us", d->governor.calib_ns / 1e3);
    put(&s, "voices_mixed", ms.voices_mixed);
    put(&s, "voices_stolen", (double)vs.n.stolen);
    put(&s, "voices_refused", (double)d->n.voices_refused);
    put(&s, "plays", (double)vs.n.plays);
    put(&s, "refused_interval", (double)vs.n.refused_interval);
    put(&s, "refused_distance", (double)vs.n.refused_distance);
    put(&s, "refused_cue_limit", (double)vs.n.refused_cue_limit);
    put(&s, "refused_category_limit", (double)vs.n.refused_cat_limit);
    put(&s, "refused_no_voice", (double)vs.n.refused_no_voice);
    put(&s, "voices_evicted", (double)vs.n.evicted);
    put(&s, "voices_virtualised", (double)vs.n.virtualised);
    put(&s, "voices_realised", (double)vs.n.realised);
    put(&s, "voices_released_distance", (double)vs.n.released_distance);
    put(&s, "realise_failed", (double)vs.n.realise_failed);
    put(&s, "rank_late", (double)vs.n.rank_late);
    put(&s, "emitters", vs.emitters);
    put(&s, "cues", hld_cues_count(&d->cues));
    put(&s, "categories", hld_cues_count_categories(&d->cues));
    put(&s, "params", d->params.n);
    put(&s, "param_values", d->params.nent);         /* emitter and voice values held */
    put(&s, "param_evals", (double)d->params.evals); /* evaluation passes over bound cues */
    put(&s, "param_sets", (double)d->params.sets);   /* SETs they sent */
    put(&s, "param_late", (double)d->params.late);   /* scheduled values past their frame */
    put(&s, "sounds", d->sounds.count);
    put(&s, "sample_bytes", (double)d->sounds.bytes);
    hld_huge_stats_t hs; /* where sample data and the mixer live (hugemem.h) */
    hld_huge_stats(&hs);
    put(&s, "sample_bytes_huge", (double)hs.huge_bytes[HLD_HUGE_SAMPLES]);
    put(&s, "mixer_bytes_huge", (double)hs.huge_bytes[HLD_HUGE_MIXER]);
    put(&s, "thp_bytes", (double)hld_huge_thp_bytes(hld_now_ns())); /* what the kernel gave */
    uint64_t pinned = 0, evictable = 0;
    hld_sounds_budget(&d->sounds, &pinned, &evictable);
    put(&s, "samples_resident_bytes", (double)d->sounds.bytes);
    put(&s, "samples_committed_bytes",
        (double)atomic_load_explicit(&d->sounds.committed, memory_order_relaxed));
    put(&s, "samples_pinned_bytes", (double)pinned);
    put(&s, "samples_evictable_bytes", (double)evictable);
    put(&s, "samples_budget_bytes", (double)d->sounds.max_bytes);
    put(&s, "samples_evictions", (double)d->sounds.evictions);
    put(&s, "samples_evicted_bytes", (double)d->sounds.evicted_bytes);
    put(&s, "file_jobs", (double)d->files.jobs);              /* opens and reads off the loop */
    put(&s, "file_open_timeouts", (double)d->files.timeouts); /* answered ETIMEDOUT */
    put(&s, "file_jobs_hung", (double)d->files.hung);         /* of those, still stuck */
    put(&s, "file_jobs_refused", (double)d->files.refused);   /* a process's stuck cap */
    put(&s, "file_jobs_pending", (double)hld_files_pending(&d->files)); /* not answered yet */
    put(&s, "samples_evict_scanned", (double)d->sounds.evict_scanned);
    put(&s, "samples_evict_max_us", (double)d->sounds.evict_ns_max / 1000.0);
    uint32_t nbanks = 0;
    for (int i = 0; i < HLD_MAX_BANKS; i++)
        nbanks += d->banks.bank[i] != NULL;
    put(&s, "banks", nbanks);
    const hld_zs_totals_t *zt = &d->wzones->zs.tot;
    put(&s, "zones_ticks", (double)zt->ticks);
    put(&s, "zones_requested", (double)zt->requested);
    put(&s, "zones_completed", (double)zt->completed);
    put(&s, "zones_failed", (double)zt->failed);
    put(&s, "zones_cancelled", (double)zt->cancelled);
    put(&s, "zones_unloaded", (double)zt->unloaded);
    put(&s, "zones_evicted", (double)zt->evicted);
    put(&s, "zones_peak_resident_bytes", (double)zt->peak_resident_bytes);
    put(&s, "zones_peak_in_flight", (double)zt->peak_in_flight);
    put(&s, "zones_largest_tick_bytes", (double)zt->largest_tick_bytes);
    put(&s, "loads_failed", (double)d->sounds.loads_failed);
    put(&s, "reloads", (double)d->sounds.reloads);
    put(&s, "reload_failures", (double)d->sounds.reload_failures);
    put(&s, "reload_events", (double)d->watch.events);
    put(&s, "sounds_retired", d->sounds.nretired);
    put(&s, "callbacks", (double)es.callbacks);
    put(&s, "xruns", (double)es.xruns);
    put(&s, "callback_overruns", (double)es.overruns);
    put(&s, "underruns", (double)es.underruns);
    hl_mix_part_stats_t mp; /* --mix-threads: blocks parted, shared, late, dropped, held */
    hld_mix_workers_stats(d->engine.mixw, &mp);
    put(&s, "mix_threads", hld_mix_workers_threads(d->engine.mixw));
    put(&s, "mix_blocks_parted", (double)mp.blocks);
    put(&s, "mix_blocks_shared", (double)mp.shared);
    put(&s, "mix_worker_late", (double)mp.late);
    put(&s, "mix_worker_dropped", (double)mp.dropped);
    put(&s, "mix_commands_held", (double)mp.held);
    hld_device_stats_t ds;
    hld_device_stats(&d->devices, &ds);
    put(&s, "device_portaudio", ds.driver_portaudio);
    put(&s, "device_index", ds.index);
    put(&s, "device_state", ds.state);
    put(&s, "device_switches", (double)ds.switches);
    put(&s, "device_lost", (double)ds.lost);
    put(&s, "device_back", (double)ds.back);
    put(&s, "device_lost_ms_last", ds.lost_ms_last);
    put(&s, "device_recover_ms_last", ds.recover_ms_last);
    put(&s, "device_rate_refused", (double)ds.rate_refused);
    put(&s, "device_retries", (double)ds.retries);
    put(&s, "device_rate", ds.device_rate);
    put(&s, "device_resampled", ds.device_rate != e->rate);
    put(&s, "callback_us_avg", es.avg_us);
    put(&s, "callback_us_p50", es.p50_us);
    put(&s, "callback_us_p99", es.p99_us);
    put(&s, "callback_us_max", es.max_us);
    put(&s, "callback_load_p99", es.p99_us / period_us);
    put(&s, "callback_load_max", es.max_us / period_us);
    put(&s, "hrtf", e->hrtf != NULL);        /* --hrtf: 3D voices binaural */
    put(&s, "hrtf_voices", ms.hrtf_voices);  /* rendered binaurally, last block */
    put(&s, "output_channels", e->channels); /* --layout: the device's and recording's */
    for (uint32_t c = 0; c < ms.channels && c < HL_MIX_MAX_CH; c++) { /* per speaker */
        char key[32];
        snprintf(key, sizeof key, "output_peak.%s", speaker_name(d->cfg.layout, c));
        put(&s, key, ms.out_peak[c]);
    }
    put(&s, "limiter_blocks", (double)ms.limiter_blocks);
    put(&s, "master_gain_db", hl_lin_to_db(hl_mixer_get_bus_gain(e->mixer, -1)));
    for (int b = 0; b < HL_MAX_BUSES; b++) {
        char key[HL_MAX_NAME + 1];
        char lb[HL_MAX_NAME + 1];
        const char *name = hld_bus_label(&d->buses, b, lb); /* one key per bus (METER's label) */
        if (!name) continue;
        snprintf(key, sizeof key, "bus.%.48s.gain_db", name); /* a key fits HL_MAX_NAME */
        put(&s, key, hl_lin_to_db(hl_mixer_get_bus_gain(e->mixer, (int)b)));
    }
    put_meters(&s, d);
    put(&s, "streams_active", hld_decoder_active(&d->decoder));
    put(&s, "stream_opens_pending", hld_decoder_pending(&d->decoder));
    put(&s, "stream_open_timeouts", (double)hld_decoder_open_timeouts(&d->decoder));
    put(&s, "stream_opens_inline", (double)hld_decoder_inline_opens(&d->decoder));
    put(&s, "stream_opens_head", (double)hld_decoder_head_opens(&d->decoder));
    put(&s, "stream_underruns", (double)ms.underruns);
    put(&s, "stream_voices", ms.stream_voices);
    put(&s, "decoder_cpu_s", hld_decoder_cpu_s(&d->decoder));
    put(&s, "decoder_wakeups", (double)hld_decoder_wakeups(&d->decoder));
    put(&s, "record_frames", (double)hld_recorder_frames(e->rec));
    put(&s, "record_dropped_frames", (double)hld_recorder_dropped(e->rec));
    put(&s, "rss_bytes", rss_bytes());
    return s.n;
}
