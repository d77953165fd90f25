#!/usr/bin/env bash
# make bench, MPI part (doc/mpi.md): strong scaling of `mpirun -np P
# dmlscope` at P = 1 and 2 on this machine, and what merging partial
# states costs by their size.
#   analyze: a generated 16-worker ring job, one capture per worker (the
#            study's layout), 1.26 M packets (snaplen 100: 150 MB): one
#            process, then mpirun -np 1, 2
#   compare: 4 runs (the job and 3 copies linked), one process, -np 1, 2
#   merge:   build/bench_merge (bench/merge_cost.c): blob size and the
#            serialize / deserialize / merge times for 1k, 10k, 100k flows
# Best of BENCH_RUNS (3) wall seconds each.  Nothing is asserted.  Needs
# mpirun (Debian openmpi-bin) and builds build-mpi when it is missing.
#   BENCH_DIR=build/bench   BENCH_MPI_GRADIENT=8MB   BENCH_RUNS=3
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-build/bench}/mpi
runs=${BENCH_RUNS:-3}
mkdir -p "$dir"
printf "\nMPI: strong scaling on %s cores (load %s), best of %s\n" "$(nproc)" \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$runs"
if ! command -v mpirun >/dev/null || ! command -v tcpdump >/dev/null; then
	echo "skipped: needs mpirun and tcpdump (apt-get install openmpi-bin libopenmpi-dev tcpdump)"
	exit 0
fi
if [ ! -x build-mpi/dmlscope ]; then
	cmake -S . -B build-mpi -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDMLS_MPI=ON >/dev/null
	cmake --build build-mpi -j2 --target dmlscope >/dev/null
fi
cmake --build build -j2 --target bench_merge >/dev/null
bin=build-mpi/dmlscope
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

job=$dir/ds/pytorch_ddp-gen-sgd-16-gloo-normal-ring
if [ ! -s "$job/worker-15.pcap" ]; then
	mkdir -p "$job"
	"$bin" generate --pattern ring --workers 16 --gradient-bytes "${BENCH_MPI_GRADIENT:-8MB}" \
		--iterations 5 --seed 3 --snaplen 100 -o "$dir/all.pcap" 2>/dev/null
	for i in $(seq 0 15); do
		tcpdump -r "$dir/all.pcap" -w "$job/worker-$i.pcap" "src host 198.18.0.$((i + 1))" 2>/dev/null
	done
	rm -f "$dir/all.pcap"
	for c in 1 2 3; do # the same run thrice more, linked
		mkdir -p "$dir/ds/copy$c-gen-sgd-16-gloo-normal-ring"
		ln -sf "$(realpath "$job")"/worker-*.pcap "$dir/ds/copy$c-gen-sgd-16-gloo-normal-ring/"
	done
fi
cat "$job"/*.pcap >/dev/null # cached
packets=$("$bin" analyze "$job" --quiet --json - | python3 -c 'import json,sys; print(json.load(sys.stdin)["input"]["packets"])')
mb=$(du -smL "$job" | cut -f1)

# best CMD...: "WALL CPU" seconds, the best of $runs (CPU: user + sys of the
# command and its children, the ranks included: on a loaded machine the
# wall time waits for the CPU, the CPU time does not)
best() {
	local b="" c=""
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%e %U %S" -o "$dir/time.txt" "$@" >/dev/null 2>&1 || { echo "0 0"; return; }
		read -r e u s <"$dir/time.txt"
		b=$(awk -v t="$e" -v b="$b" 'BEGIN{print (b == "" || t < b) ? t : b}')
		c=$(awk -v t="$u" -v s="$s" -v b="$c" 'BEGIN{t += s; print (b == "" || t < b) ? t : b}')
	done
	echo "$b $c"
}
# row LABEL "WALL CPU" REF_WALL NOTE
row() {
	read -r w c <<<"$2"
	printf "  %-44s wall %6.2f s (%5.2fx)  cpu %6.2f s  %s\n" "$1" "$w" \
		"$(awk -v a="$3" -v b="$w" 'BEGIN{print (b > 0 ? a / b : 0)}')" "$c" "$4"
}

echo "analyze: $job, 16 captures, $mb MB, $packets packets (speedup: wall, over one process)"
r1=$(best "$bin" analyze "$job" --quiet --json /dev/null)
row "one process (no mpirun)" "$r1" "${r1% *}" \
	"$(awk -v t="${r1#* }" -v n="$packets" 'BEGIN{printf "cpu %.0f ns/packet", t / n * 1e9}')"
for np in 1 2; do
	row "mpirun -np $np" "$(best mpirun -np $np "$bin" analyze "$job" --quiet --json /dev/null)" "${r1% *}" ""
done
for np in 1 2; do
	echo "  each rank's own times (DMLS_MPI_VERBOSE=1, -np $np; reading's CPU is what scales):"
	DMLS_MPI_VERBOSE=1 mpirun -np $np "$bin" analyze "$job" --quiet --json /dev/null 2>&1 |
		sed 's/^dmlscope analyze: /    /'
done
echo "compare: 4 runs of that job"
c1=$(best "$bin" compare "$dir/ds" --quiet --json /dev/null)
row "one process (no mpirun)" "$c1" "${c1% *}" ""
for np in 1 2; do
	row "mpirun -np $np" "$(best mpirun -np $np "$bin" compare "$dir/ds" --quiet --json /dev/null)" "${c1% *}" ""
done
row "mpirun -np 1 dmlscope --version (start-up)" "$(best mpirun -np 1 "$bin" --version)" "${c1% *}" ""
echo "merge cost by state size (bench/merge_cost.c, best of 3):"
build/bench_merge 1000 10000 100000 | sed 's/^/  /'
