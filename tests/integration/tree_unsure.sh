#!/usr/bin/env bash
# A real 6-rank tree all-reduce (the testbed's manual tree, TinyCNN, 40
# steps, 6 ranks on 2 cores): tests/data/tree6-unsure.tar.xz.  Its root is
# a host both subtrees share; their clocks lock in every step, but on
# these busy cores their offsets wandered (spread 0.10 of the period,
# wander 0.63: as two jobs of one period would), so it was split into two
# "jobs", two stars, with nothing to say the split was narrow (1 run in 21
# of this tree did so).  Either it is one job, a tree of 6, or the split
# says it is unsure (a note, each job's pattern confidence halved): never
# two confident jobs.
set -u
NAME=tree_unsure
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run tree6-unsure.tar.xz tree6
fixture_analyze "$run"
/usr/bin/python3 - "$tmp/a.json" "$run/truth.json" <<'PY'
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p, notes = a["pattern"], a["notes"]
fails = []
if p["jobs"] == 1:
    if p["kind"] != "tree" or p["ranks"] != 6:
        fails.append("one job, %s/%s (want tree/6)" % (p["kind"], p["ranks"]))
elif not any("maybe one job" in n for n in notes):
    fails.append("%s jobs and no note that the split is unsure: %s" % (p["jobs"], notes))
else:
    for j in a["jobs"]:
        if j["pattern"]["confidence"] > 0.5:
            fails.append("job %s: confidence %s of an unsure split (want 0.5 or less)" %
                         (j["id"], j["pattern"]["confidence"]))
for j in a["jobs"]:
    it = j["iterations"]
    if it["count"] is None or abs(it["count"] - t["steps"]) > 1:
        fails.append("job %s: count %s (want %d +- 1)" % (j["id"], it["count"], t["steps"]))
for f in fails:
    print("tree_unsure: FAIL:", f)
if not fails:
    print("tree_unsure: ok: %d job(s)%s" % (p["jobs"], ", unsure" if p["jobs"] > 1 else ""))
sys.exit(1 if fails else 0)
PY
