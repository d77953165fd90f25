#!/usr/bin/env bash
# vxlan_netns.sh - a real VXLAN overlay, captured on its underlay, reads as
# the overlay.
#
# Two network namespaces joined by a veth pair (the underlay, 198.18.10.1
# and .2), a Linux VXLAN device on each (VNI 42, UDP 4789) carrying the
# overlay 198.18.11.1 and .2, as a Kubernetes node's flannel or Calico
# VXLAN does.  Five bursts of 4 MB go over TCP from overlay .1 to .2, 0.3 s
# apart, while tcpdump -s 128 captures the underlay veth (what a node's
# NIC shows) and the VXLAN device itself (the overlay's own view).  Then
# for the underlay capture:
#   - the hosts are the overlay's two addresses, every IP packet opened
#     (input.decapsulated = input.packets);
#   - payload bytes .1 -> .2 equal the overlay capture's, and tshark's sum
#     of the innermost tcp.len on the underlay capture, and at least the
#     20 MB sent (retransmissions add to it on a loaded machine);
#   - its wire bytes exceed the overlay capture's by the outer headers;
#   - iterations: the five bursts, as in the overlay capture.
# Skipped (77) when not root, without ip/tcpdump/tshark, or when network
# namespaces or VXLAN devices cannot be made here.
set -u
PY=/usr/bin/python3
NAME=vxlan_netns
DMLSCOPE=${DMLSCOPE:?DMLSCOPE must name the dmlscope binary}
. "$(dirname "$0")/lib/netns.sh"
netns_require ip tcpdump tshark
netns_pair vx noipv6
ip -n "$ns1" addr add 198.18.10.1/24 dev "$va"
ip -n "$ns2" addr add 198.18.10.2/24 dev "$vb"
ip -n "$ns1" link set "$va" up
ip -n "$ns2" link set "$vb" up
if ! err=$(ip -n "$ns1" link add vx0 type vxlan id 42 dstport 4789 local 198.18.10.1 \
	remote 198.18.10.2 dev "$va" 2>&1); then
	skip "cannot create a VXLAN device here: $err"
fi
ip -n "$ns2" link add vx0 type vxlan id 42 dstport 4789 local 198.18.10.2 \
	remote 198.18.10.1 dev "$vb" || skip "cannot create a second VXLAN device"
ip -n "$ns1" addr add 198.18.11.1/24 dev vx0
ip -n "$ns2" addr add 198.18.11.2/24 dev vx0
ip -n "$ns1" link set vx0 up
ip -n "$ns2" link set vx0 up

netns_tcpdump "$ns1" "$va" 128 "$tmp/under.pcap" "$tmp/tdu.err"
netns_tcpdump "$ns1" vx0 128 "$tmp/over.pcap" "$tmp/tdo.err"
netns_wait listening "$tmp/tdu.err" "$tmp/tdo.err" || {
	echo "vxlan_netns: FAIL: tcpdump did not start"; cat "$tmp"/td*.err; exit 1; }

ip netns exec "$ns2" "$PY" -c '
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("198.18.11.2", 5201)); s.listen(1)
print("ready", flush=True)
c, _ = s.accept(); n = 0
while True:
    b = c.recv(1 << 20)
    if not b: break
    n += len(b)
    if n % (4 << 20) == 0: c.sendall(b"k")  # a burst is in: the next may go
c.close(); print(n)' >"$tmp/rx.out" &
rx=$!
pids+=($rx)
netns_wait ready "$tmp/rx.out"
ip netns exec "$ns1" "$PY" -c '
import socket, time
s = socket.create_connection(("198.18.11.2", 5201), timeout=10)
buf = b"x" * (4 << 20)
for _ in range(5):
    s.sendall(buf); s.recv(1); time.sleep(0.3)
s.shutdown(socket.SHUT_WR); s.close()' || {
	echo "vxlan_netns: FAIL: sender"; exit 1; }
wait "$rx"
got=$(tail -n 1 "$tmp/rx.out")
[ "$got" = 20971520 ] || { echo "vxlan_netns: FAIL: receiver got '$got' bytes"; exit 1; }

sleep 1
kill -INT "${pids[0]}" "${pids[1]}"
wait "${pids[0]}" "${pids[1]}"
pids=()
[ -n "${VXLAN_KEEP:-}" ] && cp "$tmp/under.pcap" "$tmp/over.pcap" "$VXLAN_KEEP/"

for f in under over; do
	"$DMLSCOPE" analyze "$tmp/$f.pcap" --quiet --json "$tmp/$f.json" || {
		echo "vxlan_netns: FAIL: analyze $f.pcap exited $?"; exit 1; }
done
tshark -n -r "$tmp/under.pcap" -T fields -E separator=/t -E occurrence=l \
	-o tcp.desegment_tcp_streams:FALSE -e ip.src -e ip.dst -e tcp.len >"$tmp/tshark.tsv" ||
	{ echo "vxlan_netns: FAIL: tshark"; exit 1; }
"$PY" - "$tmp" <<'PY'
import collections, json, sys
tmp = sys.argv[1]
under = json.load(open(f"{tmp}/under.json"))
over = json.load(open(f"{tmp}/over.json"))
A, B = "198.18.11.1", "198.18.11.2"
fails = []

def pay(d, s, t):
    h = d["matrix"]["hosts"]
    return d["matrix"]["payload_bytes"][h.index(s)][h.index(t)]

ts = collections.Counter()
for line in open(f"{tmp}/tshark.tsv"):
    src, dst, tlen = (line.rstrip("\n").split("\t") + ["", "", ""])[:3]
    if src and tlen:
        ts[(src, dst)] += int(tlen)
hosts = sorted(h["addr"] for h in under["hosts"])
ui, oi = under["input"], over["input"]
checks = [
    ("hosts are the overlay's", [A, B], hosts),
    ("every packet opened", ui["packets"], ui["decapsulated"]),
    ("payload A->B = overlay capture's", pay(over, A, B), pay(under, A, B)),
    ("payload A->B = tshark's innermost", ts[(A, B)], pay(under, A, B)),
    # retransmissions (a loaded machine) add to what was sent
    ("payload A->B >= the 20 MB sent", True, pay(under, A, B) >= 20971520),
    ("iterations = overlay capture's", over["iterations"]["count"], under["iterations"]["count"]),
]
for what, want, got in checks:
    print(f"{'ok  ' if want == got else 'FAIL'} {what}: {got}" + ("" if want == got else f" (want {want})"))
    if want != got:
        fails.append(what)
extra = ui["wire_bytes"] - oi["wire_bytes"]
ok = extra >= 50 * min(ui["packets"], oi["packets"])
print(f"{'ok  ' if ok else 'FAIL'} underlay wire bytes = overlay's + {extra} (outer headers)")
if not ok:
    fails.append("wire")
print(f"     iterations: {under['iterations']['count']}, {ui['packets']} packets underlay, "
      f"{oi['packets']} overlay")
sys.exit(1 if fails else 0)
PY
