/*
 * cues_int.h - what cues.c lends the cue-sheet loader (cue_sheet.c): the
 * name tables' probe, the validation with the cue-file key a reason names,
 * and applying a validated definition. Not for use outside them.
 */
#ifndef HLD_CUES_INT_H
#define HLD_CUES_INT_H

#include <stdint.h>

#include "hl_proto.h"

/* cues.h's types, declared only: this header stands below the table it
 * serves */
struct hld_cues;
struct hld_cue;
struct hld_category;

typedef const char *(*hld_name_at_fn)(const void *tab, uint32_t i);

/* The slot holding name (slots[i] = its index + 1) or the empty slot where it
 * would go. The tables are at most half full, so the probe always ends. */
uint32_t hld_cues_slot_of(const uint16_t *slots, uint32_t nslots, const char *name,
                          hld_name_at_fn at, const void *tab);

/* hl_validate_cue / hl_validate_category with a reason always set and *key
 * the cue-file key that sets the field the reason names (or NULL). */
int hld_cue_check(const hl_cue_t *m, const char **why, const char **key);
int hld_cat_check(const hl_category_t *m, const char **why, const char **key);

/* Redefines into (an entry of that name) or, into NULL, adds a new entry
 * even when the name exists in another namespace, for an already validated
 * cue (category); cat is its category resolved by the caller. A new entry
 * is *spare when given (and *spare becomes NULL), else calloc'd; the caller
 * has checked the cap. NULL only when calloc fails. */
struct hld_cue *hld_cue_apply(struct hld_cues *c, const hl_cue_t *m, struct hld_cue **spare,
                              struct hld_cue *into, struct hld_category *cat);
struct hld_category *hld_cat_apply(struct hld_cues *c, const hl_category_t *m,
                                   struct hld_category **spare, struct hld_category *into);

#endif /* HLD_CUES_INT_H */
