#!/usr/bin/env bash
# A real distributed run (doc/mpi.md): four network namespaces are four
# nodes on a bridge (198.18.1.0/24), mpirun runs in a fifth and starts a
# daemon in each node through an rsh agent that enters it (ip netns exec),
# ranks talk over TCP between the namespaces (no shared memory: btl
# self,tcp).  Each node also gets its own mount namespace holding only its
# own workers' captures under the run folder (node-local disks), and its
# own host name.  analyze gives the one-process JSON byte for byte; so
# does compare over a dataset every node sees.  Needs root, ip netns and
# the MPI build; skips otherwise.  Removes its namespaces.
set -u
if ! grep -q '^DMLS_MPI:BOOL=ON' "$BUILDDIR/CMakeCache.txt" 2>/dev/null; then
	echo "SKIP: not an MPI build"; exit 77
fi
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: network namespaces need root"; exit 77; }
pre=dmpi$$
ip netns add "$pre-probe" 2>/dev/null || { echo "SKIP: cannot make network namespaces"; exit 77; }
ip netns del "$pre-probe"
tmp=$(mktemp -d)
cleanup() {
	for n in sw n0 n1 n2 n3 hnp; do ip netns del "$pre-$n" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0

# the nodes: n0..n3 and hnp (mpirun) on a bridge in its own namespace
ip netns add "$pre-sw"
ip -n "$pre-sw" link add br0 type bridge && ip -n "$pre-sw" link set br0 up
i=0
for n in n0 n1 n2 n3 hnp; do
	ip netns add "$pre-$n"
	ip link add "p$i" netns "$pre-sw" type veth peer name eth0 netns "$pre-$n"
	ip -n "$pre-sw" link set "p$i" master br0 up
	ip -n "$pre-$n" addr add "198.18.1.$((i + 1))/24" dev eth0
	ip -n "$pre-$n" link set eth0 up && ip -n "$pre-$n" link set lo up
	i=$((i + 1))
done
printf "n0 slots=1\nn1 slots=1\nn2 slots=1\nn3 slots=1\n" >"$tmp/hosts"

# rsh agent: AGENT [OPTIONS] NODE COMMAND... runs COMMAND in NODE's
# namespaces: its network, its host name, its own captures (when asked)
cat >"$tmp/agent.sh" <<'EOF'
#!/bin/bash
while [ "${1#-}" != "$1" ]; do shift; done
node=$1; shift
exec ip netns exec "$DMPI_PREFIX-$node" unshare -u -m --propagation private bash -c '
hostname "$0"
if [ -n "${DMPI_FILES:-}" ]; then
	mount -t tmpfs none "$DMPI_JOB" && cp "$DMPI_FILES/$0"/* "$DMPI_JOB/" || exit 9
fi
eval "$@"' "$node" "$@"
EOF
chmod +x "$tmp/agent.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 DMPI_PREFIX=$pre
cluster() {
	timeout 300 ip netns exec "$pre-hnp" mpirun --hostfile "$tmp/hosts" -np 4 \
		--mca plm_rsh_agent "$tmp/agent.sh" --mca btl self,tcp \
		--mca oob_tcp_if_include 198.18.1.0/24 --mca btl_tcp_if_include 198.18.1.0/24 "$@"
}

# the job: a generated 8-worker ring, one capture per worker; node k holds
# workers k and k + 4
"$DMLSCOPE" generate --pattern ring --workers 8 --gradient-bytes 256KB --iterations 4 \
	--seed 5 -o "$tmp/all.pcap" 2>/dev/null || { echo "FAIL: generate"; exit 1; }
job=$tmp/ds/pytorch_ddp-gen-sgd-8-gloo-normal-ring
mkdir -p "$job"
for w in $(seq 0 7); do
	mkdir -p "$tmp/files/n$((w % 4))"
	tcpdump -r "$tmp/all.pcap" -w "$tmp/files/n$((w % 4))/worker-$w.pcap" \
		"src host 198.18.0.$((w + 1))" 2>/dev/null
	cp "$tmp/files/n$((w % 4))/worker-$w.pcap" "$job/"
done
"$DMLSCOPE" analyze "$job" --json "$tmp/plain.json" --quiet || { echo "FAIL: plain analyze"; exit 1; }
"$DMLSCOPE" compare "$tmp/ds" --json "$tmp/cplain.json" --quiet || { echo "FAIL: plain compare"; exit 1; }

# compare: the dataset seen by every node
cluster "$DMLSCOPE" compare "$tmp/ds" --json "$tmp/cmpi.json" --quiet >"$tmp/c.out" 2>&1
rc=$?
if [ $rc != 0 ] || ! cmp -s "$tmp/cplain.json" "$tmp/cmpi.json"; then
	echo "FAIL compare on 4 namespaces: exit $rc: $(tail -3 "$tmp/c.out")"; fail=1
fi

# analyze: each node holds only its own workers' captures
rm -f "$job"/*.pcap
DMPI_FILES=$tmp/files DMPI_JOB=$job DMLS_MPI_VERBOSE=1 \
	cluster "$DMLSCOPE" analyze "$job" --json "$tmp/mpi.json" --quiet >"$tmp/a.out" 2>&1
rc=$?
if [ $rc != 0 ] || ! cmp -s "$tmp/plain.json" "$tmp/mpi.json"; then
	echo "FAIL analyze on 4 namespaces: exit $rc: $(tail -3 "$tmp/a.out")"
	diff "$tmp/plain.json" "$tmp/mpi.json" 2>&1 | head -5; fail=1
fi
grep -q "8 captures over 4 ranks: rank 0 2 (.*), rank 1 2 (.*), rank 2 2 (.*), rank 3 2 (" \
	"$tmp/a.out" || { echo "FAIL: not 2 captures per node: $(head -2 "$tmp/a.out")"; fail=1; }
[ $fail = 0 ] && echo "mpi_netns: OK (4 namespaces as nodes, node-local captures, same JSON)"
exit $fail
