#!/usr/bin/env python3
"""Reference stereo measurement with OpenCV (oracles.md): ORB features, Lowe ratio test, RANSAC fundamental
matrix; prints JSON with the vertical disparity (y_right - y_left) statistics of the inliers.

usage: stereo_oracle.py LEFT RIGHT [--features N]
LEFT/RIGHT: any image OpenCV reads (PGM/PNG/JPEG), or a stereo HEIC with --heic (both eyes via pillow-heif).
"""
import json, sys, time
import numpy as np
import cv2


def load(path):
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise SystemExit(f"cannot read {path}")
    return img


def measure(left, right, nfeatures=5000, ratio=0.75):
    t0 = time.perf_counter()
    orb = cv2.ORB_create(nfeatures=nfeatures)
    kl, dl = orb.detectAndCompute(left, None)
    kr, dr = orb.detectAndCompute(right, None)
    if dl is None or dr is None:
        return {"error": "no features"}
    bf = cv2.BFMatcher(cv2.NORM_HAMMING)
    good = []
    for pair in bf.knnMatch(dl, dr, k=2):
        if len(pair) == 2 and pair[0].distance < ratio * pair[1].distance:
            good.append(pair[0])
    if len(good) < 8:
        return {"error": f"only {len(good)} matches"}
    pl = np.float32([kl[m.queryIdx].pt for m in good])
    pr = np.float32([kr[m.trainIdx].pt for m in good])
    F, mask = cv2.findFundamentalMat(pl, pr, cv2.FM_RANSAC, 1.0, 0.999)
    if mask is None:
        return {"error": "RANSAC failed"}
    inl = mask.ravel().astype(bool)
    dy = (pr[inl, 1] - pl[inl, 1]).astype(np.float64)
    dx = (pl[inl, 0] - pr[inl, 0]).astype(np.float64)
    elapsed = time.perf_counter() - t0
    return {
        "keypoints": [len(kl), len(kr)], "matches": len(good), "inliers": int(inl.sum()),
        "median_dy": float(np.median(dy)), "median_abs_dy": float(np.median(np.abs(dy))),
        "mean_dy": float(np.mean(dy)), "p95_abs_dy": float(np.percentile(np.abs(dy), 95)),
        "disparity_p2": float(np.percentile(dx, 2)), "disparity_p98": float(np.percentile(dx, 98)),
        "seconds": elapsed, "opencv": cv2.__version__,
    }


def main():
    args = sys.argv[1:]
    if "--heic" in args:
        import pillow_heif
        path = args[args.index("--heic") + 1]
        h = pillow_heif.open_heif(path)
        groups = h.info.get("entity_groups") or []
        ster = next((g for g in groups if g.get("type") == "ster"), None)
        idx = ster.get("images") if ster else None
        if not idx or len(idx) != 2:
            raise SystemExit("no ster group")
        imgs = list(h)
        left = cv2.cvtColor(np.asarray(imgs[idx[0]].to_pillow().convert("RGB")), cv2.COLOR_RGB2GRAY)
        right = cv2.cvtColor(np.asarray(imgs[idx[1]].to_pillow().convert("RGB")), cv2.COLOR_RGB2GRAY)
    else:
        left, right = load(args[0]), load(args[1])
    print(json.dumps(measure(left, right)))


if __name__ == "__main__":
    main()
