/*
 * bench_opts.h - the benchmarks' command-line options, from a table: each
 * option names where its value goes and how it is read. One parser for
 * every benchmark, so each main() says only what it takes.
 */
#ifndef BENCH_OPTS_H
#define BENCH_OPTS_H

/* One option: --name VALUE (a one-letter name is -n VALUE), read as kind:
 * 'i' int, 'l' long, 'u' unsigned long long (any base), 'd' double,
 * 's' the string itself; 'b' takes no value and sets the int to 1. */
typedef struct {
    const char *name;
    char kind;
    void *out;
} bo_opt_t;

/* Reads argv by opts (ended by a NULL name) from argv[1] on; optind is then
 * after the last option. --help prints "usage: PROG USAGE" to stdout and
 * exits 0; an unknown option or a missing value is bo_usage's. */
void bo_parse(int argc, char **argv, const bo_opt_t *opts, const char *usage);
/* Prints "usage: PROG USAGE" to stderr and exits 2 (a bad option or value). */
_Noreturn void bo_usage(const char *prog, const char *usage);

#endif /* BENCH_OPTS_H */
