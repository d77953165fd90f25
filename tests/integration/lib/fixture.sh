# lib/fixture.sh - a real run folder kept in tests/data (a tar.xz of the
# folder as the testbed made it), for the tests that check one (tree_busy,
# rpc_lossy, mpi_stalled): sourced with NAME set (its name in messages).
# CMake's test glob does not reach this folder.

# fixture_run ARCHIVE FOLDER: ARCHIVE (under tests/data) unpacked into a
# scratch folder $tmp, removed on exit; $run is FOLDER in it.
fixture_run() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	fixture_unpack "$1"
	run="$tmp/$2"
}

# fixture_unpack ARCHIVE: one more archive unpacked into $tmp (after
# fixture_run), or the test fails.
fixture_unpack() {
	/usr/bin/python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
		"$SRCDIR/tests/data/$1" "$tmp" || { echo "$NAME: FAIL: cannot unpack $1"; exit 1; }
}

# fixture_analyze IN [NAME]: dmlscope analyze IN into $tmp/NAME.json
# (a.json), or the test fails.
fixture_analyze() {
	"$DMLSCOPE" analyze "$1" --quiet --json "$tmp/${2:-a}.json" ||
		{ echo "$NAME: FAIL: analyze $1 exit $?"; exit 1; }
}

# fixture_analyze_ranks DIR PREFIX N: each rank's own capture
# DIR/worker-<w>-tcpdump.pcap, w from 0 to N-1, into $tmp/PREFIX<w>.json.
fixture_analyze_ranks() {
	local w
	for ((w = 0; w < $3; w++)); do
		fixture_analyze "$1/worker-$w-tcpdump.pcap" "$2$w"
	done
}
