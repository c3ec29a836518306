/*
 * voice_play.h - PLAY's core (voice_play.c): a play request's name resolved,
 * its mixer parameters built, the voice admitted. PLAY itself, a music
 * state's track (music_ops.c) and a client-fed stream's voice
 * (stream_ops.c) start their voices through it; SET shares the post stage.
 * Main thread only.
 */
#ifndef HLD_VOICE_PLAY_H
#define HLD_VOICE_PLAY_H

#include <stdint.h>

#include "daemon.h"
#include "replies.h"

/* A client-fed stream's voice (stream_ops.c): admitted like a play of
 * m (no cue, no sound; pinned real) and started on st at once. Returns 0
 * with *voice (st belongs to the voice manager and the mixer now: it comes
 * back through release_stream or the mixer's ENDED, even on a late failure,
 * which is then replied here and returns 1), or -1 after replying the
 * refusal (st untouched). */
int hld_voice_play_stream(hld_req_t *q, const hl_play_t *m, hl_stream_t *st, double ratio,
                          uint64_t *voice);
/* A play of music_ops.c's: as PLAY (q's client's quotas first), *voice
 * the voice; no reply on success (the caller's), a refusal replied
 * (*voice 0). */
int hld_voice_play_music(hld_req_t *q, const hl_play_t *m, uint64_t *voice);
/* The post stage: lp/hp cutoffs and occlusion/obstruction as the client
 * gives them (u) -> the mixer's lp_hz, hp_hz and occ_db (the voice's game
 * parameter contribution pc, or NULL). */
void hld_voice_post_map(const hld_daemon_t *d, const float u[4], const hld_pcontrib_t *pc,
                        float *lp, float *hp, float *occ_db);
/* The sends of m by bus name: their bus indices and linear gains; replies
 * the error and returns -1 on an unknown or unusable bus. */
int hld_voice_sends_resolve(hld_req_t *q, const hl_vpost_t *m, uint32_t bus[HL_MAX_SENDS],
                            float gain[HL_MAX_SENDS]);

#endif /* HLD_VOICE_PLAY_H */
