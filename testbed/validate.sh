#!/usr/bin/env bash
# make validate: analyze every run of ${DATASET:-dataset} (folders holding a
# truth.json, at any depth) and print run, truth, found, error; exit 1 when
# a run misses: pattern kind, ranks or a role wrong, period off the log's
# mean step by more than 3 %, gradient size off the truth by more than 3 %.
set -u
cd "$(dirname "$0")/.."
DATASET=${DATASET:-dataset}
DMLSCOPE=${DMLSCOPE:-build/dmlscope}
[ -d "$DATASET" ] || { echo "validate: no dataset '$DATASET' (make testbed, or DATASET=DIR)" >&2; exit 2; }
runs=$(find "$DATASET" -name truth.json -printf '%h\n' | sort)
[ -n "$runs" ] || { echo "validate: no run with a truth.json under '$DATASET'" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args=()
i=0
for run in $runs; do
	i=$((i + 1))
	"$DMLSCOPE" analyze "$run" --json "$tmp/$i.json" --quiet 2>"$tmp/$i.err" ||
		echo "validate: analyze '$run' exited $?: $(head -1 "$tmp/$i.err")" >&2
	args+=("$run" "$tmp/$i.json")
done
/usr/bin/python3 tests/golden/analysis_check.py "${args[@]}"
