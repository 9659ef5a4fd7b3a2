"""The CPU labelling against OpenCV's connectedComponents, both from Python on the same images
(bench_label.py's 8K spiral, noise at 50 % and contours, 4096² noise; 8 neighbours, and 4 on the
8K noise), 15 calls of each after one, min and median in ms, in two rounds so that a slow spell of
the machine shows in both:

    PYTHONPATH=build/python python3 bench/label/cpu_against_opencv.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
import parac  # noqa: E402
from bench_label import contours, noise, spiral  # noqa: E402
from peer_timing import times_of  # noqa: E402


def timed(fn, n=15):
    ts = times_of(fn, n)
    return min(ts), float(np.median(ts))


def main():
    k8 = (4320, 7680)
    images = [("spiral", spiral(k8), 8), ("noise50", noise(k8, 0.5), 8), ("contours", contours(k8), 8),
              ("4096 noise50", noise((4096, 4096), 0.5), 8), ("noise50 4-conn", noise(k8, 0.5), 4)]
    for name, img, conn in images:
        for rnd in range(2):
            a = timed(lambda: parac.label(img, connectivity=conn, device="cpu"))
            b = timed(lambda: cv2.connectedComponents(img, connectivity=conn, ltype=cv2.CV_32S))
            print("%-14s rep %d  parac min %.1f med %.1f   cv2 min %.1f med %.1f   ratio(med) %.2f"
                  % (name, rnd, a[0], a[1], b[0], b[1], b[1] / a[1]), flush=True)


if __name__ == "__main__":
    main()
