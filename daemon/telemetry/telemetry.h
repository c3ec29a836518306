/*
 * telemetry.h - what the telemetry folder reads (meters, loudness, the
 * PROFILE snapshot and their feeds): the application gives it this table
 * of the subsystems below it, so no telemetry file sees the daemon's own
 * state (app/daemon.h). Main thread only.
 */
#ifndef HLD_TELEMETRY_H
#define HLD_TELEMETRY_H

#include <stdint.h>

#include "buses.h"
#include "conn.h"
#include "decoder.h"
#include "engine.h"
#include "vm.h"

typedef struct {
    hld_net_t *net;         /* the subscribers (feeds.c) */
    hld_engine_t *engine;   /* the mixer, its meter tap, the rate */
    hld_buses_t *buses;     /* bus names */
    hld_vm_t *vm;           /* logical voices (PROFILE) */
    hld_decoder_t *decoder; /* streams (PROFILE) */
    uint64_t start_ns;      /* the daemon's start (PROFILE time_ns) */
} hld_telemetry_t;

#endif /* HLD_TELEMETRY_H */
