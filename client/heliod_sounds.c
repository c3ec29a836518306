/*
 * heliod_sounds.c - libheliod's sounds: load by path, upload from memory (a
 * sealed memfd passed with LOAD_FD, or LOAD_DATA chunks), unload, and the
 * sound list. Built on the transport core's request helpers (heliod_int.h);
 * public structs come from the wire through heliod_conv.h.
 */
#include "heliod.h"
#include "heliod_conv.h"
#include "heliod_int.h"

#include "hl_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

_Static_assert(HELIOD_LOAD_STREAM == HL_LOAD_STREAM && HELIOD_LOAD_SHARED == HL_LOAD_SHARED &&
                   HELIOD_LOAD_COMPRESSED == HL_LOAD_COMPRESSED,
               "load flags are the protocol's");

/* An absolute form of path into *out (malloc'd; NULL when path already is
 * absolute): the daemon has its own working directory and refuses relative
 * paths. realpath() when the file exists, else the working directory joined
 * with path (the daemon then reports the missing file by its full name). */
static int absolute_path(heliod_t *h, const char *path, char **out) {
    *out = NULL;
    if (path[0] == '/') return 0;
    char *p = realpath(path, NULL);
    if (!p) {
        char *cwd = getcwd(NULL, 0);
        if (!cwd) return hlc_set_error(h, HELIOD_EINVAL, "relative path and no working directory");
        size_t n = strlen(cwd) + 1 + strlen(path) + 1;
        p = malloc(n);
        if (p) snprintf(p, n, "%s/%s", cwd, path);
        free(cwd);
        if (!p) return hlc_set_error(h, HELIOD_ENOMEM, NULL);
    }
    if (strlen(p) > HL_MAX_PATH) {
        free(p);
        return hlc_set_error(h, HELIOD_EINVAL, "path too long once made absolute");
    }
    *out = p;
    return 0;
}

int heliod_load(heliod_t *h, const char *name, const char *path, uint32_t flags,
                heliod_sound_info_t *info) {
    return heliod_load_range(h, name, path, 0, 0, flags, info);
}

int heliod_load_range(heliod_t *h, const char *name, const char *path, uint64_t offset,
                      uint64_t length, uint32_t flags, heliod_sound_info_t *info) {
    if ((offset || length || (flags & HELIOD_LOAD_COMPRESSED)) && heliod_protocol_minor(h) < 1)
        return hlc_set_error(h, HELIOD_EVERSION,
                             "a pack range or HELIOD_LOAD_COMPRESSED needs a protocol 1.1 daemon");
    if (offset + length < offset)
        return hlc_set_error(h, HELIOD_EINVAL, "offset + length overflows");
    if (!hl_name_valid(name)) return hlc_set_error(h, HELIOD_ENAME, "invalid sound name");
    if (!path || !*path || strlen(path) > HL_MAX_PATH)
        return hlc_set_error(h, HELIOD_EINVAL, "path empty or too long");
    if (flags &
        ~(HELIOD_LOAD_STREAM | HELIOD_LOAD_SHARED | HELIOD_LOAD_PIN | HELIOD_LOAD_COMPRESSED))
        return hlc_set_error(h, HELIOD_EINVAL, "unknown load flags");
    char *abs;
    int rc = absolute_path(h, path, &abs);
    if (rc < 0) return rc;
    hl_load_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "%s", name);
    snprintf(m.path, sizeof m.path, "%s", abs ? abs : path);
    free(abs);
    m.flags = flags;
    m.offset = offset;
    m.length = length;
    uint32_t id;
    rc = hlc_req_load(h, HL_OP_LOAD, 0, &m, &id);
    if (rc < 0) return rc;
    hl_rbuf_t r;
    if ((rc = hlc_wait_reply(h, id, HL_OP_LOAD, &r)) < 0) return rc;
    hl_sound_info_t s;
    hl_get_sound_info(&r, &s);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (info) hlc_from_sound_info(&s, info);
    return 0;
}

/* The bytes in a sealed memfd (NULL-free: -1 when memfd_create or a write
 * fails, so the caller falls back to chunks). */
static int upload_memfd(const void *data, size_t size) {
    int fd = memfd_create("heliod-upload", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    for (size_t off = 0; off < size;) {
        ssize_t n = write(fd, (const char *)data + off, size - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)n;
    }
    /* sealed: the daemon reads exactly what we wrote (best effort: it reads
     * with pread, so even an unsealed file cannot hurt it) */
    (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    return fd;
}

/* The upload as a descriptor (LOAD_FD). Returns 0 with *fallback = 1 when
 * fd passing is not available (memfd_create failed, HELIOD_UPLOAD=chunks,
 * or a daemon that does not know LOAD_FD: EBADOP); else the result. */
static int load_fd(heliod_t *h, const char *name, const void *data, size_t size, uint32_t flags,
                   heliod_sound_info_t *info, int *fallback) {
    *fallback = 1;
    const char *how = getenv("HELIOD_UPLOAD");
    if (how && strcmp(how, "chunks") == 0) return 0;
    int mfd = upload_memfd(data, size);
    if (mfd < 0) return 0;
    *fallback = 0;
    int rc = hlc_out_drain(h); /* the descriptor goes with the frame's first byte: send it alone */
    if (rc < 0) {
        close(mfd);
        return rc;
    }
    hl_load_fd_t m = {.flags = flags, .size = size};
    snprintf(m.name, sizeof m.name, "%s", name);
    hl_wbuf_t w;
    uint32_t id;
    if ((rc = hlc_req_begin(h, &w, HL_OP_LOAD_FD, 0, &id)) < 0) {
        close(mfd);
        return rc;
    }
    hl_put_load_fd(&w, &m);
    if ((rc = hlc_req_end(h, &w)) < 0) {
        close(mfd);
        return rc;
    }
    rc = hlc_send_fd(h, mfd);
    close(mfd); /* the daemon has its own now */
    if (rc < 0) return rc;
    hl_rbuf_t r;
    rc = hlc_wait_reply(h, id, HL_OP_LOAD_FD, &r);
    if (rc == HELIOD_EBADOP) { /* an older daemon: chunks */
        *fallback = 1;
        return 0;
    }
    if (rc < 0) return rc;
    hl_sound_info_t s;
    hl_get_sound_info(&r, &s);
    if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
    if (info) hlc_from_sound_info(&s, info);
    return 0;
}

int heliod_load_memory(heliod_t *h, const char *name, const void *data, size_t size, uint32_t flags,
                       heliod_sound_info_t *info) {
    if (!hl_name_valid(name)) return hlc_set_error(h, HELIOD_ENAME, "invalid sound name");
    if (!data || size == 0 || size > HL_MAX_UPLOAD)
        return hlc_set_error(h, HELIOD_EINVAL, "upload: 1 byte to 256 MiB of an encoded file");
    if (flags & ~(HELIOD_LOAD_SHARED | HELIOD_LOAD_PIN))
        return hlc_set_error(h, HELIOD_EINVAL, "upload: shared and pin are the only flags");
    if (!hlc_in_bundle(h)) {
        int fallback = 0;
        int frc = load_fd(h, name, data, size, flags, info, &fallback);
        if (!fallback) return frc;
    }
    hl_load_data_t m = {.flags = flags, .total = size};
    snprintf(m.name, sizeof m.name, "%s", name);
    int rc = 0;
    for (uint64_t off = 0; off < size; off += m.len) {
        m.offset = off;
        m.len = (uint32_t)(size - off < HL_MAX_CHUNK ? size - off : HL_MAX_CHUNK);
        m.data = (const uint8_t *)data + off;
        uint32_t id;
        if ((rc = hlc_req_load_data(h, HL_OP_LOAD_DATA, 0, &m, &id)) < 0) return rc;
        hl_rbuf_t r;
        if ((rc = hlc_wait_reply(h, id, HL_OP_LOAD_DATA, &r)) < 0) return rc;
        if (off + m.len < size) { /* a chunk: empty reply */
            if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
            continue;
        }
        hl_sound_info_t s; /* the last: the sound, decoded */
        hl_get_sound_info(&r, &s);
        if ((rc = hlc_reply_done(h, &r)) < 0) return rc;
        if (info) hlc_from_sound_info(&s, info);
    }
    return 0;
}

int heliod_unload(heliod_t *h, const char *name) {
    if (!hl_name_valid(name)) return hlc_set_error(h, HELIOD_ENAME, "invalid sound name");
    hl_name_t m;
    snprintf(m.name, sizeof m.name, "%s", name);
    return hlc_call_name(h, HL_OP_UNLOAD, &m);
}

int heliod_sounds(heliod_t *h, heliod_sound_info_t *arr, size_t cap, size_t *count) {
    HLC_LIST(h, HL_OP_SOUNDS, sound_info, arr, cap, count);
}
