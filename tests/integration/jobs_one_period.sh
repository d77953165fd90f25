#!/usr/bin/env bash
# Two generated rings of 4 on overlapping hosts (1-4 and 3-6, both sending
# 3 -> 4) of one period: a step every 1.00 and 1.03 s for 600 steps, 10
# minutes.  Their clocks agree within 10 %, so they were one group: one
# "hierarchical" job of 6 (its S withheld; over an hour 3524 steps of
# 1.022 s).  The two connections of the shared pair keep steps apart, so
# the group is cut by steps, and each ring reads the pair by the
# connection that locks to its own steps (src/analysis/jobs_overlap.c):
# each ring its hosts, 600 steps (1 either way), its period within 1 %
# and S.
set -u
NAME=jobs_one_period
. "$SRCDIR/tests/integration/lib/rings.sh"
rings_chain 600 64KB 1000 1030
rings_analyze
rings_check "$tmp/a.json" 600 64000 0.01 1000 1030 || exit 1
echo "$NAME: ok: 2 rings of 600 steps on overlapping hosts, 1.00 and 1.03 s a step"
