/* corpus_dump_main.c - gen_corpus.py's decoder: one hex frame a line on
 * stdin; prints each frame's decoded request, then a line ".". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_dump.h"
#include "hl_proto.h"

int main(void) {
    static char line[2 * HL_MAX_FRAME + 16];
    static uint8_t frame[HL_MAX_FRAME];
    static char out[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strcspn(line, "\r\n") / 2;
        for (size_t i = 0; i < n; i++) {
            unsigned b;
            if (sscanf(line + 2 * i, "%2x", &b) != 1) return 1;
            frame[i] = (uint8_t)b;
        }
        int rc = corpus_dump(frame, n, out, sizeof out);
        printf("%s%s\n.\n", out, rc ? "error=does not decode" : "");
    }
    return 0;
}
