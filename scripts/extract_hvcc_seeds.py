#!/usr/bin/env python3
"""FuzzHEVC seeds from movies and HEIF files: every hvcC / lhvC record found in them (the payload of the box,
located by its size and type bytes), plus an Annex B seed made of the parameter-set and SEI NAL units those
records carry, so the fuzzer starts from the VPS/SPS/PPS/SEI that real encoders (Apple's among them) write.
usage: extract_hvcc_seeds.py OUT_DIR FILE..."""
import hashlib, os, struct, sys

def records(data):
    for tag in (b"hvcC", b"lhvC"):
        i = 0
        while True:
            j = data.find(tag, i)
            if j < 4:
                break
            i = j + 4
            size = struct.unpack(">I", data[j - 4:j])[0]
            if 8 + 23 <= size <= 1 << 16 and j - 4 + size <= len(data):
                yield tag, data[j + 4:j - 4 + size]

def nal_units(tag, rec):
    """The NAL units of a decoder configuration record's arrays (None when they do not parse)."""
    p = 22 if tag == b"hvcC" else 5
    if p >= len(rec):
        return None
    out, count, p = [], rec[p], p + 1
    for _ in range(count):
        if p + 3 > len(rec):
            return None
        n, p = struct.unpack(">H", rec[p + 1:p + 3])[0], p + 3
        for _ in range(n):
            if p + 2 > len(rec):
                return None
            ln = struct.unpack(">H", rec[p:p + 2])[0]
            out.append(rec[p + 2:p + 2 + ln])
            p += 2 + ln
    return out

def main(out, files):
    os.makedirs(out, exist_ok=True)
    seen, n = set(), 0
    for f in files:
        try:
            data = open(f, "rb").read()
        except OSError:
            continue
        for tag, rec in records(data):
            for seed in (rec, b"".join(b"\x00\x00\x00\x01" + u for u in (nal_units(tag, rec) or []))):
                if not seed:
                    continue
                h = hashlib.sha1(seed).hexdigest()[:16]
                if h in seen:
                    continue
                seen.add(h)
                open(os.path.join(out, "hvcc-" + h), "wb").write(seed)
                n += 1
    print(f"extract_hvcc_seeds: {n} seeds in {out}")

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
