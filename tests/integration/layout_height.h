/* layout_height.h - the 7.1.4 tests of the layout program (layout_height.c). */
#ifndef LAYOUT_HEIGHT_H
#define LAYOUT_HEIGHT_H

#include <stddef.h>

/* Renders score (its text) to dir/name with --layout layout; returns its
 * frames (*ch channels, *n frames; the caller frees). */
float *lh_render(const char *dir, const char *name, const char *text, const char *layout, int *ch,
                 size_t *n);
/* Removes dir/NAME for each name of the NULL-ended list, dir/start.log, then dir. */
void lh_clean(char *dir, const char *const *names);

void test_height_render(void **state);
void test_height_downmix(void **state);
void test_height_meter_minor(void **state);
void test_ogg_5_7(void **state);

#endif
