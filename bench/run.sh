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

# best of 3 wall-clock seconds and the peak RSS (kB) of a command
measure() {
	local best="" rss=0 t r
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$dir/time.txt" "$@" >/dev/null 2>&1 || true
		read -r t r <"$dir/time.txt"
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
		rss=$r
	done
	echo "$best $rss"
}

read -r t_tcpdump m_tcpdump < <(measure tcpdump -r "$cap" -w /dev/null)
read -r t_dmls m_dmls < <(measure build/dmlscope analyze "$cap" --quiet)
read -r t_half m_half < <(measure build/dmlscope analyze "$half" --quiet)
printf "capture: %s (%s packets, %s)\n" "$cap" "$n" "$(du -h "$cap" | cut -f1)"
printf "%-44s %8s s %8s MB RSS\n" "tcpdump -r F -w /dev/null" "$t_tcpdump" $((m_tcpdump / 1024))
printf "%-44s %8s s %8s MB RSS\n" "dmlscope analyze F --quiet" "$t_dmls" $((m_dmls / 1024))
printf "%-44s %8s s %8s MB RSS\n" "dmlscope analyze (half the packets)" "$t_half" $((m_half / 1024))
awk "BEGIN{printf \"ratio dmlscope / tcpdump: %.2f (target <= 1.5)\n\", $t_dmls / $t_tcpdump}"
if [ "${BENCH_STUDY:-1}" != 0 ] && command -v tshark >/dev/null; then
	read -r t_study m_study < <(/usr/bin/time -f "%e %M" /usr/bin/python3 bench/study_way.py "$cap" 2>&1 >/dev/null | tail -1)
	printf "%-44s %8s s %8s MB RSS\n" "study: tshark -T fields + pandas" "$t_study" $((m_study / 1024))
	awk "BEGIN{printf \"ratio study / dmlscope: %.0fx\n\", $t_study / $t_dmls}"
fi
