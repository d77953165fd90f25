#!/usr/bin/python3
"""Compare `dmlscope analyze --json` against an expected subset.

The expected file holds only the keys that matter, in the same shape as
the output.  Integers and strings must be equal; a real is compared with a
relative tolerance of 1e-9; an object {"approx": v, "rel": r} (or "abs")
allows a wider tolerance where the estimate is statistical (period,
gradient size); {"one_of": [...]} allows several values.

usage: golden_compare.py EXPECTED.json ACTUAL.json
"""
import json
import math
import sys


def compare(path, want, got, errors):
    if isinstance(want, dict) and ("approx" in want):
        if not isinstance(got, (int, float)):
            errors.append(f"{path}: expected a number near {want['approx']}, got {got!r}")
            return
        tol = want.get("abs", 0.0) + want.get("rel", 0.0) * abs(want["approx"])
        if abs(got - want["approx"]) > tol:
            errors.append(f"{path}: {got} not within {tol:g} of {want['approx']}")
        return
    if isinstance(want, dict) and "one_of" in want:
        if got not in want["one_of"]:
            errors.append(f"{path}: {got!r} not one of {want['one_of']}")
        return
    if isinstance(want, dict):
        if not isinstance(got, dict):
            errors.append(f"{path}: expected an object, got {got!r}")
            return
        for k, v in want.items():
            if k not in got:
                errors.append(f"{path}.{k}: missing")
            else:
                compare(f"{path}.{k}", v, got[k], errors)
        return
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            errors.append(f"{path}: expected {len(want)} items, got {got!r}")
            return
        for i, (w, g) in enumerate(zip(want, got)):
            compare(f"{path}[{i}]", w, g, errors)
        return
    if isinstance(want, float) and isinstance(got, (int, float)):
        if not math.isclose(want, got, rel_tol=1e-9, abs_tol=1e-12):
            errors.append(f"{path}: expected {want}, got {got}")
        return
    if want != got:
        errors.append(f"{path}: expected {want!r}, got {got!r}")


def main():
    want = json.load(open(sys.argv[1]))
    got = json.load(open(sys.argv[2]))
    errors = []
    compare("$", want, got, errors)
    for e in errors:
        print("FAIL", e)
    print(f"{sys.argv[1]}: {'ok' if not errors else str(len(errors)) + ' differences'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
