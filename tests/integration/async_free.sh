#!/usr/bin/env bash
# Asynchronous jobs whose ranks run at one speed (no pace: each rank as
# fast as the 2 shared cores let it), real testbed runs (run_job.py
# --framework async --model tinycnn --steps 40):
#   gossip6        --algorithm gossip --ranks 6: every rank 0.059-0.063 s a
#                  step, so the ranks' clocks agree and keep one end a
#                  window in 79 % of the steps; only their offsets tell
#                  (phase_spread 0.37, that of offsets spread evenly over
#                  a period).  It read "synchronous" with one period.
#   pairavg7       --algorithm pairavg --ranks 7: two pairs' connections
#                  kept clocks of 0.11 and 0.41-0.44 s (each carries the
#                  requests of whichever peer picked it, at random, robust
#                  CV over 0.3), read as two jobs on the same hosts: mode
#                  unknown, every number withheld.
#   aps6           --algorithm aps --ranks 6: a server and 5 workers of one
#                  speed; the workers' pairs, each at its own period, were
#                  cut into a star of 3 and a star of 4 sharing the server.
#   aps8           --algorithm aps --ranks 8: likewise cut into stars of
#                  5, 4 and 3, two of them sharing a worker with the server
#                  (a spoke's two directions in two parts).
#   pairavg7-pace  --algorithm pairavg --ranks 7 --pace 0.01 --steps 30: the fastest
#                  rank answered a slower one 0.88 s after its own last
#                  step, with two of its requests run together: as many
#                  bursts as requests, its period the span over them, +58 %.
# Each is one asynchronous job with every rank's period within 5 % of its
# log's mean step.
set -u
NAME=async_free
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run gossip6.tar.xz gossip6
for r in pairavg7 aps6 aps8 pairavg7-pace; do
	fixture_unpack "$r.tar.xz"
done
for r in gossip6 pairavg7 aps6 aps8 pairavg7-pace; do
	fixture_analyze "$tmp/$r" "$r"
done
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
worst = 0
for r, kind, n in (("gossip6", "pairwise", 6), ("pairavg7", "pairwise", 7), ("aps6", "star", 6),
                   ("aps8", "star", 8), ("pairavg7-pace", "pairwise", 7)):
    d = json.load(open("%s/%s.json" % (tmp, r)))
    t = json.load(open("%s/%s/truth.json" % (tmp, r)))
    it, p = d["iterations"], d["pattern"]
    if p["jobs"] != 1 or p["kind"] != kind or p["ranks"] != n:
        sys.exit("async_free: FAIL: %s reads %d job(s), %s of %s ranks, for one %s of %d"
                 % (r, p["jobs"], p["kind"], p["ranks"], kind, n))
    if it["mode"] != "asynchronous":
        sys.exit("async_free: FAIL: %s reads %s (%s; step_lock %s, phase_spread %s)"
                 % (r, it["mode"], it.get("mode_evidence"), it.get("step_lock"),
                    it.get("phase_spread")))
    if it["period_s"] is not None:
        sys.exit("async_free: FAIL: %s gives a job-wide period %s" % (r, it["period_s"]))
    truth = {h["addr"]: t["rank_mean_step_s"][h["rank"]] for h in t["hosts"]
             if h["role"] == "worker"}
    seen = {x["addr"]: x["period_s"] for x in it["ranks"]}
    for addr, want in truth.items():
        got = seen.get(addr)
        if got is None or abs(got / want - 1) > 0.05:
            sys.exit("async_free: FAIL: %s rank %s period %s for its log's mean step %.4f s"
                     % (r, addr, got, want))
        worst = max(worst, abs(got / want - 1))
print("async_free: ok: gossip of 6, pair averaging of 7 (with and without a pace) and an "
      "asynchronous server of 5 and of 7 workers: one asynchronous job each, every rank within %.1f %%"
      % (100 * worst))
PY
