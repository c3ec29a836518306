/*
 * rt_symbols_fixture.c - two tiny libraries for test_rt_symbols.sh itself,
 * built with -O2 -D_FORTIFY_SOURCE=2 --coverage as a CI build may be: the
 * allowed one copies into an array of known size (__memcpy_chk) and counts
 * its arcs (gcov), and must pass; with RT_FIXTURE_BAD it also allocates, and
 * must fail.
 */
#include <stddef.h>
#include <string.h>
#ifdef RT_FIXTURE_BAD
#include <stdlib.h>
#endif

float rt_fixture_buf[16];
void *rt_fixture_kept;

void rt_fixture_copy_rt(const float *src, size_t n);
void rt_fixture_copy_rt(const float *src, size_t n) {
    memcpy(rt_fixture_buf, src, n * sizeof *src); /* the size is known, n is not: checked */
#ifdef RT_FIXTURE_BAD
    rt_fixture_kept = malloc(n + 1);
#endif
}
