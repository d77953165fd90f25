#!/usr/bin/env bash
# A real DDP/Gloo job (3 ranks, mobilenetv2, 8 steps) over a VXLAN overlay
# (testbed/run_job.py --overlay vxlan), captured on each host's overlay
# interface and on the bridge, where every frame is encapsulated (what a
# Kubernetes node's NIC shows).  On the bridge capture every rank-to-rank
# packet must be read on its inner headers, and both folders must give one
# job of exactly the ranks: a ring, the count within a step of the steps
# logged, S within 3 % of the truth, the bridge's period within 1 % of the
# overlay's (the period against the log is make validate's matter, on
# runs long enough for its 3 %).
# Skips (77) when this machine cannot run it: not root, no network
# namespaces or VXLAN devices, no torch, no tcpdump/tshark/nft/bridge.
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DMLSCOPE=${DMLSCOPE:?DMLSCOPE must name the dmlscope binary}
PY=/usr/bin/python3
NAME=testbed_overlay
. "$SRCDIR/tests/integration/lib/netns.sh"
testbed_require ip tcpdump tshark nft bridge
probe="dtbovl$$"
if ! err=$(ip netns add "$probe" 2>&1); then
    skip "cannot create network namespaces here: $err"
fi
if ! err=$(ip -n "$probe" link add vxprobe type vxlan id 1 dstport 4789 2>&1); then
    ip netns del "$probe"
    skip "cannot create VXLAN devices here: $err"
fi
ip netns del "$probe"

out=$(mktemp -d "${TMPDIR:-/tmp}/dmls-overlay.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$PY" "$SRCDIR/testbed/run_job.py" --framework ddp --model mobilenetv2 --batch 16 --ranks 3 \
    --steps 4 --epochs 2 --out "$out" --bridge-capture --overlay vxlan --timeout 120
rc=$?
if [ "$rc" = 77 ]; then skip "run_job.py says this machine cannot run it"; fi
if [ "$rc" != 0 ]; then echo "testbed_overlay: FAIL: run_job.py exited $rc"; exit 1; fi

run=$(ls -d "$out"/*-vxlan)
for v in "$run" "$run-bridge"; do
    "$DMLSCOPE" analyze "$v" --quiet --json "$v.json" ||
        { echo "testbed_overlay: FAIL: analyze $v exited $?"; exit 1; }
done
"$PY" - "$run" <<'PY' || exit 1
import json, sys
run = sys.argv[1]
over, under = json.load(open(run + ".json")), json.load(open(run + "-bridge.json"))
truth = json.load(open(run + "/truth.json"))
ranks = sorted(h["addr"] for h in truth["hosts"])
fails = []

def check(what, ok, detail):
    print(f"testbed_overlay: {'ok  ' if ok else 'FAIL'} {what}: {detail}")
    if not ok:
        fails.append(what)

m, hosts = under["matrix"], under["matrix"]["hosts"]
between = sum(m["payload_bytes"][hosts.index(a)][hosts.index(b)]
              for a in ranks for b in ranks if a != b and a in hosts and b in hosts)
big = [h["addr"] for h in under["hosts"] if h["addr"].startswith("198.19.")
       and h["tx_payload_bytes"] > 100000]
check("bridge: the ranks' traffic read inside the tunnel", between > 0 and not big,
      f"{under['input']['decapsulated']} of {under['input']['packets']} packets opened, "
      f"{between} payload bytes between the ranks, underlay hosts with payload: {big}")
jo, ju = over["jobs"], under["jobs"]
check("one job in each view, with exactly the ranks",
      len(jo) == 1 and len(ju) == 1 and sorted(jo[0]["hosts"]) == ranks == sorted(ju[0]["hosts"]),
      f"overlay {[j['hosts'] for j in jo]}, bridge {[j['hosts'] for j in ju]}")
if not fails:
    a, b = jo[0], ju[0]
    check("pattern", a["pattern"]["kind"] == b["pattern"]["kind"] == truth["pattern"],
          f"{a['pattern']['kind']} / {b['pattern']['kind']} (truth {truth['pattern']})")
    ca, cb = a["iterations"]["count"], b["iterations"]["count"]
    check("count", ca == cb and ca is not None and abs(ca - truth["steps"]) <= 1,
          f"{ca} / {cb} (truth {truth['steps']} steps)")
    pa, pb = a["iterations"]["period_s"], b["iterations"]["period_s"]
    check("period, bridge against overlay", pa and pb and abs(pb - pa) <= 0.01 * pa,
          f"{pa} / {pb} s")
    sa, sb = a["model"]["gradient_bytes"], b["model"]["gradient_bytes"]
    S = truth["gradient_bytes"]
    check("S", sa and sb and abs(sa - S) <= 0.03 * S and abs(sb - S) <= 0.03 * S,
          f"{sa} / {sb} (truth {S})")
sys.exit(1 if fails else 0)
PY
echo "testbed_overlay: PASS"
