#!/usr/bin/env python3
"""Makes a sparse HEIF file over 4 GiB from a real one: `iloc` is rewritten with 64-bit extent offsets
and the coded data is moved behind a hole of HOLE bytes inside a largesize `mdat`, so every item's data
lies past the 4 GiB mark. Items stored in `idat` (construction method 1) keep their offsets.
usage: make_sparse_heic.py SRC OUT [HOLE_BYTES]   (the hole costs no disk space)"""
import struct, sys

def boxes(b, start, end):
    p = start
    while p + 8 <= end:
        size, typ = struct.unpack(">I4s", b[p:p + 8])
        hdr = 8
        if size == 1:
            size = struct.unpack(">Q", b[p + 8:p + 16])[0]; hdr = 16
        elif size == 0:
            size = end - p
        yield typ.decode("latin-1"), p, size, hdr
        p += size

def read_int(b, p, n):
    return (int.from_bytes(b[p:p + n], "big") if n else 0), p + n

def rewrite_iloc(body, shift):
    """body = iloc payload after the box header (version/flags included). Returns the new payload."""
    version = body[0]
    assert version in (1, 2), "iloc version 0 has no construction method; not needed here"
    off_sz, len_sz = body[4] >> 4, body[4] & 15
    base_sz, idx_sz = body[5] >> 4, body[5] & 15
    p = 6
    count, p = read_int(body, p, 2 if version < 2 else 4)
    out = bytearray(body[:4]) + bytes([(8 << 4) | len_sz, (base_sz << 4) | idx_sz]) + body[6:p]
    for _ in range(count):
        item, p = read_int(body, p, 2 if version < 2 else 4)
        cm_field, p = read_int(body, p, 2)
        dref, p = read_int(body, p, 2)
        base, p = read_int(body, p, base_sz)
        n_ext, p = read_int(body, p, 2)
        method = cm_field & 15
        out += item.to_bytes(2 if version < 2 else 4, "big") + cm_field.to_bytes(2, "big") + dref.to_bytes(2, "big")
        out += base.to_bytes(base_sz, "big") if base_sz else b""
        out += n_ext.to_bytes(2, "big")
        for _ in range(n_ext):
            idx, p = read_int(body, p, idx_sz)
            off, p = read_int(body, p, off_sz)
            ln, p = read_int(body, p, len_sz)
            if method == 0:
                off += shift
            out += (idx.to_bytes(idx_sz, "big") if idx_sz else b"") + off.to_bytes(8, "big") + (ln.to_bytes(len_sz, "big") if len_sz else b"")
    assert p == len(body), "unparsed iloc bytes"
    return bytes(out)

def main(src, dst, hole):
    b = open(src, "rb").read()
    top = list(boxes(b, 0, len(b)))
    kinds = [t for t, *_ in top]
    assert kinds.count("mdat") == 1 and "meta" in kinds
    _, mp, msize, mhdr = next(x for x in top if x[0] == "mdat")
    old_payload = mp + mhdr
    payload = b[old_payload:mp + msize]
    out_head = bytearray()
    meta_new = None
    for t, p, size, hdr in top:
        if t == "meta":
            # meta is a FullBox: 4 bytes version/flags, then children.
            children = bytearray()
            for ct, cp, csize, chdr in boxes(b, p + hdr + 4, p + size):
                if ct == "iloc":
                    body = b[cp + chdr:cp + csize]
                    children += b"ILOC" + body  # placeholder, fixed below once the shift is known
                else:
                    children += b[cp:cp + csize]
            meta_new = (p, hdr, children)
    # Sizes do not depend on the shift (offsets are always 8 bytes), so compute the layout first.
    def build(shift):
        head = bytearray()
        for t, p, size, hdr in top:
            if t == "mdat":
                continue
            if t != "meta":
                head += b[p:p + size]; continue
            kids = bytearray()
            for ct, cp, csize, chdr in boxes(b, p + hdr + 4, p + size):
                if ct == "iloc":
                    nb = rewrite_iloc(b[cp + chdr:cp + csize], shift)
                    kids += struct.pack(">I4s", 8 + len(nb), b"iloc") + nb
                else:
                    kids += b[cp:cp + csize]
            body = b[p + hdr:p + hdr + 4] + kids
            head += struct.pack(">I4s", 8 + len(body), b"meta") + body
        return head
    probe = build(0)
    new_payload = len(probe) + 16 + hole
    head = build(new_payload - old_payload)
    assert len(head) == len(probe)
    with open(dst, "wb") as f:
        f.write(head)
        f.write(struct.pack(">I4sQ", 1, b"mdat", 16 + hole + len(payload)))
        f.seek(hole, 1)
        f.write(payload)
    print(f"{dst}: {(len(head) + 16 + hole + len(payload)) / 2**30:.2f} GiB, item data from offset {new_payload}")

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else (4 << 30) + (256 << 20))
