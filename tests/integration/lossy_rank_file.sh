#!/usr/bin/env bash
# One worker's own capture of a parameter server over a lossy path
# (testbed: run_job.py --framework rpc --ranks 8 --model tinycnn --steps 40
# --loss 2; worker 4's file, its pushes alone).  A retransmission stall
# inside one push (0.21 s, twice the steps' gaps) took an anchor of the
# byte clock, a quarter of a step off; every later boundary fell outside
# the tracking window, and the last 13 steps were one "iteration" of 13.6
# steps' bytes: 28 iterations of 0.290 s for 40 of 0.201 s, given as the
# worker's period.  The tail is tracked again, each window searched wide:
# 40 iterations, the period within 1 %.
set -u
NAME=lossy_rank_file
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run rpc8-loss2-rank.tar.xz rpc8-loss2-rank
fixture_analyze "$run/worker-4-tcpdump.pcap"
/usr/bin/python3 - "$tmp/a.json" "$run/truth.json" <<'PY'
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
it = a["iterations"]
want = t["log_mean_step_s"]
if it["count"] is None or abs(it["count"] - t["steps"]) > 1:
    sys.exit("lossy_rank_file: FAIL: count %s for %d steps" % (it["count"], t["steps"]))
if it["period_s"] is None or abs(it["period_s"] / want - 1) > 0.03:
    sys.exit("lossy_rank_file: FAIL: period %s s for the log's %.4f s" % (it["period_s"], want))
most = max(it["payload_bytes"]) / it["bytes_per_worker"]
if most > 1.5:
    sys.exit("lossy_rank_file: FAIL: an iteration holds %.1f steps' bytes" % most)
print("lossy_rank_file: ok: %d iterations of %.4f s (log %.4f s), none over %.2f steps' bytes"
      % (it["count"], it["period_s"], want, most))
PY
