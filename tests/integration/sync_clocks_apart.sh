#!/usr/bin/env bash
# A synchronous collective whose ranks' clocks read asynchronous: the
# testbed's Open MPI ring all-reduce of 12 ranks on 2 cores
# (tests/data/mpi12-ring.tar.xz, run_job.py --job
# framework=mpi,algorithm=ring,hosts=0-11, tinycnn, 36 steps of 0.36 s,
# 2 % of the packets sent again).  Each rank's step is cut at the waits of
# its 22 sub-steps, as long as its compute phase, and the ranks' clocks
# count 54-67 "exchanges" for 36 steps, locked in 74 % of them: the
# folder read "asynchronous", no period.  A ring holds every rank to the
# step, so the clocks are wrong, not the job: mode unknown, count, period
# and S withheld with a note, the ring of 12 still found.
set -u
NAME=sync_clocks_apart
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run mpi12-ring.tar.xz mpi12-ring
fixture_analyze "$run" folder
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/folder.json"))
p, it = d["pattern"], d["iterations"]
fails = []
if (p["kind"], p["ranks"]) != ("ring", 12):
    fails.append("pattern %s/%s (want ring/12)" % (p["kind"], p["ranks"]))
if it["mode"] == "asynchronous":
    fails.append("mode asynchronous: a ring's ranks cannot run at their own pace")
right = it["count"] is not None and abs(it["count"] - 36) <= 1 and it["period_s"] is not None \
    and abs(it["period_s"] / 0.3639 - 1) <= 0.03
if not right:
    if it["count"] is not None or it["period_s"] is not None:
        fails.append("iterations %s x %s s: neither the log's 36 x 0.364 s nor withheld"
                     % (it["count"], it["period_s"]))
    if not any(n.startswith("iterations uncertain") and "ring" in n for n in d["notes"]):
        fails.append("no note saying why the iterations are withheld: %s" % d["notes"])
for f in fails:
    print("sync_clocks_apart: FAIL:", f)
print("sync_clocks_apart: %s (mode %s, %s x %s s)" % ("FAIL" if fails else "ok", it["mode"],
                                                    it["count"], it["period_s"]))
sys.exit(1 if fails else 0)
PY
