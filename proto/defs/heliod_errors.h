/*
 * heliod_errors.h - the one table of heliod error codes.
 *
 * Every error that crosses the wire, and every error libheliod returns, is one
 * of these fixed negative numbers. The X-macro generates the enum, the names and
 * the messages so they can never drift apart. Wire codes are never raw errno
 * values. Installed with the public client header; safe to include on its own.
 */
#ifndef HELIOD_ERRORS_H
#define HELIOD_ERRORS_H

/* X(NAME, value, message) */
#define HELIOD_ERRNO_MAP(X)                                                                        \
    X(OK, 0, "success")                                                                            \
    X(EPROTO, -1, "malformed frame")                                                               \
    X(EVERSION, -2, "unsupported protocol version")                                                \
    X(EBADOP, -3, "unknown opcode")                                                                \
    X(EINVAL, -4, "invalid argument")                                                              \
    X(ENOSOUND, -5, "no such sound")                                                               \
    X(ENOVOICE, -6, "no such voice")                                                               \
    X(EEXIST, -7, "a sound or bus with that name already exists")                                  \
    X(EBUSY, -8, "engine busy: command queue full, try again")                                     \
    X(ENOVOICES, -9, "voice pool full and priority too low to steal a voice")                      \
    X(EFILE, -10, "cannot open file")                                                              \
    X(EDECODE, -11, "cannot decode file")                                                          \
    X(EINUSE, -12, "sound is in use by playing voices")                                            \
    X(ETOOBIG, -13, "frame or field too large")                                                    \
    X(ENOMEM, -14, "out of memory or over a configured limit")                                     \
    X(ENAME, -15, "invalid name")                                                                  \
    X(ENOBUS, -16, "no such bus")                                                                  \
    X(ENODEV, -17, "no such audio device")                                                         \
    X(ECONNECT, -18, "cannot connect to the heliod socket")                                        \
    X(ECLOSED, -19, "connection closed")                                                           \
    X(EHANDSHAKE, -20, "handshake required before any other request")                              \
    X(EIO, -21, "input/output error")                                                              \
    X(ETIMEDOUT, -22, "timed out")                                                                 \
    X(ESHUTDOWN, -23, "daemon is shutting down")                                                   \
    X(EINTERVAL, -24, "cue played again inside its min-interval")                                  \
    X(EDISTANCE, -25, "beyond the cue's max distance")                                             \
    X(ECUELIMIT, -26, "cue at its max-instances and its policy refuses")                           \
    X(ECATLIMIT, -27, "category at its max-instances and its policy refuses")                      \
    X(ENOCATEGORY, -28, "no such category")                                                        \
    X(ENOEMITTER, -29, "no such emitter")                                                          \
    X(EPERM, -30, "not permitted: it belongs to another client")                                   \
    X(EQUOTA, -31, "over a per-client quota")                                                      \
    X(EBUSINUSE, -32, "bus is in use (voices, sends, effects, child buses or ducking)")            \
    X(ENOFX, -33, "no such effect on that bus")                                                    \
    X(ELOADING, -34, "still loading: its sound or bank is not ready yet")                          \
    X(ECANCELED, -35, "load cancelled")

typedef enum {
#define HELIOD_ERR_ENUM_(name, val, msg) HELIOD_##name = (val),
    HELIOD_ERRNO_MAP(HELIOD_ERR_ENUM_)
#undef HELIOD_ERR_ENUM_
} heliod_errno_t;

#define HELIOD_ERR_MIN (-35) /* most negative defined code */

#endif /* HELIOD_ERRORS_H */
