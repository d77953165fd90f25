#!/usr/bin/env bash
# htsim runs what `generate --format htsim` writes.  htsim_ndp is built from
# the vendored sources (vendor/htsim, BSD-2) into $BUILDDIR/htsim, once, and
# reused by later runs.  Jobs: ring 8 and star 8 (7 workers, 1 server) on
# one switch (--topology), ring 16 on htsim's own 3-tier fat tree, a ring 6
# padded to 8 nodes, and a closed-loop ring 8.  Every flow id must finish,
# sizes must join back to the CSV rows, and per iteration the simulated time
# must be within 10 % of the plan (open loop) or of the ring's formula
# time 2(N-1)/N S at the link's payload rate (closed loop): htsim_check.py.
set -u
for t in g++ make python3; do
	command -v $t >/dev/null || { echo "skip: $t is not installed (Debian: g++ make python3)"; exit 77; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$BUILDDIR/htsim
if ! make -s -f "$SRCDIR/vendor/htsim/build.mk" O="$out" -j2 >"$tmp/build.log" 2>&1; then
	echo "FAIL building htsim_ndp:"; tail -20 "$tmp/build.log"; exit 1
fi
H=$out/htsim_ndp
fail=0
G=10 # Gbit/s

# job NAME NODES TOPOLOGY_ARGS(quoted) MODE [generate options...]
job() {
	local name=$1 nodes=$2 topo=$3 mode=$4; shift 4
	local gen=(--seed 1 --iterations 2 --link-gbps $G "$@")
	"$DMLSCOPE" generate "${gen[@]}" -o "$tmp/$name.csv" 2>/dev/null || { echo "FAIL $name: csv"; fail=1; return; }
	local extra=()
	[ "$mode" = closed ] && extra+=(--closed-loop)
	[ "$topo" = switch ] && extra+=(--topology "$tmp/$name.topo")
	[ "$nodes" != default ] && extra+=(--nodes "$nodes")
	if ! "$DMLSCOPE" generate "${gen[@]}" --format htsim "${extra[@]}" -o "$tmp/$name.cm" 2>"$tmp/err"; then
		echo "FAIL $name: generate: $(cat "$tmp/err")"; fail=1; return
	fi
	local n; n=$(awk '/^Nodes/ {print $2}' "$tmp/$name.cm")
	local net=(-tiers 3)
	[ "$topo" = switch ] && net=(-topo "$tmp/$name.topo")
	# in $tmp: htsim writes idmap.txt into its working directory
	if ! (cd "$tmp" && "$H" -tm "$tmp/$name.cm" "${net[@]}" -nodes "$n" -strat ecmp_host -paths 1 \
		-linkspeed $((G * 1000)) -mtu 1500 -cwnd 30 -end 10000000 -o "$tmp/$name.log" \
		>"$tmp/$name.out" 2>&1); then
		echo "FAIL $name: htsim_ndp: $(tail -3 "$tmp/$name.out")"; fail=1; return
	fi
	echo "$name:"
	python3 "$SRCDIR/tests/integration/htsim_check.py" "$tmp/$name.cm" "$tmp/$name.csv" \
		"$tmp/$name.out" "$mode" ${FORMULA:-} || fail=1
}

job ring8 default switch open --pattern ring --workers 8 --gradient-bytes 8MB
job star8 default switch open --pattern star --workers 7 --gradient-bytes 4MB
job ring16 default fattree open --pattern ring --workers 16 --gradient-bytes 8MB
job ring6pad 8 switch open --pattern ring --workers 6 --gradient-bytes 6MB
grep -q '^Nodes 8$' "$tmp/ring6pad.cm" || { echo "FAIL ring6pad: not padded to 8 nodes"; fail=1; }
# closed loop: ring of 8, S = 8 MB: 2(N-1)/N S bytes per rank at the payload rate
# of a 1514-byte frame (1448 of payload, 1538 on the wire with preamble and gap)
FORMULA=$(python3 -c "print(2 * 7 / 8 * 8e6 * 1538 / 1448 * 8 / ($G * 1e9))") \
	job ring8closed default switch closed --pattern ring --workers 8 --gradient-bytes 8MB
grep -q '^Triggers 26$' "$tmp/ring8closed.cm" || { echo "FAIL ring8closed: want 26 barriers (13 per iteration)"; fail=1; }
[ $fail = 0 ] && echo "htsim_run: all jobs ran as planned"
exit $fail
