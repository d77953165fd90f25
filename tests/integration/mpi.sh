#!/usr/bin/env bash
# The MPI build (-DDMLS_MPI=ON, doc/mpi.md): `mpirun -np 1, 2, 4` gives the
# plain run's outputs byte for byte -
#   analyze: the three samples (also with --bin, --filter, --max-flows, and
#   as captures given by path), a generated 16-worker job in one capture
#   per worker, and the same job captured at both ends of every connection
#   (captures sharing flows: read together, duplicates counted once);
#   compare: a dataset of all of them (JSON, CSV, text, HTML report);
#   a damaged capture: exit 1, the file named, the rest analyzed;
#   node-local disks (as root, each rank in its own mount namespace holding
#   only its own workers' captures): the same JSON;
#   a rank that dies: mpirun fails, no JSON is written.
# The plain run is the same binary started without mpirun.  Skips in a
# build without MPI.
set -u
if ! grep -q '^DMLS_MPI:BOOL=ON' "$BUILDDIR/CMakeCache.txt" 2>/dev/null; then
	echo "SKIP: not an MPI build (cmake -DDMLS_MPI=ON; make check builds one in build-mpi)"
	exit 77
fi
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (Debian openmpi-bin)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
# as root (CI) Open MPI wants to be told; 4 ranks on 2 cores oversubscribe;
# no single-copy (CMA) between ranks: containers often forbid ptrace
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { local np=$1; shift; timeout 300 mpirun --oversubscribe -np "$np" "$@"; }

# same_analyze NAME INPUT... : plain vs np 1, 2, 4
same_analyze() {
	local name=$1; shift
	"$DMLSCOPE" analyze "$@" --json "$tmp/$name.plain.json" --quiet 2>"$tmp/$name.plain.err"
	local want=$?
	for np in 1 2 4; do
		mpi $np "$DMLSCOPE" analyze "$@" --json "$tmp/$name.$np.json" --quiet \
			>"$tmp/$name.$np.out" 2>&1
		local rc=$?
		if [ $rc != $want ]; then
			echo "FAIL $name np=$np: exit $rc, plain $want: $(head -3 "$tmp/$name.$np.out")"; fail=1
		elif ! cmp -s "$tmp/$name.plain.json" "$tmp/$name.$np.json"; then
			echo "FAIL $name np=$np: JSON differs from the plain run:"
			diff "$tmp/$name.plain.json" "$tmp/$name.$np.json" | head -10; fail=1
		fi
	done
	[ -s "$tmp/$name.plain.json" ] || { echo "FAIL $name: no plain JSON"; fail=1; }
}

for s in "$SRCDIR"/samples/*/; do
	[ -f "$s/worker-0-tcpdump.pcap" ] || continue
	same_analyze "$(basename "$s")" "$s"
done

# options every rank applies alike; captures given by path, out of order
star=$SRCDIR/samples/pytorch_rpc-mobilenetv2-adam-16-tensorpipe-normal-star
same_analyze options "$star" --bin 10ms --filter tcp --max-flows 64
same_analyze paths "$star/worker-2-tcpdump.pcap" "$star/worker-0-tcpdump.pcap" \
	"$star/worker-1-tcpdump.pcap"

# a generated 16-worker ring, one capture per worker (its sent packets, as
# the study captured), and the same with both directions in each capture
"$DMLSCOPE" generate --pattern ring --workers 16 --gradient-bytes 256KB --iterations 4 \
	--seed 7 -o "$tmp/all.pcap" 2>/dev/null || { echo "FAIL: generate"; exit 1; }
job=$tmp/ds/pytorch_ddp-gen-sgd-16-gloo-normal-ring
mkdir -p "$job" "$tmp/both"
for i in $(seq 0 15); do
	a=198.18.0.$((i + 1))
	tcpdump -r "$tmp/all.pcap" -w "$job/worker-$i.pcap" "src host $a" 2>/dev/null
	tcpdump -r "$tmp/all.pcap" -w "$tmp/both/worker-$i.pcap" "host $a" 2>/dev/null
done
[ -s "$job/worker-15.pcap" ] || { echo "FAIL: tcpdump did not split the job"; exit 1; }
same_analyze gen16 "$job"
# the ranks did share the work: 4 captures each
DMLS_MPI_VERBOSE=1 mpi 4 "$DMLSCOPE" analyze "$job" --quiet >"$tmp/spread.out" 2>&1
grep -q "16 captures over 4 ranks: rank 0 4 (.*), rank 1 4 (.*), rank 2 4 (.*), rank 3 4 (" \
	"$tmp/spread.out" || { echo "FAIL spread: $(head -2 "$tmp/spread.out")"; fail=1; }
same_analyze gen16-both "$tmp/both"
# shared flows seen only when reading (a first look at 1 packet per
# capture): the joined groups are read again
DMLS_MPI_PROBE_PACKETS=1 same_analyze gen16-both-late "$tmp/both"
if ! grep -q '"duplicates": [1-9]' "$tmp/gen16-both.plain.json"; then
	echo "FAIL gen16-both: no duplicates counted: the captures do not share flows"; fail=1
fi

# a damaged capture among good ones: exit 1, named, the rest analyzed
mkdir -p "$tmp/bad"
cp "$job"/worker-{0,1,2}.pcap "$tmp/bad/"
head -c 3000 "$job/worker-3.pcap" >"$tmp/bad/worker-3.pcap"
head -c 500 /dev/urandom >"$tmp/bad/worker-4.pcap"
same_analyze bad "$tmp/bad"
grep -q "worker-4.pcap" "$tmp/bad.2.out" || { echo "FAIL bad: the file is not named"; fail=1; }

# compare: the dataset (samples, the generated job) and a folder without runs
cp -r "$SRCDIR"/samples/*/ "$tmp/ds/"
mkdir -p "$tmp/empty/x"
"$DMLSCOPE" compare "$tmp/ds" "$tmp/empty" --json "$tmp/c.json" --csv "$tmp/c.csv" \
	--report "$tmp/c.html" >"$tmp/c.txt" 2>/dev/null
want=$?
for np in 2 4; do
	mpi $np "$DMLSCOPE" compare "$tmp/ds" "$tmp/empty" --json "$tmp/c$np.json" \
		--csv "$tmp/c$np.csv" --report "$tmp/c$np.html" >"$tmp/c$np.txt" 2>"$tmp/c$np.err"
	rc=$?
	[ $rc = $want ] || { echo "FAIL compare np=$np: exit $rc, plain $want"; fail=1; }
	for f in json html txt; do
		cmp -s "$tmp/c.$f" "$tmp/c$np.$f" ||
			{ echo "FAIL compare np=$np: $f differs"; diff "$tmp/c.$f" "$tmp/c$np.$f" | head -5; fail=1; }
	done
	diff -r "$tmp/c.csv" "$tmp/c$np.csv" >/dev/null || { echo "FAIL compare np=$np: CSV differs"; fail=1; }
done
[ "$want" = 1 ] || { echo "FAIL compare: plain exit $want, want 1 (a folder without runs)"; fail=1; }
grep -q "pytorch_ddp-gen-sgd-16-gloo-normal-ring" "$tmp/c.txt" || { echo "FAIL compare: no generated run"; fail=1; }

# node-local disks: each rank in its own mount namespace sees only its own
# workers' captures (rank r: workers r, r+4, ...) in the run folder; rank 0
# also the folder itself.  The job's captures are the union of what the
# ranks list.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	cat >"$tmp/local.sh" <<'EOF'
#!/bin/bash
# one rank with only its own captures under the run folder (a tmpfs)
export R=$OMPI_COMM_WORLD_RANK
exec unshare -m --propagation private bash -c '
mount -t tmpfs none "$JOB" || exit 9
for i in $(seq "$R" 4 15); do cp "$COPY/worker-$i.pcap" "$JOB/"; done
exec "$@"' rank "$@"
EOF
	chmod +x "$tmp/local.sh"
	cp -r "$job" "$tmp/copy"
	export JOB=$job COPY=$tmp/copy
	mpi 4 "$tmp/local.sh" "$DMLSCOPE" analyze "$job" --json "$tmp/local.json" --quiet \
		>"$tmp/local.out" 2>&1
	rc=$?
	# the paths are the same on every node: the JSON equals the plain one
	if [ $rc != 0 ] || ! cmp -s "$tmp/gen16.plain.json" "$tmp/local.json"; then
		echo "FAIL node-local: exit $rc: $(head -3 "$tmp/local.out")"
		diff "$tmp/gen16.plain.json" "$tmp/local.json" | head -5; fail=1
	fi
else
	echo "note: node-local case skipped (needs root and unshare -m)"
fi

# a rank that dies: mpirun fails loudly, nothing is written
cat >"$tmp/die.sh" <<'EOF'
#!/bin/bash
[ "$OMPI_COMM_WORLD_RANK" = 1 ] && kill -9 $$
exec "$@"
EOF
chmod +x "$tmp/die.sh"
mpi 2 "$tmp/die.sh" "$DMLSCOPE" analyze "$job" --json "$tmp/dead.json" --quiet >"$tmp/dead.out" 2>&1
rc=$?
if [ $rc = 0 ] || [ -e "$tmp/dead.json" ]; then
	echo "FAIL dead rank: exit $rc, JSON written: $([ -e "$tmp/dead.json" ] && echo yes || echo no)"
	fail=1
fi

[ $fail = 0 ] && echo "mpi: OK (np 1, 2, 4 identical to one process)"
exit $fail
