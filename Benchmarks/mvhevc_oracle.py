#!/usr/bin/env python3
"""Independent checks of an MV-HEVC stream or spatial-video movie (run with .venv-oracles/bin/python).

Usage: mvhevc_oracle.py MV_FILE LEFT.hevc RIGHT.hevc
Prints one JSON object:
  single       per-frame md5 of decoding LEFT and RIGHT on their own (FFmpeg 9)
  ffmpeg9      per-frame md5 of MV_FILE's left and right views (FFmpeg 9, -map 0:v:0:vpos:left|right)
  pyav         per-frame md5 of both views (PyAV / FFmpeg 8.1, view_ids=-1; frames alternate base, second)
  ffmpeg_info  the stream lines FFmpeg 9 prints for `ffmpeg -i MV_FILE` (Stereo 3D / Spherical Mapping)
  mediainfo    libmediainfo fields of MV_FILE's video track (movies only)
  legacy       per-frame md5 of Debian ffmpeg (if installed) decoding MV_FILE (base layer only)
Frame md5s hash the visible planes row by row (Y, U, V), exactly as `-f framemd5` does for yuv420p.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys


def ffmpeg9():
    import imageio_ffmpeg
    return imageio_ffmpeg.get_ffmpeg_exe()


def framemd5(exe, path, extra=()):
    cmd = [exe, "-v", "error", "-i", path, *extra, "-f", "framemd5", "-"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": p.stderr.strip()[-2000:]}
    return [line.split(",")[-1].strip() for line in p.stdout.splitlines() if line and not line.startswith("#")]


def plane_md5(frame):
    h = hashlib.md5()
    for p in frame.planes:
        b = bytes(p)
        for r in range(p.height):
            h.update(b[r * p.line_size:r * p.line_size + p.width])
    return h.hexdigest()


def pyav_views(path):
    import av
    out = {"version": av.__version__, "ffmpeg": ".".join(map(str, av.library_versions.get("libavcodec", ())))}
    try:
        c = av.open(path)
        s = c.streams.video[0]
        s.codec_context.options = {"view_ids": "-1"}
        frames = [plane_md5(f) for f in c.decode(s)]
        out["base"] = frames[0::2]
        out["second"] = frames[1::2]
        out["frames"] = len(frames)
    except Exception as e:  # report, never crash
        out["error"] = repr(e)
    return out


def ffmpeg_info(exe, path):
    p = subprocess.run([exe, "-hide_banner", "-i", path], capture_output=True, text=True)
    keep = [l.strip() for l in p.stderr.splitlines()
            if any(k in l for k in ("Stream #", "Stereo 3D", "Spherical", "hevc", "View", "view"))]
    return keep


def mediainfo(path):
    try:
        from pymediainfo import MediaInfo
        mi = MediaInfo.parse(path, mediainfo_options={"Details": "0"})
        for t in mi.tracks:
            if t.track_type == "Video":
                d = t.to_data()
                return {k: d.get(k) for k in ("format", "format_profile", "count_of_views", "codec_configuration_box",
                                              "width", "height", "frame_count", "multiview_count_of_views",
                                              "multiview_layout", "hdr_format") if d.get(k) is not None} | {
                    "all_keys_with_view": {k: v for k, v in d.items() if "view" in k.lower() or "stereo" in k.lower()}}
        return {"error": "no video track"}
    except Exception as e:
        return {"error": repr(e)}


def main():
    mv, left, right = sys.argv[1:4]
    exe = ffmpeg9()
    result = {
        "ffmpeg9_path": exe,
        "single": {"left": framemd5(exe, left), "right": framemd5(exe, right)},
        "ffmpeg9": {"left": framemd5(exe, mv, ["-map", "0:v:0:vpos:left"]),
                    "right": framemd5(exe, mv, ["-map", "0:v:0:vpos:right"])},
        "pyav": pyav_views(mv),
        "ffmpeg_info": ffmpeg_info(exe, mv),
    }
    if not mv.endswith(".hevc"):
        result["mediainfo"] = mediainfo(mv)
    legacy = shutil.which("ffmpeg")
    if legacy and os.path.realpath(legacy) != os.path.realpath(exe):
        result["legacy"] = {"path": legacy, "frames": framemd5(legacy, mv)}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
