#!/usr/bin/env bash
# both_ends.sh - a TCP transfer captured at both ends counts once.
#
# Two network namespaces joined by a veth pair (198.18.1.1/24 and
# 198.18.1.2/24), segmentation offload left as the kernel sets it
# (GSO/TSO/GRO), tcpdump -s 100 on each end without a `src` filter, about
# 20 MB sent over TCP from ns1 to ns2 with /usr/bin/python3.  Then
#   dmlscope analyze a.pcap b.pcap  (both ends merged, dedup on)
# must report for 198.18.1.1 -> 198.18.1.2 the payload bytes of
#   dmlscope analyze a.pcap         (one end)
# within 0.5 %, and tshark's sum of tcp.len on a.pcap must agree too.
# BOTH_ENDS_KEEP=DIR keeps the captures.  Skipped (77) when not root, without ip/tcpdump/tshark, or when network
# namespaces cannot be made here.
set -u
PY=/usr/bin/python3
NAME=both_ends
DMLSCOPE=${DMLSCOPE:?DMLSCOPE must name the dmlscope binary}
. "$(dirname "$0")/lib/netns.sh"
netns_require ip tcpdump tshark
netns_pair be
ip -n "$ns1" addr add 198.18.1.1/24 dev "$va"
ip -n "$ns2" addr add 198.18.1.2/24 dev "$vb"

# A veth pair hands the sender's skb to the receiver as is, so by default
# both ends would capture the very same (TSO) super-packets.  Real hosts
# differ: segmentation and coalescing happen between the two taps.  To get
# that here, the receiving end turns GRO on (veth then uses NAPI and merges
# segments) and the sender turns TSO off, so the kernel's software GSO
# segments its super-packets before the sender's tap: the sender captures
# MSS-sized segments, the receiver GRO-merged packets of other sizes and
# starts.  Through SIOCETHTOOL (ETHTOOL_STSO, ETHTOOL_SGRO) as ethtool -K
# does, so ethtool need not be installed; if that fails, the defaults stay.
ethtool_k() { # NS IFNAME tso|gro on|off
	ip netns exec "$1" "$PY" -c '
import ctypes, fcntl, socket, struct, sys
ifname, feat, val = sys.argv[1:4]
cmd = {"tso": 0x1f, "gro": 0x2c}[feat]  # linux/ethtool.h
ev = ctypes.create_string_buffer(struct.pack("II", cmd, int(val == "on")), 8)
ifr = struct.pack("16sP16x", ifname.encode(), ctypes.addressof(ev))  # struct ifreq
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
    fcntl.ioctl(s.fileno(), 0x8946, ifr)  # SIOCETHTOOL' "$2" "$3" "$4"
}
ethtool_k "$ns1" "$va" tso off && ethtool_k "$ns2" "$vb" gro on ||
	echo "both_ends: note: cannot set TSO/GRO, both ends may capture the same packets"
ip -n "$ns1" link set "$va" up
ip -n "$ns2" link set "$vb" up

# tcpdump on both ends; wait until both listen
netns_tcpdump "$ns1" "$va" 100 "$tmp/a.pcap" "$tmp/tda.err"
netns_tcpdump "$ns2" "$vb" 100 "$tmp/b.pcap" "$tmp/tdb.err"
netns_wait listening "$tmp/tda.err" "$tmp/tdb.err" || {
	echo "both_ends: FAIL: tcpdump did not start"; cat "$tmp"/td*.err; exit 1; }

# receiver in ns2, sender in ns1: 20 MB
netns_send_20mb "$ns2" "$ns1" 198.18.1.2

# let tcpdump write the last packets, then stop it
sleep 1
kill -INT "${pids[0]}" "${pids[1]}"
wait "${pids[0]}" "${pids[1]}"
pids=()

# BOTH_ENDS_KEEP=DIR keeps the two captures for a look
[ -n "${BOTH_ENDS_KEEP:-}" ] && cp "$tmp/a.pcap" "$tmp/b.pcap" "$BOTH_ENDS_KEEP/"

# pair PCAP...: payload bytes 198.18.1.1 -> 198.18.1.2, then duplicates
pair() {
	"$DMLSCOPE" analyze --quiet --json - "$@" 2>"$tmp/err" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
h = d["matrix"]["hosts"]
m = d["matrix"]["payload_bytes"]
print(m[h.index("198.18.1.1")][h.index("198.18.1.2")], d["input"]["skipped"]["duplicates"])'
}
read -r one _ <<<"$(pair "$tmp/a.pcap")"
read -r oneb _ <<<"$(pair "$tmp/b.pcap")"
read -r both dups <<<"$(pair "$tmp/a.pcap" "$tmp/b.pcap")"
shark=$(tshark -n -r "$tmp/a.pcap" -Y "ip.src==198.18.1.1 && ip.dst==198.18.1.2 && tcp" \
	-T fields -e tcp.len 2>/dev/null | awk '{s += $1} END {print s + 0}')
echo "both_ends: payload 198.18.1.1 -> 198.18.1.2: a.pcap $one, b.pcap $oneb," \
	"both $both ($dups duplicates), tshark a.pcap $shark"
echo "both_ends: packets a.pcap $(tcpdump -r "$tmp/a.pcap" 2>/dev/null | wc -l)," \
	"b.pcap $(tcpdump -r "$tmp/b.pcap" 2>/dev/null | wc -l)"

# close A B: |A - B| <= 0.5 % of B
close() {
	"$PY" -c 'import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(not (b > 0 and abs(a - b) <= 0.005 * b))' "$1" "$2"
}
fail=0
[ -n "$one" ] && [ -n "$both" ] || { echo "both_ends: FAIL: analyze"; cat "$tmp/err"; exit 1; }
close "$both" "$one" || { echo "both_ends: FAIL: both ends $both, one end $one"; fail=1; }
close "$shark" "$one" || { echo "both_ends: FAIL: tshark $shark, dmlscope $one"; fail=1; }
[ "$dups" -gt 0 ] || { echo "both_ends: FAIL: no duplicates reported"; fail=1; }
[ "$fail" = 0 ] && echo "both_ends: PASS"
exit $fail
