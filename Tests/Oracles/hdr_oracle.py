"""Colour and HDR oracle for converted spatial videos (issues 38 and 40), run with .venv-oracles' FFmpeg 9.

  hdr_oracle.py views OUT.mov SRC [LAYOUT]   both views of OUT and the halves of SRC (sbs, or tb), decoded by FFmpeg:
        prints one line per eye "eye NAME pix_fmt PIX psnr_y DB", then "tags OUT RANGE SPACE PRIMARIES TRC" and
        "tags SRC …" as FFmpeg reports them, then "side OUT KIND VALUES" / "side SRC …" for the mastering display and
        content light level FFmpeg reports on the first picture.
  hdr_oracle.py rgbmean OUT.mov SRC [LAYOUT]  mean R, G, B of OUT's left view and of SRC's left half, each converted
        to RGB by FFmpeg with the range and matrix the file states: "rgb OUT r g b", "rgb SRC r g b".
  hdr_oracle.py eyes LEFT RIGHT SRC [LAYOUT]  like views, for two single-view files (a split).
  hdr_oracle.py packed OUT SRC  like views, for a frame-packed output (split --sbs) against the whole source.
A single-view file given as OUT to views is decoded whole (e.g. an SBS made by split).
"""
import re
import subprocess
import sys

import imageio_ffmpeg
import numpy as np

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()


def probe(path):
    out = subprocess.run([FFMPEG, "-hide_banner", "-i", path], capture_output=True, text=True).stderr
    m = re.search(r"Video: .*?, (\w+)\(([^)]*)\)", out)
    size = re.search(r", (\d+)x(\d+)", out[out.find("Video:"):])
    return (m.group(1) if m else "?"), (m.group(2) if m else ""), (int(size.group(1)), int(size.group(2)))


def tags(path):
    pix, paren, _ = probe(path)
    parts = [p.strip() for p in paren.split(",")]
    rng = parts[0] if parts and parts[0] in ("tv", "pc") else "unknown"
    desc = next((p for p in parts if "/" in p or p.startswith("bt")), "unknown")
    names = desc.split("/")
    if len(names) == 1:
        names = names * 3
    return pix, rng, names[0], names[1], names[2]


def side(path, spec):
    out = subprocess.run([FFMPEG, "-hide_banner", "-i", path, "-map", spec, "-frames:v", "1", "-f", "null", "-"],
                         capture_output=True, text=True).stderr
    lines = []
    for line in out.splitlines():
        low = line.strip().lower()
        if low.startswith("mastering display metadata") or low.startswith("content light level metadata"):
            kind, _, values = line.strip().partition(":")
            lines.append((kind.split()[0].lower(), values.strip()))
    return sorted(set(lines))


def decode(path, spec, fmt, crop=None):
    args = [FFMPEG, "-v", "error", "-i", path, "-map", spec]
    if crop:
        args += ["-vf", crop]
    args += ["-f", "rawvideo", "-pix_fmt", fmt, "-"]
    return subprocess.run(args, capture_output=True, check=True).stdout


def halves(layout, w, h):
    if layout == "tb":
        return "crop=%d:%d:0:0" % (w, h // 2), "crop=%d:%d:0:%d" % (w, h // 2, h // 2), w, h // 2
    return "crop=%d:%d:0:0" % (w // 2, h), "crop=%d:%d:%d:0" % (w // 2, h, w // 2), w // 2, h


def psnr_y(a, b, w, h):
    n = w * h
    ya = np.frombuffer(a, dtype="<u2").reshape(-1, n * 3 // 2)[:, :n].astype(np.float64)
    yb = np.frombuffer(b, dtype="<u2").reshape(-1, n * 3 // 2)[:, :n].astype(np.float64)
    frames = min(len(ya), len(yb))
    mse = np.mean((ya[:frames] - yb[:frames]) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(1023.0 ** 2 / mse), frames, len(ya), len(yb)


def views(out, src, layout, right=None):
    _, _, (sw, sh) = probe(src)
    lcrop, rcrop, w, h = halves(layout, sw, sh)
    files = [(out, "0:v:0:vpos:left"), (out, "0:v:0:vpos:right")] if right is None else [(out, "0:v:0"), (right, "0:v:0")]
    for name, (path, spec), crop in (("left", files[0], lcrop), ("right", files[1], rcrop)):
        pix = probe(path)[0]
        ours = decode(path, spec, "yuv420p10le")
        theirs = decode(src, "0:v:0", "yuv420p10le", crop)
        p, n, a, b = psnr_y(ours, theirs, w, h)
        print("eye %s pix_fmt %s psnr_y %.2f frames %d %d" % (name, pix, p, a, b))
        print("tags %s %s %s %s %s" % ((name,) + tags(path)[1:]))
        for kind, values in side(path, spec):
            print("side %s %s %s" % (name, kind, values))
    print("tags SRC %s %s %s %s" % tags(src)[1:])
    for kind, values in side(src, "0:v:0"):
        print("side SRC %s %s" % (kind, values))


def packed(out, src):
    """A frame-packed output (split --sbs) against the whole source picture."""
    _, _, (w, h) = probe(src)
    p, n, a, b = psnr_y(decode(out, "0:v:0", "yuv420p10le"), decode(src, "0:v:0", "yuv420p10le"), w, h)
    print("eye packed pix_fmt %s psnr_y %.2f frames %d %d" % (probe(out)[0], p, a, b))
    print("tags packed %s %s %s %s" % tags(out)[1:])
    for kind, values in side(out, "0:v:0"):
        print("side packed %s %s" % (kind, values))
    print("tags SRC %s %s %s %s" % tags(src)[1:])
    for kind, values in side(src, "0:v:0"):
        print("side SRC %s %s" % (kind, values))


def rgbmean(out, src, layout):
    _, _, (sw, sh) = probe(src)
    lcrop, _, w, h = halves(layout, sw, sh)
    ours = np.frombuffer(decode(out, "0:v:0:vpos:left", "rgb24"), dtype=np.uint8).reshape(-1, 3)
    theirs = np.frombuffer(decode(src, "0:v:0", "rgb24", lcrop), dtype=np.uint8).reshape(-1, 3)
    print("rgb OUT %.3f %.3f %.3f" % tuple(ours.astype(np.float64).mean(axis=0)))
    print("rgb SRC %.3f %.3f %.3f" % tuple(theirs.astype(np.float64).mean(axis=0)))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "views":
        views(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "sbs")
    elif cmd == "eyes":
        views(sys.argv[2], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else "sbs", right=sys.argv[3])
    elif cmd == "packed":
        packed(sys.argv[2], sys.argv[3])
    elif cmd == "rgbmean":
        rgbmean(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "sbs")
    else:
        sys.exit("unknown command " + cmd)
