/*
 * bench_opts.c - the benchmarks' option parser (bench_opts.h): a
 * getopt_long table built from the benchmark's own.
 */
#include "bench_opts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#define BO_MAX_OPTS 32
#define BO_HELP     1000 /* getopt_long's answer for --help */
#define BO_BASE     1001 /* ... and for opts[i] with a long name: BO_BASE + i */

void bo_usage(const char *prog, const char *usage) {
    fprintf(stderr, "usage: %s %s\n", prog, usage);
    exit(2);
}

static void store(const bo_opt_t *o, const char *v) {
    switch (o->kind) {
    case 'i': *(int *)o->out = atoi(v); break;
    case 'l': *(long *)o->out = atol(v); break;
    case 'u': *(unsigned long long *)o->out = strtoull(v, NULL, 0); break;
    case 'd': *(double *)o->out = atof(v); break;
    case 's': *(const char **)o->out = v; break;
    default: *(int *)o->out = 1; break;
    }
}

void bo_parse(int argc, char **argv, const bo_opt_t *opts, const char *usage) {
    struct option lo[BO_MAX_OPTS + 2];
    char shorts[2 * BO_MAX_OPTS + 1];
    int nl = 0, ns = 0;
    for (int i = 0; i < BO_MAX_OPTS && opts[i].name; i++) {
        int has_arg = opts[i].kind == 'b' ? no_argument : required_argument;
        if (opts[i].name[1] == '\0') {
            shorts[ns++] = opts[i].name[0];
            if (has_arg) shorts[ns++] = ':';
        } else {
            lo[nl++] = (struct option){opts[i].name, has_arg, NULL, BO_BASE + i};
        }
    }
    shorts[ns] = '\0';
    lo[nl++] = (struct option){"help", no_argument, NULL, BO_HELP};
    lo[nl] = (struct option){NULL, 0, NULL, 0};
    int opt;
    while ((opt = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        const bo_opt_t *o = opt >= BO_BASE ? &opts[opt - BO_BASE] : NULL;
        for (int i = 0; !o && opt != BO_HELP && opts[i].name; i++)
            if (opts[i].name[0] == opt && opts[i].name[1] == '\0') o = &opts[i];
        if (opt == BO_HELP) {
            printf("usage: %s %s\n", argv[0], usage);
            exit(0);
        }
        if (!o) bo_usage(argv[0], usage);
        store(o, optarg);
    }
}
