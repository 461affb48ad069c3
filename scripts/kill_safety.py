#!/usr/bin/env python3
"""Kill-safety harness: runs `rewrite`, `edit` (to a new file and in place), photo and video `convert`, sends
SIGKILL at random moments, and checks that the destination is either absent/untouched or complete and valid.

Usage: kill_safety.py BIN WORKDIR [TRIALS_PER_OPERATION]
Prints one line per operation and a closing line 'N passed, M failed'."""
import hashlib, json, os, random, shutil, signal, subprocess, sys, time

BIN, WORK = sys.argv[1], sys.argv[2]
TRIALS = int(sys.argv[3]) if len(sys.argv) > 3 else 25
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
random.seed(1234)
os.makedirs(WORK, exist_ok=True)

def md5(path):
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()

def info(path):
    p = subprocess.run([BIN, "info", "--json", path], capture_output=True, text=True)
    try:
        return p.returncode, json.loads(p.stdout) if p.stdout.strip() else {}
    except json.JSONDecodeError:
        return p.returncode, {}

def timed(cmd):
    """Runs the operation once to completion; it must succeed, or the harness would test nothing."""
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        print(f"uninterrupted run failed ({p.returncode}): {' '.join(cmd)}: {p.stderr.strip()[-300:]}")
        print("0 passed, 1 failed")
        sys.exit(1)
    return time.perf_counter() - t

def kill_at(cmd, delay):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    killed = p.poll() is None
    if killed:
        p.send_signal(signal.SIGKILL)
    p.wait()
    return killed

def leftovers(directory):
    return [f for f in os.listdir(directory) if ".tmp-" in f]

results = []

# A movie with a 120 MB mdat, moov at the end (the in-place path), MV-HEVC-shaped sample entry.
movie = os.path.join(WORK, "movie.mov")
if not os.path.exists(movie):
    subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "make_sparse_movie.py"), movie, "20000", str(120 << 20),
                    os.path.join(ROOT, "..", "shared", "corpus", "spatial-video", "stereo_spatial.mp4")], check=True, stderr=subprocess.DEVNULL)
    # Fill the hole so that copying really moves bytes.
    with open(movie, "r+b") as f:
        f.seek(20 + 16)          # after ftyp (20 bytes) and the 16-byte mdat header: the sample data
        f.write(os.urandom(120 << 20))
movie_md5 = md5(movie)

def check_rewrite(trial_dir, out):
    if not os.path.exists(out):
        return "absent"
    return "complete" if md5(out) == movie_md5 else None

def op_rewrite():
    full = timed([BIN, "rewrite", movie, "-o", os.path.join(WORK, "probe.mov")])
    ok = bad = killed_n = 0
    for i in range(TRIALS):
        out = os.path.join(WORK, f"rewrite-{i}.mov")
        killed = kill_at([BIN, "rewrite", movie, "-o", out], random.uniform(0, full * 1.1))
        killed_n += killed
        state = check_rewrite(WORK, out)
        if state: ok += 1
        else: bad += 1
        if os.path.exists(out): os.remove(out)
    return "rewrite", ok, bad, killed_n, full

def op_edit_new_file():
    base = os.path.join(WORK, "moovfirst.mov")
    timed([BIN, "edit", movie, "-o", base, "--faststart", "--baseline", "60"])
    full = timed([BIN, "edit", base, "-o", os.path.join(WORK, "probe2.mov"), "--baseline", "61", "--faststart"])
    ok = bad = killed_n = 0
    for i in range(TRIALS):
        out = os.path.join(WORK, f"edit-{i}.mov")
        killed = kill_at([BIN, "edit", base, "-o", out, "--baseline", "62.5", "--faststart"], random.uniform(0, full * 1.1))
        killed_n += killed
        if not os.path.exists(out):
            ok += 1
        else:
            rc, j = info(out)
            vid = j.get("spatial_video", {})
            good = any(abs(t.get("baseline_mm", 0) - 62.5) < 1e-6 for t in vid.get("video_tracks", [])) or '"baseline_mm":62.5' in json.dumps(j).replace(" ", "")
            ok += 1 if good else 0
            bad += 0 if good else 1
            os.remove(out)
    return "edit -o (rewrite path)", ok, bad, killed_n, full

def op_edit_in_place():
    full_copy = os.path.join(WORK, "inplace-probe.mov")
    shutil.copy(movie, full_copy)
    full = timed([BIN, "edit", full_copy, "--in-place", "--baseline", "61"])
    ok = bad = killed_n = 0
    for i in range(TRIALS):
        target = os.path.join(WORK, f"inplace-{i}.mov")
        shutil.copy(movie, target)
        killed = kill_at([BIN, "edit", target, "--in-place", "--baseline", "63.25"], random.uniform(0, full * 1.2))
        killed_n += killed
        if md5(target) == movie_md5:
            ok += 1                      # untouched
        else:
            rc, j = info(target)
            # A valid file (no container diagnostics) holding either the original metadata (no baseline)
            # or the new one. (`info` may exit 1 here: the synthetic samples are not real HEVC.)
            baselines = [t.get("baseline_um") for t in j.get("spatial_video", {}).get("video_tracks", [])]
            good = rc in (0, 1) and j.get("diagnostics") == [] and baselines in ([None], [63250])
            ok += 1 if good else 0
            bad += 0 if good else 1
        os.remove(target)
    return "edit --in-place", ok, bad, killed_n, full

def op_convert():
    src = os.path.join(ROOT, "..", "shared", "corpus", "sbs", "capoda.left-right.jpg")  # 2 × 1000 px eyes
    if not os.path.exists(src):
        return "convert (photo)", 0, 0, 0, 0
    full = timed([BIN, "convert", src, "-o", os.path.join(WORK, "probe.heic")])
    ok = bad = killed_n = 0
    for i in range(TRIALS):
        out = os.path.join(WORK, f"convert-{i}.heic")
        killed = kill_at([BIN, "convert", src, "-o", out], random.uniform(0, full * 1.1))
        killed_n += killed
        if not os.path.exists(out):
            ok += 1
        else:
            rc, j = info(out)
            good = rc == 0 and j.get("spatial_photo", {}).get("is_spatial_photo") is True
            ok += 1 if good else 0
            bad += 0 if good else 1
            os.remove(out)
    return "convert (photo)", ok, bad, killed_n, full

def op_convert_video():
    """Side-by-side Y4M → spatial video (two x265 encodes, MV-HEVC assembly, mux): a killed run must
    leave no file at the destination; a finished one must be a spatial video."""
    src = os.path.join(ROOT, "Conformance", "files", "sample_sbs_320x96.y4m")
    if not os.path.exists(src):
        return "convert (video)", 0, 0, 0, 0
    cmd = lambda out: [BIN, "convert", src, "-o", out, "--layout", "sbs", "--preset", "ultrafast"]
    full = timed(cmd(os.path.join(WORK, "probe-video.mov")))
    ok = bad = killed_n = 0
    for i in range(TRIALS):
        out = os.path.join(WORK, f"convert-{i}.mov")
        killed = kill_at(cmd(out), random.uniform(0, full * 1.1))
        killed_n += killed
        if not os.path.exists(out):
            ok += 1
        else:
            rc, j = info(out)
            good = rc == 0 and j.get("spatial_video", {}).get("classification") == "spatial-video"
            ok += 1 if good else 0
            bad += 0 if good else 1
            os.remove(out)
    return "convert (video)", ok, bad, killed_n, full

total_ok = total_bad = total_killed = 0
for op in (op_rewrite, op_edit_new_file, op_edit_in_place, op_convert, op_convert_video):
    name, ok, bad, killed, full = op()
    total_ok += ok; total_bad += bad; total_killed += killed
    print(f"{name:<24} {ok + bad:3d} trials, {killed:3d} killed mid-run, {bad} bad destinations (full run {full*1000:.0f} ms)")
print(f"ROW|kill safety: SIGKILL at random moments (rewrite, edit -o, edit --in-place, photo and video convert)|"
      f"{total_ok + total_bad} trials, {total_killed} killed mid-run, {total_bad} bad destinations|—|—|0 bad: {'met' if total_bad == 0 else 'missed'}|—")
left = leftovers(WORK)
print(f"temporary files left behind by SIGKILL (never at the destination name): {len(left)}")
for f in left:
    os.remove(os.path.join(WORK, f))
print(f"{total_ok} passed, {total_bad} failed")
sys.exit(1 if total_bad else 0)
