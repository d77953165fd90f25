#!/usr/bin/env bash
# compare on a run of two jobs: the run's model size is the top-level
# job's.  tests/data/ddp4-ddp4mob-same-hosts.tar.xz holds a TinyCNN ring
# (first in its truth.json, whose own keys are that job's) and a
# MobileNetV2 ring on the same hosts; the top level is the MobileNetV2
# ring (it moves the most bytes), and runs.csv gave it the TinyCNN's
# 0.52 MiB beside its S of 9.0 MB: a dataset for `fit` pairing one job's
# traffic with the other's model.  Now the truth's entry of the top-level
# job (its hosts; of two on the same hosts, the logged step nearest the
# analysis' period: 0.720 s against 0.713) gives the size, 8.53 MiB.
set -u
NAME=compare_jobs
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp4-ddp4mob-same-hosts.tar.xz ddp4-ddp4mob-same-hosts
"$DMLSCOPE" compare "$run" --quiet --csv "$tmp/csv" ||
	{ echo "$NAME: FAIL: compare exit $?"; exit 1; }
/usr/bin/python3 - "$tmp/csv/runs.csv" "$run/truth.json" <<'PY'
import csv, json, sys
row = next(csv.DictReader(open(sys.argv[1])))
t = json.load(open(sys.argv[2]))
mob = [j for j in t["jobs"] if j["model"] == "mobilenetv2"][0]
want = mob["gradient_bytes"] / 2**20
got = float(row["model_size_mb"] or "nan")
S = float(row["gradient_bytes"] or "nan")
if not abs(got - want) <= 1e-6 * want or not abs(S - mob["gradient_bytes"]) <= 0.03 * mob["gradient_bytes"]:
    print("compare_jobs: FAIL: model_size_mb %s, gradient_bytes %s (want the MobileNetV2 ring's %.4f MiB, S %d)"
          % (row["model_size_mb"], row["gradient_bytes"], want, mob["gradient_bytes"]))
    sys.exit(1)
print("compare_jobs: ok: model_size_mb %.4f (the top-level MobileNetV2 ring's), S %.0f" % (got, S))
PY
