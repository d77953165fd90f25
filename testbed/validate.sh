#!/usr/bin/env bash
# make validate: analyze every run of ${DATASET:-dataset} (folders holding a
# truth.json, at any depth) as a whole folder AND each of its capture files
# alone, and check every job of every run against its truth
# (tests/golden/jobs_check.py: job found, kind and ranks, period within 3 %
# of the log's mean step, gradient size within 3 %, count within one step,
# synchronous/asynchronous, an asynchronous job's per-rank periods within
# 5 %; a single file may withhold a number).  Prints one row per job and
# view; exit 1 when a criterion fails.  VIEWS=folder: whole folders only;
# TSV=file: the rows tab-separated as well (to compare two datasets).
set -u
cd "$(dirname "$0")/.."
DATASET=${DATASET:-dataset}
DMLSCOPE=${DMLSCOPE:-build/dmlscope}
VIEWS=${VIEWS:-all}
[ -d "$DATASET" ] || { echo "validate: no dataset '$DATASET' (make testbed, or DATASET=DIR)" >&2; exit 2; }
runs=$(find "$DATASET" -name truth.json -printf '%h\n' | sort)
[ -n "$runs" ] || { echo "validate: no run with a truth.json under '$DATASET'" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args=()
i=0
for run in $runs; do
	i=$((i + 1))
	mkdir -p "$tmp/$i"
	"$DMLSCOPE" analyze "$run" --json "$tmp/$i/folder.json" --quiet 2>"$tmp/$i.err" ||
		echo "validate: analyze '$run' exited $?: $(head -1 "$tmp/$i.err")" >&2
	caps=$(find "$run" -maxdepth 1 \( -name '*.pcap' -o -name '*.pcapng' \) -printf '%f\n' | sort)
	if [ "$VIEWS" = all ] && [ "$(echo "$caps" | wc -l)" -gt 1 ]; then
		for c in $caps; do
			"$DMLSCOPE" analyze "$run/$c" --json "$tmp/$i/$c.json" --quiet 2>"$tmp/$i.err" ||
				echo "validate: analyze '$run/$c' exited $?: $(head -1 "$tmp/$i.err")" >&2
		done
	fi
	args+=("$run" "$tmp/$i")
done
/usr/bin/python3 tests/golden/analysis_check.py --jobs ${TSV:+--tsv "$TSV"} "${args[@]}"
