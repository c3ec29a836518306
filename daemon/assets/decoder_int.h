/*
 * decoder_int.h - what the decoder pool (decoder.c) calls of one stream's
 * decoding (dstream.c). Not the audio thread's: every function here runs on
 * the main thread, an opener or a decoder thread, whichever owns the stream
 * at the time (decoder.h, "Lifecycle handshake").
 */
#ifndef HLD_DECODER_INT_H
#define HLD_DECODER_INT_H

#include "decoder.h"

/* Sets ds->status and ds->msg; returns rc. */
int hld_ds_fail(hld_dstream_t *ds, int rc, const char *m);
/* Decodes into the ring until it cannot take another step, the stream
 * ended, `target` readable frames are reached (0: fill up) or, for a
 * stream playing its head, the head is used up while the file is not open. */
void hld_ds_fill(hld_dstream_t *ds, uint32_t target);
/* The open job (an opener thread, or the main thread for an inline open):
 * opens the file, sets up the resampler, the ring and the loop, seeks and
 * prefills HLD_STREAM_PREFILL frames. 0, or an error with ds->status/msg. */
int hld_ds_prime(hld_decoder_t *p, hld_dstream_t *ds);
/* 1 if ds (opened at frame 0) can start from its sound's prefetched head. */
int hld_ds_head_usable(const hld_dstream_t *ds);
/* The head's prime (main thread, no file opened, no decoding): sets up as
 * hld_ds_prime from the description kept with the head, fills the ring
 * from the head (up to HLD_HEAD_FRAMES). ds->need_open tells whether the
 * file must still be opened (hld_ds_resume). 0, or an error as prime's. */
int hld_ds_prime_head(hld_dstream_t *ds);
/* A decoder thread, for a stream primed from its head: opens the encoded
 * bytes, decodes the frames the head gave from frame 0 and drops them (the
 * decoder state is then the one a decode from the start has there), reads
 * the crossfade prefix the head did not hold. On a failure the stream is
 * finished where its head ends (logged). */
void hld_ds_resume(hld_dstream_t *ds);

#endif /* HLD_DECODER_INT_H */
