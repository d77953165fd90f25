#!/bin/bash
# fit_bad_input.sh - `dmlscope fit` and `predict` refuse bad input with one
# clear line on stderr and the exit code of doc/contract.md: 1 for data the formula
# cannot use, 2 for usage (bad option, formula syntax), 3 for I/O.
set -u
: "${DMLSCOPE:?set DMLSCOPE to the dmlscope binary}"
if "$DMLSCOPE" fit --help 2>&1 | grep -q "is not a command"; then
	echo "skip: this dmlscope has no 'fit' command yet"
	exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

# expect CODE PATTERN CMD...: exit code CODE, exactly one stderr line matching PATTERN
expect() {
	local code=$1 pat=$2
	shift 2
	"$@" >"$work/out" 2>"$work/err"
	local rc=$? lines
	lines=$(wc -l <"$work/err")
	if [ "$rc" != "$code" ] || [ "$lines" != 1 ] || ! grep -q -- "$pat" "$work/err"; then
		echo "FAIL: $* -> exit $rc (want $code), stderr ($lines lines):"
		sed 's/^/    /' "$work/err"
		fails=$((fails + 1))
	else
		echo "ok: exit $rc: $(cat "$work/err")"
	fi
}

printf 'y,x,a\n1,1,p\n2,2,q\n2.5,3,p\n4,4,q\n5.5,5,p\n6,6,q\n' >"$work/good.csv"
printf 'y,x\n1,1\n2,abc\n3,3\n4,4\n' >"$work/nonnum.csv"
printf '' >"$work/empty.csv"
printf 'y,x\n' >"$work/header.csv"
printf 'y,x,z\n1,1,3\n2,5,1\n3,2,2\n' >"$work/few.csv"

expect 1 "missing column 'nosuch'" "$DMLSCOPE" fit "$work/good.csv" --formula "y ~ nosuch"
expect 1 "non-numeric value 'abc' in column 'x'" "$DMLSCOPE" fit "$work/nonnum.csv" --formula "y ~ x"
expect 1 "empty file" "$DMLSCOPE" fit "$work/empty.csv" --formula "y ~ x"
expect 1 "no data rows" "$DMLSCOPE" fit "$work/header.csv" --formula "y ~ x"
expect 1 "3 rows for 3 parameters" "$DMLSCOPE" fit "$work/few.csv" --formula "y ~ x + z"
expect 2 "bad formula 'y ~ x +'" "$DMLSCOPE" fit "$work/good.csv" --formula "y ~ x +"
expect 2 "expected '~'" "$DMLSCOPE" fit "$work/good.csv" --formula "y x"
expect 2 "unknown function" "$DMLSCOPE" fit "$work/good.csv" --formula "y ~ foo(x)"
expect 2 "unknown option" "$DMLSCOPE" fit "$work/good.csv" --bogus
expect 3 "No such file" "$DMLSCOPE" fit "$work/nosuch.csv" --formula "y ~ x"
expect 1 "missing column 'mb_per_step'" "$DMLSCOPE" fit "$work/good.csv"

# predict: a saved model, then bad settings
if ! "$DMLSCOPE" fit "$work/good.csv" --formula "y ~ x + C(a)" --save "$work/m.json" --quiet; then
	echo "FAIL: fit --save"
	fails=$((fails + 1))
fi
if ! "$DMLSCOPE" predict "$work/m.json" x=3.5 a=q | grep -q "^y = "; then
	echo "FAIL: predict x=3.5 a=q"
	fails=$((fails + 1))
fi
expect 1 "level 'r' of 'C(a)' was never seen" "$DMLSCOPE" predict "$work/m.json" x=1 a=r
expect 1 "missing variable 'a'" "$DMLSCOPE" predict "$work/m.json" x=1
expect 1 "'x': non-numeric value 'big'" "$DMLSCOPE" predict "$work/m.json" x=big a=p
expect 1 "'w' is not a variable" "$DMLSCOPE" predict "$work/m.json" x=1 a=p w=2
expect 2 "'x' given twice ('x=1', 'x=2')" "$DMLSCOPE" predict "$work/m.json" x=1 a=p x=2
# a log model answers in the response's own units too (back_transformed)
printf 'y,x\n2.7,1\n7.4,2\n20.1,3\n54.6,4\n148,5\n403,6\n1100,7\n' >"$work/lg.csv"
"$DMLSCOPE" fit "$work/lg.csv" --formula "np.log(y) ~ x" --save "$work/lg.json" >/dev/null 2>&1
if ! "$DMLSCOPE" predict "$work/lg.json" x=3 --json - | /usr/bin/python3 -c '
import json, math, sys
d = json.load(sys.stdin); b = d["back_transformed"]
ok = b["variable"] == "y" and abs(b["value"] - math.exp(d["mean"])) < 1e-9 * b["value"] \
     and abs(b["pi_high"] - math.exp(d["pi_high"])) < 1e-9 * b["pi_high"] and 19 < b["value"] < 21
sys.exit(0 if ok else 1)'; then
	echo "FAIL: predict of a log model: no back-transformed value"; fails=$((fails + 1))
else
	echo "ok: a log model predicted back in y's units"
fi
if ! "$DMLSCOPE" predict "$work/m.json" x=3.5 a=q --json - | grep -q '"back_transformed": null'; then
	echo "FAIL: plain response: back_transformed not null"; fails=$((fails + 1))
fi
expect 2 "expected variable=value" "$DMLSCOPE" predict "$work/m.json" x=1 a=p oops
expect 3 "nosuch.json" "$DMLSCOPE" predict "$work/nosuch.json" x=1 a=p
expect 1 "not a dmlscope model" "$DMLSCOPE" predict "$work/good.csv" x=1 a=p

[ "$fails" = 0 ] && echo "all bad-input checks passed"
exit $((fails > 0))
