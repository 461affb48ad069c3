#!/usr/bin/env python3
"""`spatial-media info --json` versus FFmpeg 9 (`ffmpeg -i`) and pymediainfo, in one run.

Per file: wall time of one process run each (the median of 3 runs), peak RSS from wait4.
Prints a table of medians and ratios, then the sparse > 4 GiB movie line."""
import os, sys, time, subprocess, statistics, glob, json

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = sys.argv[1]
FFMPEG = sys.argv[2]
PY = sys.argv[3]          # python with pymediainfo
SPARSE = sys.argv[4] if len(sys.argv) > 4 else None

def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t0, ru.ru_maxrss / 1024.0

def best(cmd, reps=3):
    runs = [run(cmd) for _ in range(reps)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs)

files = []
for pat in ["corpus/**/*.mp4", "corpus/**/*.mov", "corpus/**/*.MOV", "corpus/**/*.heic", "corpus/**/*.HEIC", "corpus/**/*.heif", "fixtures/*.mov", "fixtures/*.heic"]:
    files += [f for f in glob.glob(os.path.join(ROOT, "..", "shared", pat), recursive=True) if "/malformed/" not in f]
files = sorted(set(files))
mi_cmd = [PY, "-c", "import sys; from pymediainfo import MediaInfo; MediaInfo.parse(sys.argv[1])"]
ours, ff, mi = [], [], []
rss_ours, rss_ff, rss_mi = [], [], []
for f in files:
    t, r = best([BIN, "info", "--json", f]); ours.append(t); rss_ours.append(r)
    t, r = best([FFMPEG, "-hide_banner", "-i", f]); ff.append(t); rss_ff.append(r)
    t, r = best(mi_cmd + [f]); mi.append(t); rss_mi.append(r)
ratio_ff = [b / a for a, b in zip(ours, ff)]
ratio_mi = [b / a for a, b in zip(ours, mi)]
print(f"files: {len(files)} (corpus MP4/MOV/HEIC outside malformed/, fixtures)")
print(f"{'tool':<28}{'median ms':>10}{'median RSS MB':>15}")
print(f"{'spatial-media info --json':<28}{statistics.median(ours)*1000:>10.1f}{statistics.median(rss_ours):>15.1f}")
print(f"{'ffmpeg 9 -i':<28}{statistics.median(ff)*1000:>10.1f}{statistics.median(rss_ff):>15.1f}")
print(f"{'pymediainfo parse':<28}{statistics.median(mi)*1000:>10.1f}{statistics.median(rss_mi):>15.1f}")
print(f"median per-file ratio vs ffmpeg 9: {statistics.median(ratio_ff):.1f}x faster (goal >= 3x)")
print(f"median per-file ratio vs pymediainfo: {statistics.median(ratio_mi):.1f}x faster (goal >= 10x)")
rf_, rm_ = statistics.median(ratio_ff), statistics.median(ratio_mi)
print(f"ROW|`info --json`, median per file over {len(files)} corpus MP4/MOV/HEIC files|{statistics.median(ours)*1000:.1f} ms|FFmpeg 9 `-i`: {statistics.median(ff)*1000:.1f} ms|{rf_:.1f}x faster|>= 3x: {'met' if rf_ >= 3 else 'missed'}|{statistics.median(rss_ours):.1f} / {statistics.median(rss_ff):.1f} MB")
print(f"ROW|same files vs pymediainfo (libmediainfo)|{statistics.median(ours)*1000:.1f} ms|pymediainfo: {statistics.median(mi)*1000:.1f} ms|{rm_:.1f}x faster|>= 10x: {'met' if rm_ >= 10 else 'missed'}|{statistics.median(rss_ours):.1f} / {statistics.median(rss_mi):.1f} MB")
if SPARSE:
    size = os.path.getsize(SPARSE)
    t, r = best([BIN, "info", "--json", SPARSE], reps=3)
    tf, rf = best([FFMPEG, "-hide_banner", "-i", SPARSE], reps=3)
    print(f"sparse movie {size/2**30:.2f} GiB, 200000 samples: ours {t*1000:.0f} ms / {r:.1f} MB peak RSS; "
          f"ffmpeg 9 {tf*1000:.0f} ms / {rf:.1f} MB; ratio {tf/t:.1f}x (goals: faster than ffmpeg, < 50 MB)")
    print(f"ROW|`info` on a sparse {size/2**30:.2f} GiB movie, 200 000 samples|{t*1000:.0f} ms|FFmpeg 9: {tf*1000:.0f} ms|{tf/t:.1f}x faster|faster, < 50 MB: {'met' if t < tf and r < 50 else 'missed'}|{r:.1f} / {rf:.1f} MB")
