#!/usr/bin/env bash
# A steady bulk transfer between two hosts of a job (a sample's DDP ring)
# is left out of the job's pattern, steps and S, and said (background.py).
set -u
run=$(ls -d "$SRCDIR"/samples/pytorch_ddp-*/ 2>/dev/null | head -1)
[ -n "$run" ] || { echo "SKIP: no sample run"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
exec /usr/bin/python3 "$SRCDIR/tests/integration/background.py" "$DMLSCOPE" "${run%/}" "$work"
