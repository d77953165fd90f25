# lib/netns.sh - what the tests in network namespaces share (sourced by
# both_ends.sh, vxlan_netns.sh and the testbed's tests; CMake's test glob
# does not reach this folder).  The caller sets NAME (its name in
# messages) and PY.

skip() { echo "$NAME: SKIP: $*"; exit 77; }

# Root, $PY and these tools, else skip.
netns_require() {
	[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
	[ -x "$PY" ] || skip "no $PY"
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip "'$t' not installed"
	done
}

# The same, and $PY imports torch and torchvision (a real training job).
testbed_require() {
	netns_require "$@"
	"$PY" -c 'import torch, torchvision' 2>/dev/null ||
		skip "$PY cannot import torch/torchvision (apt-get install python3-torch python3-torchvision)"
}

netns_cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	ip netns del "$ns1" 2>/dev/null
	ip netns del "$ns2" 2>/dev/null
	rm -rf "$tmp"
}

# netns_pair TAG [noipv6]: namespaces $ns1 and $ns2 joined by a veth pair
# ($va in ns1, $vb in ns2; down, no address), loopback up, a scratch
# folder $tmp, background jobs in pids[]; all removed on exit.  noipv6: no
# IPv6 in either, so no link-local chatter joins the test's packets.
netns_pair() {
	local id=$$ n err
	ns1="dmls${1}1-$id" ns2="dmls${1}2-$id"
	va="d${1}a$id" vb="d${1}b$id" # interface names: at most 15 characters
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmls-$NAME.XXXXXX")
	pids=()
	trap netns_cleanup EXIT
	if ! err=$(ip netns add "$ns1" 2>&1); then
		skip "cannot create network namespaces here: $err"
	fi
	ip netns add "$ns2" || skip "cannot create a second network namespace"
	if [ "${2:-}" = noipv6 ]; then
		for n in "$ns1" "$ns2"; do
			ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
				net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
		done
	fi
	ip link add "$va" netns "$ns1" type veth peer name "$vb" netns "$ns2" ||
		skip "cannot create a veth pair"
	for n in "$ns1" "$ns2"; do
		ip -n "$n" link set lo up
	done
}

# netns_tcpdump NS IFACE SNAPLEN OUT.pcap ERRFILE [TCPDUMP-ARGS...]: tcpdump
# in the background.
netns_tcpdump() {
	local ns=$1 ifc=$2 snap=$3 out=$4 err=$5
	shift 5
	ip netns exec "$ns" tcpdump -n -i "$ifc" -s "$snap" --immediate-mode "$@" -w "$out" \
		2>"$err" &
	pids+=($!)
}

# netns_send_20mb RX_NS TX_NS ADDR: 20 MiB over TCP from TX_NS to a
# receiver on ADDR:5201 in RX_NS (/usr/bin/python3); exits 1 (FAIL) when
# the receiver does not get them all.
netns_send_20mb() {
	local rxns=$1 txns=$2 addr=$3 rx got
	ip netns exec "$rxns" "$PY" -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5201)); s.listen(1)
print("ready", flush=True)
c, _ = s.accept(); n = 0
while True:
    b = c.recv(1 << 20)
    if not b: break
    n += len(b)
c.close(); print(n)' "$addr" >"$tmp/rx.out" &
	rx=$!
	pids+=($rx)
	netns_wait ready "$tmp/rx.out"
	ip netns exec "$txns" "$PY" -c '
import socket, sys
s = socket.create_connection((sys.argv[1], 5201), timeout=10)
buf = b"x" * (1 << 20)
for _ in range(20): s.sendall(buf)
s.shutdown(socket.SHUT_WR); s.recv(1); s.close()' "$addr" || {
		echo "$NAME: FAIL: sender"; exit 1; }
	wait "$rx"
	got=$(tail -n 1 "$tmp/rx.out")
	[ "$got" = 20971520 ] || { echo "$NAME: FAIL: receiver got '$got' bytes"; exit 1; }
}

# netns_wait WORD FILE...: until every FILE holds WORD (5 s at most);
# returns 1 when one does not.
netns_wait() {
	local word=$1 f ok
	shift
	for _ in $(seq 100); do
		ok=1
		for f in "$@"; do
			grep -q "$word" "$f" 2>/dev/null || ok=0
		done
		[ "$ok" = 1 ] && return 0
		sleep 0.05
	done
	return 1
}
