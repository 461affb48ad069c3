#!/usr/bin/env python3
"""What each real file is read as, by `info`, `validate` and `convert`, and whether the three agree (issue 38).

For every file of the chosen ../shared/corpus folders (and any extra paths given), runs the built CLI:
  info --json FILE            exit code; what it says the file is (spatial video/photo, movie, image, read through FFmpeg)
  validate --json FILE        kind, spatial yes/no, damaged (SV-FILE-002), the layout it measured (SV-PAIR-008)
  convert --json FILE -o OUT  exit code; the layout/route it took, or the reason it refused (ultrafast for videos)
and prints one Markdown row per file with the verdict "agree", or what differs. The rules of agreement:
  * damaged: info exits 2 with "damaged", validate reports SV-FILE-002, convert refuses it as damaged — all or none;
  * 2D: validate calls it a 2D picture/video (SV-PAIR-009) exactly when convert refuses it as no stereo pair;
  * layout: when convert cuts a picture by a measured or stated layout, validate checked it in the same one;
  * spatial: validate's "spatial" and info's spatial flag are the same.
Usage: python3 Benchmarks/recognition_table.py [--cli PATH] [--dirs "sbs mpo …"] [EXTRA_FILE …]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")
DIRS = "sbs mpo spatial-video spatial-photo spherical heif-real-world"
VIDEO = (".mp4", ".mov", ".mkv", ".ts", ".m2ts", ".y4m", ".webm", ".avi", ".hevc")


def run(cli, args, timeout=600):
    try:
        p = subprocess.run([cli] + args, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timed out"


def load(text):
    try:
        d = json.loads(text)
    except ValueError:
        return {}
    if isinstance(d, list):
        return d[0] if d and isinstance(d[0], dict) else {}
    return d if isinstance(d, dict) else {}


def info_of(cli, path):
    code, out, err = run(cli, ["info", "--json", path])
    d = load(out)
    text = json.dumps(d)
    sv, sp = d.get("spatial_video"), d.get("spatial_photo")
    spatial = (sv.get("classification") == "spatial-video" if isinstance(sv, dict) else sv is True) or \
        (bool(sp.get("is_spatial_photo")) if isinstance(sp, dict) else sp is True)
    if d.get("read_through") == "ffmpeg":
        what = "read through FFmpeg (%s)" % d.get("format")
    elif d.get("spatial_video") is not None:
        what = "movie"
    elif d.get("format"):
        what = "image (%s)" % d.get("format")
    else:
        what = "—"
    damaged = code == 2 and ("damaged" in err or "truncated" in err or "damaged" in text)
    return {"code": code, "what": what, "spatial": spatial, "damaged": damaged}


def validate_of(cli, path):
    code, out, err = run(cli, ["validate", "--json", path])
    d = load(out)
    findings = d.get("findings") or []
    ids = {f.get("rule") or f.get("id") or f.get("rule_id") for f in findings}
    damaged = any((f.get("rule") or f.get("id") or f.get("rule_id")) == "SV-FILE-002" and f.get("severity") == "error"
                  for f in findings)
    layout = None
    for f in findings:
        if (f.get("rule") or f.get("id") or f.get("rule_id")) == "SV-PAIR-008":
            m = f.get("message", "")
            layout = "tb" if "top-bottom measured" in m else "sbs"
    kind = d.get("kind") or "—"
    if kind == "top-bottom-image":
        layout = layout or "tb"
    elif kind == "side-by-side-image":
        layout = layout or "sbs"
    return {"code": code, "kind": kind, "spatial": bool(d.get("spatial")), "damaged": damaged,
            "twoD": kind in ("2d-image", "2d-video") or "SV-PAIR-009" in ids, "layout": layout}


def convert_of(cli, path, work):
    video = path.lower().endswith(VIDEO)
    out = os.path.join(work, "out.mov" if video else "out.heic")
    if os.path.exists(out):
        os.remove(out)
    args = ["convert", "--json", path, "-o", out] + (["--preset", "ultrafast"] if video else [])
    code, stdout, err = run(cli, args)
    d = load(stdout)
    notes = " ".join(d.get("notes") or []) if isinstance(d.get("notes"), list) else str(d.get("notes") or "")
    layout = None
    if "top-bottom measured" in notes or "top-bottom" in (d.get("source") or "") or "cut top and bottom" in notes:
        layout = "tb"
    elif "side by side measured" in notes or "side-by-side" in (d.get("source") or "") or "cut side by side" in notes:
        layout = "sbs"
    last = err.strip().split("\n")[-1] if err.strip() else ""
    reason = last.split(": ", 2)[-1][:110] if code else ""
    return {"code": code, "route": d.get("route") or "—", "layout": layout, "reason": reason,
            "damaged": code == 2 and ("damaged" in err or "truncated" in err),
            "twoD": code == 2 and "no stereo pair found" in err}


def verdict(i, v, c):
    differ = []
    if not (i["damaged"] == v["damaged"] == c["damaged"]) and (i["damaged"] or v["damaged"] or c["damaged"]):
        differ.append("damaged: info %s, validate %s, convert %s" % (i["damaged"], v["damaged"], c["damaged"]))
    # A picture or video validate cuts by a layout must not be refused by convert as "no stereo pair", and one validate
    # calls 2D must not be converted; a HEIF image validate reads as one image (kind heif-image) may be either.
    if (v["twoD"] and c["code"] == 0) or (c["twoD"] and v["layout"] is not None):
        differ.append("2D: validate %s, convert %s" % ("2D" if v["twoD"] else "layout " + str(v["layout"]),
                                                      "refused as no stereo pair" if c["twoD"] else "converted"))
    if c["code"] == 0 and c["layout"] and v["layout"] and c["layout"] != v["layout"]:
        differ.append("layout: validate %s, convert %s" % (v["layout"], c["layout"]))
    # info's flag says the file is a spatial video/photo by its structure (two views, a `ster` group); validate's kind
    # says the same, and its "spatial" verdict adds Apple's required metadata on top.
    if i["spatial"] != (v["kind"] in ("spatial-video", "spatial-photo")):
        differ.append("spatial: info %s, validate kind %s" % (i["spatial"], v["kind"]))
    return "agree" if not differ else "; ".join(differ)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, ".build", "debug", "spatial-media"))
    ap.add_argument("--dirs", default=DIRS)
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    files = []
    for d in a.dirs.split():
        p = os.path.join(CORPUS, d)
        if os.path.isdir(p):
            files += [os.path.join(p, f) for f in sorted(os.listdir(p))
                      if not f.startswith(".") and os.path.isfile(os.path.join(p, f))]
    files += a.extra
    print("| file | info | validate | convert | the three |")
    print("|---|---|---|---|---|")
    disagreements = 0
    with tempfile.TemporaryDirectory(prefix="recognition-table.") as work:
        for f in files:
            i, v, c = info_of(a.cli, f), validate_of(a.cli, f), convert_of(a.cli, f, work)
            name = os.path.relpath(f, CORPUS) if f.startswith(CORPUS) else os.path.basename(f)
            info_cell = "exit %s: %s%s%s" % (i["code"], i["what"], ", spatial" if i["spatial"] else "",
                                            ", damaged" if i["damaged"] else "")
            val_cell = "exit %s: %s%s%s%s" % (v["code"], v["kind"], ", spatial" if v["spatial"] else "",
                                             ", damaged" if v["damaged"] else "",
                                             ", layout %s" % v["layout"] if v["layout"] else "")
            conv_cell = ("exit 0: %s%s" % (c["route"], ", layout %s" % c["layout"] if c["layout"] else "")
                         if c["code"] == 0 else "exit %s: %s" % (c["code"], c["reason"].replace("|", "/")))
            agree = verdict(i, v, c)
            disagreements += agree != "agree"
            print("| `%s` | %s | %s | %s | %s |" % (name, info_cell, val_cell, conv_cell, agree))
            sys.stdout.flush()
    print("\n%d file(s), %d where the three differ" % (len(files), disagreements))


if __name__ == "__main__":
    main()
