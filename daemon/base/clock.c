/*
 * clock.c - the render driver's virtual time (see clock.h).
 */
#include "clock.h"

_Atomic uint64_t hld_virtual_ns;
