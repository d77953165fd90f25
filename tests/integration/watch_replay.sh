#!/usr/bin/env bash
# dmlscope watch on a veth pair in a network namespace made here, fed by
# Debian's tcpreplay with captures from `dmlscope generate`:
#  1. a ring of 4 replayed at full speed (it fits in the kernel buffer): no
#     drops, the final JSON is analyze's on the watch's -w file (apart from
#     the "live" object), and it counts the generated file's packets, hosts
#     and bytes exactly;
#  2. the same with a 1 MB buffer while the watch is stopped (SIGSTOP):
#     drops happen and are reported (JSON, text), received = captured +
#     dropped, and the summary is still analyze's on what was captured;
#  3. a ring of 2 at 100 ms per iteration, then 300 ms, then nothing: events
#     pattern (ring, 2 ranks), period (0.1 s -> 0.3 s) and stall, JSON lines
#     with analyze's keys.
# Skips (77) when not root, without tcpreplay or network namespaces.
set -u
skip() { echo "watch_replay: SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, capture)"
command -v tcpreplay >/dev/null 2>&1 || skip "tcpreplay not installed (apt-get install tcpreplay)"
ns="dmlswr$$"
ip netns add "$ns" 2>/dev/null || skip "cannot create network namespaces here"
tmp=$(mktemp -d)
wpid=
cleanup() {
	[ -n "$wpid" ] && kill -KILL "$wpid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
bad() { echo "watch_replay: FAIL: $*"; fail=1; }
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link set lo up
# no IPv6 on the test's link: a new interface's neighbour discovery and MLD
# went out now and then while a watch counted (ps_recv one over its records)
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
in_ns ip link add rp0 type veth peer name rp1
in_ns ip link set rp0 up
in_ns ip link set rp1 up
FILTER="net 198.18.0.0/15"

# watch NAME ARGS...: start a watch on rp1 in the background (its pid in wpid)
watch_start() {
	local name=$1; shift
	ip netns exec "$ns" "$DMLSCOPE" watch -i rp1 --filter "$FILTER" -w "$tmp/$name.pcap" \
		--json "$tmp/$name.json" --json-lines "$tmp/$name.jsonl" "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err" &
	wpid=$!
	# capturing once the first interval is out
	for _ in $(seq 200); do [ -s "$tmp/$name.jsonl" ] && break; sleep 0.05; done
}
watch_stop() {
	kill -INT "$wpid"
	wait "$wpid"
	local rc=$?
	wpid=
	[ "$rc" = 0 ] || bad "$1: watch exited $rc: $(cat "$tmp/$1.err")"
}
# same_as_analyze NAME: the watch's JSON without "live" == analyze of its -w file
same_as_analyze() {
	"$DMLSCOPE" analyze "$tmp/$1.pcap" --quiet --json "$tmp/$1.analyze.json" ||
		bad "$1: analyze of the -w file failed"
	/usr/bin/python3 - "$tmp/$1.json" "$tmp/$1.analyze.json" <<'PY' || bad "$1: watch's summary != analyze's"
import json, sys
w, a = (json.load(open(p)) for p in sys.argv[1:])
w.pop("live")
if w != a:
    for k in a:
        if w.get(k) != a[k]:
            print("differs:", k, str(w.get(k))[:300], "|", str(a[k])[:300])
    sys.exit(1)
PY
}

# 1. full speed, no drops
"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes 1MB --iterations 8 \
	--iteration-time 50ms --snaplen 100 --seed 7 -o "$tmp/ring4.pcap" >/dev/null
"$DMLSCOPE" analyze "$tmp/ring4.pcap" --quiet --json "$tmp/ring4.gen.json"
watch_start full --snaplen 100 --interval 0.5s
in_ns tcpreplay -q -i rp0 --topspeed "$tmp/ring4.pcap" >/dev/null 2>&1 || bad "tcpreplay failed"
sleep 1
watch_stop full
same_as_analyze full
/usr/bin/python3 - "$tmp/full.json" "$tmp/ring4.gen.json" <<'PY' || bad "full speed: counts differ from the generated file"
import json, sys
w, g = (json.load(open(p)) for p in sys.argv[1:])
live = w["live"]
assert live["dropped_packets"] == 0 and live["interface_dropped_packets"] == 0, live
assert live["received_packets"] == w["input"]["records"], live
for k in ("records", "packets", "wire_bytes", "payload_bytes"):
    assert w["input"][k] == g["input"][k], (k, w["input"][k], g["input"][k])
key = lambda h: h["addr"]
for hw, hg in zip(sorted(w["hosts"], key=key), sorted(g["hosts"], key=key)):
    for k in ("addr", "tx_wire_bytes", "tx_payload_bytes", "tx_packets", "rx_packets"):
        assert hw[k] == hg[k], (k, hw, hg)
assert w["pattern"]["kind"] == g["pattern"]["kind"] == "ring", w["pattern"]["kind"]
assert w["pattern"]["ranks"] == 4
assert live["interfaces"] == ["rp1"] and live["snaplen_bytes"] == 100
PY
grep -q "0 dropped by the kernel" "$tmp/full.out" || bad "full speed: no drops line in the summary"

# 2. drops: a 1 MB ring while the watch cannot read
watch_start drops --snaplen 100 --buffer 1MB --interval 0.5s
kill -STOP "$wpid"
in_ns tcpreplay -q -i rp0 --topspeed "$tmp/ring4.pcap" >/dev/null 2>&1 || bad "tcpreplay failed"
kill -CONT "$wpid"
sleep 0.5
watch_stop drops
same_as_analyze drops
/usr/bin/python3 - "$tmp/drops.json" "$tmp/ring4.gen.json" <<'PY' || bad "drops not reported as they are"
import json, sys
w, g = (json.load(open(p)) for p in sys.argv[1:])
live = w["live"]
assert live["dropped_packets"] > 0, live
assert live["received_packets"] == w["input"]["records"] + live["dropped_packets"], live
assert w["input"]["records"] < g["input"]["records"]
PY
grep -q "^warning: [0-9]* packets were dropped" "$tmp/drops.out" ||
	bad "drops: the text summary does not warn: $(grep capture "$tmp/drops.out")"

# 3. events: period 0.1 s, then 0.3 s, then silence
"$DMLSCOPE" generate --pattern ring --workers 2 --gradient-bytes 200kB --iterations 30 \
	--iteration-time 100ms --snaplen 100 --seed 1 -o "$tmp/fast.pcap" >/dev/null
"$DMLSCOPE" generate --pattern ring --workers 2 --gradient-bytes 200kB --iterations 20 \
	--iteration-time 300ms --snaplen 100 --seed 1 -o "$tmp/slow.pcap" >/dev/null
watch_start events --snaplen 100 --interval 0.5s --window 1.5s
in_ns tcpreplay -q -i rp0 "$tmp/fast.pcap" >/dev/null 2>&1 || bad "tcpreplay failed"
in_ns tcpreplay -q -i rp0 "$tmp/slow.pcap" >/dev/null 2>&1 || bad "tcpreplay failed"
sleep 2.5
watch_stop events
same_as_analyze events
/usr/bin/python3 - "$tmp/events.json" "$tmp/events.jsonl" "$tmp/events.analyze.json" <<'PY' || bad "events"
import json, sys
w = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
a = json.load(open(sys.argv[3]))
ev = w["live"]["events"]
print("events:", [(e["type"], round(e["time_s"], 2), e["text"]) for e in ev])
kinds = [e["type"] for e in ev]
pat = [e for e in ev if e["type"] == "pattern"]
assert pat and pat[0]["pattern"] == "ring" and pat[0]["ranks"] == 2, pat
per = [e for e in ev if e["type"] == "period"]
# The replay runs in real time: on a loaded machine tcpreplay sends late and
# the periods on the wire stretch (0.12 s and 0.39 s were seen under ASan in
# a parallel make check), so the checks are loose on the values and strict on
# the change: 0.1 s then about three times that, perhaps through windows
# that held both (e.g. 0.2 s): a 1.5 s window every 0.5 s makes 3 of them,
# and a loaded machine (make check beside a training job) showed 0.108 ->
# 0.168 -> 0.244 -> 0.309.
assert per and 0.08 < per[0]["period_s"] < 0.2, per
ch = [e for e in per if e["old_period_s"] is not None]
assert ch and 0.08 < ch[0]["old_period_s"] < 0.2 and ch[-1]["period_s"] >= 0.25, ch
assert ch[-1]["period_s"] / ch[0]["old_period_s"] > 2, ch
assert len(ch) <= 3, ch
assert all(e["period_s"] > e["old_period_s"] for e in ch), ch  # only ever longer
assert "stall" in kinds and kinds.index("stall") > kinds.index("pattern"), kinds
assert lines[-1]["type"] == "summary" and all(l["type"] == "interval" for l in lines[:-1])
assert len(lines) >= 10
for l in lines[:-1]:
    for sec in ("pattern", "iterations", "model"):
        if l[sec] is not None:
            extra = set(l[sec]) - set(a[sec]) - {"period_trend"}
            assert not extra, (sec, extra)
    assert set(l["capture"]) == {"received_packets", "dropped_packets", "interface_dropped_packets"}
s = dict(lines[-1]); s.pop("type")
assert s == w, "the summary line is not the --json document"
PY
exit $fail
