#!/usr/bin/env python3
"""Writes the seed corpus of the FuzzJPEG target: small JPEG structures made here from the published layouts, no
third-party file. Each is SOI, APP segments, a tiny baseline frame (an 8x8 grey picture coded by hand: one DC
Huffman table, one AC table, a scan of one block) and EOI; the multi-picture ones carry an APP2 `MPF` index (CIPA
DC-007) of MP types Disparity, Multi-angle, Baseline primary + Undefined; the gain-map ones an Ultra HDR / Adobe
`hdrgm` XMP (attributes or elements, one value or an rdf:Seq of three), a GContainer directory, an ISO 21496-1 APP2
block (one or three channels), or Apple's gain-map XMP. Standard library only.

  make_jpeg_seeds.py DIR
"""
import os, struct, sys

ISO = b"urn:iso:std:iso:ts:21496:-1\0"


def seg(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def picture(extra=b""):
    """A baseline 8x8 one-component JPEG whose only block is all zero (DC diff 0, EOB)."""
    dqt = seg(0xDB, bytes([0]) + bytes([1] * 64))
    sof = seg(0xC0, bytes([8]) + struct.pack(">HH", 8, 8) + bytes([1, 1, 0x11, 0]))
    # DC table 0: one code of length 1 for category 0; AC table 0: one code of length 1 for EOB (0x00).
    dht = seg(0xC4, bytes([0x00]) + bytes([1] + [0] * 15) + bytes([0]) + bytes([0x10]) + bytes([1] + [0] * 15) + bytes([0]))
    sos = seg(0xDA, bytes([1, 1, 0x00, 0, 63, 0]))
    scan = bytes([0x00])   # DC code '0', EOB code '0', padded with zeros
    return b"\xFF\xD8" + extra + dqt + sof + dht + sos + scan + b"\xFF\xD9"


def xmp(body):
    return seg(0xE1, b"http://ns.adobe.com/xap/1.0/\0" + body.encode())


def gain_xmp(elements=False, seq=False, hdr=False):
    vals = [("Version", "1.0"), ("GainMapMin", "-0.5"), ("GainMapMax", "2.3219280948873622"), ("Gamma", "1.0"),
            ("OffsetSDR", "0.015625"), ("OffsetHDR", "0.015625"), ("HDRCapacityMin", "0"), ("HDRCapacityMax", "2.3"),
            ("BaseRenditionIsHDR", "True" if hdr else "False")]
    head = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' \
           '<rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/"'
    if elements or seq:
        parts = []
        for k, v in vals:
            if seq and k in ("GainMapMin", "GainMapMax", "Gamma"):
                parts.append(f"<hdrgm:{k}><rdf:Seq><rdf:li>{v}</rdf:li><rdf:li>{v}</rdf:li><rdf:li>1.5</rdf:li></rdf:Seq></hdrgm:{k}>")
            else:
                parts.append(f"<hdrgm:{k}>{v}</hdrgm:{k}>")
        return head + ">" + "".join(parts) + "</rdf:Description></rdf:RDF></x:xmpmeta>"
    return head + "".join(f' hdrgm:{k}="{v}"' for k, v in vals) + "/></rdf:RDF></x:xmpmeta>"


def container_xmp(length):
    return ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            '<rdf:Description xmlns:Container="http://ns.google.com/photos/1.0/container/" '
            'xmlns:Item="http://ns.google.com/photos/1.0/container/item/" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" '
            'hdrgm:Version="1.0"><Container:Directory><rdf:Seq>'
            '<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>'
            f'<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="{length}"/></rdf:li>'
            '</rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>')


def iso_block(channels=1, full=True):
    b = struct.pack(">HH", 0, 0)
    if not full:
        return b
    b += bytes([(0x80 if channels == 3 else 0) | 0x40])
    b += struct.pack(">IIII", 0, 1, 23, 10)
    for c in range(channels):
        b += struct.pack(">iIiIIIiIiI", -1, 2, 23 + c, 10, 1, 1, 1, 64, 1, 64)
    return b


def mpf(first_len_wo_mpf, others, types):
    """The APP2 MPF segment for a first picture of `first_len_wo_mpf` bytes (without this segment) followed by `others`."""
    n = len(types)
    ifd_len = 2 + 3 * 12 + 4
    tiff_len = 8 + ifd_len + 16 * n
    seg_len = 4 + 4 + tiff_len
    first = first_len_wo_mpf + seg_len
    entries = b""
    offset = first - (2 + 4 + 4)
    for i, t in enumerate(types):
        size = first if i == 0 else len(others[i - 1])
        entries += struct.pack(">IIIHH", t, size, 0 if i == 0 else offset, 0, 0)
        if i > 0:
            offset += size
    tiff = b"MM\0\x2a" + struct.pack(">I", 8) + struct.pack(">H", 3)
    tiff += struct.pack(">HHI", 0xB000, 7, 4) + b"0100"
    tiff += struct.pack(">HHII", 0xB001, 4, 1, n)
    tiff += struct.pack(">HHII", 0xB002, 7, 16 * n, 8 + ifd_len) + struct.pack(">I", 0) + entries
    return seg(0xE2, b"MPF\0" + tiff)


def multi(first_extra, others, types):
    base = picture(first_extra)
    m = mpf(len(base), others, types)
    return base[:2] + m + base[2:] + b"".join(others)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {
        "plain": picture(),
        "exif": picture(seg(0xE1, b"Exif\0\0MM\0\x2a\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01\0\x06\0\0\0\0\0\0")),
        "stereo-disparity": multi(b"", [picture()], [0x20020002, 0x020002]),
        "stereo-multiangle": multi(b"", [picture()], [0x020003, 0x020003]),
        "three-multiangle": multi(b"", [picture(), picture()], [0x020003, 0x020003, 0x020003]),
        "thumbnail": multi(b"", [picture()], [0x030000, 0x010001]),
        "ultrahdr-attributes": multi(xmp(container_xmp(300)), [picture(xmp(gain_xmp()))], [0x030000, 0]),
        "ultrahdr-elements": multi(xmp(container_xmp(300)), [picture(xmp(gain_xmp(elements=True)))], [0x030000, 0]),
        "ultrahdr-seq-hdrbase": multi(b"", [picture(xmp(gain_xmp(seq=True, hdr=True)))], [0x030000, 0]),
        "adobe-iso": multi(seg(0xE2, ISO + iso_block(full=False)), [picture(seg(0xE2, ISO + iso_block()) + xmp(gain_xmp(elements=True)))], [0x030000, 0]),
        "iso-three-channels": multi(b"", [picture(seg(0xE2, ISO + iso_block(channels=3)))], [0x030000, 0]),
        "container-only": multi(xmp(container_xmp(99)), [picture()], [0x030000, 0]),
        "apple": multi(b"", [picture(xmp('<x:xmpmeta><apdi:AuxiliaryImageType>urn:com:apple:photo:2020:aux:hdrgainmap'
                                           '</apdi:AuxiliaryImageType><HDRGainMap:HDRGainMapVersion>65536</HDRGainMap:HDRGainMapVersion></x:xmpmeta>'))],
                       [0x030000, 0]),
        "concatenated": picture() + picture(xmp(gain_xmp())),
        "iso-block-alone": iso_block(channels=3),
        "tmap-payload": b"\0" + iso_block(),
        "xmp-alone": gain_xmp(seq=True).encode(),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, "seed-" + name + ".jpg"), "wb") as f:
            f.write(data)
    print(f"make_jpeg_seeds: {len(seeds)} seeds in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
