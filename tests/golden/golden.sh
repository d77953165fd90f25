#!/usr/bin/env bash
# Golden tests: each tests/golden/expected/NAME.json is the expected subset
# of `dmlscope analyze --json` on samples/NAME (a real run) or
# tests/data/NAME (a hand-made capture); the exit code is checked too.
set -u
exp_dir="$SRCDIR/tests/golden/expected"
ls "$exp_dir"/*.json >/dev/null 2>&1 || { echo "SKIP: no golden files"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
for exp in "$exp_dir"/*.json; do
	name=$(basename "$exp" .json)
	input="$SRCDIR/samples/$name"
	[ -e "$input" ] || input=$(ls -d "$SRCDIR/tests/data/$name".* 2>/dev/null | head -1)
	if [ ! -e "$input" ]; then echo "FAIL $name: no input"; fail=1; continue; fi
	"$DMLSCOPE" analyze "$input" --json "$tmp/$name.json" --quiet
	rc=$?
	want_rc=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).pop("_exit", 0))' "$exp")
	if [ "$rc" != "$want_rc" ]; then echo "FAIL $name: exit $rc, expected $want_rc"; fail=1; continue; fi
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("_exit",None); json.dump(d,open(sys.argv[2],"w"))' "$exp" "$tmp/want.json"
	/usr/bin/python3 "$SRCDIR/tests/golden/golden_compare.py" "$tmp/want.json" "$tmp/$name.json" || fail=1
done
exit $fail
