#!/bin/bash
# fit_statsmodels.sh - `dmlscope fit` and `predict` against statsmodels.
#
# Generates tables (the study's, rank-deficient, a one-level categorical,
# no intercept, interactions, log, missing cells), fits each with Debian's
# python3-statsmodels and with `$DMLSCOPE fit --json -` and compares every
# number to a relative 1e-6 (fit_statsmodels.py); predictions from a saved
# model against get_prediction().  Exit 77 (skipped) without statsmodels.
set -u
: "${DMLSCOPE:?set DMLSCOPE to the dmlscope binary}"
: "${SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
PY=/usr/bin/python3   # Debian's python, where python3-statsmodels lives

if ! "$PY" -c 'import statsmodels, pandas' 2>/dev/null; then
	echo "skip: $PY has no statsmodels/pandas (apt-get install python3-statsmodels python3-pandas)"
	exit 77
fi
if "$DMLSCOPE" fit --help 2>&1 | grep -q "is not a command"; then
	echo "skip: this dmlscope has no 'fit' command yet"
	exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$PY" "$SRCDIR/tests/integration/fit_statsmodels.py" "$DMLSCOPE" "$work"
