#!/usr/bin/env bash
# RoCEv2 (UDP to 4791) retransmissions from the base transport header's
# PSNs: a go-back-N and a PSN wrap counted; acknowledgements, read
# responses, unreliable datagrams and a second queue pair behind the same
# 5-tuple not; a capture cut before the header judges nothing; with
# tshark, its own decoding of the headers gives the same count; both ends'
# captures (IP ids all 0) are told apart by PSN: a write only the receiver
# captured still counts (roce.py).
set -u
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$SRCDIR/tests/integration/roce.py" "$DMLSCOPE" "$work"
