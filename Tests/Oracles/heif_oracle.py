#!/usr/bin/env python3
"""Independent reading of a HEIF file with libheif 1.23 (bundled in pillow-heif), printed as JSON:
entity groups, top-level images with size, md5 of decoded pixels, and camera intrinsics/extrinsics read
through libheif's own C API (ctypes). Used by the Swift tests as an oracle; never by the library."""
import ctypes, hashlib, json, os, sys
import pillow_heif
from libheif_ctypes import Err, load, open_context

path = sys.argv[1]
decode = "--no-decode" not in sys.argv


class Intr(ctypes.Structure):
    _fields_ = [("fx", ctypes.c_double), ("fy", ctypes.c_double), ("cx", ctypes.c_double), ("cy", ctypes.c_double), ("skew", ctypes.c_double)]

lib = load([
    ("heif_context_alloc", ctypes.c_void_p, []),
    ("heif_context_read_from_file", Err, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]),
    ("heif_context_get_number_of_top_level_images", ctypes.c_int, [ctypes.c_void_p]),
    ("heif_context_get_list_of_top_level_image_IDs", ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32), ctypes.c_int]),
    ("heif_context_get_image_handle", Err, [ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(ctypes.c_void_p)]),
    ("heif_image_handle_has_camera_intrinsic_matrix", ctypes.c_int, [ctypes.c_void_p]),
    ("heif_image_handle_get_camera_intrinsic_matrix", Err, [ctypes.c_void_p, ctypes.POINTER(Intr)]),
    ("heif_image_handle_has_camera_extrinsic_matrix", ctypes.c_int, [ctypes.c_void_p]),
    ("heif_image_handle_get_camera_extrinsic_matrix", Err, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]),
    ("heif_camera_extrinsic_matrix_get_rotation_matrix", Err, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double)]),
    ("heif_image_handle_get_width", ctypes.c_int, [ctypes.c_void_p]),
    ("heif_image_handle_get_height", ctypes.c_int, [ctypes.c_void_p]),
])

ctx = open_context(lib, path)
n = lib.heif_context_get_number_of_top_level_images(ctx)
ids = (ctypes.c_uint32 * max(n, 1))()
lib.heif_context_get_list_of_top_level_image_IDs(ctx, ids, n)
images = []
heif = pillow_heif.open_heif(path) if decode else None
for i in range(n):
    h = ctypes.c_void_p()
    lib.heif_context_get_image_handle(ctx, ids[i], ctypes.byref(h))
    o = {"id": ids[i], "width": lib.heif_image_handle_get_width(h), "height": lib.heif_image_handle_get_height(h)}
    if lib.heif_image_handle_has_camera_intrinsic_matrix(h):
        m = Intr()
        lib.heif_image_handle_get_camera_intrinsic_matrix(h, ctypes.byref(m))
        o["intrinsics"] = {"fx": m.fx, "fy": m.fy, "cx": m.cx, "cy": m.cy, "skew": m.skew}
    if lib.heif_image_handle_has_camera_extrinsic_matrix(h):
        x = ctypes.c_void_p()
        lib.heif_image_handle_get_camera_extrinsic_matrix(h, ctypes.byref(x))
        rot = (ctypes.c_double * 9)()
        lib.heif_camera_extrinsic_matrix_get_rotation_matrix(x, rot)
        o["extrinsics_rotation"] = list(rot)
    if heif is not None:
        img = heif[i]
        o["pixels_md5"] = hashlib.md5(bytes(img.data)).hexdigest()
    images.append(o)
groups = pillow_heif.open_heif(path).info.get("entity_groups", [])
print(json.dumps({"images": images, "entity_groups": [{"id": g["id"], "type": g["type"], "entities": g["entities"]} for g in groups]}))
