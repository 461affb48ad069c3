#!/usr/bin/env python3
"""Tabulates `spatial-media validate --json --no-pixels` profile verdicts over every movie in ../shared/corpus and
../shared/fixtures (a movie = an ISOBMFF file whose validation reports a profile).

Usage: profile_table.py SPATIAL_MEDIA_BINARY [EXTRA_MOVIE...] > table.md
Extra movies (e.g. ones made by FFmpeg 9 and tagged or repaired by spatial-media) are listed by file name after the
corpus and fixtures."""
import collections, json, os, subprocess, sys

tool = sys.argv[1]
root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
rows, skipped = [], 0
def candidates():
    for top in ("corpus", "fixtures"):
        for d, _, files in sorted(os.walk(os.path.join(root, top))):
            for name in sorted(files):
                yield os.path.join(d, name), None
    for extra in sys.argv[2:]:
        yield extra, "(made) " + os.path.basename(extra)


if True:
        for path, label in candidates():
            with open(path, "rb") as f:
                head = f.read(8)
            if len(head) < 8 or head[4:8] not in (b"ftyp", b"moov", b"mdat", b"free", b"wide", b"skip", b"styp"):
                continue
            p = subprocess.run([tool, "validate", "--json", "--no-pixels", path], capture_output=True, text=True)
            try:
                j = json.loads(p.stdout)
            except ValueError:
                skipped += 1
                continue
            if isinstance(j, list):
                j = j[0]
            prof = j.get("profile")
            if not prof:
                continue  # images and other ISOBMFF files
            short = [f["rule"] for f in prof.get("findings", []) if f["severity"] != "info"]
            rows.append((label or os.path.relpath(path, root), prof["profile"], prof["stereo"], "yes" if prof["meets_profile"] else "no",
                         ", ".join(sorted(set(short))) or "—", p.returncode))

print("| file | profile | stereo | meets profile | shortfalls (rules) | exit |")
print("|---|---|---|---|---|---|")
for r in rows:
    print("| `%s` | %s | %s | %s | %s | %d |" % r)
print()
c = collections.Counter(r[1] for r in rows)
print("Movies: %d (%s); meeting their profile: %d." % (len(rows), ", ".join("%s %d" % kv for kv in sorted(c.items())),
                                                         sum(1 for r in rows if r[3] == "yes")))
s = collections.Counter(x for r in rows for x in r[4].split(", ") if x != "—")
print("Shortfalls: %s." % (", ".join("%s ×%d" % kv for kv in sorted(s.items())) or "none"))
if skipped:
    print("Files whose validation printed no JSON: %d." % skipped)
