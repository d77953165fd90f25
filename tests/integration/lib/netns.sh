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

# netns_tcpdump NS IFACE SNAPLEN OUT.pcap ERRFILE: tcpdump in the background.
netns_tcpdump() {
	ip netns exec "$1" tcpdump -n -i "$2" -s "$3" --immediate-mode -w "$4" 2>"$5" &
	pids+=($!)
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
