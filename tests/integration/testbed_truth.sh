#!/usr/bin/env bash
# The committed real samples agree with their truth.json: bytes per step per
# host (tshark tcp.len) against the ring / parameter-server formulas.
# Fast: tshark only, no job is run.  Skips (77) without tshark or python3.
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || true)
if [ -z "$PY" ] || ! command -v tshark >/dev/null 2>&1; then
    echo "testbed_truth: SKIP: needs python3 and tshark"
    exit 77
fi
n=$(find "$SRCDIR/samples" -name truth.json 2>/dev/null | wc -l)
if [ "$n" -lt 1 ]; then
    echo "testbed_truth: FAIL: no sample run with truth.json under $SRCDIR/samples"
    exit 1
fi
exec "$PY" "$SRCDIR/testbed/check_run.py" "$SRCDIR/samples"
