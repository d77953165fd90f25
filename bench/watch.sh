#!/usr/bin/env bash
# make bench, section 5: the highest packet rate `dmlscope watch` sustains
# without drops, beside `tcpdump -w /dev/null` on the same replay.
#
# A generated ring all-reduce (8 ranks, snaplen 100) is replayed with Debian's
# tcpreplay (preloaded in memory, -K, looped) into one end of a veth pair in a
# network namespace made here; the capture runs on the other end with snap
# length 100 and a 64 MiB kernel buffer, both in their default batching mode
# (TPACKET_V3 blocks; tcpdump -s 100 -B 65536 -w /dev/null; dmlscope watch
# --snaplen 100 --json-lines /dev/null --json F).  First at tcpreplay's top speed; if a tool drops there,
# at --pps rates halving from it until a run has no drop.  Drops are the
# tool's own count (tcpdump's "dropped by kernel", watch's live.dropped_packets).
# The replay rate is tcpreplay's "Rated: N pps".
#
# The replay itself is single-threaded and pays the kernel's delivery to the
# capture socket (veth transmit runs the receive path in the sender's
# context), so on a small machine tcpreplay's top speed can be below what
# the capture could take.  The capture's own work is therefore also given as
# its capacity: packets read per CPU second of the capturing process (user +
# system, /proc/PID/stat), i.e. the rate one core would sustain.
#
# Environment: BENCH_DIR (build/bench), BENCH_WATCH_LOOPS=2 (replays of the
# ~360 k-packet file per run), BENCH_TCPDUMP (tcpdump to compare with).
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-build/bench}
loops=${BENCH_WATCH_LOOPS:-2}
dmls=${DMLSCOPE:-build/dmlscope}
tcpdump=${BENCH_TCPDUMP-$(command -v tcpdump || true)}
say() { echo "$*"; }
[ "$(id -u)" = 0 ] || { say "skipped: needs root (network namespaces, capture)"; exit 0; }
command -v tcpreplay >/dev/null || { say "skipped: no tcpreplay (apt-get install tcpreplay)"; exit 0; }
ns="dmlsbw$$"
ip netns add "$ns" 2>/dev/null || { say "skipped: cannot create network namespaces"; exit 0; }
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; ip netns del "$ns" 2>/dev/null; }
trap cleanup EXIT
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link set lo up
in_ns ip link add rp0 type veth peer name rp1
in_ns ip link set rp0 up
in_ns ip link set rp1 up
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null || true
mkdir -p "$dir"
cap="$dir/watch-ring8.pcap"
[ -s "$cap" ] || "$dmls" generate --pattern ring --workers 8 --gradient-bytes 25MB --iterations 1 \
	--snaplen 100 --seed 3 -o "$cap" >/dev/null 2>&1
n=$(tcpdump -r "$cap" 2>/dev/null | wc -l)
say "   replay: $cap, $n packets x $loops loops, tcpreplay -K into a veth, snaplen 100, 64 MiB buffer"

cpu_s() { awk '{print ($14 + $15) / '"$(getconf CLK_TCK)"'}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# start TOOL KIB [WATCH_BUFFER]: capture on rp1 in the background (its pid in
# $pid): tcpdump with a KIB KiB kernel buffer, watch with --buffer
# WATCH_BUFFER (its default, 64 MiB, without)
start() {
	local tool=$1 kib=$2 out="$dir/watch-bench.$1" buf=()
	[ -n "${3:-}" ] && buf=(--buffer "$3")
	if [ "$tool" = tcpdump ]; then
		ip netns exec "$ns" "$tcpdump" -i rp1 -s 100 -B "$kib" -w /dev/null \
			>"$out.out" 2>"$out.err" &
	else
		ip netns exec "$ns" "$dmls" watch -i rp1 --snaplen 100 "${buf[@]}" --interval 1s \
			--json-lines /dev/null --json "$out.json" >"$out.out" 2>"$out.err" &
	fi
	pid=$!
}

# stop TOOL: interrupt the capture, print "drops captured" as it reports them
stop() {
	local tool=$1 out="$dir/watch-bench.$1" drops got
	kill -INT "$pid"
	# stop runs in a command substitution, a subshell, whose `wait` cannot
	# wait for the parent's child: poll until it has written its report
	local t
	for t in $(seq 300); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; echo "   ($tool did not stop within 30 s of SIGINT: killed)" >&2; }
	pid=
	if [ "$tool" = tcpdump ]; then
		drops=$(awk '/dropped by kernel/ {print $1}' "$out.err")
		got=$(awk '/packets captured/ {print $1}' "$out.err")
	else
		read -r drops got < <(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["live"]["dropped_packets"] + d["live"]["interface_dropped_packets"], d["input"]["records"])' "$out.json")
	fi
	echo "${drops:-?} ${got:-0}"
}

# run TOOL RATE: replay at RATE (pps or "top"), print "pps drops captured cpu_s"
run() {
	local tool=$1 rate=$2
	start "$tool" 65536
	sleep 1
	local c0 rflag=(--topspeed)
	c0=$(cpu_s "$pid")
	[ "$rate" != top ] && rflag=(--pps="$rate")
	local rated
	rated=$(in_ns tcpreplay -K -i rp0 --loop="$loops" "${rflag[@]}" "$cap" 2>&1 |
		awk '/Rated:/ {print int($(NF-1))}')
	sleep 1
	local c1
	c1=$(cpu_s "$pid")
	echo "${rated:-0} $(stop "$tool") $(awk "BEGIN{print $c1 - $c0}")"
}

# best TOOL: top speed, then halving rates until no drop
best() {
	local tool=$1 rate=top res pps drops got cpu
	for _ in 1 2 3 4 5 6; do
		res=$(run "$tool" "$rate")
		read -r pps drops got cpu <<<"$res"
		local cap_pps
		cap_pps=$(awk "BEGIN{print (($cpu > 0) ? int($got / $cpu) : 0)}")
		printf '   %-8s replay %-9s %8s pps   drops %-8s captured %-9s cpu %6.2f s  capacity %s pps/core\n' \
			"$tool" "$rate" "$pps" "$drops" "$got" "$cpu" "$cap_pps"
		if [ "$drops" = 0 ]; then
			echo "   => $tool: no drop at $pps pps (replay $rate); $cap_pps packets per CPU second"
			return
		fi
		rate=$((pps / 2))
	done
	echo "   => $tool: drops at every rate tried"
}
# drain TOOL: the capture stopped (SIGSTOP) while one replay fills a 256 MiB
# buffer, then let go: how fast it empties a full ring, in packets per CPU
# second of the capturing process (no wake-up per packet: its pure work)
drain() {
	local tool=$1
	start "$tool" 262144 256MB
	sleep 1
	kill -STOP "$pid"
	in_ns tcpreplay -K -i rp0 --loop="$loops" --topspeed "$cap" >/dev/null 2>&1
	local c0 c1
	c0=$(cpu_s "$pid")
	kill -CONT "$pid"
	# drained when its CPU time stops growing
	c1=$c0
	while sleep 0.5; do
		local c
		c=$(cpu_s "$pid")
		[ "$c" = "$c1" ] && break
		c1=$c
	done
	local drops got
	read -r drops got <<<"$(stop "$tool")"
	printf '   %-8s drained %s packets (drops %s) in %.2f CPU s: %s packets per CPU second\n' \
		"$tool" "$got" "$drops" "$(awk "BEGIN{print $c1 - $c0}")" \
		"$(awk "BEGIN{d = $c1 - $c0; print (d > 0 ? int($got / d) : 0)}")"
}

say "   a) highest replay rate without drops"
[ -n "$tcpdump" ] && best tcpdump
best watch
say "   b) a full 256 MiB ring emptied (capture stopped during the replay): one core's rate"
[ -n "$tcpdump" ] && drain tcpdump
drain watch
