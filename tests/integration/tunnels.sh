#!/usr/bin/env bash
# Tunnels are opened: a sample's real capture wrapped in VXLAN, Geneve, GRE,
# IP in IP, ERSPAN and MPLS reads as the capture itself (tunnels.py).
set -u
cap=$(ls "$SRCDIR"/samples/pytorch_ddp-*/worker-0-*.pcap 2>/dev/null | head -1)
[ -n "$cap" ] || { echo "SKIP: no sample capture"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$SRCDIR/tests/integration/tunnels.py" "$DMLSCOPE" "$cap" "$work"
