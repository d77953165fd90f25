#!/usr/bin/env bash
# `compare` on the two committed sample runs: runs.csv loads in pandas with
# one row per run and the numbers `analyze --json` prints for each; the long
# tables add up; --report is one HTML file with the runs, its inlined data
# parses and nothing external is referenced; bad inputs get one named line
# and exit 1 while the good runs are still reported.
set -u
py=/usr/bin/python3
$py -c 'import pandas' 2>/dev/null || { echo "SKIP: python3-pandas missing"; exit 77; }
runs=("$SRCDIR"/samples/*/)
[ "${#runs[@]}" -ge 2 ] || { echo "SKIP: fewer than two sample runs"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0

"$DMLSCOPE" compare "${runs[@]}" --json "$tmp/c.json" --csv "$tmp/csv" \
	--report "$tmp/r.html" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL compare exit $rc: $(cat "$tmp/err")"; fail=1; }
[ -s "$tmp/err" ] && { echo "FAIL compare wrote to stderr: $(cat "$tmp/err")"; fail=1; }
i=0
for r in "${runs[@]}"; do
	"$DMLSCOPE" analyze "$r" --quiet --json "$tmp/a$i.json" || { echo "FAIL analyze $r"; fail=1; }
	i=$((i + 1))
done
# A dataset folder gives the same rows as its runs named one by one.
"$DMLSCOPE" compare "$SRCDIR/samples" --quiet --json "$tmp/ds.json" || { echo "FAIL dataset"; fail=1; }

$py - "$tmp" "${#runs[@]}" <<'PY' || fail=1
import json, re, sys
import pandas as pd
d, n = sys.argv[1], int(sys.argv[2])
runs = pd.read_csv(f"{d}/csv/runs.csv")
rows = json.load(open(f"{d}/c.json"))
bad = 0
def check(what, ok):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad += not ok
def close(a, b):
    if a is None or b is None or (isinstance(a, float) and a != a):
        return (a is None or a != a) and (b is None or b != b)
    return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))
check(f"runs.csv has {n} rows", len(runs) == n)
check("--json has the same rows", len(rows) == n)
keys = {"duration_s": "input.duration_s", "wire_bytes": "input.wire_bytes",
        "payload_bytes": "input.payload_bytes", "flows": "flows.count",
        "mean_bps": "throughput.mean_bps", "peak_bps": "throughput.peak_bps",
        "period_s": "iterations.period_s", "iterations": "iterations.count",
        "bytes_per_worker": "iterations.bytes_per_worker",
        "gradient_bytes": "model.gradient_bytes", "regularity": "iterations.regularity",
        "retransmissions": "flows.retransmissions", "ranks": "pattern.ranks",
        "log_steps": "train_log.steps", "mean_step_s": "train_log.mean_step_s",
        "mb_per_step": "train_log.mb_per_step"}
def dig(doc, path):
    for k in path.split("."):
        doc = doc.get(k) if isinstance(doc, dict) else None
    return doc
for i in range(n):
    a = json.load(open(f"{d}/a{i}.json"))
    name = a["run"]["name"]
    row = runs[runs.run == name]
    check(f"{name} in runs.csv", len(row) == 1)
    if len(row) != 1:
        continue
    row = row.iloc[0]
    j = [r for r in rows if r["run"] == name][0]
    for k, path in keys.items():
        want = dig(a, path)
        got = row[k]
        check(f"{name} {k}: csv {got} json {j[k]} analyze {want}",
              close(None if pd.isna(got) else got, want) and close(j[k], want))
    check(f"{name} pattern", row.pattern == a["pattern"]["kind"] == j["pattern"])
    ts = a["burstiness"]["timescales_s"].index(0.005)
    check(f"{name} ptm_5ms", close(row.ptm_5ms, a["burstiness"]["peak_to_mean"][ts]))
    tp = pd.read_csv(f"{d}/csv/throughput.csv")
    check(f"{name} throughput.csv sums to wire_bytes",
          tp[tp.run == name].wire_bytes.sum() == a["input"]["wire_bytes"])
ds = json.load(open(f"{d}/ds.json"))
check("dataset folder: same runs", sorted(r["run"] for r in ds) == sorted(r["run"] for r in rows))
for t in ("burstiness", "iterations", "accuracy", "matrix"):
    check(f"{t}.csv loads", len(pd.read_csv(f"{d}/csv/{t}.csv")) > 0)

html = open(f"{d}/r.html", encoding="utf-8").read()
for r in rows:
    check(f"report names {r['run']}", r["run"] in html)
m = re.search(r'<script type="application/json" id="dmls-data">(.*?)</script>', html, re.S)
check("report has inlined data", m is not None)
if m:
    data = json.loads(m.group(1))
    check("inlined data has the runs", [x["name"] for x in data["runs"]] == [r["run"] for r in rows])
ext = re.findall(r'(?:src|href)\s*=\s*["\']?(?:https?:)?//|url\(\s*["\']?(?:https?:)?//|@import',
                 html, re.I)
check(f"report references no external URL ({ext[:3]})", not ext)
check("report inlines uPlot", "uPlot" in html and "<script src" not in html)
sys.exit(1 if bad else 0)
PY

# analyze --report: the same report for one run.
"$DMLSCOPE" analyze "${runs[0]}" --quiet --report "$tmp/one.html" || { echo "FAIL analyze --report"; fail=1; }
name=$(basename "${runs[0]}")
if grep -q "$name" "$tmp/one.html" && grep -q 'id="dmls-data"' "$tmp/one.html"; then
	echo "ok   analyze --report names the run"
else
	echo "FAIL analyze --report: no run name or no data"; fail=1
fi

# The figures are drawn in a real browser (only where one is installed).
chrome=$(command -v chromium chromium-browser google-chrome 2>/dev/null | head -1)
if [ -n "$chrome" ]; then
	timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$tmp/chromium" --dump-dom "file://$tmp/r.html" \
		>"$tmp/dom.html" 2>/dev/null
	charts=$(grep -o 'class="uplot' "$tmp/dom.html" | wc -l)
	heat=$(grep -o 'class="heat"' "$tmp/dom.html" | wc -l)
	if [ "$charts" -ge 4 ] && [ "$heat" = "${#runs[@]}" ]; then
		echo "ok   browser drew $charts charts and $heat heatmaps"
	else
		echo "FAIL browser: $charts charts, $heat heatmaps"; fail=1
	fi
else
	echo "skip browser check: no chromium"
fi

# expect NAME WANT_RC PATTERN ARGS...: exit code, one stderr line matching PATTERN
expect() {
	local name=$1 want=$2 pat=$3; shift 3
	"$DMLSCOPE" compare "$@" --json "$tmp/$name.json" >"$tmp/out" 2>"$tmp/err"
	local rc=$? lines; lines=$(wc -l <"$tmp/err")
	if [ "$rc" != "$want" ] || [ "$lines" != 1 ] || ! grep -Eq "$pat" "$tmp/err"; then
		echo "FAIL $name: exit $rc (want $want), stderr:"; cat "$tmp/err"; fail=1
	else
		echo "ok   $name: exit $rc: $(cat "$tmp/err")"
	fi
}
mkdir "$tmp/empty"
expect missing 1 "'$tmp/nope'" "${runs[0]}" "$tmp/nope"
n=$($py -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/missing.json")
[ "$n" = 1 ] && echo "ok   missing: the good run is still reported" ||
	{ echo "FAIL missing: $n rows, want 1"; fail=1; }
expect empty 1 "'$tmp/empty'.*no run folders" "$tmp/empty"
"$DMLSCOPE" compare >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] && echo "ok   no argument: exit 2" || { echo "FAIL no argument: exit $rc"; fail=1; }
# the terminal table fits the terminal's width, and says what it left out
COLUMNS=100 "$DMLSCOPE" compare "$SRCDIR/samples" >"$tmp/narrow" 2>/dev/null
wide=$(awk 'length($0) > 100' "$tmp/narrow" | wc -l)
if [ "$wide" != 0 ] || ! grep -q "more columns than fit in 100" "$tmp/narrow" ||
   ! grep -q "pattern" "$tmp/narrow"; then
	echo "FAIL terminal width 100: $wide lines too wide"; fail=1
else
	echo "ok   terminal width 100: fits, pattern shown, the rest named"
fi
exit $fail
