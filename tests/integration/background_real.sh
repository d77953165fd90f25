#!/usr/bin/env bash
# Real TCP streams beside real jobs (testbed: run_job.py --background
# SRC:DST:MBPS, testbed/stream.py paced every 10 ms, held back by the
# job's bursts and a busy CPU): a DDP ring of 4 with 100 Mbit/s between
# two ranks that are not neighbours (the stream busy in 86 % of the 10 ms
# windows, the job's pairs 21-39 %), a tree of 8 with 200 Mbit/s between
# two nodes (73 %; 22-27 %), a DDP ring of 4 writing 300 Mbit/s from a
# rank to a storage host of no job (captured too).  Before: a star whose
# clock was the stream's 10 ms pacing (592 iterations), three jobs, and the
# storage host a fifth rank (875 iterations).  Each must be its job of the
# truth: pattern and ranks, every step, period within 3 % of the log's, S
# within 3 %, a note of the stream left out, and the sender's total
# holding the stream's bytes.  The stream sender's own capture alone
# (a partial view: ring/4 seen from one rank) must count every step at
# the log's period too (it withheld them, or counted 875).
set -u
NAME=background_real
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp4-stream100.tar.xz m1-ddp4-bg100
fixture_unpack tree8-stream200.tar.xz
fixture_unpack ddp4-store300.tar.xz
for run in "$tmp/m1-ddp4-bg100" "$tmp/m4-tree8-bg200" "$tmp/n1-ddp4-store300"; do
	fixture_analyze "$run" "$(basename "$run")"
	/usr/bin/python3 - "$tmp/$(basename "$run").json" "$run/truth.json" <<'PY' || exit 1
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p, it, g = a["pattern"], a["iterations"], a["model"]["gradient_bytes"]
errs = []
if (p["jobs"], p["kind"], p["ranks"]) != (1, t["pattern"], t["ranks"]):
    errs.append("%d job(s), %s/%s for %s/%s" % (p["jobs"], p["kind"], p["ranks"], t["pattern"], t["ranks"]))
if it["count"] != t["steps"]:
    errs.append("%s iterations for %d" % (it["count"], t["steps"]))
if it["period_s"] is None or abs(it["period_s"] / t["log_mean_step_s"] - 1) > 0.03:
    errs.append("period %s s for %.4f" % (it["period_s"], t["log_mean_step_s"]))
if g is None or abs(g / t["gradient_bytes"] - 1) > 0.03:
    errs.append("S %s for %d" % (g, t["gradient_bytes"]))
if not any("steady connection" in n for n in a["notes"]):
    errs.append("no note of the stream: %s" % a["notes"])
s = t["background"][0]
sent = next(h["tx_payload_bytes"] for h in a["hosts"] if h["addr"] == s["src"])
if sent < s["payload_bytes"]:
    errs.append("%s sent %d, less than the stream's %d" % (s["src"], sent, s["payload_bytes"]))
print("background_real: %s: %s/%s, %s x %s s, S %s%s" % (t["run"], p["kind"], p["ranks"], it["count"],
      it["period_s"], g, ": FAIL: " + "; ".join(errs) if errs else ""))
sys.exit(1 if errs else 0)
PY
done
# the sender's own capture: rank 0 of both rings
for run in "$tmp/m1-ddp4-bg100" "$tmp/n1-ddp4-store300"; do
	fixture_analyze "$run/worker-0-tcpdump.pcap" "$(basename "$run")-w0"
	/usr/bin/python3 - "$tmp/$(basename "$run")-w0.json" "$run/truth.json" <<'PY' || exit 1
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p, it = a["pattern"], a["iterations"]
errs = []
if (p["kind"], p["ranks"]) != (t["pattern"], t["ranks"]):
    errs.append("%s/%s for %s/%s" % (p["kind"], p["ranks"], t["pattern"], t["ranks"]))
if it["count"] != t["steps"]:
    errs.append("%s iterations for %d" % (it["count"], t["steps"]))
if it["period_s"] is None or abs(it["period_s"] / t["log_mean_step_s"] - 1) > 0.03:
    errs.append("period %s s for %.4f" % (it["period_s"], t["log_mean_step_s"]))
print("background_real: %s, rank 0's capture: %s/%s, %s x %s s%s" % (t["run"], p["kind"], p["ranks"],
      it["count"], it["period_s"], ": FAIL: " + "; ".join(errs) if errs else ""))
sys.exit(1 if errs else 0)
PY
done
