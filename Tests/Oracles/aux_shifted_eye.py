#!/usr/bin/env python3
"""Makes a second, misaligned eye for the auxiliary-image tests from a gain-mapped HEIC (pillow-heif decodes it): the
picture and its gain map turned by DEG degrees and moved down by DY % of the height, both the same way at their own
resolution, written as PNG files. Test input only; never used by the library.

  aux_shifted_eye.py SOURCE.HEIC OUT-PICTURE.png OUT-GAINMAP.png [DEG] [DY]
"""
import json, sys
import pillow_heif
from PIL import Image

src, out_pic, out_gain = sys.argv[1:4]
deg = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
dy = float(sys.argv[5]) if len(sys.argv) > 5 else 1.5
heif = pillow_heif.open_heif(src)
main = heif[0]
urn = next(iter(main.info["aux"]))
gain = main.get_aux_image(main.info["aux"][urn][0])
pic = main.to_pillow().convert("RGB")
g = gain.to_pillow().convert("L")


def moved(img):
    w, h = img.size
    return img.rotate(deg, resample=Image.BILINEAR, translate=(0, round(h * dy / 100)), fillcolor=0 if img.mode == "L" else (0, 0, 0))


moved(pic).save(out_pic)
moved(g).save(out_gain)
print(json.dumps({"picture": list(pic.size), "gain_map": list(g.size), "urn": urn}))
