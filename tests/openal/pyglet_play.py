#!/usr/bin/env python3
"""pyglet on OpenAL, headless: a WAV played static, then streamed, then a
positional (mono) player moved from left to right. Prints the driver pyglet
chose and what each part took."""
import math, os, struct, sys, time
import pyglet

pyglet.options['audio'] = ('openal',)
pyglet.options['shadow_window'] = False
pyglet.options['headless'] = True
import pyglet.media
from pyglet.media.drivers import get_audio_driver

wav = sys.argv[1]
drv = get_audio_driver()
print("driver=%s" % type(drv).__module__)


def run(player, seconds, step=None):
    player.play()
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        pyglet.clock.tick()
        if step:
            step((time.monotonic() - t0) / seconds)
        time.sleep(0.01)
    player.pause()
    player.delete()


src = pyglet.media.load(wav, streaming=False)
p = pyglet.media.Player()
p.queue(src)
run(p, src.duration + 0.1)
src = pyglet.media.load(wav, streaming=True)
p = pyglet.media.Player()
p.queue(src)
run(p, 0.6)
src = pyglet.media.load(wav, streaming=False)
p = pyglet.media.Player()
p.queue(src)
p.min_distance = 1.0
p.position = (-5.0, 0.0, -0.01)
run(p, 0.6, lambda f: setattr(p, "position", (-5.0 + 10.0 * f, 0.0, -0.01)))
print("done")
