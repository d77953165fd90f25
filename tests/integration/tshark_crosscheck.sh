#!/usr/bin/env bash
# Per-host and per-pair byte totals and flow counts equal tshark's, exactly,
# on the real captures in samples/ and the hand-made ones in tests/data/.
set -u
command -v tshark >/dev/null || { echo "SKIP: tshark not installed"; exit 77; }
inputs=()
for d in "$SRCDIR"/samples/*/; do [ -d "$d" ] && inputs+=("${d%/}"); done
for f in "$SRCDIR"/tests/data/*.pcap "$SRCDIR"/tests/data/*.pcapng; do [ -f "$f" ] && inputs+=("$f"); done
[ ${#inputs[@]} -gt 0 ] || { echo "SKIP: no samples yet"; exit 77; }
exec /usr/bin/python3 "$SRCDIR/tests/integration/tshark_crosscheck.py" "$DMLSCOPE" "${inputs[@]}"
