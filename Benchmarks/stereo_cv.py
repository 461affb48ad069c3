#!/usr/bin/env python3
"""OpenCV helpers for the stereo-geometry benchmarks (oracle environment only).

  stereo_cv.py residual LEFT RIGHT            vertical disparity of a pair, measured independently of spatial-media:
                                              Shi-Tomasi corners refined to sub-pixel, pyramidal Lucas-Kanade flow
                                              left->right with a forward-backward check (< 0.5 px), RANSAC
                                              fundamental matrix (1 px); prints median / p95 of |y_right - y_left| and the signed median.
  stereo_cv.py residual-dir DIR               the same for every DIR/*-L.pgm + *-R.pgm pair (the sweep's aligned pairs).
  stereo_cv.py residual-json DIR              the same as one JSON object keyed by pair name (the video --align tests).
  stereo_cv.py rectify LEFT RIGHT [--runs N]  OpenCV's uncalibrated pipeline timed: ORB 5000 + ratio 0.75 +
                                              findFundamentalMat (RANSAC) + stereoRectifyUncalibrated + warpPerspective
                                              of both eyes; prints best wall seconds and best CPU seconds (all threads).
  stereo_cv.py make-fault LEFT RIGHT OUTDIR   writes OUTDIR/{left,right}.png with a known roll 0.5 deg, vertical offset
                                              6 px and 1 % scale applied to the right eye (for the speed and
                                              never-worse checks).
"""
import glob, json, os, sys, time
import numpy as np
import cv2


def normalised(img):
    f = img.astype(np.float32)
    f = (f - f.mean()) / max(float(f.std()), 1.0) * 50 + 128
    return np.clip(f, 0, 255).astype(np.uint8)


def residual(left, right):
    # Equal brightness and contrast first: Lucas-Kanade assumes constant brightness.
    left, right = normalised(left), normalised(right)
    pts = cv2.goodFeaturesToTrack(left, maxCorners=4000, qualityLevel=0.005, minDistance=6, blockSize=7)
    if pts is None or len(pts) < 20:
        return {"error": "too few corners"}
    pts = cv2.cornerSubPix(left, pts, (5, 5), (-1, -1), (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 40, 0.001))
    lk = dict(winSize=(21, 21), maxLevel=4, criteria=(cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 50, 0.001))
    p1, st1, _ = cv2.calcOpticalFlowPyrLK(left, right, pts, None, **lk)
    p0, st0, _ = cv2.calcOpticalFlowPyrLK(right, left, p1, None, **lk)
    fb = np.linalg.norm((p0 - pts).reshape(-1, 2), axis=1)
    ok = (st1.ravel() == 1) & (st0.ravel() == 1) & (fb < 0.5)
    a, b = pts.reshape(-1, 2)[ok], p1.reshape(-1, 2)[ok]
    if len(a) < 20:
        return {"error": f"only {len(a)} tracks"}
    F, mask = cv2.findFundamentalMat(a, b, cv2.FM_RANSAC, 1.0, 0.999)
    if mask is not None:
        a, b = a[mask.ravel() == 1], b[mask.ravel() == 1]
    sdy = (b[:, 1] - a[:, 1]).astype(np.float64)
    dy = np.abs(sdy)
    return {"tracks": int(len(a)), "median_abs_dy": float(np.median(dy)), "p95_abs_dy": float(np.percentile(dy, 95)),
            "median_dy": float(np.median(sdy))}


def rectify(left_bgr, right_bgr):
    gl, gr = cv2.cvtColor(left_bgr, cv2.COLOR_BGR2GRAY), cv2.cvtColor(right_bgr, cv2.COLOR_BGR2GRAY)
    orb = cv2.ORB_create(nfeatures=5000)
    kl, dl = orb.detectAndCompute(gl, None)
    kr, dr = orb.detectAndCompute(gr, None)
    good = [p[0] for p in cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(dl, dr, k=2) if len(p) == 2 and p[0].distance < 0.75 * p[1].distance]
    pl = np.float32([kl[m.queryIdx].pt for m in good]); pr = np.float32([kr[m.trainIdx].pt for m in good])
    F, mask = cv2.findFundamentalMat(pl, pr, cv2.FM_RANSAC, 1.0, 0.999)
    inl = mask.ravel() == 1
    h, w = gl.shape
    ok, H1, H2 = cv2.stereoRectifyUncalibrated(pl[inl], pr[inl], F, (w, h))
    return cv2.warpPerspective(left_bgr, H1, (w, h)), cv2.warpPerspective(right_bgr, H2, (w, h)), int(inl.sum())


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "residual":
        l, r = cv2.imread(args[0], cv2.IMREAD_GRAYSCALE), cv2.imread(args[1], cv2.IMREAD_GRAYSCALE)
        print(json.dumps(residual(l, r)))
    elif cmd == "residual-dir":
        rows, ok = [], 0
        for lp in sorted(glob.glob(os.path.join(args[0], "*-L.pgm"))):
            rp = lp[:-6] + "-R.pgm"
            r = residual(cv2.imread(lp, cv2.IMREAD_GRAYSCALE), cv2.imread(rp, cv2.IMREAD_GRAYSCALE))
            good = "error" not in r and r["median_abs_dy"] <= 0.2 and r["p95_abs_dy"] <= 0.5
            ok += good
            rows.append((os.path.basename(lp)[:-6], r, good))
        print("| aligned sweep pair | OpenCV tracks | median \\|dy\\| px | p95 \\|dy\\| px | within 0.2 / 0.5 |\n|---|---|---|---|---|")
        for name, r, good in rows:
            if "error" in r:
                print(f"| {name} | — | — | — | {r['error']} |")
            else:
                print(f"| {name} | {r['tracks']} | {r['median_abs_dy']:.3f} | {r['p95_abs_dy']:.3f} | {'yes' if good else 'NO'} |")
        print(f"\nOpenCV confirms {ok}/{len(rows)} aligned pairs within 0.2 px median and 0.5 px p95.")
    elif cmd == "residual-json":
        out = {}
        for lp in sorted(glob.glob(os.path.join(args[0], "*-L.pgm"))):
            out[os.path.basename(lp)[:-6]] = residual(cv2.imread(lp, cv2.IMREAD_GRAYSCALE), cv2.imread(lp[:-6] + "-R.pgm", cv2.IMREAD_GRAYSCALE))
        print(json.dumps(out))
    elif cmd == "rectify":
        runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
        l, r = cv2.imread(args[0], cv2.IMREAD_COLOR), cv2.imread(args[1], cv2.IMREAD_COLOR)
        best, best_cpu = 1e9, 1e9
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time(); out = rectify(l, r)
            best, best_cpu = min(best, time.perf_counter() - t0), min(best_cpu, time.process_time() - c0)
        print(json.dumps({"best_seconds": best, "cpu_seconds": best_cpu, "inliers": out[2], "threads": cv2.getNumThreads(), "opencv": cv2.__version__}))
    elif cmd == "make-fault":
        l, r = cv2.imread(args[0], cv2.IMREAD_COLOR), cv2.imread(args[1], cv2.IMREAD_COLOR)
        h, w = r.shape[:2]
        M = cv2.getRotationMatrix2D(((w - 1) / 2, (h - 1) / 2), -0.5, 1.01)
        M[1, 2] += 6
        os.makedirs(args[2], exist_ok=True)
        cv2.imwrite(os.path.join(args[2], "left.png"), l)
        cv2.imwrite(os.path.join(args[2], "right.png"), cv2.warpAffine(r, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
