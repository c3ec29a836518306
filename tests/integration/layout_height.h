/* layout_height.h - the 7.1.4 tests of the layout program (layout_height.c). */
#ifndef LAYOUT_HEIGHT_H
#define LAYOUT_HEIGHT_H

void test_height_render(void **state);
void test_height_downmix(void **state);
void test_ogg_5_7(void **state);

#endif
