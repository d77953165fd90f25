#!/usr/bin/env bash
# A real parameter-server job over a lossy path: the testbed's PyTorch RPC
# star (1 server, 3 workers, TinyCNN) with netem dropping 1 % of packets,
# its first 1000 steps (tests/data/rpc4-lossy.tar.xz, cut to 66-byte
# snaps).  Retransmission timeouts stall one step in eight, so the job's
# bytes give no clock of their own (the byte clock's peak is under its
# floor) and the time autocorrelation, at the steps without a stall,
# split the stalled ones: iterations withheld as uncertain here, and 2297
# for 2000 on the whole run.  Each worker's own byte clock counts the
# steps right; the job now takes its steps from them (method rank-clock).
set -u
NAME=rpc_lossy
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run rpc4-lossy.tar.xz pytorch_rpc-tinycnn-adam-32-tensorpipe-loss_1-star
fixture_analyze "$run"
/usr/bin/python3 - "$tmp/a.json" "$run/truth.json" <<'PY'
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p, it, log = a["pattern"], a["iterations"], a["train_log"]
steps = len(t["step_times"])
fails = []
if p["kind"] != "star" or p["ranks"] != 4:
    fails.append("%s/%s (want star/4)" % (p["kind"], p["ranks"]))
if it["count"] is None or abs(it["count"] - steps) > steps // 100:
    fails.append("count %s (want %d within 1 %%)" % (it["count"], steps))
want = log["steady_step_s"]
if it["period_s"] is None or abs(it["period_s"] - want) > 0.03 * want:
    fails.append("period %s s (want the log's steady step %.4f s within 3 %%)" % (it["period_s"], want))
g = a["model"]["gradient_bytes"]
if g is None or abs(g - t["gradient_bytes"]) > 0.03 * t["gradient_bytes"]:
    fails.append("S %s (want %d within 3 %%)" % (g, t["gradient_bytes"]))
if it["mode"] != "synchronous":
    fails.append("mode %s (want synchronous)" % it["mode"])
for f in fails:
    print("rpc_lossy: FAIL:", f)
if not fails:
    print("rpc_lossy: ok: star/4, %d of %d steps of %.4f s (log %.4f s), S %.0f, by %s" %
          (it["count"], steps, it["period_s"], want, g, it["method"]))
sys.exit(1 if fails else 0)
PY
