#!/usr/bin/env bash
# dmlscope watch on a real job: a 2-rank PyTorch DDP/Gloo job (tinycnn) in
# network namespaces (testbed/run_job.py --watch: the watch runs on the
# bridge, in the switch namespace, and is stopped with SIGINT as Ctrl-C).
#  1. The live final JSON is analyze's on the watch's -w file (apart from the
#     "live" object), and both match the job's truth: pattern ring, 2 ranks,
#     one iteration per step, the gradient size, and every rank's packets as
#     the study-style per-host tcpdump captures count them (exactly, unless
#     a packet was lost before the bridge and retransmitted); no drops.
#  2. The same job killed halfway (rank 1, SIGKILL, after 60 of 300 steps):
#     a stall event after the pattern was found.
# Skips (77) when this machine cannot run it: not root, no network
# namespaces, no torch, no tcpdump/nft.
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
skip() { echo "testbed_watch: SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
"$PY" -c 'import torch, torchvision' 2>/dev/null ||
	skip "$PY cannot import torch/torchvision (apt-get install python3-torch python3-torchvision)"
for t in ip tcpdump nft; do
	command -v "$t" >/dev/null 2>&1 || skip "'$t' not installed"
done
probe="dtbwatch$$"
ip netns add "$probe" 2>/dev/null || skip "cannot create network namespaces here"
ip netns del "$probe"
out=$(mktemp -d "${TMPDIR:-/tmp}/dmls-twatch.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
bad() { echo "testbed_watch: FAIL: $*"; fail=1; }

# 1. a whole job
"$PY" "$SRCDIR/testbed/run_job.py" --framework ddp --model tinycnn --batch 16 --ranks 2 \
	--steps 30 --out "$out/ok" --timeout 120 --watch "$DMLSCOPE"
rc=$?
[ "$rc" = 77 ] && skip "run_job.py says this machine cannot run it"
[ "$rc" = 0 ] || { echo "testbed_watch: FAIL: run_job.py exited $rc"; exit 1; }
run="$out/ok/pytorch_ddp-tinycnn-adam-16-gloo-normal-ring"
"$DMLSCOPE" analyze "$run/watch/watch.pcap" --quiet --json "$out/offline.json" ||
	bad "analyze of the watch's -w file failed"
"$DMLSCOPE" analyze "$run" --quiet --json "$out/tcpdump.json" || bad "analyze of the run failed"
"$PY" - "$run/watch/watch.json" "$out/offline.json" "$out/tcpdump.json" "$run/truth.json" <<'PY' || bad "live summary"
import json, sys
w, off, td, truth = (json.load(open(p)) for p in sys.argv[1:])
live = w.pop("live")
if w != off:
    print("live != offline:", [k for k in off if w.get(k) != off[k]])
    sys.exit(1)
print("live:", w["pattern"]["kind"], w["pattern"]["ranks"], "ranks,", w["iterations"]["count"],
      "iterations, S", w["model"]["gradient_bytes"], "truth S", truth["gradient_bytes"],
      "steps", truth["steps"], "drops", live["dropped_packets"])
assert live["dropped_packets"] == 0 and live["interface_dropped_packets"] == 0, live
assert w["pattern"]["kind"] == truth["pattern"] == "ring"
assert w["pattern"]["ranks"] == truth["ranks"] == 2
assert abs(w["iterations"]["count"] - truth["steps"]) <= 1, w["iterations"]["count"]
S = w["model"]["gradient_bytes"]
assert abs(S - truth["gradient_bytes"]) / truth["gradient_bytes"] < 0.02, (S, truth["gradient_bytes"])
hosts = {h["addr"]: h for h in w["hosts"]}
for h in td["hosts"]:  # each rank's own tcpdump capture (src <own addr>)
    # the same packets, unless one was lost between the sender's eth0 and
    # the bridge (a veth backlog on a loaded machine): then the sender's
    # capture holds it and its retransmission, the bridge only the latter
    m = hosts[h["addr"]]
    lost = h["tx_packets"] - m["tx_packets"]
    print(h["addr"], "tx packets: bridge", m["tx_packets"], "own capture", h["tx_packets"],
          "retransmitted", h["tx_retransmissions"])
    assert 0 <= lost <= h["tx_retransmissions"], (h, m)
    for k in ("tx_wire_bytes", "tx_payload_bytes"):
        assert abs(m[k] - h[k]) <= 0.01 * h[k], (h["addr"], k, m[k], h[k])
ev = live["events"]
assert any(e["type"] == "pattern" and e["pattern"] == "ring" and e["ranks"] == 2 for e in ev), ev
PY

# 2. rank 1 killed halfway
"$PY" "$SRCDIR/testbed/run_job.py" --framework ddp --model tinycnn --batch 16 --ranks 2 \
	--steps 300 --out "$out/kill" --timeout 120 --watch "$DMLSCOPE" --kill-rank 1 \
	--kill-after 60 --watch-tail 3 >"$out/kill.log" 2>&1
rc=$?
[ "$rc" = 1 ] || bad "killed job: run_job.py exited $rc, want 1 (job failed): $(tail -3 "$out/kill.log")"
"$PY" - "$out/kill/pytorch_ddp-tinycnn-adam-16-gloo-normal-ring/watch/watch.json" <<'PY' || bad "killed job: no stall event"
import json, sys
ev = json.load(open(sys.argv[1]))["live"]["events"]
print("killed job's events:", [(e["type"], round(e["time_s"], 2), e["text"]) for e in ev])
kinds = [e["type"] for e in ev]
assert "pattern" in kinds and "stall" in kinds[kinds.index("pattern"):], kinds
PY
exit $fail
