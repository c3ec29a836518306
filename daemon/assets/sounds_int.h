/*
 * sounds_int.h - what the sound table (sounds.c) lends its loader
 * (sounds_load.c) and its eviction (sounds_evict.c). Not for use outside
 * them. Main thread only.
 */
#ifndef HLD_SOUNDS_INT_H
#define HLD_SOUNDS_INT_H

/* the types are sounds.h's (declared here only, so that this header stands
 * below the table it serves) */
struct hld_sounds;
struct hld_sound;

/* Puts an entry into the table's chains and the eviction order (never
 * played: first to go; else after every sound played before it). */
void hld_sounds_table_insert(struct hld_sounds *s, struct hld_sound *snd);
/* Takes it out of both (no-op when it is not in the table). */
void hld_sounds_table_remove(struct hld_sounds *s, struct hld_sound *snd);
/* The eviction order: unlinks snd; links it after `after` (NULL: at the head). */
void hld_sounds_lru_unlink(struct hld_sounds *s, struct hld_sound *snd);
void hld_sounds_lru_link_after(struct hld_sounds *s, struct hld_sound *snd,
                               struct hld_sound *after);
/* Takes an entry out of the table (or the retired list) and frees it with
 * its bytes. */
void hld_sounds_drop_entry(struct hld_sounds *s, struct hld_sound *snd);
/* Frees an entry already out of the table, giving its bytes back to the
 * table's budget and to the client charged with them. */
void hld_sound_free(struct hld_sound *snd);
/* One more entry uses the inotify watch wd (--watch-assets): 0 or -1. */
int hld_sounds_wdir_ref(struct hld_sounds *s, int wd);

#endif /* HLD_SOUNDS_INT_H */
