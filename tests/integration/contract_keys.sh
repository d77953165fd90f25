#!/usr/bin/env bash
# The JSON keys of doc/contract.md are all there, with the
# documented types, and no NaN/Infinity anywhere (analyze, fit, predict).
set -u
run=$(ls -d "$SRCDIR"/samples/*-ring 2>/dev/null | head -1)
[ -n "$run" ] || { echo "SKIP: no ring sample"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$DMLSCOPE" analyze "$run" --json "$tmp/a.json" --quiet || exit 1
printf 'y,x,g\n1.0,1,a\n2.1,2,b\n2.9,3,a\n4.2,4,b\n5.1,5,a\n5.8,6,b\n7.2,7,a\n' >"$tmp/t.csv"
"$DMLSCOPE" fit "$tmp/t.csv" --formula "y ~ x + C(g)" --json "$tmp/f.json" --save "$tmp/m.json" \
	>/dev/null || exit 1
"$DMLSCOPE" predict "$tmp/m.json" x=3 g=b --json "$tmp/p.json" >/dev/null || exit 1
/usr/bin/python3 - "$tmp/a.json" "$tmp/f.json" "$tmp/p.json" <<'PY'
import json, sys
num = (int, float)
def load(p):
    text = open(p).read()
    assert "NaN" not in text and "Infinity" not in text, f"{p}: NaN or Infinity in JSON"
    return json.loads(text)
a = load(sys.argv[1])
spec = {
    "input.files": list, "input.packets": int, "input.wire_bytes": int, "input.duration_s": num,
    "input.skipped.truncated": int, "input.skipped.non_ip": int, "input.skipped.other": int,
    "hosts": list, "matrix.hosts": list, "matrix.wire_bytes": list, "matrix.payload_bytes": list,
    "flows.count": int, "flows.size_quantiles.p50": int, "flows.size_quantiles.p90": int,
    "flows.size_quantiles.p99": int, "flows.size_quantiles.max": int,
    "throughput.bin_s": num, "throughput.mean_bps": num, "throughput.peak_bps": num,
    "pattern.kind": str, "pattern.ranks": int, "pattern.hubs": list, "pattern.order": list,
    "pattern.confidence": num, "iterations.period_s": num, "iterations.period_median_s": num,
    "iterations.count": int, "iterations.runs": int, "iterations.run_times": list, "iterations.regularity": num, "iterations.bytes_per_worker": num,
    "iterations.source": str, "model.gradient_bytes": num, "burstiness.timescales_s": list,
    "burstiness.peak_to_mean": list, "burstiness.max_window_bytes": list,
    "train_log.steps": int, "train_log.mean_step_s": num, "train_log.mb_per_step": num,
    "tool.name": str, "tool.version": str, "input.records": int, "input.payload_bytes": int,
    "input.skipped.filtered": int, "input.skipped.duplicates": int, "run.name": str,
    "input.decapsulated": int, "input.tcp_headers_cut": int,
    "flows.retransmissions": int, "pattern.members": list, "pattern.jobs": int,
    "pattern.data_edges": int, "pattern.partial": bool, "pattern.observed": list,
    "iterations.starts_s": list, "iterations.comm_end_s": list,
    "model.expected_iteration_bytes": num, "model.observed_iteration_bytes": num,
    "burstiness.drain_rates_bps": list, "burstiness.max_backlog_bytes": list,
    "burstiness.hosts": list, "phases.duty_cycle": num, "phases.bursts.count": int,
    "phases.gaps.count": int, "loss.retransmissions": int, "loss.hosts": list,
    "loss.top_flows": list, "notes": list, "train_log.median_step_s": num,
    "train_log.accuracy_vs_data": list,
}
bad = 0
def get(d, path):
    for k in path.split("."):
        d = d[k]
    return d
for path, typ in spec.items():
    try:
        v = get(a, path)
    except (KeyError, TypeError):
        print(f"FAIL analyze: missing {path}"); bad += 1; continue
    if not isinstance(v, typ) or (isinstance(v, bool) and typ is not bool):
        print(f"FAIL analyze: {path} is {type(v).__name__}"); bad += 1
host_keys = ["addr", "role", "tx_wire_bytes", "tx_payload_bytes", "rx_wire_bytes",
             "rx_payload_bytes", "tx_packets", "rx_packets", "tx_retransmissions"]
for h in a["hosts"]:
    for k in host_keys:
        if k not in h:
            print(f"FAIL analyze: hosts[] without {k}"); bad += 1
    if h.get("role") not in ("worker", "server", "other"):
        print(f"FAIL analyze: role {h.get('role')!r}"); bad += 1
if a["pattern"]["kind"] not in ("ring", "tree", "star", "clique", "butterfly", "hierarchical",
                                "pairwise", "unknown"):
    print(f"FAIL analyze: pattern.kind {a['pattern']['kind']!r}"); bad += 1
if a["iterations"]["source"] != "traffic":
    print("FAIL analyze: iterations.source must be 'traffic'"); bad += 1
n = len(a["matrix"]["hosts"])
if len(a["matrix"]["wire_bytes"]) != n or any(len(r) != n for r in a["matrix"]["wire_bytes"]):
    print("FAIL analyze: matrix is not hosts x hosts"); bad += 1
f = load(sys.argv[2])
for k in ["n", "k", "formula", "response", "coefficients", "r2", "adj_r2", "f_stat", "f_p",
          "log_likelihood", "aic", "bic", "condition_number", "df_resid", "cv"]:
    if k not in f:
        print(f"FAIL fit: missing {k}"); bad += 1
for c in f.get("coefficients", []):
    for k in ["name", "coef", "std_err", "t", "p", "ci_low", "ci_high"]:
        if k not in c:
            print(f"FAIL fit: coefficient without {k}"); bad += 1
for k in ["folds", "rmse", "mape"]:
    if k not in f.get("cv", {}):
        print(f"FAIL fit: cv without {k}"); bad += 1
p = load(sys.argv[3])
for k in ["response", "mean", "se_mean", "se_obs", "ci_low", "ci_high", "pi_low", "pi_high",
          "df_resid"]:
    if k not in p:
        print(f"FAIL predict: missing {k}"); bad += 1
print("contract keys:", "ok" if not bad else f"{bad} problems")
sys.exit(1 if bad else 0)
PY
