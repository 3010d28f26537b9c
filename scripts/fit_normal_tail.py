#!/usr/bin/env python3
"""Fits the coefficient table kNormalTail of src/backend/cpu/gelu_float.h (Note [Fast gelu]):
Phi(-t) = erfc(t / sqrt 2) / 2 on 8 intervals [k w, (k + 1) w), w = 0.6875, each by a polynomial
in u = t - k w, near-minimax in absolute error (Lawson's reweighted least squares on Chebyshev
nodes), rounded to float32 from the highest power down with the lower powers refitted after each
rounding. Prints the table's rows (the coefficient of u^j on every interval) and the errors.

  /usr/bin/python3 scripts/fit_normal_tail.py [--degree 7] [--relative]
"""
import argparse
import math
import sys

import numpy as np

WIDTH, INTERVALS = 0.6875, 8


def tail(t):
    return np.array([0.5 * math.erfc(v / math.sqrt(2)) for v in np.atleast_1d(t)])


def fit_interval(k, degree, relative):
    a = k * WIDTH
    lo, hi = -1e-5, WIDTH + 1e-5  # a lane's interval index is rounded: allow a little either side
    u = lo + (hi - lo) * (np.cos((2 * np.arange(400) + 1) * np.pi / 800) + 1) / 2
    y = tail(a + u)
    scale = 1 / y if relative else np.ones_like(y)
    vander = np.vander(u, degree + 1, increasing=True)
    weight = np.ones_like(u)

    def solve(columns, target):
        sw = scale * np.sqrt(weight)
        return np.linalg.lstsq(columns * sw[:, None], target * sw, rcond=None)[0]

    for _ in range(100):  # Lawson: weights follow the error, converging to the minimax fit
        c = solve(vander, y)
        err = np.abs(vander @ c - y) * scale
        weight = weight * err
        weight /= weight.sum()
    rounded = np.zeros(degree + 1)
    for j in range(degree, -1, -1):
        rounded[j] = np.float32(c[j])
        if j > 0:
            c[:j] = solve(vander[:, :j], y - vander[:, j:] @ rounded[j:])
    uu = np.linspace(0, WIDTH, 20001)
    yy = tail(a + uu)
    e = np.abs(np.vander(uu, degree + 1, increasing=True) @ rounded - yy)
    return rounded, e.max(), (e / yy).max()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--degree", type=int, default=7)
    ap.add_argument("--relative", action="store_true", help="minimise the relative error")
    args = ap.parse_args()
    rows, worst_abs, worst_rel = [], 0.0, 0.0
    for k in range(INTERVALS):
        c, e_abs, e_rel = fit_interval(k, args.degree, args.relative)
        rows.append(c)
        worst_abs, worst_rel = max(worst_abs, e_abs), max(worst_rel, e_rel)
    print("// max error %.3g absolute (2^%.1f), %.3g relative; Phi(-%g) = %.3g" %
          (worst_abs, math.log2(worst_abs), worst_rel, INTERVALS * WIDTH,
           tail(INTERVALS * WIDTH)[0]), file=sys.stderr)
    for j in range(args.degree + 1):
        print("    {" + ", ".join("%.9ef" % v for v in np.array(rows)[:, j]) + "},")


if __name__ == "__main__":
    main()
