#!/usr/bin/env bash
# A butterfly of 16 is a butterfly, not pair averaging.  The fixture
# (testbed: run_job.py --job framework=manual,algorithm=butterfly,hosts=0-15
# --model tinycnn --steps 30): recursive halving then doubling sends S/2 to
# the farthest partner and S/16 to the nearest, under a fifth of it.  The
# pairwise test (pattern_pairwise.c) called an edge active in a window of
# one period when it carried a fifth of the window's busiest edge: the
# nearest partners never were, the next ones came and went as windows cut
# steps (fill 0.58, change 0.25), and the job read "pairwise" with S 88 %
# high.  Each edge now counts against its own busiest window too.  The
# pair averaging, gossip and pairwise fixtures stay pairwise.
set -u
NAME=butterfly16
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run bfly16.tar.xz bfly16
fixture_analyze "$run" bfly16
for r in async3-pairavg async3-gossip man5-pairwise; do
	fixture_unpack $r.tar.xz
	fixture_analyze "$tmp/$r" $r
done
exec /usr/bin/python3 - "$tmp" "$run/truth.json" <<'PY'
import json, sys
tmp = sys.argv[1]
t = json.load(open(sys.argv[2]))
t = t["jobs"][0] if t.get("jobs") else t
d = json.load(open(tmp + "/bfly16.json"))
p, it, S = d["pattern"], d["iterations"], d["model"]["gradient_bytes"]
if p["kind"] != "butterfly" or p["ranks"] != 16:
    sys.exit("butterfly16: FAIL: %s/%s, want butterfly/16" % (p["kind"], p["ranks"]))
if S is None or abs(S / t["gradient_bytes"] - 1) > 0.03:
    sys.exit("butterfly16: FAIL: S %s for %d" % (S, t["gradient_bytes"]))
for r in ("async3-pairavg", "async3-gossip", "man5-pairwise"):
    k = json.load(open("%s/%s.json" % (tmp, r)))["pattern"]["kind"]
    if k != "pairwise":
        sys.exit("butterfly16: FAIL: %s reads %s, want pairwise" % (r, k))
print("butterfly16: ok: butterfly of 16, S %.0f (%d); pair averaging, gossip, pairwise stay pairwise"
      % (S, t["gradient_bytes"]))
PY
