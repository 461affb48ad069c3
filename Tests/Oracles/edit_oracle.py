#!/usr/bin/env python3
"""Independent checks of a spatial-video metadata edit (run with .venv-oracles/bin/python).

Usage: edit_oracle.py ORIGINAL EDITED
Prints JSON: the Stereo 3D / Spherical Mapping lines FFmpeg 9 prints for EDITED; per-frame md5 of the left and
right views of both files (FFmpeg 9, -map 0:v:0:vpos:left|right); libmediainfo's profile, view count and
configuration boxes for EDITED; per-frame md5 of each audio stream copy (when present)."""
import json, subprocess, sys
import imageio_ffmpeg

ff = imageio_ffmpeg.get_ffmpeg_exe()
orig, edited = sys.argv[1], sys.argv[2]

def md5s(path, spec, extra=()):
    p = subprocess.run([ff, "-v", "error", "-i", path, "-map", spec, *extra, "-f", "framemd5", "-"], capture_output=True, text=True)
    if p.returncode != 0:
        return ["error: " + p.stderr.strip()[-300:]]
    return [l.split(",")[-1].strip() for l in p.stdout.splitlines() if l and not l.startswith("#")]

info = subprocess.run([ff, "-hide_banner", "-i", edited], capture_output=True, text=True).stderr
lines = [l.strip() for l in info.splitlines() if "Stereo 3D" in l or "Spherical Mapping" in l]
out = {"ffmpeg_lines": lines}
for name, path in (("original", orig), ("edited", edited)):
    out[name] = {"left": md5s(path, "0:v:0:vpos:left"), "right": md5s(path, "0:v:0:vpos:right"),
                 "audio": md5s(path, "0:a?", ("-c", "copy"))}
try:
    from pymediainfo import MediaInfo
    mi = MediaInfo.parse(edited)
    v = [t for t in mi.tracks if t.track_type == "Video"]
    out["mediainfo"] = {"format_profile": v[0].format_profile if v else None,
                        "count_of_views": getattr(v[0], "count_of_views", None) if v else None,
                        "codec_configuration_box": getattr(v[0], "codec_configuration_box", None) if v else None}
except Exception as e:  # pragma: no cover - reported, not hidden
    out["mediainfo"] = {"error": str(e)}
print(json.dumps(out))
