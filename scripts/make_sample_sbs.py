#!/usr/bin/env python3
"""Writes the bundled synthetic side-by-side clip (deterministic, no third-party content, no dependencies).

Usage: python3 scripts/make_sample_sbs.py [OUT.y4m | -] [--frames N] [--eye WxH] [--split LEFT.y4m RIGHT.y4m]
("-" writes to standard output; --split writes each eye to its own file instead of one SBS clip.)
Default: Conformance/files/sample_sbs_320x96.y4m — 30 frames at 30 fps, two 160x96 eyes side by side
(left eye in the left half), 8-bit 4:2:0 (C420jpeg).

The scene is rendered separately for each eye with real horizontal parallax: every object has a depth
expressed as a disparity d (pixels); an object at scene position X appears at X + d/2 in the left eye and
X - d/2 in the right eye, with its texture attached to the object, so a stereo matcher finds the disparities
below and nearer objects hide farther ones:
  background: checker + diagonal ramp texture, d = 2 px (far), slowly panning;
  disc:       concentric rings, d = 6 px, moving right;
  bar:        vertical stripes, d = 12 px (near), moving left.
"""
import sys


def render(eye_w, eye_h, t, eye):
    """One eye (eye = -1 left, +1 right): luma rows and an object id per pixel (for chroma)."""
    sign = 1 if eye < 0 else -1  # left eye sees objects shifted right by d/2
    luma = bytearray(eye_w * eye_h)
    obj = bytearray(eye_w * eye_h)
    cx, cy, r = 40 + 2 * t, eye_h // 2, eye_h // 4           # disc
    bx0, bx1, by0, by1 = 110 - 2 * t, 140 - 2 * t, 10, eye_h - 10  # bar
    for y in range(eye_h):
        for x in range(eye_w):
            # Nearest first. Scene coordinate = image x - sign * d/2.
            d = 12
            sx = x - sign * d / 2
            if bx0 <= sx < bx1 and by0 <= y < by1:
                u = int(sx - bx0)
                luma[y * eye_w + x] = 200 if (u // 3) % 2 == 0 else 90
                obj[y * eye_w + x] = 2
                continue
            d = 6
            sx = x - sign * d / 2
            dx, dy = sx - cx, y - cy
            dist2 = dx * dx + dy * dy
            if dist2 < r * r:
                ring = int(dist2 ** 0.5) // 3
                luma[y * eye_w + x] = 170 if ring % 2 == 0 else 60
                obj[y * eye_w + x] = 1
                continue
            d = 2
            sx = int(round(x - sign * d / 2)) + t  # background pans one pixel per frame
            checker = ((sx // 8) + (y // 8)) % 2
            luma[y * eye_w + x] = (40 + (sx * 3 + y * 2) % 90 + 50 * checker) & 0xFF
            obj[y * eye_w + x] = 0
    return luma, obj


CHROMA = {0: (128, 128), 1: (90, 180), 2: (170, 80)}


def main():
    args = sys.argv[1:]
    out = "Conformance/files/sample_sbs_320x96.y4m"
    frames, eye_w, eye_h = 30, 160, 96
    split = None
    i = 0
    while i < len(args):
        if args[i] == "--frames":
            frames = int(args[i + 1]); i += 2
        elif args[i] == "--split":
            split = (args[i + 1], args[i + 2]); i += 3
        elif args[i] == "--eye":
            eye_w, eye_h = (int(v) for v in args[i + 1].split("x")); i += 2
        else:
            out = args[i]; i += 1
    w, h = 2 * eye_w, eye_h
    cache = {}

    def frame(t):
        """The SBS frame t (bytes after FRAME\\n)."""
        # The scene repeats every 30 frames; long clips reuse rendered frames.
        key = t % 30
        if key not in cache:
            eyes = [render(eye_w, eye_h, key, e) for e in (-1, 1)]
            y_plane = bytearray(w * h)
            u_plane = bytearray((w // 2) * (h // 2))
            v_plane = bytearray((w // 2) * (h // 2))
            for e, (luma, obj) in enumerate(eyes):
                for y in range(h):
                    y_plane[y * w + e * eye_w:y * w + (e + 1) * eye_w] = luma[y * eye_w:(y + 1) * eye_w]
                for y in range(h // 2):
                    for x in range(eye_w // 2):
                        cb, cr = CHROMA[obj[(2 * y) * eye_w + 2 * x]]
                        u_plane[y * (w // 2) + e * (eye_w // 2) + x] = cb
                        v_plane[y * (w // 2) + e * (eye_w // 2) + x] = cr
            cache[key] = (bytes(y_plane), bytes(u_plane), bytes(v_plane))
        return cache[key]

    def half(planes, e):
        """One eye of an SBS frame."""
        out = []
        for p, (pw, ph) in zip(planes, [(w, h), (w // 2, h // 2), (w // 2, h // 2)]):
            hw = pw // 2
            out.append(b"".join(p[y * pw + e * hw:y * pw + (e + 1) * hw] for y in range(ph)))
        return b"".join(out)

    if split:
        files = [open(split[0], "wb"), open(split[1], "wb")]
        for f in files:
            f.write(f"YUV4MPEG2 W{eye_w} H{eye_h} F30:1 Ip A1:1 C420jpeg\n".encode())
        for t in range(frames):
            planes = frame(t)
            for e, f in enumerate(files):
                f.write(b"FRAME\n" + half(planes, e))
        for f in files:
            f.close()
        print(f"wrote {split[0]} and {split[1]}: {frames} frames, {eye_w}x{eye_h} each", file=sys.stderr)
        return
    f = sys.stdout.buffer if out == "-" else open(out, "wb")
    f.write(f"YUV4MPEG2 W{w} H{h} F30:1 Ip A1:1 C420jpeg\n".encode())
    for t in range(frames):
        f.write(b"FRAME\n" + b"".join(frame(t)))
    f.flush()
    if f is not sys.stdout.buffer:
        f.close()
    print(f"wrote {out}: {frames} frames, {w}x{h} (two {eye_w}x{eye_h} eyes side by side)", file=sys.stderr)


if __name__ == "__main__":
    main()
