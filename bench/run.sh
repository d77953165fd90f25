#!/usr/bin/env bash
# make bench: dmlscope beside `tcpdump -r F -w /dev/null` and the study's
# tshark+pandas pipeline, on the same generated capture, in one run.
#   BENCH_PACKETS (default 2000000)  packets in the capture
#   BENCH_STUDY=0                    skip the (slow) study pipeline
set -euo pipefail
cd "$(dirname "$0")/.."
n=${BENCH_PACKETS:-2000000}
dir=${BENCH_DIR:-build/bench}
mkdir -p "$dir"
cap="$dir/ring-$n.pcap"
half="$dir/ring-$((n / 2)).pcap"
[ -f "$cap" ] || { echo "generating $cap"; /usr/bin/python3 bench/gencap.py "$cap" "$n"; }
[ -f "$half" ] || /usr/bin/python3 bench/gencap.py "$half" $((n / 2))
cat "$cap" "$half" >/dev/null  # warm the page cache

# best of 3 runs: wall-clock seconds, CPU seconds (user+sys, steadier on a
# shared machine) and peak RSS (kB) of a command
measure() {
	local best="" cpu="" rss=0 t u s r
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" "$@" >/dev/null 2>&1 || true
		read -r t u s r <"$dir/time.txt"
		c=$(awk "BEGIN{print $u + $s}")
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
		if [ -z "$cpu" ] || awk "BEGIN{exit !($c < $cpu)}"; then cpu=$c; fi
		rss=$r
	done
	echo "$best $cpu $rss"
}

read -r t_tcpdump c_tcpdump m_tcpdump < <(measure tcpdump -r "$cap" -w /dev/null)
read -r t_dmls c_dmls m_dmls < <(measure build/dmlscope analyze "$cap" --quiet)
read -r t_half c_half m_half < <(measure build/dmlscope analyze "$half" --quiet)
printf "capture: %s (%s packets, %s)\n" "$cap" "$n" "$(du -h "$cap" | cut -f1)"
printf "%-40s %8s %8s %10s\n" "command" "wall s" "cpu s" "peak RSS"
printf "%-40s %8s %8s %7s MB\n" "tcpdump -r F -w /dev/null" "$t_tcpdump" "$c_tcpdump" $((m_tcpdump / 1024))
printf "%-40s %8s %8s %7s MB\n" "dmlscope analyze F --quiet" "$t_dmls" "$c_dmls" $((m_dmls / 1024))
printf "%-40s %8s %8s %7s MB\n" "dmlscope analyze (half the packets)" "$t_half" "$c_half" $((m_half / 1024))
awk "BEGIN{printf \"ratio dmlscope / tcpdump: wall %.2f, cpu %.2f (target <= 1.5)\n\", $t_dmls / $t_tcpdump, $c_dmls / ($c_tcpdump > 0 ? $c_tcpdump : 0.01)}"
if [ "${BENCH_STUDY:-1}" != 0 ] && command -v tshark >/dev/null; then
	# one run only: it takes minutes; CPU time includes tshark (a waited-for child)
	/usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" /usr/bin/python3 bench/study_way.py "$cap" >/dev/null 2>&1
	read -r t_study u s m_study <"$dir/time.txt"
	c_study=$(awk "BEGIN{print $u + $s}")
	printf "%-40s %8s %8s %7s MB\n" "study: tshark -T fields + pandas" "$t_study" "$c_study" $((m_study / 1024))
	awk "BEGIN{printf \"ratio study / dmlscope: wall %.0fx, cpu %.0fx\n\", $t_study / $t_dmls, $c_study / $c_dmls}"
fi
