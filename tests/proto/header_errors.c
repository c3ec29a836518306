/* header_errors.c - heliod_errors.h compiles on its own. */
#include "heliod_errors.h"

int main(void) {
    return HELIOD_OK + (HELIOD_ECANCELED == HELIOD_ERR_MIN ? 0 : 1);
}
