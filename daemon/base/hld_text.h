/*
 * hld_text.h - text helpers of the daemon's line parsers (config, bank
 * manifests, cue sheets), each defined once here (header only).
 */
#ifndef HLD_TEXT_H
#define HLD_TEXT_H

#include <string.h>

/* s without its leading and trailing white space (space, \t, \n, \r, \f,
 * \v): the end is cut in place, the start returned. */
static inline char *hld_trim(char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r' ||
                 s[n - 1] == '\f' || s[n - 1] == '\v'))
        s[--n] = '\0';
    return s;
}

#endif /* HLD_TEXT_H */
