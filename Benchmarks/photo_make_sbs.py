#!/usr/bin/env python3
"""Writes a synthetic 8-bit RGB side-by-side PNG (smooth gradients + noise-free texture), stdlib only."""
import sys, zlib, struct
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = []
for y in range(h):
    r = bytearray([0])
    for x in range(w):
        xx = x % (w // 2)
        r += bytes(((xx * 255) // (w // 2), (y * 255) // h, ((xx ^ y) & 255)))
    rows.append(bytes(r))
raw = b"".join(rows)
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b"")
open(path, "wb").write(png)
