#!/bin/bash
# fit_dataset.sh - `dmlscope fit DATASET_DIR` builds one row per run folder.
#
# On a dataset of the bundled samples, "mb_per_step ~ 1" must use every run
# and its intercept must be the mean of the runs' train_log.mb_per_step
# reported by `dmlscope analyze --json`; the study's default formula needs
# more runs than two and must say so (exit 1); a single run folder is refused.
# The --table it writes, fitted as a CSV, gives the same fit.
set -u
: "${DMLSCOPE:?set DMLSCOPE to the dmlscope binary}"
: "${SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
PY=/usr/bin/python3
if "$DMLSCOPE" fit --help 2>&1 | grep -q "is not a command"; then
	echo "skip: this dmlscope has no 'fit' command yet"
	exit 77
fi
runs=("$SRCDIR"/samples/*/)
if [ ! -d "${runs[0]}" ]; then
	echo "skip: no bundled samples"
	exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/ds"
for r in "${runs[@]}"; do
	ln -s "$r" "$work/ds/$(basename "$r")"
	"$DMLSCOPE" analyze "$r" --json - --quiet >"$work/$(basename "$r").json" 2>/dev/null
done

if ! "$DMLSCOPE" fit "$work/ds" --formula "mb_per_step ~ 1" --json "$work/fit.json" \
	--table "$work/table.csv" >"$work/out" 2>"$work/err" ||
   ! "$DMLSCOPE" fit "$work/table.csv" --formula "mb_per_step ~ 1" --json "$work/csvfit.json" \
	>"$work/out" 2>"$work/err"; then
	echo "FAIL: fit of the samples' dataset or of its --table:"
	cat "$work/err"
	exit 1
fi
"$PY" - "$work" "${#runs[@]}" <<'EOF' || exit 1
import glob, json, math, sys
work, nruns = sys.argv[1], int(sys.argv[2])
fit = json.load(open(work + "/fit.json"))
csvfit = json.load(open(work + "/csvfit.json"))
per_run = []
for f in sorted(glob.glob(work + "/*.json")):
    if f.endswith("fit.json"):
        continue
    per_run.append(json.load(open(f))["train_log"]["mb_per_step"])
mean = sum(per_run) / len(per_run)
coef = fit["coefficients"][0]["coef"]
ok = fit["n"] == nruns and abs(coef - mean) <= 1e-9 * abs(mean)
ok = ok and abs(csvfit["coefficients"][0]["coef"] - coef) <= 1e-12 * abs(coef)
print("%s: n %d (runs %d), intercept %.9g, mean of analyze's mb_per_step %.9g"
      % ("ok" if ok else "FAIL", fit["n"], nruns, coef, mean))
sys.exit(0 if ok else 1)
EOF

"$DMLSCOPE" fit "$work/ds" >/dev/null 2>"$work/err"
rc=$?
if [ "$rc" != 1 ] || ! grep -q "need more rows than parameters" "$work/err"; then
	echo "FAIL: default formula on ${#runs[@]} runs: exit $rc: $(cat "$work/err")"
	exit 1
fi
echo "ok: default formula on ${#runs[@]} runs refused: $(cat "$work/err")"

"$DMLSCOPE" fit "${runs[0]}" >/dev/null 2>"$work/err"
rc=$?
if [ "$rc" != 1 ] || ! grep -q "is one run" "$work/err"; then
	echo "FAIL: one run folder: exit $rc: $(cat "$work/err")"
	exit 1
fi
echo "ok: one run folder refused: $(cat "$work/err")"
