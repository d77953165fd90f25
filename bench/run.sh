#!/usr/bin/env bash
# make bench: dmlscope's speed and memory targets beside `tcpdump -r F -w /dev/null`
# (and the study's tshark+pandas pipeline), in one run, on four inputs:
#   1. short real capture: the largest bundled sample run (samples/*/), given to
#      dmlscope as its run folder; tcpdump reads its captures merged by time.
#      Target: <= 1.0x tcpdump.
#   2. long capture: a generated 1-hour, 8-host ring all-reduce job (snaplen 100,
#      one iteration a second, a 3-40 ms burst of TSO super-packets and ACKs each
#      second, 1.2 M packets) and its first 10 minutes.  Targets: <= 1.0x
#      tcpdump; peak RSS <= 64 MiB with no growth from 10 minutes to 1 hour
#      (within 10 % or 2 MiB); iterations found within 1 % of the true count.
#   3. real runs back to back: the samples (and the run folders found below
#      $BENCH_REAL_DIR) repeated, each shifted to start 1 s after the previous
#      one ended, up to 2 M packets.  Target: <= 1.0x tcpdump.
#   4. flood: 2 M TCP SYNs, each a new 5-tuple from its own source address.
#      Targets: <= 3.0x tcpdump, peak RSS <= 256 MiB, packets and wire bytes in
#      the JSON exactly the generator's.
# Each command: best of 5 runs for wall and CPU (user+sys) seconds, the largest
# peak RSS of the 5 (GNU time); with 3, a shared machine's noise flipped
# verdicts between two runs of the bench.  dmlscope and its tcpdump reference
# run in turn, a run of each per round, so that a slow minute slows both.  A ratio target is met when both the wall and the
# CPU ratio are within it.  No target is an assertion: lines say "meets target"
# or "misses target", and the script exits 0 unless it cannot run at all.
# dmlscope runs as `dmlscope analyze INPUT --quiet --json -`; every command
# runs under an address space limit (a run that hits it shows as "failed
# (exit N)").
# Generated captures are deterministic (seeded) and cached in $BENCH_DIR.
#
# Environment:
#   BENCH_DIR=build/bench           captures, their truth (F.json), outputs
#   BENCH_SHORT=0 BENCH_LONG=0 BENCH_CONCAT=0 BENCH_FLOOD=0   skip input 1, 2, 3, 4
#   BENCH_WATCH=0                   skip section 5, watch's live capture rate
#   BENCH_GENERATE=0                skip section 6, generate's Gbit/s per CPU-second
#                                   (bench/watch.sh: root, tcpreplay, namespaces)
#   BENCH_MPI=0                     skip bench/mpi.sh (mpirun scaling, merge cost)
#   BENCH_STUDY=0                   skip the study pipeline (one run of tshark +
#                                   pandas on the 1-hour capture: minutes)
#   BENCH_RUNS=5                    runs per command (best time, largest RSS)
#   BENCH_MIN_TIME=0.5              a command faster than this (seconds) is timed
#                                   over back-to-back executions lasting about
#                                   this long, divided out (GNU time counts 10 ms)
#   BENCH_SAMPLE=DIR                the run of input 1 (default: largest samples/*/)
#   BENCH_REAL_DIR=DIR              more real runs for input 3
#   BENCH_CONCAT_PACKETS=2000000    size of input 3
#   BENCH_FLOOD_PACKETS=2000000     size of input 4
#   BENCH_ITERATIONS=3600           iterations (seconds) of input 2; the short
#                                   version has a sixth of them
#   BENCH_AS_LIMIT=4294967296       address space (bytes) allowed to each command
#   BENCH_TCPDUMP=PATH              tcpdump to compare with (empty: none)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-build/bench}
runs=${BENCH_RUNS:-5}
min_time=${BENCH_MIN_TIME:-0.5}
as_limit=${BENCH_AS_LIMIT:-4294967296}
concat_n=${BENCH_CONCAT_PACKETS:-2000000}
flood_n=${BENCH_FLOOD_PACKETS:-2000000}
iters=${BENCH_ITERATIONS:-3600}
iters_short=$((iters / 6))
# DURATION SECONDS: 1 h, 10 min, 90 s
duration() { if (($1 % 3600 == 0)); then echo "$(($1 / 3600)) h"; elif (($1 % 60 == 0)); then echo "$(($1 / 60)) min"; else echo "$1 s"; fi; }
long_d=$(duration "$iters") short_d=$(duration "$iters_short")
py=/usr/bin/python3
[ -x "$py" ] || py=python3
mkdir -p "$dir"
[ -x build/dmlscope ] || make --no-print-directory build
# a copy: the same binary all through, even when build/ is rebuilt meanwhile
dmls=$dir/dmlscope
for _ in 1 2 3; do
	cp -p build/dmlscope "$dmls.tmp" && mv -f "$dmls.tmp" "$dmls" && "$dmls" --version >/dev/null && break
	sleep 2
done
if [ -z "${BENCH_TCPDUMP+set}" ]; then
	BENCH_TCPDUMP=$(command -v tcpdump || { [ -x /usr/sbin/tcpdump ] && echo /usr/sbin/tcpdump; } || true)
fi
tcpdump=$BENCH_TCPDUMP
if [ -n "$tcpdump" ] && ! "$tcpdump" --version >/dev/null 2>&1; then
	echo "$tcpdump does not run: no tcpdump"
	tcpdump=""
fi
# dmlscope under the address-space limit: it must not take the machine down
if command -v prlimit >/dev/null; then
	limited=(prlimit "--as=$as_limit" --)
else
	limited=(bash -c 'ulimit -v "$1" && shift && exec "$@"' limit $((as_limit / 1024)))
fi

# measure OUT CMD... [::: OUT2 CMD2...]: best of $runs runs of CMD: wall s,
# CPU s (user+sys), the largest peak RSS kB, exit status (a failing run ends
# it).  A first, untimed execution warms up and sizes the runs: one shorter
# than $min_time s is timed over as many back-to-back executions as fill
# $min_time s (at most 50), divided out (GNU time counts in 10 ms).  OUT:
# stdout of the last execution.  With a second command (the reference), the
# two run in turn, one run of each per round, and a line for each is
# printed: a shared machine's slow minute then slows both, not one (timed
# one after the other, the ratio of the hour's capture moved by 0.2 between
# two runs of the bench).  Every command (tcpdump's too) runs under the
# address-space limit, set once for the back-to-back loop, so the limit's
# own start-up (prlimit) is not counted once an execution against the short
# captures.  A failed command's last stderr line: $dir/stderr.txt.
measure() {
	local -a a=() b=() rep=(1 1) best=("" "") cpu=("" "") worst=("" "") rss=(0 0) st=(0 0) out=()
	local x i k n=1 t u s r c
	for x in "$@"; do
		if [ "$x" = ":::" ]; then n=2; elif [ $n = 1 ]; then a+=("$x"); else b+=("$x"); fi
	done
	out=("${a[0]}" "${b[0]:-}")
	for ((k = -1; k < runs; k++)); do
		for ((i = 0; i < n; i++)); do
			[ "${st[i]}" = 0 ] || continue
			if [ $i = 0 ]; then set -- "${a[@]:1}"; else set -- "${b[@]:1}"; fi
			/usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" "${limited[@]}" sh -c \
				'o=$1 n=$2; shift 2; while [ "$n" -gt 0 ]; do "$@" >"$o" || exit; n=$((n - 1)); done' \
				sh "${out[i]}" "${rep[i]}" "$@" 2>"$dir/stderr.$i.txt" || st[i]=$?
			read -r t u s r < <(tail -n 1 "$dir/time.txt")
			[ "$r" -gt "${rss[i]}" ] && rss[i]=$r
			[ "${st[i]}" = 0 ] || cp "$dir/stderr.$i.txt" "$dir/stderr.txt"
			if [ "$k" = -1 ] && [ "${st[i]}" = 0 ]; then
				rep[i]=$(awk -v t="$t" -v m="$min_time" 'BEGIN{n = t < m ? int(m / (t > 0.005 ? t : 0.005) + 0.999) : 1; print (n > 50 ? 50 : n)}')
				continue
			fi
			t=$(awk "BEGIN{print $t / ${rep[i]}}")
			c=$(awk "BEGIN{print ($u + $s) / ${rep[i]}}")
			if [ -z "${best[i]}" ] || awk "BEGIN{exit !($t < ${best[i]})}"; then best[i]=$t; fi
			if [ -z "${cpu[i]}" ] || awk "BEGIN{exit !($c < ${cpu[i]})}"; then cpu[i]=$c; fi
			if [ -z "${worst[i]}" ] || awk "BEGIN{exit !($c > ${worst[i]})}"; then worst[i]=$c; fi
		done
	done
	for ((i = 0; i < n; i++)); do
		echo "${best[i]:-0} ${cpu[i]:-0} ${rss[i]} ${st[i]}"
		echo "${cpu[i]:-0} ${worst[i]:-0}" >"$dir/cpu_spread.$i" # best and worst batch
	done
}

# pcap files are read once before timing, so that every command finds them cached
warm() { cat "$@" >/dev/null; }

W=44
hdr() {
	printf "%-${W}s %8s %8s %8s %7s %7s  %-21s %s\n" "" "wall s" "cpu s" "RSS MiB" "wall x" "cpu x" "target" ""
}
section() { printf "\n%s\n" "$1"; }
# row LABEL "T C KB ST" [REF "T C KB ST" | ""] [TARGET_X]: a measured command;
# with TARGET_X, its ratios to REF (tcpdump) against the target
row() {
	local label=$1 res=$2 ref=${3:-} target=${4:-} t c kb st rt rc rkb rst wx cx verdict
	read -r t c kb st <<<"$res"
	if [ "$st" = 0 ]; then
		printf "%-${W}s %8.3f %8.3f %8d" "$label" "$t" "$c" $((kb / 1024))
	else
		printf "%-${W}s %17s %8d" "$label" "failed (exit $st)" $((kb / 1024))
	fi
	if [ -z "$target" ]; then
		echo
	elif [ -z "$ref" ]; then
		printf " %7s %7s  %-21s %s\n" "-" "-" "<= ${target}x tcpdump" "not measured (no tcpdump)"
	else
		read -r rt rc rkb rst <<<"$ref"
		if [ "$st" != 0 ] || [ "$rst" != 0 ]; then
			printf " %7s %7s  %-21s %s\n" "-" "-" "<= ${target}x tcpdump" \
				"misses target ($([ "$st" != 0 ] && echo dmlscope || echo tcpdump) failed)"
		else
			read -r wx cx verdict < <(awk -v t="$t" -v c="$c" -v rt="$rt" -v rc="$rc" -v x="$target" 'BEGIN{
				w = rt > 0 ? t / rt : 1e9; u = rc > 0 ? c / rc : (c > 0 ? 1e9 : 1)
				printf "%.2f %.2f %s\n", w, u, (w <= x && u <= x) ? "meets" : "misses" }')
			printf " %7s %7s  %-21s %s target\n" "$wx" "$cx" "<= ${target}x tcpdump" "$verdict"
		fi
	fi
	# why a run failed: the last line it wrote on stderr
	if [ "$st" != 0 ] && [ -s "$dir/stderr.txt" ]; then
		echo "    stderr: $(tail -n 1 "$dir/stderr.txt" | cut -c1-150)"
	fi
}
# check LABEL VALUE TARGET VERDICT: a line that is not a timing
check() { printf "%-${W}s %-42s %-21s %s\n" "$1" "$2" "$3" "$4"; }
# pair REF_LABEL REF_INPUT LABEL INPUT OUT TARGET: tcpdump on REF_INPUT and
# dmlscope on INPUT (its JSON kept in OUT), timed in turn (measure); their
# rows, dmlscope's with its ratios against TARGET.  Sets REF and RES to their
# results (REF "" without tcpdump).
pair() {
	local both
	if [ -z "$tcpdump" ]; then
		check "$1" "skipped: tcpdump not installed" "" ""
		REF="" RES=$(measure "$5" "$dmls" analyze "$4" --quiet --json -)
	else
		both=$(measure "$5" "$dmls" analyze "$4" --quiet --json - \
			::: "$dir/tcpdump.out" "$tcpdump" -r "$2" -w /dev/null)
		RES=$(sed -n 1p <<<"$both") REF=$(sed -n 2p <<<"$both")
		row "$1" "$REF"
	fi
	row "$3" "$RES" "$REF" "$6"
	if [ -n "$tcpdump" ]; then busy_note; fi
}
# After a pair: when tcpdump's own batches spread by more than 15 % CPU
# (best to worst), the host was busy while they ran and a ratio of the two
# bests may be off by as much: say so, so that a verdict is read with it.
busy_note() {
	local b w
	read -r b w <"$dir/cpu_spread.1" || return 0
	awk -v b="$b" -v w="$w" 'BEGIN{ if (b > 0 && w / b > 1.15)
		printf "   (tcpdump'"'"'s own batches spread %.0f %% in CPU, best to worst: a busy host; the ratios may be off by as much)\n", (w / b - 1) * 100 }'
}
# jget JSON KEY/PATH...: the values, or "invalid" when the file is not JSON
jget() {
	"$py" - "$@" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("invalid")
    sys.exit()
out = []
for path in sys.argv[2:]:
    v = d
    for k in path.split("/"):
        v = v.get(k) if isinstance(v, dict) else None
    out.append("null" if v is None else str(v))
print(" ".join(out))
EOF
}
describe() { # capture, its packets
	printf "%s (%s packets, %s)" "$1" "$2" "$(du -h "$1" | cut -f1)"
}
# gen OUT ARGS...: run gencap.py ARGS OUT unless OUT (and OUT.json) are cached
gen() {
	local f=$1 t0
	shift
	[ -f "$f" ] && [ -f "$f.json" ] && return
	rm -f "${f%-*}"-*.pcap "${f%-*}"-*.pcap.json  # older generators' versions
	printf "generating %s ... " "$f"
	t0=$(date +%s.%N)
	"$py" bench/gencap.py "$@"
	mv "$f.tmp.json" "$f.json"
	mv "$f.tmp" "$f"
	awk "BEGIN{printf \"%.1f s\n\", $(date +%s.%N) - $t0}"
}
gid=$(cksum bench/gencap.py | cut -d' ' -f1)  # a new generator: new captures

echo "dmlscope: build/dmlscope of $(date -r "$dmls" '+%F %T') (commit $(git log -1 --format=%h 2>/dev/null || echo '?')$(git diff --quiet HEAD -- src include 2>/dev/null || echo ', with uncommitted changes')), run as $dmls; tcpdump: ${tcpdump:-none}"
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); best of $runs runs (after a warm-up), commands under $min_time s repeated back to back; address space limited to $((as_limit / 1048576)) MiB"
[ -n "$tcpdump" ] || echo "tcpdump not installed (apt-get install tcpdump): its rows and the ratios are skipped"
study_cap="" study_res=""

if [ "${BENCH_SHORT:-1}" != 0 ]; then
	sample=${BENCH_SAMPLE:-}
	if [ -z "$sample" ]; then
		sample=$(for d in samples/*/; do
			echo "$(cat "$d"*.pcap* 2>/dev/null | wc -c) ${d%/}"
		done | sort -n | tail -n 1 | cut -d' ' -f2-)
	fi
	merged="$dir/sample-$(basename "$sample").pcap"
	"$py" bench/concat.py "$merged" "$sample" | { grep -v ': cached$' || true; }
	n=$(jget "$merged.json" packets)
	warm "$merged" "$sample"/*
	section "1. short real capture: $sample, merged by time for tcpdump: $(describe "$merged" "$n")"
	hdr
	pair "tcpdump -r MERGED -w /dev/null" "$merged" \
		"dmlscope analyze RUN --quiet --json -" "$sample" "$dir/sample.json" 1.0
	study_cap=$merged study_res=$RES
fi

if [ "${BENCH_LONG:-1}" != 0 ]; then
	long="$dir/job-8x$iters-$gid.pcap"
	long10="$dir/job-8x$iters_short-$gid.pcap"
	gen "$long" job "$long.tmp" --hosts 8 --iterations "$iters" --snaplen 100 --seed 1
	gen "$long10" job "$long10.tmp" --hosts 8 --iterations "$iters_short" --snaplen 100 --seed 1
	warm "$long" "$long10"
	n=$(jget "$long.json" packets) n10=$(jget "$long10.json" packets)
	section "2. long capture: generated 8-host ring all-reduce, one iteration a second, snaplen 100"
	echo "   $long_d: $(describe "$long" "$n"), $iters iterations"
	echo "   $short_d: $(describe "$long10" "$n10"), $iters_short iterations (the first ones of the same job)"
	hdr
	pair "tcpdump -r F -w /dev/null ($long_d)" "$long" \
		"dmlscope analyze F --quiet --json - ($long_d)" "$long" "$dir/long.json" 1.0
	res=$RES study_cap=$long study_res=$RES
	pair "tcpdump -r F -w /dev/null ($short_d)" "$long10" \
		"dmlscope analyze F --quiet --json - ($short_d)" "$long10" "$dir/long10.json" 1.0
	res10=$RES
	read -r _ _ kb st <<<"$res"
	read -r _ _ kb10 st10 <<<"$res10"
	check "peak RSS, $short_d -> $long_d" \
		"$((kb10 / 1024)) -> $((kb / 1024)) MiB ($(awk "BEGIN{printf \"%+.0f %%\", ($kb - $kb10) * 100 / ($kb10 > 0 ? $kb10 : 1)}"))" \
		"<= 64 MiB, no growth" \
		"$(awk -v a="$kb10" -v b="$kb" -v s="$st$st10" 'BEGIN{
			ok = s == "00" && b <= 64 * 1024 && a <= 64 * 1024 && (b <= a * 1.1 || b <= a + 2048)
			print ok ? "meets target" : "misses target" }')"
	for v in "$long_d:$dir/long.json:$long.json:$st" "$short_d:$dir/long10.json:$long10.json:$st10"; do
		IFS=: read -r what out truth s <<<"$v"
		found=$(jget "$out" iterations/count)
		want=$(jget "$truth" iterations)
		check "iterations found (iterations/count, $what)" \
			"$found of $want$(awk -v f="$found" -v w="$want" 'BEGIN{if (f + 0 == f && w > 0) printf " (%+.2f %%)", (f - w) * 100 / w}')" \
			"within 1 %" \
			"$(awk -v f="$found" -v w="$want" 'BEGIN{
				print (f + 0 == f && f != "" && (f - w) * 100 / w <= 1 && (w - f) * 100 / w <= 1) ? "meets target" : "misses target" }')"
	done
fi

if [ "${BENCH_CONCAT:-1}" != 0 ]; then
	real="$dir/real-$concat_n.pcap"
	inputs=(samples)
	[ -n "${BENCH_REAL_DIR:-}" ] && inputs+=("$BENCH_REAL_DIR")
	"$py" bench/concat.py "$real" --packets "$concat_n" --gap 1 "${inputs[@]}" | { grep -v ': cached$' || true; }
	warm "$real"
	n=$(jget "$real.json" packets)
	section "3. real runs back to back: ${inputs[*]}, $(jget "$real.json" passes) passes over their runs"
	echo "   $(describe "$real" "$n")"
	hdr
	pair "tcpdump -r F -w /dev/null" "$real" \
		"dmlscope analyze F --quiet --json -" "$real" "$dir/real.json" 1.0
	# the runs told apart: the busiest one's iterations are one run's alone
	alone=$("$py" bench/runs_alone.py "$dmls" "$dir/real.json" "$real.json")
	check "busiest run: iterations, period" "$(sed -n 1p <<<"$alone")" \
		"one run's own" "$(sed -n 2p <<<"$alone")"
fi

if [ "${BENCH_FLOOD:-1}" != 0 ]; then
	flood="$dir/flood-$flood_n-$gid.pcap"
	gen "$flood" flood "$flood.tmp" --packets "$flood_n" --snaplen 100 --seed 1
	warm "$flood"
	read -r n wire <<<"$(jget "$flood.json" packets wire_bytes)"
	section "4. flood: each packet a new TCP 5-tuple from its own source address (a SYN scan)"
	echo "   $(describe "$flood" "$n"), $wire wire bytes"
	hdr
	pair "tcpdump -r F -w /dev/null" "$flood" \
		"dmlscope analyze F --quiet --json -" "$flood" "$dir/flood.json" 3.0
	res=$RES
	read -r _ _ kb st <<<"$res"
	check "peak RSS" "$((kb / 1024)) MiB" "<= 256 MiB" \
		"$([ "$st" = 0 ] && [ "$kb" -le $((256 * 1024)) ] && echo "meets target" || echo "misses target")"
	read -r gp gw <<<"$(jget "$dir/flood.json" input/packets input/wire_bytes)"
	if [ "$st" != 0 ]; then
		check "JSON input/packets, input/wire_bytes" "none (dmlscope failed, exit $st)" "exact" "FAIL"
	elif [ "$gp" = invalid ]; then
		check "JSON input/packets, input/wire_bytes" "output is not valid JSON" "exact" "FAIL"
	else
		check "JSON input/packets, input/wire_bytes" "$gp of $n, $gw of $wire" "exact" \
			"$([ "$gp" = "$n" ] && [ "$gw" = "$wire" ] && echo PASS || echo FAIL)"
	fi
fi

if [ "${BENCH_WATCH:-1}" != 0 ]; then
	section "5. live: dmlscope watch on a veth fed by tcpreplay, beside tcpdump -w /dev/null (bench/watch.sh)"
	DMLSCOPE="$dmls" BENCH_DIR="$dir" BENCH_TCPDUMP="$tcpdump" bash bench/watch.sh ||
		echo "bench/watch.sh failed"
fi

# generate: Gbit/s of generated traffic (payload) per CPU-second, writing a
# snaplen-100 capture (issue 11's target: 40)
if [ "${BENCH_GENERATE:-1}" != 0 ]; then
	section "6. generate: a ring of 8, 25 MB, 10 iterations, snaplen 100, to a file"
	read -r t c m st < <(measure "$dir/gen.txt" "$dmls" generate --pattern ring --workers 8 \
		--gradient-bytes 25MB --iterations 10 --iteration-time 300ms --snaplen 100 \
		-o "$dir/gen.pcap")
	if [ "$st" = 0 ]; then
		payload_bits=$((8 * 2 * 7 * 25000000 * 10)) # 2(N-1) S per iteration (doc/generate.md)
		awk -v b="$payload_bits" -v c="$c" -v t="$t" -v m="$m" 'BEGIN{
			printf "wall %.2f s, cpu %.2f s, %d MiB: %.1f Gbit/s of payload per CPU-second (target 40)\n",
				t, c, m / 1024, b / 1e9 / (c > 0 ? c : 0.001)}'
	else
		echo "generate failed (exit $st): $(head -1 "$dir/stderr.txt")"
	fi
	rm -f "$dir/gen.pcap"
fi

if [ "${BENCH_STUDY:-1}" != 0 ]; then
	section "study pipeline: tshark -T fields + pandas (one run)"
	if ! command -v tshark >/dev/null || ! "$py" -c "import pandas" 2>/dev/null; then
		echo "skipped: needs tshark and python3-pandas (apt-get install tshark python3-pandas)"
	elif [ -z "$study_cap" ]; then
		echo "skipped: no capture measured (BENCH_SHORT and BENCH_LONG are off)"
	else
		# CPU time includes tshark (a waited-for child)
		echo "   on $study_cap"
		hdr
		st=0
		/usr/bin/time -f "%e %U %S %M" -o "$dir/time.txt" "$py" bench/study_way.py "$study_cap" \
			>/dev/null 2>&1 || st=$?
		read -r t_study u s m_study < <(tail -n 1 "$dir/time.txt")
		row "study: tshark -T fields + pandas" "$t_study $(awk "BEGIN{print $u + $s}") $m_study $st"
		read -r t c _ _ <<<"$study_res"
		awk "BEGIN{printf \"ratio study / dmlscope: wall %.0fx, cpu %.0fx\n\", $t_study / ($t > 0 ? $t : 0.001), ($u + $s) / ($c > 0 ? $c : 0.001)}"
	fi
fi

# MPI: strong scaling at 1 and 2 ranks, merge cost by state size (doc/mpi.md)
if [ "${BENCH_MPI:-1}" != 0 ]; then
	bash bench/mpi.sh || echo "MPI bench failed (exit $?)"
fi
