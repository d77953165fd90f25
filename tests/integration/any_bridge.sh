#!/usr/bin/env bash
# any_bridge.sh - `tcpdump -i any` on a host whose two ranks talk through a
# bridge sees each packet once per interface it crosses; dmlscope counts it
# once.
#
# Three network namespaces: a host H with a bridge, and two ranks A
# (198.18.2.1/24) and B (198.18.2.2/24) on veth pairs whose host ends are
# the bridge's ports.  tcpdump -i any -y LINUX_SLL2 -s 100 in H (what a
# node's operator runs to see its containers or pods), about 20 MB sent
# over TCP from A to B with /usr/bin/python3.  Then
#   dmlscope analyze any.pcap
# must report for 198.18.2.1 -> 198.18.2.2 the payload tshark sums on one
# interface of the capture (sll.ifindex), within 0.5 %, and the copies on
# the others as duplicates; the same from a second tcpdump writing Linux
# cooked v1 (-y LINUX_SLL).  `dmlscope watch -i any` runs beside tcpdump:
# the same within 0.5 % (the two do not start at the same packet), and
# its summary is analyze's on its own -w file.  Skipped (77) when not
# root, without ip/tcpdump/tshark, or when network namespaces cannot be
# made here.
set -u
PY=/usr/bin/python3
NAME=any_bridge
DMLSCOPE=${DMLSCOPE:?DMLSCOPE must name the dmlscope binary}
. "$(dirname "$0")/lib/netns.sh"
netns_require ip tcpdump tshark
id=$$
nsh="dmlsabh-$id" ns1="dmlsab1-$id" ns2="dmlsab2-$id"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmls-$NAME.XXXXXX")
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	ip netns del "$nsh" 2>/dev/null
	ip netns del "$ns1" 2>/dev/null
	ip netns del "$ns2" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
err=$(ip netns add "$nsh" 2>&1) || skip "cannot create network namespaces here: $err"
ip netns add "$ns1" && ip netns add "$ns2" || skip "cannot create more network namespaces"
for n in "$nsh" "$ns1" "$ns2"; do
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
	ip -n "$n" link set lo up
done
ip -n "$nsh" link add br0 type bridge || skip "cannot create a bridge"
ip -n "$nsh" link set br0 up
ip link add ra netns "$ns1" type veth peer name pa netns "$nsh" &&
	ip link add rb netns "$ns2" type veth peer name pb netns "$nsh" ||
	skip "cannot create veth pairs"
for p in pa pb; do
	ip -n "$nsh" link set "$p" master br0
	ip -n "$nsh" link set "$p" up
done
ip -n "$ns1" addr add 198.18.2.1/24 dev ra
ip -n "$ns2" addr add 198.18.2.2/24 dev rb
ip -n "$ns1" link set ra up
ip -n "$ns2" link set rb up

netns_tcpdump "$nsh" any 100 "$tmp/any.pcap" "$tmp/td.err" -y LINUX_SLL2
netns_tcpdump "$nsh" any 100 "$tmp/any1.pcap" "$tmp/td1.err" -y LINUX_SLL
netns_wait listening "$tmp/td.err" "$tmp/td1.err" || {
	echo "$NAME: FAIL: tcpdump did not start"; cat "$tmp/td.err" "$tmp/td1.err"; exit 1; }
ip netns exec "$nsh" "$DMLSCOPE" watch -i any --snaplen 100 --interval 0.2s \
	-w "$tmp/watch.pcap" --json "$tmp/watch.json" --json-lines "$tmp/watch.jsonl" \
	>"$tmp/watch.out" 2>"$tmp/watch.err" &
wpid=$!
pids+=($wpid)
for _ in $(seq 200); do [ -s "$tmp/watch.jsonl" ] && break; sleep 0.05; done
[ -s "$tmp/watch.jsonl" ] || { echo "$NAME: FAIL: watch did not start"; cat "$tmp/watch.err"; exit 1; }

netns_send_20mb "$ns2" "$ns1" 198.18.2.2
sleep 1
kill -INT "${pids[0]}" "${pids[1]}" "$wpid"
wait "${pids[0]}" "${pids[1]}"
wait "$wpid"
wrc=$?
pids=()
[ -n "${ANY_BRIDGE_KEEP:-}" ] && cp "$tmp/any.pcap" "$tmp/any1.pcap" "$ANY_BRIDGE_KEEP/"

read -r ours dups <<<"$("$DMLSCOPE" analyze --quiet --json - "$tmp/any.pcap" 2>"$tmp/err" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
h = d["matrix"]["hosts"]
m = d["matrix"]["payload_bytes"]
print(m[h.index("198.18.2.1")][h.index("198.18.2.2")], d["input"]["skipped"]["duplicates"])')"
# tshark: the payload A -> B on each interface of the capture
tshark -n -r "$tmp/any.pcap" -Y "ip.src==198.18.2.1 && ip.dst==198.18.2.2 && tcp" \
	-T fields -e sll.ifindex -e tcp.len 2>/dev/null |
	awk '{s[$1] += $2} END {for (i in s) print i, s[i]}' | sort >"$tmp/per_if"
echo "$NAME: payload 198.18.2.1 -> 198.18.2.2: dmlscope $ours ($dups duplicates);" \
	"tshark by interface index: $(tr '\n' ' ' <"$tmp/per_if")"
fail=0
[ -n "$ours" ] || { echo "$NAME: FAIL: analyze"; cat "$tmp/err"; exit 1; }
nif=$(wc -l <"$tmp/per_if")
[ "$nif" -ge 2 ] || { echo "$NAME: FAIL: the capture holds the packets on $nif interface(s), not 2 or more"; exit 1; }
"$PY" - "$ours" "$tmp/per_if" <<'PY' || fail=1
import sys
ours = int(sys.argv[1])
per = [int(l.split()[1]) for l in open(sys.argv[2])]
if not any(abs(ours - p) <= 0.005 * p for p in per):
    print("any_bridge: FAIL: dmlscope %d, no interface's payload within 0.5 %%: %s" % (ours, per))
    sys.exit(1)
PY
[ "$dups" -gt 0 ] || { echo "$NAME: FAIL: no duplicates reported"; fail=1; }

# the same with Linux cooked v1 records (older libpcaps' -i any): no
# interface index, but sent and received
read -r v1 v1dups <<<"$("$DMLSCOPE" analyze --quiet --json - "$tmp/any1.pcap" 2>"$tmp/err" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
h = d["matrix"]["hosts"]
m = d["matrix"]["payload_bytes"]
print(m[h.index("198.18.2.1")][h.index("198.18.2.2")], d["input"]["skipped"]["duplicates"])')"
echo "$NAME: cooked v1: payload $v1 ($v1dups duplicates)"
"$PY" -c 'import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(not abs(a - b) <= 0.005 * b)' \
	"${v1:-0}" "$ours" || { echo "$NAME: FAIL: cooked v1 payload $v1, v2 $ours"; fail=1; }

# watch -i any: its summary, and analyze of its own -w file
[ "$wrc" = 0 ] || { echo "$NAME: FAIL: watch exited $wrc: $(cat "$tmp/watch.err")"; exit 1; }
"$DMLSCOPE" analyze --quiet --json "$tmp/watch.analyze.json" "$tmp/watch.pcap" ||
	{ echo "$NAME: FAIL: analyze of watch's -w file"; fail=1; }
"$PY" - "$tmp/watch.json" "$tmp/watch.analyze.json" "$ours" <<'PY' || fail=1
import json, sys
w, a = (json.load(open(p)) for p in sys.argv[1:3])
ours = int(sys.argv[3])
w.pop("live")
h = w["matrix"]["hosts"]
got = w["matrix"]["payload_bytes"][h.index("198.18.2.1")][h.index("198.18.2.2")]
dups = w["input"]["skipped"]["duplicates"]
print("any_bridge: watch -i any: payload %d, %d duplicates, link type %d"
      % (got, dups, w["input"]["files"][0]["linktype"]))
bad = []
if w != a:
    bad.append("summary != analyze of its -w file: " +
               ", ".join(k for k in a if w.get(k) != a[k]))
if abs(got - ours) > 0.005 * ours:
    bad.append("payload %d, analyze of tcpdump's capture %d" % (got, ours))
if dups <= 0:
    bad.append("no duplicates")
for b in bad:
    print("any_bridge: FAIL: watch: " + b)
sys.exit(1 if bad else 0)
PY
[ "$fail" = 0 ] && echo "$NAME: PASS"
exit $fail
