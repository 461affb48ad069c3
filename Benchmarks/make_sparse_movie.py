#!/usr/bin/env python3
"""Writes a sparse QuickTime movie larger than 4 GiB whose moov holds N samples (default 200 000).

The mdat uses a 64-bit largesize header and is a hole (ftruncate), so the file costs almost no disk.
Chunk offsets are in co64. The `hvc1` sample entry carries the `hvcC` and `lhvC` records found in
CONFIG_FROM (an MV-HEVC movie, read at run time) so that the file looks like stereo MV-HEVC to readers.
Usage: make_sparse_movie.py OUT [SAMPLES] [MDAT_BYTES] [CONFIG_FROM]"""
import struct, sys, os

def box(t, payload):
    return struct.pack(">I4s", 8 + len(payload), t) + payload

def full(t, payload, version=0, flags=0):
    return box(t, struct.pack(">I", (version << 24) | flags) + payload)

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
mdat_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else (4 << 30) + (256 << 20)
config_from = sys.argv[4] if len(sys.argv) > 4 else None

def find_box(data, name):
    """The first box of type `name` (header included), found by scanning for its type bytes."""
    i = data.find(name)
    while i >= 4:
        size = struct.unpack(">I", data[i - 4:i])[0]
        if 8 <= size <= len(data) - i + 4:
            return data[i - 4:i - 4 + size]
        i = data.find(name, i + 1)
    return b""

config = b""
if config_from and os.path.exists(config_from):
    blob = open(config_from, "rb").read()
    config = find_box(blob, b"hvcC") + find_box(blob, b"lhvC")
size = mdat_bytes // n
per_chunk = 10
chunks = (n + per_chunk - 1) // per_chunk
ftyp = box(b"ftyp", b"qt  " + struct.pack(">I", 0) + b"qt  ")
mdat_header = struct.pack(">I4sQ", 1, b"mdat", 16 + mdat_bytes)
data_start = len(ftyp) + len(mdat_header)
matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
timescale, delta = 30000, 1001
dur = n * delta
mvhd = full(b"mvhd", struct.pack(">IIII", 0, 0, timescale, dur) + struct.pack(">IH", 0x10000, 0x100) + b"\0" * 10 + matrix + b"\0" * 24 + struct.pack(">I", 2))
tkhd = full(b"tkhd", struct.pack(">IIIII", 0, 0, 1, 0, dur) + b"\0" * 8 + struct.pack(">hhhH", 0, 0, 0, 0) + matrix + struct.pack(">II", 1920 << 16, 1080 << 16), flags=3)
mdhd = full(b"mdhd", struct.pack(">IIII", 0, 0, timescale, dur) + struct.pack(">HH", 0x55C4, 0))
hdlr = full(b"hdlr", struct.pack(">I", 0) + b"vide" + b"\0" * 12 + b"sparse\0")
name = b"\x06sparse" + b"\0" * 25
entry = box(b"hvc1", b"\0" * 6 + struct.pack(">H", 1) + b"\0" * 16 + struct.pack(">HHIII", 1920, 1080, 0x480000, 0x480000, 0) + struct.pack(">H", 1) + name + struct.pack(">Hh", 24, -1) + config)
stsd = full(b"stsd", struct.pack(">I", 1) + entry)
stts = full(b"stts", struct.pack(">III", 1, n, delta))
stss = full(b"stss", struct.pack(">I", n // 30) + b"".join(struct.pack(">I", 1 + 30 * i) for i in range(n // 30)))
stsc = full(b"stsc", struct.pack(">IIII", 1, 1, per_chunk, 1))
stsz = full(b"stsz", struct.pack(">II", 0, n) + struct.pack(">%dI" % n, *([size] * n)))
co64 = full(b"co64", struct.pack(">I", chunks) + b"".join(struct.pack(">Q", data_start + i * per_chunk * size) for i in range(chunks)))
stbl = box(b"stbl", stsd + stts + stss + stsc + stsz + co64)
minf = box(b"minf", full(b"vmhd", struct.pack(">HHHH", 0, 0, 0, 0), flags=1) + box(b"dinf", full(b"dref", struct.pack(">I", 1) + full(b"url ", b"", flags=1))) + stbl)
moov = box(b"moov", mvhd + box(b"trak", tkhd + box(b"mdia", mdhd + hdlr + minf)))
with open(out, "wb") as f:
    f.write(ftyp)
    f.write(mdat_header)
    f.truncate(data_start + mdat_bytes)
    # The first samples hold one length-prefixed filler-data NAL unit each (type 38, payload 0xFF…0x80),
    # so that readers which analyse the first samples find well-formed NAL units rather than a hole.
    for i in range(min(n, 3)):
        f.seek(data_start + i * size)
        f.write(struct.pack(">I", size - 4) + bytes([38 << 1, 1]) + b"\xff" * (size - 7) + b"\x80")
    f.seek(data_start + mdat_bytes)
    f.write(moov)
print(f"{out}: {os.path.getsize(out)} bytes, {n} samples, moov {len(moov)} bytes", file=sys.stderr)
