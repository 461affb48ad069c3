#!/usr/bin/env python3
"""Files over 4 GiB: `info`, `edit --in-place`, `edit -o` (rewrite path), `rewrite`, with wall time and peak
RSS of each, on a sparse movie with a largesize mdat, co64 offsets and 200 000 samples; then `info`,
`validate`, `split`, `rewrite` and `edit` on a sparse HEIC whose item data lies past 4 GiB (64-bit iloc
offsets). Checks results: classification, values, byte identity, identical decoded pixels.
usage: large_files.py BIN MOVIE WORKDIR [HEIC ORIGINAL_HEIC]"""
import json, os, subprocess, sys, time

BIN, SRC, WORK = sys.argv[1:4]
os.makedirs(WORK, exist_ok=True)

def run(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    _, _, ru = os.wait4(p.pid, 0) if False else (0, 0, None)
    return time.perf_counter() - t, out.decode(), err.decode(), p.returncode

def rss(cmd):
    """Peak RSS in MB and wall time of one run, via wait4."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)

def row(what, t, m, rc, limit=100):
    """A line for Benchmarks/run.sh's table. Goal: a clean exit and memory that does not grow with the file
    (< 100 MB for metadata work; < 400 MB when both 2560² eyes are decoded)."""
    ok = rc == 0 and m < limit
    print(f"ROW|{what}|{t*1000:.0f} ms|—|—|exit 0, < {limit} MB: {'met' if ok else 'missed'}|{m:.1f} MB")

size = os.path.getsize(SRC)
print(f"input: {size / 2**30:.2f} GiB sparse movie, 200000 samples, largesize mdat, co64")
t, m, rc = rss([BIN, "info", "--json", SRC])
print(f"info --json          {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}")
row("sparse 4.25 GiB movie: `info --json`", t, m, rc)
copy = os.path.join(WORK, "inplace.mov")
subprocess.run(["cp", "--sparse=always", SRC, copy], check=True)
t, m, rc = rss([BIN, "edit", copy, "--in-place", "--baseline", "64", "--hfov", "60", "--hero", "left"])
grown = os.path.getsize(copy) - size
print(f"edit --in-place      {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}  file grew {grown} bytes")
row("sparse 4.25 GiB movie: `edit --in-place`", t, m, rc)
out = os.path.join(WORK, "edited-rewrite.mov")
t, m, rc = rss([BIN, "edit", SRC, "-o", out, "--baseline", "64", "--hfov", "60", "--faststart"])
print(f"edit -o --faststart  {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}  output {os.path.getsize(out) if os.path.exists(out) else 0} bytes")
row("sparse 4.25 GiB movie: `edit -o --faststart`", t, m, rc)
p = subprocess.run([BIN, "dump", "--depth", "1", out], capture_output=True, text=True)
print("  layout: " + ", ".join(l.split()[0] for l in p.stdout.splitlines() if l and not l.startswith(" ")))
p = subprocess.run([BIN, "info", "--json", out], capture_output=True, text=True)
j = json.loads(p.stdout or "{}")
print("  spatial classification:", j.get("spatial_video", {}).get("classification"), "baseline_mm",
      [t.get("baseline_mm") for t in j.get("spatial_video", {}).get("video_tracks", [])])
os.remove(out)
rw = os.path.join(WORK, "rewrite.mov")
t, m, rc = rss([BIN, "rewrite", SRC, "-o", rw])
same = subprocess.run(["cmp", "-s", SRC, rw]).returncode == 0
print(f"rewrite              {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}  byte-identical: {same}")
row("sparse 4.25 GiB movie: `rewrite`", t, m, rc)
# Validation of the movie edited in place (now spatial: exit 0 means no errors and no warnings).
t, m, rc = rss([BIN, "validate", "--no-pixels", copy])
p = subprocess.run([BIN, "validate", "--no-pixels", "--json", copy], capture_output=True, text=True)
print(f"validate --no-pixels {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}  spatial: {json.loads(p.stdout or '{}').get('spatial')}")
row("sparse 4.25 GiB movie, edited in place: `validate --no-pixels`", t, m, rc)
for f in (copy, rw):
    if os.path.exists(f): os.remove(f)

# A spatial photo over 4 GiB: 64-bit iloc extent offsets, all coded data behind the 4 GiB mark.
if len(sys.argv) > 5:
    HEIC, ORIGINAL = sys.argv[4], sys.argv[5]
    size = os.path.getsize(HEIC)
    print(f"\ninput: {size / 2**30:.2f} GiB sparse HEIC (Vision Pro photo, iloc offset_size 8, item data past 4 GiB)")
    t, m, rc = rss([BIN, "info", "--json", HEIC])
    j = json.loads(subprocess.run([BIN, "info", "--json", HEIC], capture_output=True, text=True).stdout or "{}")
    sp = j.get("spatial_photo", {})
    print(f"info --json          {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}  baseline_mm {sp.get('baseline_mm')}")
    row("sparse > 4 GiB HEIC: `info --json`", t, m, rc)
    t, m, rc = rss([BIN, "validate", "--no-pixels", HEIC])
    print(f"validate --no-pixels {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}")
    row("sparse > 4 GiB HEIC: `validate --no-pixels`", t, m, rc)
    t, m, rc = rss([BIN, "validate", HEIC])
    print(f"validate (pixels)    {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}")
    row("sparse > 4 GiB HEIC: `validate` (pixels)", t, m, rc, limit=400)
    outs = [os.path.join(WORK, n) for n in ("big-l.png", "big-r.png", "orig-l.png", "orig-r.png")]
    t, m, rc = rss([BIN, "split", HEIC, "--left", outs[0], "--right", outs[1]])
    subprocess.run([BIN, "split", ORIGINAL, "--left", outs[2], "--right", outs[3]], capture_output=True)
    same = all(subprocess.run(["cmp", "-s", a, b]).returncode == 0 for a, b in ((outs[0], outs[2]), (outs[1], outs[3])))
    print(f"split (decode eyes)  {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}  pixels identical to the original's: {same}")
    row("sparse > 4 GiB HEIC: `split` to two PNGs (decodes both eyes)", t, m, rc, limit=400)
    for f in outs:
        if os.path.exists(f): os.remove(f)
    rw = os.path.join(WORK, "rewrite.heic")
    t, m, rc = rss([BIN, "rewrite", HEIC, "-o", rw])
    same = subprocess.run(["cmp", "-s", HEIC, rw]).returncode == 0
    print(f"rewrite              {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}  byte-identical: {same}")
    row("sparse > 4 GiB HEIC: `rewrite`", t, m, rc)
    os.remove(rw)
    ed = os.path.join(WORK, "edited.heic")
    t, m, rc = rss([BIN, "edit", HEIC, "-o", ed, "--baseline", "65", "--hfov", "70"])
    j = json.loads(subprocess.run([BIN, "info", "--json", ed], capture_output=True, text=True).stdout or "{}")
    sp = j.get("spatial_photo", {})
    print(f"edit -o              {t*1000:9.0f} ms  peak RSS {m:6.1f} MB  exit {rc}  baseline_mm {sp.get('baseline_mm')} hfov {round(sp.get('hfov_degrees') or 0, 3)}")
    row("sparse > 4 GiB HEIC: `edit -o`", t, m, rc)
    os.remove(ed)
