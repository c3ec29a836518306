/*
 * main.c - heliod's entry point: parse the configuration, open the engine,
 * lock memory for the audio path (rt_prep.c), listen, run the libuv loop
 * until SIGINT/SIGTERM, and tear down. Everything else lives in its own
 * module (see daemon.h for the map). The shutdown is time-bounded by the
 * guard thread loop.c starts at SIGTERM: if a join below hangs (a decoder
 * or loader thread stuck in I/O), the guard ends the process within 1 s.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "capture.h"
#include "conn.h"
#include "daemon.h"
#include "world_zones.h"
#include "dispatch.h"
#include "dispatch_int.h"
#include "hl_config.h"
#include "hl_simd.h"
#include "log.h"
#include "loop.h"
#include "metering.h"
#include "options.h"
#include "render.h"
#include "rt_prep.h"

#if HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

static int list_devices(void) {
    static hl_device_info_t devs[HL_MAX_LIST];
    size_t total = 0;
    int n = hld_pa_list_devices(devs, HL_MAX_LIST, &total, -1);
    if (n < 0) {
        fprintf(stderr, "heliod: PortAudio is not available\n");
        return 1;
    }
    printf("%-5s %-8s %-4s %-10s %s\n", "index", "flags", "ch", "rate", "name (host API)");
    for (int i = 0; i < n; i++)
        printf("%-5u %-8s %-4u %-10.0f %s (%s)\n", devs[i].index,
               (devs[i].flags & HL_DEV_DEFAULT) ? "default" : "", devs[i].max_channels,
               devs[i].default_rate, devs[i].name, devs[i].hostapi);
    if (n == 0) printf("(no output devices)\n");
    return 0;
}

/* HELIOD_ISA=generic|avx2|avx512 (HELIOD_SIMD, portable: the older names)
 * caps the mixer kernels' instruction set (tests run each level; an operator
 * can rule out a suspect one, or compare them on new hardware). 0, or -1 with
 * a message for a value that names no level. */
static int apply_simd_env(void) {
    const char *var, *v = hl_isa_env(&var);
    int cpu = hl_simd_cpu();
    if (v) {
        int want = hl_simd_parse(v);
        if (want < 0) {
            fprintf(stderr, "heliod: %s must be generic, avx2 or avx512 (got '%s')\n", var, v);
            return -1;
        }
        if (want > cpu) hld_warn("%s=%s: this CPU runs %s at most", var, v, hl_simd_name(cpu));
        (void)hl_simd_set_cap(want);
    }
    hld_info("mixer kernels: %s (this CPU runs %s)", hl_simd_name(hl_simd_level()),
             hl_simd_name(cpu));
    return 0;
}

static void close_walk(uv_handle_t *h, void *arg) {
    (void)arg;
    if (!uv_is_closing(h)) uv_close(h, NULL);
}

/* A failure once the buses and the voice manager are set up: what is open
 * so far closed, rc returned. */
static int close_setup(hld_daemon_t *d, int rc) {
    hld_engine_close(&d->engine);
    hld_buses_close(&d->buses);
    hld_vm_destroy(d->vm);
    hld_cues_close(&d->cues);
    hld_params_close(&d->params);
    return rc;
}

int main(int argc, char **argv) {
    static hld_daemon_t d; /* large (sound table); static keeps it off the stack */
    static hld_wzones_t wzones;
    d.wzones = &wzones;
    signal(SIGPIPE, SIG_IGN);
    int rc = hld_config_load(&d.cfg, argc, argv);
    if (rc) return rc > 0 ? 0 : 2;
    hld_log_set_level(d.cfg.log_level);
    if (d.cfg.list_devices) return list_devices();
    if (apply_simd_env() != 0) return 2;

    hld_cues_init(&d.cues, d.cfg.seed); /* 0: the built-in seed */
    if (hld_params_init(&d.params) != 0) {
        fprintf(stderr, "heliod: out of memory\n");
        return 1;
    }
    d.params.rate = d.cfg.rate; /* seeks count engine frames */
    d.cues.params = &d.params;  /* cue sheets define and bind parameters */
    d.loop = uv_default_loop();
    d.start_ns = hld_now_ns();
    if (hld_engine_open(&d.engine, &d.cfg) != 0 || hld_events_vm_open(&d) != 0) {
        hld_engine_close(&d.engine);
        hld_cues_close(&d.cues);
        hld_params_close(&d.params);
        return 1;
    }
    hld_buses_init(&d.buses, d.engine.mixer, d.cfg.rate);
    hld_rzones_init(&d.rzones, &d.buses, d.cfg.rate);
    hld_snaps_init(&d.snaps, &d.buses, d.engine.mixer, d.cfg.rate);
    if (hld_config_buses(&d) != 0) return close_setup(&d, 2);
    d.cues.snap_fn = hld_snapshot_sheet; /* [snapshot NAME] sections */
    d.cues.snap_user = &d;
    if (d.cfg.cues[0]) { /* after the buses: its snapshots name them */
        char err[HL_MAX_MSG + 1];
        uint32_t nc = 0, ncat = 0;
        if (hld_cues_load_file(&d.cues, d.cfg.cues, &nc, &ncat, err, sizeof err) != 0) {
            fprintf(stderr, "heliod: --cues: %s\n", err);
            return close_setup(&d, 2);
        }
        hld_info("cue sheet %s: %u cues, %u categories", d.cfg.cues, nc, ncat);
    }
    /* prices a worst-case voice before the audio thread runs */
    hld_governor_init(&d.governor, &d.engine, d.vm, d.cfg.cpu_budget, d.cfg.speed_of_sound);
    hld_rt_lock_memory(&d.engine); /* before the audio, decoder and worker threads */
    hld_sounds_init(&d.sounds, d.loop, d.cfg.rate, d.cfg.max_sample_mb);
    d.sounds.layout = d.cfg.layout; /* preloads fold to the output's speakers */
    hld_files_init(&d.files, d.loop);
    hld_banks_init(&d.banks, &d.sounds, &d.cues, hld_assets_bank_changed, &d);
    d.banks.files = &d.files;
    d.sounds.files = &d.files; /* a LOAD's open: the open budget, the per-process cap */
    d.banks.ledger = &d.ledger;
    d.banks.sheet = hld_assets_bank_sheet;
    d.sounds.reload_done = hld_assets_reloaded;
    d.sounds.reload_user = &d;
    d.watch.fd = -1;
    if (d.cfg.watch_assets && !d.cfg.render[0]) /* a render's files do not change under it */
        (void)hld_watch_start(&d.watch, &d.sounds, d.loop);
    if (hld_wzones_init(d.wzones, &d) != 0) {
        hld_engine_close(&d.engine);
        return 1;
    }
    hld_quota_t quota = {
        .voices = d.cfg.client_voices,
        .detached = d.cfg.client_detached,
        .streams = d.cfg.client_streams,
        .loads = d.cfg.client_loads,
        .bytes = (uint64_t)d.cfg.client_sample_mb * 1024 * 1024,
        .scheduled = d.cfg.client_scheduled,
        .cues = d.cfg.client_cues,
        .categories = d.cfg.client_categories,
        .emitters = d.cfg.client_emitters,
        .buses = d.cfg.client_buses,
        .rzones = d.cfg.client_rzones,
        .params = d.cfg.client_params,
        .snapshots = HL_MAX_SNAPSHOTS / HLD_QUOTA_OBJ_DIV,
    };
    hld_clients_init(&d.ledger, &quota);
    hld_time_init(&d); /* charges scheduled commands to their clients */
    d.net.loop = d.loop;
    d.net.cfg = &d.cfg;
    d.net.ledger = &d.ledger;
    d.net.sounds = &d.sounds;
    d.net.n = &d.n;
    d.net.shutting_down = &d.shutting_down;
    d.net.owner = &d;
    d.net.hold_room = hld_cmd_ring_for(d.cfg.voices) - HLD_RING_QUEUE_MAX;
    d.net.hooks = &hld_dispatch_hooks;
    d.devices = (hld_devices_t){.engine = &d.engine, .net = &d.net, .want = d.cfg.device};
    d.tel = (hld_telemetry_t){.net = &d.net,
                              .engine = &d.engine,
                              .buses = &d.buses,
                              .vm = d.vm,
                              .decoder = &d.decoder,
                              .start_ns = d.start_ns};
    if (d.cfg.render[0]) { /* offline: no socket, the renderer ticks the events */
        if (hld_decoder_start(&d.decoder, d.cfg.rate) != 0 || hld_loop_start(&d) != 0 ||
            hld_engine_start(&d.engine) != 0) {
            d.exit_code = 1;
        } else {
            uv_timer_stop(&d.poll_timer);
            d.exit_code =
                hld_replay_is_capture(d.cfg.render) ? hld_replay_run(&d) : hld_render_run(&d);
        }
        hld_loop_shutdown(&d);
        uv_run(d.loop, UV_RUN_DEFAULT);
    } else if (hld_decoder_start(&d.decoder, d.cfg.rate) != 0 || hld_server_listen(&d.net) != 0 ||
               hld_loop_start(&d) != 0 || hld_wzones_start(d.wzones) != 0 ||
               hld_engine_start(&d.engine) != 0) {
        d.exit_code = 1;
        hld_server_close(&d.net);
        uv_walk(d.loop, close_walk, NULL);
        uv_run(d.loop, UV_RUN_DEFAULT);
    } else {
        hld_info("heliod %s: %s driver%s%s, %u Hz, period %u, %u voices (%u logical)",
                 HELIOD_VERSION, d.engine.backend.name,
                 d.engine.backend.device_name[0] ? " on " : "", d.engine.backend.device_name,
                 d.cfg.rate, d.cfg.period, d.cfg.voices, d.cfg.virtual_voices);
#if HAVE_LIBSYSTEMD
        sd_notify(0, "READY=1");
#endif
        if (d.cfg.capture[0] &&
            !(d.capture = hld_capture_begin(&d, d.cfg.capture, -1, d.cfg.capture_audio)))
            hld_warn("capture: %s: could not start the writer", d.cfg.capture);
        uv_run(d.loop, UV_RUN_DEFAULT);
        hld_capture_stop(d.capture); /* the loop has stopped: no request comes any more */
        hld_capture_join(d.capture_ended);
        d.capture = d.capture_ended = NULL;
    }
    hld_engine_close(&d.engine);
    hld_buses_close(&d.buses); /* the audio thread is gone: free every effect */
    hld_metering_free();
    hld_decoder_stop(&d.decoder); /* the audio thread is gone: free every stream */
    hld_cstreams_close(&d);       /* and every client-fed ring still mapped */
    hld_vm_destroy(d.vm);
    hld_wzones_close(d.wzones);
    hld_banks_close(&d.banks);
    hld_files_close(&d.files);
    hld_cues_close(&d.cues);
    hld_params_close(&d.params);
    hld_sounds_close(&d.sounds);
    hld_watch_close(&d.watch);    /* after the sounds: no worker adds a watch any more */
    hld_clients_close(&d.ledger); /* after the sounds charged to clients */
    if (uv_loop_close(d.loop) != 0) hld_warn("event loop closed with handles still open");
    hld_config_free(&d.cfg);
    if (d.shutdown_start_ns)
        hld_info("stopped, shutdown_ms=%.0f",
                 (double)(hld_now_ns() - d.shutdown_start_ns) / HLD_NS_PER_MS);
    return d.exit_code;
}
