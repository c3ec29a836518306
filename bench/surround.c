/*
 * surround.c - the same 5.1 scene through OpenAL Soft's loopback device
 * (ALC_5POINT1_SOFT, the system's libopenal) and through heliod's speaker
 * panner (hl_layout_pan, daemon/mixer/dsp/layout.c) at 8 directions round
 * the listener: a DC mono source at 1 m, no distance attenuation. Per
 * direction the six channel gains, the summed power (dB) and the centre's
 * gain; then one machine-readable line:
 *
 *   surround_openal: dirs=8 heliod_power_db_min=.. heliod_power_db_max=..
 *       heliod_centre_dirs=N openal_power_db_min=.. openal_power_db_max=..
 *       openal_centre_dirs=N
 *
 * (centre_dirs: directions where the centre gets more than -40 dB.)
 * heliod's figures are its panner's law, as the mixer would apply it; the
 * OpenAL ones are measured on rendered samples.
 */
#define AL_ALEXT_PROTOTYPES 1 /* the system library exports the loopback calls */
#include <AL/al.h>
#include <AL/alc.h>
#include <AL/alext.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hl_layout.h"

#define RATE   48000
#define FRAMES 4096
#define DIRS   8

static int openal_gains(float az, float g[6]) {
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
        dc[i] = 0.5f;
    ALuint buf, src;
    alGenBuffers(1, &buf);
    alBufferData(buf, AL_FORMAT_MONO_FLOAT32, dc, sizeof dc, RATE);
    alGenSources(1, &src);
    alSourcei(src, AL_BUFFER, (ALint)buf);
    alSourcei(src, AL_LOOPING, AL_TRUE);
    /* listener at the origin facing -z, +x right; az positive to the left */
    alSource3f(src, AL_POSITION, -sinf(az), 0.0f, -cosf(az));
    alSourcePlay(src);
    static float out[FRAMES * 6];
    alcRenderSamplesSOFT(dev, out, FRAMES); /* settle (gain ramps) */
    alcRenderSamplesSOFT(dev, out, FRAMES);
    for (int c = 0; c < 6; c++) {
        double s = 0;
        for (int i = FRAMES / 2; i < FRAMES; i++)
            s += out[i * 6 + c];
        g[c] = (float)(s / (FRAMES / 2) / 0.5);
    }
    alSourceStop(src);
    alDeleteSources(1, &src);
    alDeleteBuffers(1, &buf);
    alcMakeContextCurrent(NULL);
    alcDestroyContext(ctx);
    alcCloseDevice(dev);
    return 0;
}

int main(void) {
    double hmin = 1e9, hmax = -1e9, omin = 1e9, omax = -1e9;
    int hc = 0, oc = 0;
    printf("az    | heliod FL FR FC LFE BL BR: power, centre | OpenAL Soft FL FR FC LFE SL SR: "
           "power, centre\n");
    for (int d = 0; d < DIRS; d++) {
        float az = (float)d * 2.0f * (float)M_PI / DIRS, h[6], o[6];
        hl_layout_pan(HL_LAYOUT_51, az, h);
        if (openal_gains(az, o) != 0) {
            fprintf(stderr, "surround: no OpenAL Soft loopback device\n");
            return 1;
        }
        double ph = 0, po = 0;
        for (int c = 0; c < 6; c++) {
            ph += (double)h[c] * h[c];
            po += (double)o[c] * o[c];
        }
        double dh = 10 * log10(ph), dO = 10 * log10(po);
        hmin = fmin(hmin, dh);
        hmax = fmax(hmax, dh);
        omin = fmin(omin, dO);
        omax = fmax(omax, dO);
        hc += fabsf(h[2]) > 0.01f;
        oc += fabsf(o[2]) > 0.01f;
        printf("%4.0f° | %.2f %.2f %.2f %.2f %.2f %.2f: %+.2f dB, %.2f | %.2f %.2f %.2f %.2f %.2f "
               "%.2f: %+.2f dB, %.2f\n",
               az * 180.0f / (float)M_PI, h[0], h[1], h[2], h[3], h[4], h[5], dh, h[2], o[0], o[1],
               o[2], o[3], o[4], o[5], dO, o[2]);
    }
    printf("surround_openal: dirs=%d heliod_power_db_min=%.2f heliod_power_db_max=%.2f "
           "heliod_centre_dirs=%d openal_power_db_min=%.2f openal_power_db_max=%.2f "
           "openal_centre_dirs=%d\n",
           DIRS, hmin, hmax, hc, omin, omax, oc);
    return 0;
}
