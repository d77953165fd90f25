#!/usr/bin/env bash
# Tunnels are opened: a sample's real capture wrapped in VXLAN, Geneve, GRE,
# IP in IP, ERSPAN and MPLS, or written as ERF, NFLOG or PKTAP records,
# reads as the capture itself (tunnels.py); and where the optional corpus
# of tcpdump's test captures is present (DMLS_CORPUS, else
# ../shared/corpus/tcpdump-tests), its real tunnel captures agree with
# tshark's innermost headers (tunnels_corpus.py).
set -u
cap=$(ls "$SRCDIR"/samples/pytorch_ddp-*/worker-0-*.pcap 2>/dev/null | head -1)
[ -n "$cap" ] || { echo "SKIP: no sample capture"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$SRCDIR/tests/integration/tunnels.py" "$DMLSCOPE" "$cap" "$work" || exit 1
corpus=${DMLS_CORPUS:-$SRCDIR/../shared/corpus/tcpdump-tests}
if [ ! -d "$corpus" ] || ! command -v tshark >/dev/null 2>&1; then
	echo "tunnels: the corpus part skipped (no corpus at '$corpus', or no tshark)"
	exit 0
fi
/usr/bin/python3 "$SRCDIR/tests/integration/tunnels_corpus.py" "$DMLSCOPE" "$corpus"
