/*
 * music_test.h - what test_music.c and music_flow.c share: the test's
 * directory, offline renders at 8 kHz and the tests of music_flow.c.
 */
#ifndef MUSIC_TEST_H
#define MUSIC_TEST_H

#include <stddef.h>
#include <stdint.h>

#define RATE 8000

extern char g_dir[256];
/* g_dir/name. */
void path_of(char *buf, size_t cap, const char *name);
/* heliod --render score --out out --render-events events at RATE: its exit status. */
int render(const char *score, const char *out, const char *events);
/* 1 if the two files hold the same bytes. */
int same_files(const char *a, const char *b);
/* render (twice, asserting byte-identical audio, with out2), then out read:
 * stereo, at least min_frames; the caller frees it. */
float *render_read(const char *score, const char *out, const char *out2, const char *ev,
                   size_t min_frames);
/* th_gen_fn: the constant *(const float *)user. */
void gen_dc(void *user, uint32_t i, float *out, int ch);

/* music_flow.c */
void render_when(void **state);
void render_layers(void **state);
void reclaim_music(void **state);

#endif
