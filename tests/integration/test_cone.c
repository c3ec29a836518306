/*
 * test_cone.c - sound cones (protocol 1.1) against OpenAL Soft.
 *
 * The same scene twice: a looping mono DC source 2 m in front of the
 * listener, its cone (inner 50, outer 250 degrees, outer gain 0.25) turned
 * to 8 angles away from the listener. heliod renders it offline
 * (`heliod --render`: an emitter whose cone the score turns every 0.2 s);
 * OpenAL Soft renders it through its loopback device (ALC_SOFT_loopback,
 * stereo float, no HRTF). Each angle's level relative to the on-axis level
 * (the distance and the pan cancel) must agree within 0.5 dB, and both with
 * OpenAL 1.1's definition. Then the refusals: a cone with inner > outer,
 * NaN, an unknown emitter or cue, a 1.0 connection.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <AL/al.h>
#include <AL/alc.h>
#include <AL/alext.h>
#include <cmocka.h>
#include <sndfile.h>

#include "harness.h"
#include "heliod.h"

#define RATE    48000
#define SEG     9600 /* frames per angle */
#define NANGLES 8
#define INNER   50.0
#define OUTER   250.0
#define OGAIN   0.25

static const double k_angles[NANGLES] = {15, 30, 45, 60, 80, 100, 120, 170};
static char g_dir[256];

/* OpenAL 1.1: the full angle between the cone's axis and the listener. */
static double cone_def(double theta) {
    double a = 2.0 * theta;
    if (a <= INNER) return 1.0;
    if (a >= OUTER) return OGAIN;
    return 1.0 + (OGAIN - 1.0) * (a - INNER) / (OUTER - INNER);
}

static double db(double x) {
    return 10.0 * log10(x);
}

/* Mean power (L^2 + R^2) of frames [a, b) of interleaved stereo x. */
/* OpenAL Soft's levels: rel[k] = power at k_angles[k] / power on axis. 0 or -1. */
static int openal_levels(double rel[NANGLES]) {
    LPALCLOOPBACKOPENDEVICESOFT open_loop;
    LPALCRENDERSAMPLESSOFT render;
    void *p1 = alcGetProcAddress(NULL, "alcLoopbackOpenDeviceSOFT");
    void *p2 = alcGetProcAddress(NULL, "alcRenderSamplesSOFT");
    memcpy(&open_loop, &p1, sizeof open_loop); /* ISO C: no object-to-function cast */
    memcpy(&render, &p2, sizeof render);
    if (!open_loop || !render) return -1;
    ALCdevice *dev = open_loop(NULL);
    if (!dev) return -1;
    ALCint attrs[] = {ALC_FORMAT_CHANNELS_SOFT,
                      ALC_STEREO_SOFT,
                      ALC_FORMAT_TYPE_SOFT,
                      ALC_FLOAT_SOFT,
                      ALC_FREQUENCY,
                      RATE,
                      ALC_HRTF_SOFT,
                      ALC_FALSE,
                      0};
    ALCcontext *ctx = alcCreateContext(dev, attrs);
    if (!ctx || !alcMakeContextCurrent(ctx)) return -1;
    static float mono[RATE];
    for (int i = 0; i < RATE; i++)
        mono[i] = 0.1f;
    ALuint buf, src;
    alGenBuffers(1, &buf);
    alBufferData(buf, AL_FORMAT_MONO_FLOAT32, mono, sizeof mono, RATE);
    alGenSources(1, &src);
    alSourcei(src, AL_BUFFER, (ALint)buf);
    alSourcei(src, AL_LOOPING, AL_TRUE);
    alSource3f(src, AL_POSITION, 0, 0, -2);
    alSourcef(src, AL_CONE_INNER_ANGLE, (ALfloat)INNER);
    alSourcef(src, AL_CONE_OUTER_ANGLE, (ALfloat)OUTER);
    alSourcef(src, AL_CONE_OUTER_GAIN, (ALfloat)OGAIN);
    alSourcePlay(src);
    static float out[2 * SEG];
    double p[NANGLES + 1];
    for (int k = 0; k <= NANGLES; k++) {
        double t = k ? k_angles[k - 1] * M_PI / 180.0 : 0.0;
        alSource3f(src, AL_DIRECTION, (ALfloat)sin(t), 0, (ALfloat)cos(t));
        render(dev, out, SEG);
        p[k] = th_power_stereo(out, SEG / 2, SEG);
    }
    int ok = alGetError() == AL_NO_ERROR;
    alDeleteSources(1, &src);
    alDeleteBuffers(1, &buf);
    alcMakeContextCurrent(NULL);
    alcDestroyContext(ctx);
    alcCloseDevice(dev);
    for (int k = 0; k < NANGLES; k++)
        rel[k] = p[k + 1] / p[0];
    return ok && p[0] > 0 ? 0 : -1;
}

static int heliod_levels(double rel[NANGLES]) {
    char dc[300], score[300], out[300];
    snprintf(dc, sizeof dc, "%s/dc.wav", g_dir);
    snprintf(score, sizeof score, "%s/score.txt", g_dir);
    snprintf(out, sizeof out, "%s/out.wav", g_dir);
    if (th_write_sound(dc, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 1, RATE, RATE, th_gen_dc, NULL) != 0)
        return -1;
    FILE *f = fopen(score, "w");
    if (!f) return -1;
    fprintf(f, "load dc %s\nemitter create e --pos 0,0,-2\n", dc);
    fprintf(f, "cone --emitter e --dir 0,0,1 --inner %g --outer %g --outer-gain %g\n", INNER, OUTER,
            OGAIN);
    fprintf(f, "@1 play dc --emitter e --loop --fade-in 0\n");
    for (int k = 0; k < NANGLES; k++) {
        double t = k_angles[k] * M_PI / 180.0;
        fprintf(f, "@%d cone --emitter e --dir %.9f,0,%.9f --inner %g --outer %g --outer-gain %g\n",
                (k + 1) * SEG, sin(t), cos(t), INNER, OUTER, OGAIN);
    }
    fprintf(f, "@%d end\n", (NANGLES + 1) * SEG);
    fclose(f);
    if (th_render(score, out, NULL, NULL) != 0) return -1;
    float *x = NULL;
    size_t n = 0;
    int ch = 0, rate = 0;
    if (th_read_sound(out, &x, &n, &ch, &rate) != 0 || ch != 2 || n < (NANGLES + 1) * SEG)
        return -1;
    /* cone is not scheduled: the render applies it at the start of the period
     * it falls in, so each window ends a period (and more) early */
    double p0 = th_power_stereo(x, SEG / 2, SEG - 600);
    for (int k = 0; k < NANGLES; k++)
        rel[k] =
            th_power_stereo(x, (size_t)(k + 1) * SEG + SEG / 2, (size_t)(k + 2) * SEG - 600) / p0;
    free(x);
    return p0 > 0 ? 0 : -1;
}

static void test_cone_vs_openal(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/heliod-cone-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    double ours[NANGLES], al[NANGLES];
    assert_int_equal(heliod_levels(ours), 0);
    assert_int_equal(openal_levels(al), 0);
    double worst = 0;
    for (int k = 0; k < NANGLES; k++) {
        double want = 2.0 * 20.0 * log10(cone_def(k_angles[k])) / 2.0; /* power dB = 20 log g */
        double d = fabs(db(ours[k]) - db(al[k]));
        print_message("angle %5.1f: heliod %7.3f dB, OpenAL Soft %7.3f dB, OpenAL 1.1 %7.3f dB\n",
                      k_angles[k], db(ours[k]), db(al[k]), want);
        assert_true(d < 0.5);
        assert_true(fabs(db(ours[k]) - want) < 0.05);
        if (d > worst) worst = d;
    }
    print_message("cones: worst difference to OpenAL Soft %.3f dB over %d angles\n", worst,
                  NANGLES);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    assert_int_equal(system(cmd), 0);
}

static void test_cone_refusals(void **state) {
    th_fixture_t *fx = *state;
    heliod_t *h = th_fixture_connect(fx, "cone");
    assert_non_null(h);
    const float dir[3] = {0, 0, 1}, nan3[3] = {NAN, 0, 0};
    assert_int_equal(heliod_emitter_create(h, "e", (const float[3]){0, 0, -2}, NULL, 0), 0);
    assert_int_equal(heliod_cone(h, HELIOD_CONE_EMITTER, 0, "e", dir, 90, 60, 0.5f), HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "inner_deg"));
    assert_int_equal(heliod_cone(h, HELIOD_CONE_EMITTER, 0, "e", nan3, 60, 90, 0.5f),
                     HELIOD_EINVAL);
    assert_int_equal(heliod_cone(h, HELIOD_CONE_EMITTER, 0, "e", dir, 60, 400, 0.5f),
                     HELIOD_EINVAL);
    assert_int_equal(heliod_cone(h, HELIOD_CONE_EMITTER, 0, "e", dir, 60, 90, 1.5f), HELIOD_EINVAL);
    assert_int_equal(heliod_cone(h, HELIOD_CONE_EMITTER, 0, "nosuch", dir, 60, 90, 0.5f),
                     HELIOD_ENOEMITTER);
    assert_int_equal(heliod_cone(h, HELIOD_CONE_CUE, 0, "nosuch", dir, 60, 90, 0.5f),
                     HELIOD_EINVAL);
    assert_int_equal(heliod_cone(h, HELIOD_CONE_VOICE, 12345, NULL, dir, 60, 90, 0.5f),
                     HELIOD_ENOVOICE);
    assert_int_equal(heliod_cone(h, HELIOD_CONE_EMITTER, 0, "e", dir, 60, 90, 0.5f), 0);
    /* the outer low-pass (an optional trailing field): 0 or up to 96 kHz */
    assert_int_equal(heliod_cone_lp(h, HELIOD_CONE_EMITTER, 0, "e", dir, 60, 90, 0.5f, -1.0f),
                     HELIOD_EINVAL);
    assert_non_null(strstr(heliod_last_error(h), "outer_lp_hz"));
    assert_int_equal(heliod_cone_lp(h, HELIOD_CONE_EMITTER, 0, "e", dir, 60, 90, 0.5f, 1e6f),
                     HELIOD_EINVAL);
    assert_int_equal(heliod_cone_lp(h, HELIOD_CONE_EMITTER, 0, "e", dir, 60, 90, 0.5f, NAN),
                     HELIOD_EINVAL);
    assert_int_equal(heliod_cone_lp(h, HELIOD_CONE_EMITTER, 0, "e", dir, 60, 90, 0.5f, 2000.0f), 0);
    heliod_close(h);
    /* heliodctl's --outer-lp reaches the same check */
    char out[512], err[512];
    const char *bad[] = {"cone", "--cue", "c", "--dir", "0,0,1", "--outer-lp", "-5", NULL};
    assert_int_not_equal(th_ctl(&fx->d, out, sizeof out, err, sizeof err, bad), 0);
    assert_non_null(strstr(err, "outer_lp_hz"));
}

static int setup_daemon(void **state) {
    return th_fixture_start(state, 0, NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cone_vs_openal),
        cmocka_unit_test_setup_teardown(test_cone_refusals, setup_daemon, th_fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
