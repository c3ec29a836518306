/*
 * fuzz_load.h - the loader's fuzz target: one byte buffer decoded through
 * libsndfile's virtual I/O and hld_decode_sndfile (daemon/assets/sounds.c), the
 * same code a LOAD runs on a file, preloaded and streamed (probe).
 */
#ifndef HL_FUZZ_LOAD_H
#define HL_FUZZ_LOAD_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* HL_FUZZ_LOAD_H */
