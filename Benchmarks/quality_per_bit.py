#!/usr/bin/env python3
"""Quality per bit of `spatial-media convert` (issues 23, 30).

For every stereo clip and every CRF, converts the clip three times — the default (issue 30: the multiview x265 that
set-up installs, inter-layer prediction, equal quality; the assembly where there is none), and the two-encode
assembly with `--eye-quality equal` and `asymmetric` (the default before issue 30) — and measures, per eye,
the bitrate of its layer (bytes of its NAL units, from `convert --json`) against PSNR, SSIM and, when the FFmpeg
build has libvmaf, VMAF of the decoded eye against the source eye (FFmpeg's psnr/ssim/libvmaf filters; each eye
is taken out of the MV-HEVC file with `split-video`, which copies the coded pictures untouched). The combined
stereo figure is the PSNR of the mean squared error over both eyes against the total bitrate.

Writes a Markdown table (stdout and --markdown FILE) and an SVG plot (--svg FILE), drawn here (no matplotlib).
Usage: quality_per_bit.py --bin SPATIAL_MEDIA --ffmpeg FFMPEG --work DIR [--crfs 18,23,28,33] [--frames N]
"""
import argparse, json, math, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.stderr.write("failed: " + " ".join(cmd) + "\n" + p.stderr[-2000:] + "\n")
        raise SystemExit(1)
    return p


def make_clips(ff, work, frames):
    """(name, y4m path, layout, description) of every clip; all made here, nothing downloaded."""
    clips = []
    # 1. A rendered scene with motion: a zooming Mandelbrot background (slightly blurred: unfiltered, its fractal
    #    edges code at ~26 dB even at CRF 18, unlike camera footage) seen with 8 px of disparity, a moving test
    #    pattern in front of it with 20 px (nearer), both eyes 320x192.
    scene = os.path.join(work, "scene_sbs.y4m")
    if not os.path.exists(scene):
        run([ff, "-hide_banner", "-loglevel", "error", "-y",
             "-f", "lavfi", "-i", "mandelbrot=s=328x192:rate=30",
             "-f", "lavfi", "-i", "testsrc2=s=96x64:rate=30",
             "-filter_complex",
             "[0:v]gblur=sigma=1,split[a][b];[a]crop=320:192:8:0[l0];[b]crop=320:192:0:0[r0];[1:v]split[c][d];"
             "[l0][c]overlay=x='110+3*n':y=64[l];[r0][d]overlay=x='90+3*n':y=64[r];[l][r]hstack,format=yuv420p",
             "-frames:v", str(frames), "-f", "yuv4mpegpipe", scene])
    clips.append(("rendered scene", scene, "sbs", f"lavfi Mandelbrot zoom (softened) + moving testsrc2, 2×320×192, {frames} frames"))
    # 2. The bundled synthetic SBS sample.
    clips.append(("bundled sample", os.path.join(ROOT, "Conformance/files/sample_sbs_320x96.y4m"), "sbs",
                  "Conformance/files/sample_sbs_320x96.y4m, 2×160×96, 30 frames"))
    # 3. A real over-under clip from the shared corpus (camera video made stereo by a depth model), scaled to half.
    real = os.path.join(ROOT, "..", "shared", "corpus", "sbs", "new.mp4")
    if os.path.exists(real):
        out = os.path.join(work, "new_tb.y4m")
        if not os.path.exists(out):
            run([ff, "-hide_banner", "-loglevel", "error", "-y", "-i", real, "-vf", "scale=540:1920,format=yuv420p",
                 "-f", "yuv4mpegpipe", out])
        clips.append(("real clip (new.mp4)", out, "tb", "../shared/corpus/sbs/new.mp4 over-under, scaled to 2×540×960, 10 frames"))
    else:
        sys.stderr.write("note: ../shared/corpus/sbs/new.mp4 absent: real clip skipped\n")
    return clips


def y4m_header(path):
    with open(path, "rb") as f:
        line = f.readline().decode("ascii", "replace").split()
    w = int(next(t[1:] for t in line if t.startswith("W")))
    h = int(next(t[1:] for t in line if t.startswith("H")))
    fr = next(t[1:] for t in line if t.startswith("F")).split(":")
    return w, h, f"{fr[0]}/{fr[1]}"


def eye_crop(layout, w, h, eye):
    if layout == "sbs":
        return f"crop={w // 2}:{h}:{0 if eye == 'left' else w // 2}:0"
    return f"crop={w}:{h // 2}:0:{0 if eye == 'left' else h // 2}"


def metrics(ff, coded, src, crop, size, fps, vmaf, work):
    """PSNR-Y, SSIM (all planes) and VMAF of an eye against the source eye. `coded` is a raw HEVC eye stream, or
    (movie, "left"|"right") for a view decoded by FFmpeg's MV-HEVC decoder (a layer that uses inter-layer prediction
    cannot be split out as a single-layer stream). Both are first written as raw 4:2:0 frames (every frame, in order):
    FFmpeg's frame pairing by timestamps is then exact (a raw HEVC stream's guessed timestamps with B-frames can pair a
    picture with its neighbour)."""
    dist, ref = os.path.join(work, "dist.yuv"), os.path.join(work, "ref.yuv")
    if isinstance(coded, tuple):
        movie, view = coded
        run([ff, "-hide_banner", "-loglevel", "error", "-y", "-i", movie, "-map", f"0:v:0:vpos:{view}",
             "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", dist])
    else:
        run([ff, "-hide_banner", "-loglevel", "error", "-y", "-f", "hevc", "-i", coded, "-fps_mode", "passthrough",
             "-f", "rawvideo", "-pix_fmt", "yuv420p", dist])
    run([ff, "-hide_banner", "-loglevel", "error", "-y", "-i", src, "-vf", crop, "-fps_mode", "passthrough",
         "-f", "rawvideo", "-pix_fmt", "yuv420p", ref])
    if os.path.getsize(dist) != os.path.getsize(ref):
        raise SystemExit(f"{coded}: {os.path.getsize(dist)} decoded bytes, the source eye has {os.path.getsize(ref)}")
    raw = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size, "-framerate", fps]
    n = 3 if vmaf else 2
    graph = f"[0:v]split={n}" + "".join(f"[d{i}]" for i in range(n)) + f";[1:v]split={n}" + "".join(f"[r{i}]" for i in range(n)) + \
            ";[d0][r0]psnr;[d1][r1]ssim" + (";[d2][r2]libvmaf=n_threads=1" if vmaf else "")
    p = run([ff, "-hide_banner", "-nostats"] + raw + ["-i", dist] + raw + ["-i", ref, "-filter_complex", graph, "-f", "null", "-"])
    err = p.stderr
    m = re.search(r"PSNR y:([0-9.]+|inf)", err)
    s = re.search(r"SSIM .*All:([0-9.]+)", err)
    v = re.search(r"VMAF score: ([0-9.]+)", err)
    if not m or not s:
        sys.stderr.write(err[-1500:])
        raise SystemExit("no PSNR/SSIM in FFmpeg's output")
    psnr = float(m.group(1)) if m.group(1) != "inf" else 99.0
    return psnr, float(s.group(1)), (float(v.group(1)) if v else None)


def convert(binary, src, layout, crf, mode, out, hero, multiview_lib=None):
    """`mode` equal/asymmetric: the two-encode assembly (whatever libx265 the environment names; asymmetric was the
    default before issue 30); default: no option at all (issue 30: the multiview libx265 set-up installs, equal
    quality, when present — `multiview_lib` names another through SPATIAL_MEDIA_X265)."""
    env = dict(os.environ)
    if mode == "default":
        if multiview_lib:
            env["SPATIAL_MEDIA_X265"] = multiview_lib
        args = []
    else:
        args = ["--eye-quality", mode, "--encode-path", "assembled"]
    p = run([binary, "convert", src, "-o", out, "--layout", layout, "--crf", str(crf), *args,
             "--hero", hero, "--no-audio", "--json"], env=env)
    return json.loads(p.stdout)


def measure(binary, ff, work, clip, crf, mode, hero, vmaf, multiview_lib=None):
    name, src, layout, _ = clip
    tag = re.sub(r"[^a-z0-9]+", "_", name.lower()) + f"_{mode}_{crf}_{hero}"
    out = os.path.join(work, tag + ".mov")
    j = convert(binary, src, layout, crf, mode, out, hero, multiview_lib)
    if mode == "default" and "multiview" in j.get("encode_path", "").split(" ")[0]:
        left, right = (out, "left"), (out, "right")
    else:
        left, right = os.path.join(work, tag + "_L.hevc"), os.path.join(work, tag + "_R.hevc")
        run([binary, "split-video", out, "--left", left, "--right", right])
    w, h, fps = y4m_header(src)
    num, den = (int(x) for x in fps.split("/"))
    seconds = j["frames"] * den / num
    kbps0 = j["layer0_bytes"] * 8 / seconds / 1000
    kbps1 = j["layer1_bytes"] * 8 / seconds / 1000
    eyes = {}
    for eye, path in (("left", left), ("right", right)):
        ew, eh = (w // 2, h) if layout == "sbs" else (w, h // 2)
        eyes[eye] = metrics(ff, path, src, eye_crop(layout, w, h, eye), f"{ew}x{eh}", fps, vmaf, work)
    hero_eye, other_eye = hero, ("right" if hero == "left" else "left")
    mse = [255.0 ** 2 / 10 ** (eyes[e][0] / 10) for e in ("left", "right")]
    stereo_psnr = 10 * math.log10(255.0 ** 2 / (sum(mse) / 2))
    return dict(clip=name, crf=crf, mode=mode, hero=hero, bytes=j["bytes"], l0=j["layer0_bytes"], l1=j["layer1_bytes"],
                kbps0=kbps0, kbps1=kbps1, ratio=j["layer1_bytes"] / max(1, j["layer0_bytes"]),
                hero_m=eyes[hero_eye], other_m=eyes[other_eye], stereo_psnr=stereo_psnr, encoder=j.get("encoder", ""),
                encode_path=j.get("encode_path", ""))


def fmtv(v, places=2):
    return "–" if v is None else f"{v:.{places}f}"


def within_floor(r, floor_rel, floor_abs):
    """The floor of Specs/conversion.md: the non-hero eye's PSNR-Y at least `floor_abs` dB (or, where the hero eye
    itself is under floor_abs + 1 dB, at most 1 dB under the hero's), and at most `floor_rel` dB under the hero's."""
    hero, other = r["hero_m"][0], r["other_m"][0]
    absolute = floor_abs if hero >= floor_abs + 1 else hero - 1
    return hero - other <= floor_rel + 1e-9 and other >= absolute - 1e-9


def table(rows, floor_rel, floor_abs):
    out = ["| clip | CRF | encode | hero kbit/s | non-hero kbit/s | L1/L0 | hero PSNR-Y | non-hero PSNR-Y | Δ PSNR | "
           "hero SSIM | non-hero SSIM | hero VMAF | non-hero VMAF | stereo PSNR | total kbit/s | file vs assembled equal | file vs asymmetric |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    eq = {(r["clip"], r["crf"], r["hero"]): r for r in rows if r["mode"] == "equal"}
    asym = {(r["clip"], r["crf"], r["hero"]): r for r in rows if r["mode"] == "asymmetric"}
    for r in rows:
        base = eq.get((r["clip"], r["crf"], r["hero"]))
        size = f"{r['bytes'] / base['bytes']:.3f}" if base else "–"
        a = asym.get((r["clip"], r["crf"], r["hero"]))
        size += f" | {r['bytes'] / a['bytes']:.3f}" if a else " | –"
        d = r["hero_m"][0] - r["other_m"][0]
        flag = ""
        if r["mode"] == "asymmetric" and not within_floor(r, floor_rel, floor_abs):
            flag = " ⚠"
        label = {"default": "default: " + ("multiview" if r["encode_path"].startswith("multiview") else "assembled"),
                 "equal": "assembled equal", "asymmetric": "assembled asymmetric"}.get(r["mode"], r["mode"])
        out.append(f"| {r['clip']} | {r['crf']} | {label}{'' if r['hero'] == 'left' else ' (hero right)'} | {r['kbps0']:.1f} | {r['kbps1']:.1f} | "
                   f"{r['ratio']:.3f} | {fmtv(r['hero_m'][0])} | {fmtv(r['other_m'][0])} | {d:.2f}{flag} | {fmtv(r['hero_m'][1], 4)} | "
                   f"{fmtv(r['other_m'][1], 4)} | {fmtv(r['hero_m'][2])} | {fmtv(r['other_m'][2])} | {r['stereo_psnr']:.2f} | "
                   f"{r['kbps0'] + r['kbps1']:.1f} | {size} |")
    return "\n".join(out)


def svg(rows, path):
    """One panel per clip: stereo PSNR (and each eye's PSNR-Y) against total kbit/s, equal vs asymmetric."""
    clips = []
    for r in rows:
        if r["clip"] not in clips and r["hero"] == "left":
            clips.append(r["clip"])
    pw, ph, m = 360, 260, 48
    W = pw * len(clips) + 20
    H = ph + 70
    colours = {"equal": "#1f5fbf", "asymmetric": "#c0392b", "default": "#27ae60"}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
             f'<rect width="{W}" height="{H}" fill="white"/>',
             f'<text x="10" y="16" font-size="13">Quality per bit: PSNR-Y (dB) against total bitrate (kbit/s, both layers, log scale); '
             f'solid = stereo (MSE of both eyes), dashed = non-hero eye</text>']
    for i, c in enumerate(clips):
        rs = [r for r in rows if r["clip"] == c and r["hero"] == "left"]
        xs = [r["kbps0"] + r["kbps1"] for r in rs]
        ys = [r["stereo_psnr"] for r in rs] + [r["other_m"][0] for r in rs] + [r["hero_m"][0] for r in rs]
        x0, x1 = math.log10(min(xs) * 0.9), math.log10(max(xs) * 1.1)
        y0, y1 = math.floor(min(ys) - 1), math.ceil(max(ys) + 1)
        ox, oy = 10 + i * pw + m, 30
        iw, ih = pw - m - 12, ph - 40

        def X(v): return ox + (math.log10(v) - x0) / (x1 - x0) * iw

        def Y(v): return oy + ih - (v - y0) / (y1 - y0) * ih
        parts.append(f'<rect x="{ox}" y="{oy}" width="{iw}" height="{ih}" fill="none" stroke="#888"/>')
        parts.append(f'<text x="{ox}" y="{oy - 4}" font-weight="bold">{c}</text>')
        for k in range(5):
            yv = y0 + (y1 - y0) * k / 4
            parts.append(f'<text x="{ox - 4}" y="{Y(yv) + 4:.1f}" text-anchor="end">{yv:.1f}</text>')
            parts.append(f'<line x1="{ox}" x2="{ox + iw}" y1="{Y(yv):.1f}" y2="{Y(yv):.1f}" stroke="#eee"/>')
        for k in range(5):
            xv = 10 ** (x0 + (x1 - x0) * k / 4)
            parts.append(f'<text x="{X(xv):.1f}" y="{oy + ih + 14}" text-anchor="middle">{xv:.0f}</text>')
        for mode in colours:
            pts = sorted((r["kbps0"] + r["kbps1"], r["stereo_psnr"], r["other_m"][0]) for r in rs if r["mode"] == mode)
            if not pts:
                continue
            col = colours[mode]
            parts.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (col, " ".join(f"{X(a):.1f},{Y(b):.1f}" for a, b, _ in pts)))
            parts.append('<polyline fill="none" stroke="%s" stroke-width="1.5" stroke-dasharray="4,3" points="%s"/>' % (col, " ".join(f"{X(a):.1f},{Y(cc):.1f}" for a, _, cc in pts)))
            for a, b, _ in pts:
                parts.append(f'<circle cx="{X(a):.1f}" cy="{Y(b):.1f}" r="2.5" fill="{col}"/>')
        parts.append(f'<text x="{ox + iw / 2}" y="{oy + ih + 28}" text-anchor="middle">total kbit/s</text>')
    ly = H - 14
    for j, (mode, col) in enumerate(colours.items()):
        parts.append(f'<line x1="{20 + j * 200}" x2="{45 + j * 200}" y1="{ly - 4}" y2="{ly - 4}" stroke="{col}" stroke-width="2"/>')
        label = "default (multiview x265, inter-layer prediction, equal)" if mode == "default" else f"assembled, --eye-quality {mode}"
        parts.append(f'<text x="{50 + j * 200}" y="{ly}">{label}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--ffmpeg", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--crfs", default="18,23,28")
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--markdown")
    ap.add_argument("--svg")
    ap.add_argument("--json")
    ap.add_argument("--floor-rel", type=float, default=6.0)
    ap.add_argument("--floor-abs", type=float, default=32.0)
    ap.add_argument("--multiview-x265", help="SPATIAL_MEDIA_X265 for the default rows (else the one set-up installed)")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    vmaf = "libvmaf" in run([a.ffmpeg, "-hide_banner", "-filters"]).stdout
    crfs = [int(c) for c in a.crfs.split(",")]
    rows = []
    for clip in make_clips(a.ffmpeg, a.work, a.frames):
        for crf in crfs:
            for mode in ("default", "equal", "asymmetric"):
                rows.append(measure(a.bin, a.ffmpeg, a.work, clip, crf, mode, "left", vmaf, a.multiview_x265))
                sys.stderr.write(f"{clip[0]} CRF {crf} {mode}: L1/L0 {rows[-1]['ratio']:.3f}\n")
        # The asymmetry follows the hero eye: one right-hero row at the default CRF.
        rows.append(measure(a.bin, a.ffmpeg, a.work, clip, 23, "asymmetric", "right", vmaf))
    t = table(rows, a.floor_rel, a.floor_abs)
    print(t)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(t + "\n")
    if a.svg:
        svg(rows, a.svg)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    print("encoder: " + rows[-1]["encoder"])
    if rows[-1]["encode_path"]:
        print("encode path: " + rows[-1]["encode_path"])
    mv = [r for r in rows if r["mode"] == "default"]
    if mv:
        print("default encoder: " + mv[-1]["encoder"])
        ratios = sorted(r["ratio"] for r in mv)
        n = len(ratios)
        median = ratios[n // 2] if n % 2 else (ratios[n // 2 - 1] + ratios[n // 2]) / 2
        worst = max(abs(r["hero_m"][0] - r["other_m"][0]) for r in mv)
        print(f"default rows: median layer-1/layer-0 {median:.3f} over {n} rows (clips × CRFs), largest eye PSNR-Y difference {worst:.2f} dB")
    print("libvmaf: " + ("yes (model vmaf_v0.6.1, FFmpeg's default)" if vmaf else "not in this FFmpeg build"))


if __name__ == "__main__":
    main()
