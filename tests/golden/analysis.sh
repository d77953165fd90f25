#!/usr/bin/env bash
# Golden test of the traffic analysis on the committed real runs
# (samples/*/ with a truth.json): pattern kind, ranks, roles, period within
# 3 % of the log's mean step, gradient size within 3 % of the truth.
set -u
runs=$(ls -d "$SRCDIR"/samples/*/ 2>/dev/null | while read -r d; do [ -f "$d/truth.json" ] && echo "$d"; done)
[ -n "$runs" ] || { echo "SKIP: no samples with truth.json"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args=()
i=0
for run in $runs; do
	i=$((i + 1))
	"$DMLSCOPE" analyze "$run" --json "$tmp/$i.json" --quiet || echo "analyze '$run' exited $?"
	args+=("$run" "$tmp/$i.json")
done
/usr/bin/python3 "$SRCDIR/tests/golden/analysis_check.py" "${args[@]}"
