#!/usr/bin/env python3
"""Independent reading of the ISO 21496-1 gain maps of a HEIF file with libheif 1.23 (bundled in pillow-heif), printed
as JSON. Used by the Swift tests as an oracle; never by the library.

  tmap_oracle.py FILE [LEFT.jpg RIGHT.jpg]

For every `tmap` item libheif lists: its id, whether it is hidden, the items its `dimg` reference names ([base, gain
map]), its raw payload (hex) and the entity groups that hold it; for its gain map: size, and, when the JPEGs are given,
the PSNR of libheif's decoding of the gain map against Pillow's decoding of that eye's JPEG gain map (the second MPF
picture; eye by the order of the `ster` group: entity 0 = left).
"""
import ctypes, json, math, sys
import pillow_heif
from libheif_ctypes import Err, load, open_context

path = sys.argv[1]
jpegs = sys.argv[2:4]
U32P = ctypes.POINTER(ctypes.c_uint32)
VP = ctypes.c_void_p
lib = load([
    ("heif_context_get_number_of_items", ctypes.c_int, [VP]),
    ("heif_context_get_list_of_item_IDs", ctypes.c_int, [VP, U32P, ctypes.c_int]),
    ("heif_item_get_item_type", ctypes.c_uint32, [VP, ctypes.c_uint32]),
    ("heif_item_is_item_hidden", ctypes.c_int, [VP, ctypes.c_uint32]),
    ("heif_context_get_item_references", ctypes.c_size_t, [VP, ctypes.c_uint32, ctypes.c_int, U32P, ctypes.POINTER(U32P)]),
    ("heif_release_item_references", None, [VP, ctypes.POINTER(U32P)]),
    ("heif_item_get_item_data", Err, [VP, ctypes.c_uint32, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)), ctypes.POINTER(ctypes.c_size_t)]),
    ("heif_release_item_data", None, [VP, ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8))]),
    ("heif_context_get_image_handle", Err, [VP, ctypes.c_uint32, ctypes.POINTER(VP)]),
    ("heif_image_handle_get_width", ctypes.c_int, [VP]),
    ("heif_image_handle_get_height", ctypes.c_int, [VP]),
    ("heif_decode_image", Err, [VP, ctypes.POINTER(VP), ctypes.c_int, ctypes.c_int, VP]),
    ("heif_image_get_plane_readonly", ctypes.POINTER(ctypes.c_uint8), [VP, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]),
    ("heif_image_get_width", ctypes.c_int, [VP, ctypes.c_int]),
    ("heif_image_get_height", ctypes.c_int, [VP, ctypes.c_int]),
])
ctx = open_context(lib, path)


def fourcc(v):
    return bytes([(v >> 24) & 255, (v >> 16) & 255, (v >> 8) & 255, v & 255]).decode("latin-1")


def references(item):
    out = []
    for index in range(16):
        kind = ctypes.c_uint32()
        to = U32P()
        n = lib.heif_context_get_item_references(ctx, item, index, ctypes.byref(kind), ctypes.byref(to))
        if n == 0 and kind.value == 0:
            break
        out.append({"type": fourcc(kind.value), "to": [to[i] for i in range(n)]})
        lib.heif_release_item_references(ctx, ctypes.byref(to))
    return out


def decode_grey(item):
    """The luma plane libheif decodes for image item `item`, as a list of rows."""
    h = VP()
    e = lib.heif_context_get_image_handle(ctx, item, ctypes.byref(h))
    if e.code != 0:
        return None, (e.message or b"").decode()
    img = VP()
    e = lib.heif_decode_image(h, ctypes.byref(img), 99, 99, None)   # colorspace and chroma undefined: as coded
    if e.code != 0:
        return None, (e.message or b"").decode()
    stride = ctypes.c_int()
    plane = lib.heif_image_get_plane_readonly(img, 0, ctypes.byref(stride))   # heif_channel_Y
    w, hgt = lib.heif_image_get_width(img, 0), lib.heif_image_get_height(img, 0)
    return [[plane[y * stride.value + x] for x in range(w)] for y in range(hgt)], None


def jpeg_gain_map(jpeg):
    """Pillow's decoding of the second picture of `jpeg`'s MPF index (read here from CIPA DC-007: the APP2 `MPF`
    segment's TIFF IFD, tag 0xB002 entries of 16 bytes: attribute, size, offset from the TIFF header), as grey rows."""
    import io, struct
    from PIL import Image
    data = open(jpeg, "rb").read()
    at = data.find(b"MPF\0")
    tiff = at + 4
    e = "<" if data[tiff:tiff + 2] == b"II" else ">"
    ifd = tiff + struct.unpack(e + "I", data[tiff + 4:tiff + 8])[0]
    count = struct.unpack(e + "H", data[ifd:ifd + 2])[0]
    for k in range(count):
        tag, _, n, value = struct.unpack(e + "HHII", data[ifd + 2 + 12 * k:ifd + 14 + 12 * k])
        if tag == 0xB002:
            _, size, offset, _, _ = struct.unpack(e + "IIIHH", data[tiff + value + 16:tiff + value + 32])
            g = Image.open(io.BytesIO(data[tiff + offset:tiff + offset + size])).convert("L")
            w, h = g.size
            px = g.load()
            return [[px[x, y] for x in range(w)] for y in range(h)]
    return None


def psnr(a, b):
    if a is None or b is None or len(a) != len(b) or len(a[0]) != len(b[0]):
        return None
    se = sum((x - y) ** 2 for ra, rb in zip(a, b) for x, y in zip(ra, rb))
    n = len(a) * len(a[0])
    return 99.0 if se == 0 else 10 * math.log10(255 * 255 * n / se)


count = lib.heif_context_get_number_of_items(ctx)
arr = (ctypes.c_uint32 * max(count, 1))()
n = lib.heif_context_get_list_of_item_IDs(ctx, arr, count)
items = [arr[i] for i in range(n)]
groups = [{"id": g["id"], "type": g["type"], "entities": list(g["entities"])} for g in pillow_heif.open_heif(path).info.get("entity_groups", []) or []]
ster = next((g["entities"] for g in groups if g["type"] == "ster"), [])
out = []
for item in items:
    if fourcc(lib.heif_item_get_item_type(ctx, item)) != "tmap":
        continue
    refs = references(item)
    dimg = next((r["to"] for r in refs if r["type"] == "dimg"), [])
    data = ctypes.POINTER(ctypes.c_uint8)()
    size = ctypes.c_size_t()
    comp = ctypes.c_int()
    e = lib.heif_item_get_item_data(ctx, item, ctypes.byref(comp), ctypes.byref(data), ctypes.byref(size))
    payload = bytes(data[i] for i in range(size.value)) if e.code == 0 else b""
    if e.code == 0:
        lib.heif_release_item_data(ctx, ctypes.byref(data))
    entry = {"id": item, "hidden": bool(lib.heif_item_is_item_hidden(ctx, item)), "dimg": dimg, "payload": payload.hex(),
             "groups": [g["type"] for g in groups if item in g["entities"]]}
    if len(dimg) == 2:
        gh = VP()
        if lib.heif_context_get_image_handle(ctx, dimg[1], ctypes.byref(gh)).code == 0:
            entry["gain_map"] = {"id": dimg[1], "width": lib.heif_image_handle_get_width(gh), "height": lib.heif_image_handle_get_height(gh),
                                 "hidden": bool(lib.heif_item_is_item_hidden(ctx, dimg[1]))}
        if jpegs and dimg[0] in ster:
            pixels, err = decode_grey(dimg[1])
            entry["eye"] = ster.index(dimg[0])
            if err:
                entry["decode_error"] = err
            else:
                entry["psnr"] = psnr(pixels, jpeg_gain_map(jpegs[ster.index(dimg[0])]))
    out.append(entry)
print(json.dumps({"tmap": out, "entity_groups": groups}))
