#!/usr/bin/env python3
"""Inputs and independent readings for the frame-packed / APMP / Google spherical tests (run with .venv-oracles/bin/python).

Usage:
  stereo_tag_oracle.py make DIR          writes test movies made by FFmpeg 9 into DIR and prints their names as JSON:
      sbs_hevc.mov (HEVC hvc1 side-by-side, untagged), sbs_h264.mp4 (H.264), ou_av1.mp4 (AV1 over-under),
      sbs_ffmpeg.mov (an MKV tagged stereo_mode=left_right remuxed by FFmpeg: vexu{eyes{stri}} only),
      v2_equi_tb.mp4 (FFmpeg's st3d/sv3d equirectangular top-bottom from the corpus V1 file, vexu removed by the caller),
      mv_hev1.mp4 (x265 MV-HEVC fixture remuxed by FFmpeg with -tag:v hev1).
  stereo_tag_oracle.py probe FILE...     prints, per file, FFmpeg 9's Stereo 3D / Spherical Mapping side-data lines,
      the md5 of every video packet (-c copy -f framemd5: the sample data), and libmediainfo's reading of the video
      track (format, profile, size, frame count, duration).
  stereo_tag_oracle.py views FILE...     per-frame md5 of the decoded left and right views (-map 0:v:0:vpos:left|right).
"""
import json, os, subprocess, sys
import imageio_ffmpeg

ff = imageio_ffmpeg.get_ffmpeg_exe()
here = os.path.dirname(os.path.abspath(__file__))
shared = os.path.normpath(os.path.join(here, "..", "..", "..", "shared"))


def run(args):
    p = subprocess.run([ff, "-v", "error", "-y", *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("ffmpeg failed: " + " ".join(args) + "\n" + p.stderr[-600:])


def make(d):
    src = "testsrc2=size=320x120:rate=30"
    run(["-f", "lavfi", "-i", src, "-t", "0.5", "-c:v", "libx265", "-tag:v", "hvc1", "-x265-params", "log-level=error", os.path.join(d, "sbs_hevc.mov")])
    run(["-f", "lavfi", "-i", src, "-t", "0.5", "-c:v", "libx264", os.path.join(d, "sbs_h264.mp4")])
    run(["-f", "lavfi", "-i", "testsrc2=size=160x240:rate=30", "-t", "0.5", "-c:v", "libsvtav1", "-svtav1-params", "preset=12:log-level=0",
         os.path.join(d, "ou_av1.mp4")])
    mkv = os.path.join(d, "sbs.mkv")
    run(["-f", "lavfi", "-i", src, "-t", "0.5", "-c:v", "libx265", "-x265-params", "log-level=error", "-metadata:s:v", "stereo_mode=left_right", mkv])
    run(["-i", mkv, "-c", "copy", "-tag:v", "hvc1", os.path.join(d, "sbs_ffmpeg.mov")])
    os.unlink(mkv)
    v1 = os.path.join(shared, "corpus", "spherical", "testRoom1_1080Stereo.mp4")
    names = ["sbs_hevc.mov", "sbs_h264.mp4", "ou_av1.mp4", "sbs_ffmpeg.mov"]
    if os.path.exists(v1):
        run(["-i", v1, "-c", "copy", "-t", "0.5", "-strict", "unofficial", os.path.join(d, "v2_equi_tb.mp4")])
        names.append("v2_equi_tb.mp4")
    mv = os.path.join(shared, "fixtures", "x265mv_320x240_30f.hevc")
    if os.path.exists(mv):
        run(["-i", mv, "-c", "copy", "-tag:v", "hev1", "-disposition:v", "multilayer", os.path.join(d, "mv_hev1.mp4")])
        names.append("mv_hev1.mp4")
    print(json.dumps(names))


def probe(path):
    info = subprocess.run([ff, "-hide_banner", "-i", path], capture_output=True, text=True).stderr
    lines = [l.strip() for l in info.splitlines() if "Stereo 3D" in l or "Spherical Mapping" in l]
    p = subprocess.run([ff, "-v", "error", "-i", path, "-map", "0:v:0", "-c", "copy", "-f", "framemd5", "-"], capture_output=True, text=True)
    packets = [l.split(",")[-1].strip() for l in p.stdout.splitlines() if l and not l.startswith("#")] if p.returncode == 0 else ["error"]
    mi = {}
    try:
        from pymediainfo import MediaInfo
        v = [t for t in MediaInfo.parse(path).tracks if t.track_type == "Video"]
        if v:
            mi = {k: getattr(v[0], k, None) for k in ("format", "format_profile", "width", "height", "frame_count", "duration", "codec_id")}
    except Exception as e:  # pragma: no cover - reported, not hidden
        mi = {"error": str(e)}
    return {"side_data": lines, "packets": packets, "mediainfo": mi}


def views(path):
    out = {}
    for v in ("left", "right"):
        p = subprocess.run([ff, "-v", "error", "-i", path, "-map", "0:v:0:vpos:" + v, "-f", "framemd5", "-"], capture_output=True, text=True)
        out[v] = [l.split(",")[-1].strip() for l in p.stdout.splitlines() if l and not l.startswith("#")] if p.returncode == 0 else ["error: " + p.stderr[-200:]]
    return out


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2])
    elif cmd == "probe":
        print(json.dumps({f: probe(f) for f in sys.argv[2:]}))
    elif cmd == "views":
        print(json.dumps({f: views(f) for f in sys.argv[2:]}))
