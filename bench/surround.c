/*
 * surround.c - the same 5.1 scene rendered through OpenAL Soft's loopback
 * device (ALC_5POINT1_SOFT, the system's libopenal) and through the heliod
 * daemon (`heliod --render SCORE --layout 5.1`, HELIOD_BIN or --heliod) at
 * 8 directions round the listener: a DC mono source at 1 m (no distance
 * attenuation in either), each channel's gain measured on the rendered
 * samples. Per direction the six gains of each, their summed power (dB),
 * the power difference and each one's loudest speaker pair; then one
 * machine-readable line:
 *
 *   surround_openal dirs=8 heliod_power_db_min=.. heliod_power_db_max=..
 *       heliod_centre_dirs=N openal_power_db_min=.. openal_power_db_max=..
 *       openal_centre_dirs=N power_diff_db_max=.. pair_same=N speakers_heliod_max=N
 *       speakers_openal_max=N failed=N
 *
 * (OpenAL Soft calls its 5.1 rear pair SL SR: the same channels and
 * +-110 degree speakers as heliod's BL BR, named so in the pairs.)
 * (centre_dirs: directions where the centre gets more than -40 dB; speakers:
 * channels above -40 dB in one direction.) What is comparable is asserted
 * (failed counts the misses, the exit status is 1 with any): the summed
 * powers within POWER_TOL_DB of each other, and the loudest pair of speakers
 * the same in every direction but straight ahead, where by design heliod
 * puts the source on the centre and OpenAL Soft 1.19.1 (which never feeds
 * the centre) on a phantom between FL and FR.
 */
#define AL_ALEXT_PROTOTYPES 1 /* the system library exports the loopback calls */
#include <AL/al.h>
#include <AL/alc.h>
#include <AL/alext.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sndfile.h>

#include "bench_opts.h"

#define RATE         48000
#define FRAMES       4096
#define DIRS         8
#define CH           6
#define DC           0.5f
#define SEG          4800  /* frames between heliod's plays */
#define SLEN         2400  /* frames each play sounds */
#define POWER_TOL_DB 3.0   /* OpenAL Soft's power dips 2.7 dB ahead: the stated tolerance */
#define AUDIBLE      0.01f /* -40 dB */

static const char *const k_spk[CH] = {"FL", "FR", "FC", "LFE", "BL", "BR"};

static int openal_gains(float az, float g[CH]) {
    ALCdevice *dev = alcLoopbackOpenDeviceSOFT(NULL);
    if (!dev) return -1;
    ALCint attrs[] = {ALC_FORMAT_CHANNELS_SOFT,
                      ALC_5POINT1_SOFT,
                      ALC_FORMAT_TYPE_SOFT,
                      ALC_FLOAT_SOFT,
                      ALC_FREQUENCY,
                      RATE,
                      ALC_HRTF_SOFT,
                      ALC_FALSE,
                      0};
    ALCcontext *ctx = alcCreateContext(dev, attrs);
    if (!ctx) {
        alcCloseDevice(dev);
        return -1;
    }
    alcMakeContextCurrent(ctx);
    alDistanceModel(AL_NONE);
    static float dc[RATE];
    for (int i = 0; i < RATE; i++)
        dc[i] = DC;
    ALuint buf, src;
    alGenBuffers(1, &buf);
    alBufferData(buf, AL_FORMAT_MONO_FLOAT32, dc, sizeof dc, RATE);
    alGenSources(1, &src);
    alSourcei(src, AL_BUFFER, (ALint)buf);
    alSourcei(src, AL_LOOPING, AL_TRUE);
    /* listener at the origin facing -z, +x right; az positive to the left */
    alSource3f(src, AL_POSITION, -sinf(az), 0.0f, -cosf(az));
    alSourcePlay(src);
    static float out[FRAMES * CH];
    alcRenderSamplesSOFT(dev, out, FRAMES); /* settle (gain ramps) */
    alcRenderSamplesSOFT(dev, out, FRAMES);
    for (int c = 0; c < CH; c++) {
        double s = 0;
        for (int i = FRAMES / 2; i < FRAMES; i++)
            s += out[i * CH + c];
        g[c] = (float)(s / (FRAMES / 2) / DC);
    }
    alSourceStop(src);
    alDeleteSources(1, &src);
    alDeleteBuffers(1, &buf);
    alcMakeContextCurrent(NULL);
    alcDestroyContext(ctx);
    alcCloseDevice(dev);
    return 0;
}

/* Renders the 8 directions through the daemon offline; g[d][c] the gain of
 * channel c at direction d, measured in the middle of its play. */
static int heliod_gains(const char *heliod, float g[DIRS][CH]) {
    char dir[] = "/tmp/heliod-surround-XXXXXX", snd[300], score[300], out[300], log[300];
    if (!mkdtemp(dir)) return -1;
    snprintf(snd, sizeof snd, "%s/dc.wav", dir);
    snprintf(score, sizeof score, "%s/score.txt", dir);
    snprintf(out, sizeof out, "%s/out.wav", dir);
    snprintf(log, sizeof log, "%s/heliod.log", dir);
    SF_INFO si = {.samplerate = RATE, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
    SNDFILE *sf = sf_open(snd, SFM_WRITE, &si);
    if (!sf) return -1;
    static float dc[SLEN];
    for (int i = 0; i < SLEN; i++)
        dc[i] = DC;
    sf_writef_float(sf, dc, SLEN);
    sf_close(sf);
    FILE *f = fopen(score, "w");
    if (!f) return -1;
    fprintf(f, "load dc %s\n", snd);
    for (int d = 0; d < DIRS; d++) {
        double az = d * 2.0 * M_PI / DIRS; /* x right, -z ahead */
        fprintf(f, "@%d play dc --fade-in 0 --pos %.6f,0,%.6f\n", (d + 1) * SEG, -sin(az),
                -cos(az));
    }
    fprintf(f, "@%d end\n", (DIRS + 1) * SEG);
    fclose(f);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (!freopen(log, "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(126);
        execlp(heliod, heliod, "--render", score, "--out", out, "--layout", "5.1", (char *)NULL);
        _exit(127);
    }
    int status = 0, rc = -1;
    if (waitpid(pid, &status, 0) == pid && WIFEXITED(status)) rc = WEXITSTATUS(status);
    if (rc != 0) fprintf(stderr, "surround: %s --render exited %d (log %s)\n", heliod, rc, log);
    si = (SF_INFO){0};
    sf = rc == 0 ? sf_open(out, SFM_READ, &si) : NULL;
    float *x = sf && si.channels == CH ? malloc((size_t)si.frames * CH * sizeof *x) : NULL;
    if (x && sf_readf_float(sf, x, si.frames) == si.frames && si.frames >= (DIRS + 1) * SEG) {
        for (int d = 0; d < DIRS; d++) {
            const size_t i = (size_t)(d + 1) * SEG + SLEN / 2; /* steady: past the first block */
            for (int c = 0; c < CH; c++)
                g[d][c] = x[i * CH + (size_t)c] / DC;
        }
    } else {
        rc = -1;
    }
    free(x);
    if (sf) sf_close(sf);
    if (rc == 0) unlink(log);
    unlink(out);
    unlink(snd);
    unlink(score);
    rmdir(dir);
    return rc;
}

/* The loudest two channels of g (a before b). */
static void loudest_pair(const float g[CH], int *a, int *b) {
    *a = *b = -1;
    for (int c = 0; c < CH; c++) {
        if (*a < 0 || fabsf(g[c]) > fabsf(g[*a])) {
            *b = *a;
            *a = c;
        } else if (*b < 0 || fabsf(g[c]) > fabsf(g[*b])) {
            *b = c;
        }
    }
}

static int same_pair(int a0, int b0, int a1, int b1) {
    return (a0 == a1 && b0 == b1) || (a0 == b1 && b0 == a1);
}

int main(int argc, char **argv) {
    const char *heliod = getenv("HELIOD_BIN") ? getenv("HELIOD_BIN") : "build/daemon/heliod";
    const bo_opt_t opts[] = {{"heliod", 's', &heliod}, {NULL, 0, NULL}};
    bo_parse(argc, argv, opts,
             "[--heliod PATH]   the daemon to run (default $HELIOD_BIN, else build/daemon/heliod)");
    float h[DIRS][CH];
    if (heliod_gains(heliod, h) != 0) return 1;
    double hmin = 1e9, hmax = -1e9, omin = 1e9, omax = -1e9, dmax = 0;
    int hc = 0, oc = 0, same = 0, failed = 0, hs_max = 0, os_max = 0;
    printf("az    | heliod FL FR FC LFE BL BR: power, pair | OpenAL Soft FL FR FC LFE SL SR: "
           "power, pair | power diff\n");
    for (int d = 0; d < DIRS; d++) {
        float az = (float)d * 2.0f * (float)M_PI / DIRS, o[CH];
        if (openal_gains(az, o) != 0) {
            fprintf(stderr, "surround: no OpenAL Soft loopback device\n");
            return 1;
        }
        double ph = 0, po = 0;
        int hs = 0, os = 0;
        for (int c = 0; c < CH; c++) {
            ph += (double)h[d][c] * h[d][c];
            po += (double)o[c] * o[c];
            hs += fabsf(h[d][c]) > AUDIBLE;
            os += fabsf(o[c]) > AUDIBLE;
        }
        const double dh = 10 * log10(ph), dO = 10 * log10(po), diff = dh - dO;
        hmin = fmin(hmin, dh);
        hmax = fmax(hmax, dh);
        omin = fmin(omin, dO);
        omax = fmax(omax, dO);
        dmax = fmax(dmax, fabs(diff));
        hs_max = hs > hs_max ? hs : hs_max;
        os_max = os > os_max ? os : os_max;
        hc += fabsf(h[d][2]) > AUDIBLE;
        oc += fabsf(o[2]) > AUDIBLE;
        int ha, hb, oa, ob;
        loudest_pair(h[d], &ha, &hb);
        loudest_pair(o, &oa, &ob);
        const int sp = same_pair(ha, hb, oa, ob);
        same += sp;
        /* comparable: the power; the pair, except ahead (heliod's centre, by design) */
        const int bad = fabs(diff) > POWER_TOL_DB || (d != 0 && !sp);
        failed += bad;
        printf("%4.0f° | %.2f %.2f %.2f %.2f %.2f %.2f: %+.2f dB, %s+%s | %.2f %.2f %.2f %.2f %.2f "
               "%.2f: %+.2f dB, %s+%s | %+.2f dB%s\n",
               az * 180.0f / (float)M_PI, h[d][0], h[d][1], h[d][2], h[d][3], h[d][4], h[d][5], dh,
               k_spk[ha], k_spk[hb], o[0], o[1], o[2], o[3], o[4], o[5], dO, k_spk[oa], k_spk[ob],
               diff, bad ? "  FAILED" : "");
    }
    printf("surround_openal dirs=%d heliod_power_db_min=%.2f heliod_power_db_max=%.2f "
           "heliod_centre_dirs=%d openal_power_db_min=%.2f openal_power_db_max=%.2f "
           "openal_centre_dirs=%d power_diff_db_max=%.2f pair_same=%d speakers_heliod_max=%d "
           "speakers_openal_max=%d failed=%d\n",
           DIRS, hmin, hmax, hc, omin, omax, oc, dmax, same, hs_max, os_max, failed);
    return failed ? 1 : 0;
}
