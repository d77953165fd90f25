#!/usr/bin/env bash
# One clique rank's own capture is one job.  The fixture (testbed:
# run_job.py --framework manual --algorithm clique --ranks 6 --model
# tinycnn --epochs 2 --steps 20; rank 5's file, tcpdump src <own addr>)
# holds a rank sending S/N twice a step to each of five peers at once; one
# peer's sends end 0.16-0.23 of a period from the others' (robust spread),
# as noise about one offset (lock 0.95-1, not wandering).  That edge was
# taken for a second job's (a clique of 5 with S 17 % low beside an
# "unknown" job), then for a clock of its own (no pattern, numbers
# withheld).  Now: one clique of 6, its period and S those of truth.json.
set -u
NAME=clique_rank_view
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run clique6-rank.tar.xz clique6-rank
fixture_analyze "$run/worker-5-tcpdump.pcap"
/usr/bin/python3 - "$tmp/a.json" "$run/truth.json" <<'PY'
import json, sys
d, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jobs = d.get("jobs") or []
p, it, S = d["pattern"], d["iterations"], d["model"]["gradient_bytes"]
if len(jobs) > 1:
    sys.exit("clique_rank_view: FAIL: %d jobs: %s" % (len(jobs), [(j["hosts"], j["pattern"]["kind"]) for j in jobs]))
if p["kind"] != "clique" or p["ranks"] != 6:
    sys.exit("clique_rank_view: FAIL: pattern %s/%s, want clique/6 (notes: %s)" % (p["kind"], p["ranks"], d["notes"]))
if it["period_s"] is None or abs(it["period_s"] / t["log_mean_step_s"] - 1) > 0.03:
    sys.exit("clique_rank_view: FAIL: period %s for the log's %.4f s" % (it["period_s"], t["log_mean_step_s"]))
if S is None or abs(S / t["gradient_bytes"] - 1) > 0.03:
    sys.exit("clique_rank_view: FAIL: S %s for %d" % (S, t["gradient_bytes"]))
print("clique_rank_view: ok: clique of 6 from one rank's file, period %.4f s (log %.4f), S %.0f (%d)"
      % (it["period_s"], t["log_mean_step_s"], S, t["gradient_bytes"]))
PY
