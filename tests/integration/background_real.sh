#!/usr/bin/env bash
# Real TCP streams beside real jobs (testbed: run_job.py --background
# SRC:DST:MBPS, testbed/stream.py paced every 10 ms, held back by the
# job's bursts and a busy CPU), and what 11f10a2 read:
#   m1  a DDP ring of 4, 100 Mbit/s between two ranks that are not
#       neighbours (the stream busy in 86 % of the 10 ms windows, the job's
#       pairs 21-39 %): a star clocked by the stream's pacing, 592 iterations;
#   m4  a tree of 8, 200 Mbit/s between two nodes (73 %; 22-27 %): 3 jobs;
#   n1  a DDP ring of 4 writing 300 Mbit/s to a storage host of no job
#       (captured too): the storage host a fifth rank, 875 iterations;
#   o2  an RPC star of 5 captured with tcpdump -i any (both directions in
#       every file) writing 200 Mbit/s to a storage host: unknown/6, 684;
#   o3  a DDP ring of 3 and an RPC star of 3, 200 Mbit/s between them:
#       3 jobs, one clocked at 10 ms.
# Each job of the truth must be found: pattern and ranks, every step,
# period within 3 % of its log's, S within 3 %, a note of the stream left
# out, and the sender's total holding the stream's bytes.  The stream
# sender's own capture alone (m1, n1: ring/4 seen from one rank) must count
# every step at the log's period (it withheld them, or counted 875), and a
# rank's capture of both directions (o2) must not make the storage host,
# whose acknowledgements it holds, a rank.
set -u
NAME=background_real
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp4-stream100.tar.xz m1-ddp4-bg100
fixture_unpack tree8-stream200.tar.xz
fixture_unpack ddp4-store300.tar.xz
fixture_unpack rpc5-store200-any.tar.xz
fixture_unpack ddp3-rpc3-stream.tar.xz
for run in "$tmp/m1-ddp4-bg100" "$tmp/m4-tree8-bg200" "$tmp/n1-ddp4-store300" \
	"$tmp/o2-rpc5-store200-any" "$tmp/o3-ddp3-rpc3-bg"; do
	fixture_analyze "$run" "$(basename "$run")"
	/usr/bin/python3 - "$tmp/$(basename "$run").json" "$run/truth.json" <<'PY' || exit 1
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p, it, g = a["pattern"], a["iterations"], a["model"]["gradient_bytes"]
errs = []
if p["jobs"] != len(t["jobs"]):
    errs.append("%d job(s) for %d" % (p["jobs"], len(t["jobs"])))
for tj in t["jobs"]:  # each job of the truth, by its pattern and ranks
    got = [j for j in a["jobs"] if (j["pattern"]["kind"], j["pattern"]["ranks"]) ==
           (tj["pattern"], tj["ranks"])] if len(t["jobs"]) > 1 else [a]
    if not got or (got[0]["pattern"]["kind"], got[0]["pattern"]["ranks"]) != (tj["pattern"], tj["ranks"]):
        errs.append("no %s/%s: %s/%s" % (tj["pattern"], tj["ranks"], p["kind"], p["ranks"]))
        continue
    ji, jg = got[0]["iterations"], got[0]["model"]["gradient_bytes"]
    if ji["count"] != tj["steps"]:
        errs.append("%s: %s iterations for %d" % (tj["pattern"], ji["count"], tj["steps"]))
    if ji["period_s"] is None or abs(ji["period_s"] / tj["log_mean_step_s"] - 1) > 0.03:
        errs.append("%s: period %s s for %.4f" % (tj["pattern"], ji["period_s"], tj["log_mean_step_s"]))
    if jg is None or abs(jg / tj["gradient_bytes"] - 1) > 0.03:
        errs.append("%s: S %s for %d" % (tj["pattern"], jg, tj["gradient_bytes"]))
if not any("steady connection" in n for j in [a] + a["jobs"] for n in j["notes"]):
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
# the storage host's acknowledgements in a rank's capture of both
# directions (-i any) are the stream's: no rank (unknown/6 with it)
fixture_analyze "$tmp/o2-rpc5-store200-any/worker-2-tcpdump.pcap" o2-w2
/usr/bin/python3 - "$tmp/o2-w2.json" "$tmp/o2-rpc5-store200-any/truth.json" <<'PY'
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p, it, store = a["pattern"], a["iterations"], t["background"][0]["dst"]
errs = []
if store in p["members"] or p["ranks"] != t["ranks"]:
    errs.append("ranks %s %s (the storage host is %s)" % (p["ranks"], p["members"], store))
if it["count"] != t["steps"] or it["period_s"] is None or \
        abs(it["period_s"] / t["log_mean_step_s"] - 1) > 0.03:
    errs.append("%s x %s s for %d x %.4f" % (it["count"], it["period_s"], t["steps"], t["log_mean_step_s"]))
print("background_real: %s, rank 2's capture (-i any): %s/%s, %s x %s s%s" % (t["run"], p["kind"], p["ranks"],
      it["count"], it["period_s"], ": FAIL: " + "; ".join(errs) if errs else ""))
sys.exit(1 if errs else 0)
PY
