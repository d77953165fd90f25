#!/usr/bin/env bash
# The library's layers (README.md, Layout): no two source files use each other,
# and none uses a layer above its own.  tests/integration/layers.py reads
# what each object of libdmlscope.a defines and uses (nm).
set -u
for t in nm python3; do
	command -v $t >/dev/null || { echo "skip: $t is not installed (Debian: binutils python3)"; exit 77; }
done
lib=$BUILDDIR/libdmlscope.a
[ -f "$lib" ] || { echo "FAIL: no $lib"; exit 1; }
python3 "$SRCDIR/tests/integration/layers.py" "$lib" "$SRCDIR"
