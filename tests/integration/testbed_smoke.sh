#!/usr/bin/env bash
# Smoke test of the real-job testbed: one tiny real DDP/Gloo job (2 ranks,
# tinycnn, 6 steps) between two network namespaces, captured with tcpdump,
# then checked with tshark: both hosts captured, packets go between the two
# hosts over TCP, bytes per step match 2(N-1)/N x S (= S for 2 ranks).
# Skips (77) when this machine cannot run it: not root, no network
# namespaces, no torch, no tcpdump/tshark/nft.
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
NAME=testbed_smoke
. "$SRCDIR/tests/integration/lib/netns.sh"
testbed_require ip tcpdump tshark nft
probe="dtbsmoke$$"
if ! err=$(ip netns add "$probe" 2>&1); then
    skip "cannot create network namespaces here: $err"
fi
ip netns del "$probe"

out=$(mktemp -d "${TMPDIR:-/tmp}/dmls-smoke.XXXXXX")
trap 'rm -rf "$out"' EXIT
run="$out/pytorch_ddp-tinycnn-adam-16-gloo-normal-ring"

"$PY" "$SRCDIR/testbed/run_job.py" --framework ddp --model tinycnn --batch 16 \
    --ranks 2 --steps 6 --out "$out" --timeout 120
rc=$?
if [ "$rc" = 77 ]; then skip "run_job.py says this machine cannot run it"; fi
if [ "$rc" != 0 ]; then echo "testbed_smoke: FAIL: run_job.py exited $rc"; exit 1; fi

fail=0
for f in train_history.log truth.json worker-0-tcpdump.pcap worker-1-tcpdump.pcap; do
    [ -s "$run/$f" ] || { echo "testbed_smoke: FAIL: $f missing or empty"; fail=1; }
done
[ "$fail" = 0 ] || exit 1

# Packets between the two hosts, in each direction, with TCP payload.
for i in 0 1; do
    src="198.18.0.$((i + 1))"; dst="198.18.0.$((2 - i))"
    n=$(tshark -n -r "$run/worker-$i-tcpdump.pcap" -Y "ip.src==$src && ip.dst==$dst && tcp.len>0" 2>/dev/null | wc -l)
    other=$(tshark -n -r "$run/worker-$i-tcpdump.pcap" -Y "!(ip.src==$src || arp.src.proto_ipv4==$src)" 2>/dev/null | wc -l)
    echo "testbed_smoke: host $i: $n data packets $src -> $dst, $other packets from elsewhere"
    [ "$n" -gt 0 ] || { echo "testbed_smoke: FAIL: no TCP data from $src to $dst"; fail=1; }
    [ "$other" = 0 ] || { echo "testbed_smoke: FAIL: capture $i holds packets not sent by $src"; fail=1; }
done
[ "$fail" = 0 ] || exit 1

# Bytes per step against the ring formula.
"$PY" "$SRCDIR/testbed/check_run.py" "$run" || { echo "testbed_smoke: FAIL: bytes per step"; exit 1; }

# Nothing left behind.
left=$(ip netns list | grep -c '^dtb' || true)
[ "$left" = 0 ] || echo "testbed_smoke: note: $left dtb* namespaces exist (other runs in progress?)"
echo "testbed_smoke: PASS"
