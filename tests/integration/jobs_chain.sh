#!/usr/bin/env bash
# A chain of twelve generated rings of 4 on overlapping hosts: hosts 1-4,
# 3-6, ..., 23-26 (each sharing two hosts with the next, the pair between
# them an edge of both), stepping every 100 ms to 465 ms (15 % apart),
# merged into one capture (lib/rings.sh).  No host is a cut vertex: it
# was one job of 26.  Twelve jobs now (src/analysis/jobs_overlap.c), each
# its hosts, ring/4, count, period and S: the middle ones have no host of
# their own, and with 48 data pairs for 16 clocks the first split leaves
# parts that are split again, and hosts two pairs or more away from any
# clock (they were lost: 9 jobs).
set -u
NAME=jobs_chain
. "$SRCDIR/tests/integration/lib/rings.sh"
periods=(100 115 132 152 175 201 231 266 305 351 404 465)
rings_chain 24 256KB "${periods[@]}"
rings_analyze
rings_check "$tmp/a.json" 24 256000 0.05 "${periods[@]}" || exit 1
echo "$NAME: ok: 12 jobs of 4 hosts on a chain, each ring/4, 24 steps"
