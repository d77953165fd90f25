#!/usr/bin/env bash
# --csv tables load in pandas as they are, and agree with --json.
set -u
/usr/bin/python3 -c 'import pandas' 2>/dev/null || { echo "SKIP: python3-pandas missing"; exit 77; }
run=$(ls -d "$SRCDIR"/samples/*/ 2>/dev/null | head -1)
[ -n "$run" ] || { echo "SKIP: no sample run"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$DMLSCOPE" analyze "$run" --quiet --json "$tmp/r.json" --csv "$tmp/csv" || exit 1
/usr/bin/python3 - "$tmp/r.json" "$tmp/csv" <<'PY'
import json, sys
import pandas as pd
doc = json.load(open(sys.argv[1])); d = sys.argv[2]
hosts = pd.read_csv(f"{d}/hosts.csv")
matrix = pd.read_csv(f"{d}/matrix.csv")
flows = pd.read_csv(f"{d}/flows.csv")
cdf = pd.read_csv(f"{d}/flow_cdf.csv")
series = pd.read_csv(f"{d}/series.csv")
act = pd.read_csv(f"{d}/flow_activity.csv")
jobs = pd.read_csv(f"{d}/jobs.csv")
ranks = pd.read_csv(f"{d}/ranks.csv")
runs = pd.read_csv(f"{d}/runs.csv")
wire = doc["input"]["wire_bytes"]
checks = [
    ("hosts.csv tx sums to the total", hosts.tx_wire_bytes.sum(), wire),
    ("hosts.csv rx sums to the total", hosts.rx_wire_bytes.sum(), wire),
    ("matrix.csv sums to the total", matrix.wire_bytes.sum(), wire),
    ("series.csv aggregate sums to the total", series[series.src == "*"].wire_bytes.sum(), wire),
    ("series.csv pairs sum to the total", series[series.src != "*"].wire_bytes.sum(), wire),
    ("flows.csv rows = flows.count", len(flows), doc["flows"]["count"]),
    ("flow_activity.csv sums to the flows", act.wire_bytes.sum(), flows.wire_bytes.sum()),
    ("flow_cdf.csv ends at 1", round(cdf.cdf.iloc[-1], 9), 1.0),
    ("jobs.csv rows = jobs", len(jobs), len(doc["jobs"])),
    ("jobs.csv job 0's ranks", jobs.ranks.iloc[0], doc["pattern"]["ranks"]),
    ("jobs.csv job 0's period", jobs.period_s.iloc[0], doc["iterations"]["period_s"]),
    ("ranks.csv rows = each job's rank clocks", len(ranks),
     sum(len(j["iterations"]["ranks"]) for j in doc["jobs"])),
    ("runs.csv rows = each job's run_times", len(runs),
     sum(len(j["iterations"]["run_times"]) for j in doc["jobs"])),
    ("series peak = throughput.peak_bps", series[series.src == "*"].bps.max(),
     doc["throughput"]["peak_bps"]),
    # the aggregate is dense (zeros included), so its mean is the mean
    # throughput: a row for every bin from the first packet's to the last's
    ("series aggregate has every bin", len(series[series.src == "*"]),
     round((series[series.src == "*"].t_s.max() - series[series.src == "*"].t_s.min())
           / doc["throughput"]["bin_s"]) + 1),
]
bad = 0
for what, got, want in checks:
    ok = abs(float(got) - float(want)) <= 1e-6 * max(1.0, abs(float(want)))
    print(("ok   " if ok else "FAIL ") + f"{what}: {got} vs {want}")
    bad += not ok
sys.exit(1 if bad else 0)
PY
