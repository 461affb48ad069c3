#!/usr/bin/env python3
"""Oracle helper for the photo tests and benchmark (runs in .venv-oracles).

  photo_oracle.py dump IN.heic OUTPREFIX   -> OUTPREFIX-<i>.rgb (raw RGB8) for each top-level image,
                                              prints "i width height" lines
  photo_oracle.py groups IN.heic           -> prints the entity groups pillow-heif (libheif 1.23) sees
  photo_oracle.py time IN.heic N           -> decodes all top-level images N times, prints best seconds
"""
import sys, time
import pillow_heif

def dump(path, prefix):
    h = pillow_heif.open_heif(path, convert_hdr_to_8bit=True)
    for i, im in enumerate(h):
        img = im.to_pillow().convert("RGB")
        with open(f"{prefix}-{i}.rgb", "wb") as f:
            f.write(img.tobytes())
        print(i, img.size[0], img.size[1])

def groups(path):
    h = pillow_heif.open_heif(path)
    for g in h.info.get("entity_groups", []) or []:
        print(g)

def bench(path, n):
    best = 1e9
    for _ in range(int(n)):
        t = time.perf_counter()
        h = pillow_heif.open_heif(path, convert_hdr_to_8bit=True)
        for im in h:
            im.load()
        best = min(best, time.perf_counter() - t)
    print(f"{best:.4f}")

if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "dump": dump(sys.argv[2], sys.argv[3])
    elif cmd == "groups": groups(sys.argv[2])
    elif cmd == "time": bench(sys.argv[2], sys.argv[3])
