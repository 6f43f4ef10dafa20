#!/usr/bin/python3
"""Compares a result .npy with a reference .npy for run.sh and sweep.sh.

  compare.py GOT.npy REF.npy [--tol T]

Prints one line: "max_abs=A max_rel=R worst=INDEX got=G ref=X", where
max_rel is the largest |got - ref| over the largest |ref| (so an element
near zero does not blow it up; the test in tests/models checks elements the
same way). Exit status 0 when max_rel <= T (default 1e-4), 1 when it is
larger or the shapes differ (the line says which), 2 for a file that cannot
be read."""
import argparse
import sys

try:
    import numpy as np
except ImportError as e:
    sys.exit(f"compare.py: {e}: needs numpy (Debian: python3-numpy)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("got")
    p.add_argument("ref")
    p.add_argument("--tol", type=float, default=1e-4)
    a = p.parse_args()
    try:
        got, ref = np.load(a.got), np.load(a.ref)
    except (OSError, ValueError) as e:
        print(f"cannot read: {e}")
        sys.exit(2)
    if got.shape != ref.shape:
        print(f"shape {list(got.shape)} where the reference has {list(ref.shape)}")
        sys.exit(1)
    got64, ref64 = got.astype(np.float64), ref.astype(np.float64)
    diff = np.abs(got64 - ref64)
    if diff.size == 0:
        print("max_abs=0 max_rel=0 (empty)")
        return
    worst = np.unravel_index(np.argmax(np.where(np.isnan(diff), np.inf, diff)), diff.shape)
    max_abs = float(np.max(np.where(np.isnan(diff), np.inf, diff)))
    scale = float(np.max(np.abs(ref64))) or 1.0
    max_rel = max_abs / scale
    print(f"max_abs={max_abs:.3g} max_rel={max_rel:.3g} worst={list(map(int, worst))} "
          f"got={got64[worst]:.7g} ref={ref64[worst]:.7g}")
    sys.exit(0 if max_rel <= a.tol else 1)


if __name__ == "__main__":
    main()
