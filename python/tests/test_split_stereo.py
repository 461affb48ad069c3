"""Issue 33 part 2: split takes a side-by-side / top-bottom picture with ``layout`` (through the operations layer)."""
import os

import spatialmedia as sm

from conftest import write_png


def test_split_top_bottom_png(tmp_path):
    tb = os.path.join(tmp_path, "tb.png")
    write_png(tb, 32, 64, lambda x, y: (200, 0, 0) if y < 32 else (0, 0, 200))
    left, right = os.path.join(tmp_path, "l.png"), os.path.join(tmp_path, "r.png")
    report = sm.split(tb, left, right, layout="tb")
    assert report.raw["lossless"] is True and report.raw["source"] == "PNG top-bottom"
    assert os.path.exists(left) and os.path.exists(right)
