/* layout_height.h - the 7.1.4 tests of the layout program (layout_height.c). */
#ifndef LAYOUT_HEIGHT_H
#define LAYOUT_HEIGHT_H

#include <stddef.h>
#include <stdint.h>

/* Renders score (its text) to dir/name with --layout layout; returns its
 * frames (*ch channels, *n frames; the caller frees). */
float *lh_render(const char *dir, const char *name, const char *text, const char *layout, int *ch,
                 size_t *n);
/* Removes dir/NAME for each name of the NULL-ended list, dir/start.log, then dir. */
void lh_clean(char *dir, const char *const *names);

/* One METER event of the daemon at sock to a raw connection of protocol
 * 1.minor (0: a 1.0 HELLO), decoded by the rule of a 1.1 client built
 * before 7.1.4 (strict: no byte left over; the trailing channels 3..8,
 * EPROTO otherwise) or, from minor 2 on, today's (3..12): its channels
 * (0: the 1.0 body, none past the front pair). */
int lh_meter_channels(const char *sock, uint16_t minor);

void test_height_render(void **state);
void test_height_downmix(void **state);
void test_height_meter_minor(void **state);
void test_ogg_5_7(void **state);

#endif
