#!/usr/bin/python3
"""The iterations of runs put back to back against each run's alone (run.sh).

usage: runs_alone.py DMLSCOPE ANALYSIS.json CONCAT.json

ANALYSIS.json is dmlscope's document of the runs back to back, CONCAT.json
what concat.py wrote (its runs, each a list of captures).  Each run is
analyzed alone; the busiest run's iterations (count, period) must be one of
theirs: the count equal, the period within 1 %.  Prints two lines: what was
found against the runs alone, then "meets target" or "misses target".
"""
import json
import subprocess
import sys

dmls, doc, concat = sys.argv[1:4]
try:
    it = json.load(open(doc))["iterations"]
    runs = json.load(open(concat))["runs"]
except (OSError, ValueError, KeyError, TypeError):
    print("invalid documents")
    print("misses target")
    sys.exit()
alone = []
for files in runs:
    r = subprocess.run([dmls, "analyze", *files, "--quiet", "--json", "-"],
                       capture_output=True, text=True)
    try:
        a = json.loads(r.stdout)["iterations"]
    except (ValueError, KeyError, TypeError):
        continue
    if (a["count"], a["period_s"]) not in alone:
        alone.append((a["count"], a["period_s"]))


def show(c, p):
    return f"{c} of {p:.4g} s" if isinstance(p, (int, float)) else f"{c}, period {p}"


c, p = it.get("count"), it.get("period_s")
ok = isinstance(p, (int, float)) and any(
    c == ac and isinstance(ap, (int, float)) and abs(ap - p) <= 0.01 * ap for ac, ap in alone)
print(f"{show(c, p)}; alone: " + ", ".join(show(ac, ap) for ac, ap in alone))
print("meets target" if ok else "misses target")
