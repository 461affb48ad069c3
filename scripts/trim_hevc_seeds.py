#!/usr/bin/env python3
"""Makes small FuzzHEVC seeds from Annex B streams: every VCL NAL unit is cut to its first 48 bytes
(the slice segment header is inside; the slice data is kept verbatim by the parser anyway), parameter
sets and SEI are kept whole, and each seed stops at 16 KiB. Many access units fit in one small input,
so the fuzzer spends its time in header parsing instead of copying slice data.
usage: trim_hevc_seeds.py OUT_DIR FILE..."""
import hashlib, os, sys

def nal_units(b):
    i, starts = 0, []
    while True:
        j = b.find(b"\x00\x00\x01", i)
        if j < 0:
            break
        starts.append(j + 3)
        i = j + 3
    for k, s in enumerate(starts):
        e = starts[k + 1] - 3 if k + 1 < len(starts) else len(b)
        nal = b[s:e].rstrip(b"\x00")
        if nal:
            yield nal

def main(out, files):
    os.makedirs(out, exist_ok=True)
    n = 0
    for f in files:
        data = open(f, "rb").read()
        seed = bytearray()
        for nal in nal_units(data):
            kind = (nal[0] >> 1) & 0x3F
            piece = nal[:48] if kind < 32 else nal
            if len(seed) + 4 + len(piece) > 16384:
                break
            seed += b"\x00\x00\x00\x01" + piece
        if seed:
            name = hashlib.md5(bytes(seed)).hexdigest()[:16] + "-trim"
            open(os.path.join(out, name), "wb").write(seed)
            n += 1
    print(f"trim_hevc_seeds: {n} seeds in {out}")

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
