#!/usr/bin/env bash
# Butterflies of 10, 12 and 16 ranks are butterflies.
#
# bfly16: not pair averaging.  The fixture
# (testbed: run_job.py --job framework=manual,algorithm=butterfly,hosts=0-15
# --model tinycnn --steps 30): recursive halving then doubling sends S/2 to
# the farthest partner and S/16 to the nearest, under a fifth of it.  The
# pairwise test (pattern_pairwise.c) called an edge active in a window of
# one period when it carried a fifth of the window's busiest edge: the
# nearest partners never were, the next ones came and went as windows cut
# steps (fill 0.58, change 0.25), and the job read "pairwise" with S 88 %
# high.  Each edge now counts against its own busiest window too.  The
# pair averaging, gossip and pairwise fixtures stay pairwise.
#
# bfly12: one job.  The fixture (--job framework=manual,algorithm=
# butterfly,hosts=0-11 --steps 30: MPICH's way for N = 12, 4 extra ranks
# hand their vector to a core rank of 8) ran 12 processes on 2 cores; the
# split of jobs on overlapping hosts (jobs_overlap.c) cut it by its pairs'
# steps into 3 ranks and 9 that share no host, though S/4 and S/8 edges
# join them ("unknown" of 9 beside a "butterfly" of 3).  Parts joined by
# a data pair between hosts each of one part only are one job.
#
# bfly10: one job.  The fixture (hosts=0-9, 30 steps; 2 extra ranks) had
# its rank 0, an extra handing its vector to rank 1, split off at rank 1
# as a 2-rank job of its own (jobs_shared.c): its edge's clock locked 1.0
# to the rest at 0.5 % apart, but its offsets wandered (spread 0.22,
# wander 0.61).  A lone spoke of the rest's very period (1 %) that locks
# keeps its step.
set -u
NAME=butterflies
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run bfly16.tar.xz bfly16
fixture_analyze "$run" bfly16
fixture_unpack bfly12.tar.xz
fixture_analyze "$tmp/bfly12" bfly12
fixture_unpack bfly10.tar.xz
fixture_analyze "$tmp/bfly10" bfly10
for r in async3-pairavg async3-gossip man5-pairwise; do
	fixture_unpack $r.tar.xz
	fixture_analyze "$tmp/$r" $r
done
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
for n in (16, 12, 10):
    t = json.load(open("%s/bfly%d/truth.json" % (tmp, n)))
    t = t["jobs"][0] if t.get("jobs") else t
    d = json.load(open("%s/bfly%d.json" % (tmp, n)))
    p, it, S = d["pattern"], d["iterations"], d["model"]["gradient_bytes"]
    if p["kind"] != "butterfly" or p["ranks"] != n or len(d.get("jobs") or []) > 1:
        sys.exit("butterflies: FAIL: %s/%s (%d jobs), want butterfly/%d"
                 % (p["kind"], p["ranks"], len(d.get("jobs") or []), n))
    if S is None or abs(S / t["gradient_bytes"] - 1) > 0.03:
        sys.exit("butterflies: FAIL: %d ranks: S %s for %d" % (n, S, t["gradient_bytes"]))
for r in ("async3-pairavg", "async3-gossip", "man5-pairwise"):
    k = json.load(open("%s/%s.json" % (tmp, r)))["pattern"]["kind"]
    if k != "pairwise":
        sys.exit("butterflies: FAIL: %s reads %s, want pairwise" % (r, k))
print("butterflies: ok: butterflies of 16, 12 and 10, one job each, S within 3 %; "
      "pair averaging, gossip, pairwise stay pairwise")
PY
