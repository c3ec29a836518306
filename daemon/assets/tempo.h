/*
 * tempo.h - a music cue's tempo map: BPM and time signature, with tempo
 * changes at given beats (cue sheet `tempo = 120 4/4`, `tempo-change =
 * 64:140`). Pure arithmetic on integers, no allocation: the voice manager
 * turns beats into source positions and engine frames with it.
 *
 * The map, in source units of U units per second (engine frames for a
 * preloaded sound, the file's frames for a streamed one): segment i starts
 * at beat b_i (b_0 = 0) at the whole position P_i (P_0 = 0) with m_i
 * milli-BPM; beat k of segment i (b_i <= k < b_{i+1}) lies at
 *
 *     P_i + ceil((k - b_i) * 60000 * U / m_i)
 *
 * and P_{i+1} is that formula at k = b_{i+1}: every beat is on a whole
 * position, the first at or after its exact time, and no error accumulates
 * across beats (each is computed from its segment's start).
 */
#ifndef HLD_TEMPO_H
#define HLD_TEMPO_H

#include <stddef.h>
#include <stdint.h>

#define HLD_TEMPO_MAX_SEGS 32         /* the tempo and up to 31 changes */
#define HLD_TEMPO_MIN_MBPM 1000u      /* 1 BPM */
#define HLD_TEMPO_MAX_MBPM 1000000u   /* 1000 BPM */
#define HLD_TEMPO_MAX_BEAT 100000000u /* a change's beat */

typedef struct {
    uint32_t beat; /* first beat of the segment */
    uint32_t mbpm; /* milli-beats per minute */
} hld_tempo_seg_t;

typedef struct {
    uint8_t n;        /* segments; 0 = no tempo map */
    uint8_t num, den; /* time signature: num beats a bar, den the beat's note value */
    hld_tempo_seg_t seg[HLD_TEMPO_MAX_SEGS];
} hld_tempo_t;

/* `tempo = BPM [NUM/DEN]` (BPM 1..1000, decimals allowed; NUM 1..32, DEN
 * 1, 2, 4, 8, 16 or 32; default 4/4): sets the map's first segment and
 * drops its changes. 0, or -1 with *why naming the part. */
int hld_tempo_parse(hld_tempo_t *t, const char *v, const char **why);
/* `tempo-change = BEAT:BPM[, BEAT:BPM ...]`: appends changes, each at a beat
 * after the previous one's (needs `tempo` first). 0 or -1 with *why. */
int hld_tempo_parse_change(hld_tempo_t *t, const char *v, const char **why);

/* The map as the cue-sheet lines that set it again: line 0 the `tempo`
 * value ("BPM NUM/DEN"), line i (1..n-1) a `tempo-change` value
 * ("BEAT:BPM"), into buf (cap bytes). 0, or -1 past the map. */
int hld_tempo_line(const hld_tempo_t *t, unsigned i, char *buf, size_t cap);

/* Source position of beat k (units_per_s: U above). */
uint64_t hld_tempo_beat_pos(const hld_tempo_t *t, uint64_t k, uint32_t units_per_s);
/* The first beat whose position is >= pos. */
uint64_t hld_tempo_beat_at(const hld_tempo_t *t, double pos, uint32_t units_per_s);
/* The segment beat k is in. */
const hld_tempo_seg_t *hld_tempo_seg_of(const hld_tempo_t *t, uint64_t k);

#endif /* HLD_TEMPO_H */
