#!/usr/bin/env python3
"""Independent reading of a HEIF file's auxiliary images and thumbnails with libheif 1.23 (bundled in pillow-heif),
printed as JSON. Used by the Swift tests as an oracle; never by the library.

  aux_oracle.py FILE                 top-level images: id, size; each auxiliary image (all kinds, alpha and depth
                                     included): id, aux type URN, size as shown; thumbnails: id, size
  aux_oracle.py FILE --pixels        also the md5 of each auxiliary image's decoded pixels (pillow-heif) and its
                                     Pearson correlation with the main picture's luma reduced to its size
"""
import ctypes, hashlib, json, sys
import pillow_heif
from libheif_ctypes import Err, load, open_context

path = sys.argv[1]
pixels = "--pixels" in sys.argv
U32P = ctypes.POINTER(ctypes.c_uint32)
VP = ctypes.c_void_p
lib = load([
    ("heif_context_alloc", VP, []),
    ("heif_context_read_from_file", Err, [VP, ctypes.c_char_p, VP]),
    ("heif_context_get_number_of_top_level_images", ctypes.c_int, [VP]),
    ("heif_context_get_list_of_top_level_image_IDs", ctypes.c_int, [VP, U32P, ctypes.c_int]),
    ("heif_context_get_image_handle", Err, [VP, ctypes.c_uint32, ctypes.POINTER(VP)]),
    ("heif_image_handle_get_width", ctypes.c_int, [VP]),
    ("heif_image_handle_get_height", ctypes.c_int, [VP]),
    ("heif_image_handle_get_item_id", ctypes.c_uint32, [VP]),
    ("heif_image_handle_get_number_of_auxiliary_images", ctypes.c_int, [VP, ctypes.c_int]),
    ("heif_image_handle_get_list_of_auxiliary_image_IDs", ctypes.c_int, [VP, ctypes.c_int, U32P, ctypes.c_int]),
    ("heif_image_handle_get_auxiliary_image_handle", Err, [VP, ctypes.c_uint32, ctypes.POINTER(VP)]),
    ("heif_image_handle_get_auxiliary_type", Err, [VP, ctypes.POINTER(ctypes.c_char_p)]),
    ("heif_image_handle_get_number_of_thumbnails", ctypes.c_int, [VP]),
    ("heif_image_handle_get_list_of_thumbnail_IDs", ctypes.c_int, [VP, U32P, ctypes.c_int]),
    ("heif_image_handle_get_thumbnail", Err, [VP, ctypes.c_uint32, ctypes.POINTER(VP)]),
])
ctx = open_context(lib, path)


def ids(count, fill):
    arr = (ctypes.c_uint32 * max(count, 1))()
    n = fill(arr, count)
    return [arr[i] for i in range(n)]


heif = pillow_heif.open_heif(path, convert_hdr_to_8bit=True) if pixels else None
images = []
n = lib.heif_context_get_number_of_top_level_images(ctx)
for index, iid in enumerate(ids(n, lambda a, c: lib.heif_context_get_list_of_top_level_image_IDs(ctx, a, c))):
    h = VP()
    lib.heif_context_get_image_handle(ctx, iid, ctypes.byref(h))
    image = {"id": iid, "width": lib.heif_image_handle_get_width(h), "height": lib.heif_image_handle_get_height(h), "auxiliary": [], "thumbnails": []}
    luma = None
    if pixels:
        import numpy as np
        main = heif[index]
        luma = np.asarray(main.to_pillow().convert("L"), dtype=np.float64)
    na = lib.heif_image_handle_get_number_of_auxiliary_images(h, 0)
    for aid in ids(na, lambda a, c: lib.heif_image_handle_get_list_of_auxiliary_image_IDs(h, 0, a, c)):
        ah = VP()
        lib.heif_image_handle_get_auxiliary_image_handle(h, aid, ctypes.byref(ah))
        t = ctypes.c_char_p()
        lib.heif_image_handle_get_auxiliary_type(ah, ctypes.byref(t))
        aux = {"id": aid, "type": (t.value or b"").decode(), "width": lib.heif_image_handle_get_width(ah),
               "height": lib.heif_image_handle_get_height(ah)}
        if pixels and aux["type"] in main.info.get("aux", {}):
            import numpy as np
            from PIL import Image
            a = main.get_aux_image(aid)
            arr = np.asarray(a)
            aux["md5"] = hashlib.md5(arr.tobytes()).hexdigest()
            g = arr.astype(np.float64) if arr.ndim == 2 else arr[..., 0].astype(np.float64)
            small = np.asarray(Image.fromarray(luma.astype(np.uint8)).resize((g.shape[1], g.shape[0]), Image.BILINEAR), dtype=np.float64)
            aux["correlation"] = float(np.corrcoef(g.ravel(), small.ravel())[0, 1])
        image["auxiliary"].append(aux)
    nt = lib.heif_image_handle_get_number_of_thumbnails(h)
    for tid in ids(nt, lambda a, c: lib.heif_image_handle_get_list_of_thumbnail_IDs(h, a, c)):
        th = VP()
        lib.heif_image_handle_get_thumbnail(h, tid, ctypes.byref(th))
        image["thumbnails"].append({"id": tid, "width": lib.heif_image_handle_get_width(th), "height": lib.heif_image_handle_get_height(th)})
    images.append(image)
print(json.dumps({"images": images}))
