#!/usr/bin/env python3
"""Writes small PNG files covering every colour type and bit depth, interlacing, palettes with tRNS,
several IDAT chunks and the ancillary chunks we read (eXIf, cICP, sRGB, gAMA, pHYs, iCCP): the seed
corpus of the FuzzPNG target and the inputs of the PNG structure tests. Standard library only."""
import os, struct, sys, zlib

def chunk(t, data):
    return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF)

def raw_rows(w, h, ctype, depth, interlace):
    ch = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    bits = ch * depth
    def rows(ww, hh, seed):
        out = b""
        for y in range(hh):
            nbytes = (ww * bits + 7) // 8
            out += bytes([y % 5]) + bytes(((x * 37 + y * 11 + seed) & 0xFF) for x in range(nbytes))
        return out
    if not interlace:
        return rows(w, h, 0)
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    out = b""
    for i, (x0, y0, dx, dy) in enumerate(passes):
        pw = (w - x0 + dx - 1) // dx if w > x0 else 0
        ph = (h - y0 + dy - 1) // dy if h > y0 else 0
        if pw and ph:
            out += rows(pw, ph, i)
    return out

def png(w, h, ctype, depth, interlace=0, extra=b"", split=1, palette=0, trns=False):
    ihdr = struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, interlace)
    body = chunk(b"IHDR", ihdr) + extra
    if palette:
        body += chunk(b"PLTE", bytes((i * 7) & 0xFF for i in range(palette * 3)))
        if trns:
            body += chunk(b"tRNS", bytes((255 - i * 9) & 0xFF for i in range(min(palette, 16))))
    data = zlib.compress(raw_rows(w, h, ctype, depth, interlace), 9)
    step = max(1, (len(data) + split - 1) // split)
    for i in range(0, len(data), step):
        body += chunk(b"IDAT", data[i:i + step])
    return b"\x89PNG\r\n\x1a\n" + body + chunk(b"IEND", b"")

def exif_fov():
    # Little-endian TIFF: IFD0 with an Exif pointer; Exif IFD with FocalLengthIn35mmFilm = 26.
    ifd0 = struct.pack("<H", 1) + struct.pack("<HHII", 0x8769, 4, 1, 26) + struct.pack("<I", 0)
    exif = struct.pack("<H", 1) + struct.pack("<HHIHH", 0xA405, 3, 1, 26, 0) + struct.pack("<I", 0)
    return b"II*\x00" + struct.pack("<I", 8) + ifd0 + exif

def main(out):
    os.makedirs(out, exist_ok=True)
    files = {}
    for ctype, depths in {0: [1, 2, 4, 8, 16], 2: [8, 16], 4: [8, 16], 6: [8, 16]}.items():
        for d in depths:
            files[f"c{ctype}_d{d}.png"] = png(13, 7, ctype, d)
    for d in [1, 2, 4, 8]:
        files[f"pal_d{d}.png"] = png(9, 5, 3, d, palette=min(1 << d, 16), trns=(d == 8))
    files["interlaced_rgb.png"] = png(17, 11, 2, 8, interlace=1)
    files["interlaced_grey16.png"] = png(10, 9, 0, 16, interlace=1)
    files["split_idat.png"] = png(32, 16, 6, 8, split=5)
    anc = (chunk(b"gAMA", struct.pack(">I", 45455)) + chunk(b"sRGB", b"\x00") + chunk(b"cICP", bytes([1, 13, 0, 1]))
           + chunk(b"pHYs", struct.pack(">IIB", 2835, 2835, 1)) + chunk(b"eXIf", exif_fov())
           + chunk(b"iCCP", b"x\x00\x00" + zlib.compress(b"\x00" * 128)))
    files["ancillary.png"] = png(24, 12, 2, 8, extra=anc)
    bad_crc = chunk(b"tEXt", b"Comment\x00seed")
    bad_crc = bad_crc[:-1] + bytes([bad_crc[-1] ^ 0xFF])
    files["ancillary_bad_crc.png"] = png(8, 8, 0, 8, extra=bad_crc)
    files["sbs_rgb.png"] = png(64, 16, 2, 8)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(files)} PNG files to {out}")

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "Fuzz/corpus-work/FuzzPNG")
