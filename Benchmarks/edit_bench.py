#!/usr/bin/env python3
"""In-place metadata edit of a sparse > 4 GiB movie versus an FFmpeg 9 `-c copy` remux of the same file.

Reports wall time and bytes written by each (ours: the tool's own count, checked against the file-size
change; FFmpeg: the size of the file it writes) and the ratio, in one run."""
import os, re, shutil, subprocess, sys, time

BIN, FFMPEG, SRC, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
ours_file = os.path.join(WORK, "edit-in-place.mov")
subprocess.run(["cp", "--sparse=always", SRC, ours_file], check=True)
before = os.path.getsize(ours_file)
t0 = time.perf_counter()
p = subprocess.run([BIN, "edit", ours_file, "--in-place", "--baseline", "63.5", "--hfov", "64", "--disparity", "1.5"],
                   capture_output=True, text=True)
t_ours = time.perf_counter() - t0
m = re.search(r"wrote (\d+) bytes", p.stderr)
written = int(m.group(1)) if m else -1
after = os.path.getsize(ours_file)
print(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "(no output)")
ff_out = os.path.join(WORK, "ffmpeg-remux.mov")
t0 = time.perf_counter()
q = subprocess.run([FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-i", SRC, "-map", "0", "-c", "copy", ff_out], capture_output=True, text=True)
t_ff = time.perf_counter() - t0
ff_size = os.path.getsize(ff_out) if os.path.exists(ff_out) else 0
print(f"file: {before / 2**30:.2f} GiB sparse movie, moov at the end")
print(f"ours  : edit --in-place  {t_ours*1000:8.0f} ms, {written} bytes written (file grew {after - before} bytes)")
print(f"ffmpeg: -c copy remux    {t_ff*1000:8.0f} ms, {ff_size} bytes written" + ("" if q.returncode == 0 else f" (exit {q.returncode}: {q.stderr.strip()[:200]})"))
if t_ours > 0:
    print(f"ratio: {t_ff / t_ours:.0f}x faster (goal >= 100x); bytes written ratio {ff_size / max(written, 1):.0f}x")
    print(f"ROW|in-place metadata edit of a {before / 2**30:.2f} GiB movie|{t_ours*1000:.0f} ms, {written} B written|FFmpeg 9 `-c copy` remux: {t_ff:.1f} s, {ff_size} B|{t_ff / t_ours:.0f}x faster|>= 100x: {'met' if t_ff / t_ours >= 100 else 'missed'}|—")
for f in (ours_file, ff_out):
    try: os.remove(f)
    except OSError: pass
