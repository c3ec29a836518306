/*
 * stream_jobs.h - streamed sounds opened on the decoder pool for a voice
 * (stream_jobs.c): a first PLAY that ranks real, a SET --seek of a real
 * stream voice, a virtual stream voice ranked real again. Each open answers
 * its request, if any, when the pool hands the primed stream back.
 * Main thread only.
 */
#ifndef HLD_STREAM_JOBS_H
#define HLD_STREAM_JOBS_H

#include <stdint.h>

#include "replies.h"
#include "sounds.h"
#include "vm.h"

/* PLAY's reply (none with HL_FLAG_NOREPLY). */
void hld_reply_play(hld_req_t *q, uint64_t voice, uint64_t stolen);
/* hld_vm_ops_t.open_stream: opens a virtual stream voice's stream at its
 * position on the decoder pool (user = the daemon). */
int hld_voice_open_stream(void *user, uint64_t voice, const hld_lvoice_t *lv, uint64_t start,
                          int64_t loops);
/* The first open of voice's stream (snd, its record lv just admitted,
 * HLD_LV_OPENING): q is answered when it is primed. 0, or an error with
 * *msg (q not answered). */
int hld_voice_open_play(hld_req_t *q, hld_sound_t *snd, const hld_lvoice_t *lv, uint64_t voice,
                        const char **msg);
/* SET --seek: pcm voices jump inside their PCM, virtual voices just move
 * their position; a real stream voice gets a new stream opened at the
 * position on the decoder pool, switched to when primed (the other fields
 * of s are applied now, with the post stage as asked, post_user or NULL:
 * see hld_vm_params_user_set, and the answer comes when it is primed:
 * returns 1). Returns 0 when the caller replies, -1 after replying an
 * error. */
int hld_voice_seek(hld_req_t *q, uint64_t voice, double seek_s, hl_voice_set_t *s,
                   const float post_user[4]);

#endif /* HLD_STREAM_JOBS_H */
