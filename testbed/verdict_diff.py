#!/usr/bin/python3
"""Does make validate's verdict repeat on a re-run?  Compare the rows of two
datasets made from the same matrix (TSV=file make validate, once each).

usage: verdict_diff.py A.tsv B.tsv

Rows are matched by (run, view, job); a criterion counts as the same when
it is right (ok, null) in both or wrong (FAIL) in both.  Prints the count
of same and different verdicts and every difference; exit 1 when any.
"""
import csv
import sys


def load(path):
    rows = list(csv.reader(open(path), delimiter="\t"))
    return rows[0], {tuple(r[:3]): r for r in rows[1:]}


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    head, a = load(argv[1])
    _, b = load(argv[2])
    same, diffs = 0, []
    for key in sorted(set(a) & set(b)):
        for i, crit in enumerate(head[5:], 5):
            x, y = a[key][i], b[key][i]
            if x == "-" and y == "-":
                continue
            if x.startswith("FAIL") == y.startswith("FAIL"):
                same += 1
            else:
                diffs.append(f"  {' '.join(key)} {crit}: {x} | {y}")
    only = len(set(a) ^ set(b))
    print(f"verdict_diff: {same} same, {len(diffs)} different"
          + (f", {only} rows in one file only" if only else ""))
    print("\n".join(diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
