#!/usr/bin/env bash
# A parameter server's hub is told from a hub-shaped collective's by the
# overlap of each spoke's push with the hub's answer, in 1 ms bins
# (src/analysis/pattern_two.c).  A long capture coarsens its pairs' bins
# (an hour or two of a busy star: 0.5 s), and in coarse bins a push and its
# answer fall together: the testbed's parameter server of 6 (at 2 % loss,
# tests/data/rpc6-loss2.tar.xz) read as a hub-shaped collective, its
# server a worker, from 32 ms bins; the one of 3 as a butterfly from 3 ms.
# Past 2 ms bins the check is not made: the star stands as the volumes
# read it, with a note that says so.  Here --bin makes the bins coarse.
set -u
NAME=hub_coarse
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run rpc6-loss2.tar.xz rpc6-loss2
fixture_analyze "$run" fine
"$DMLSCOPE" analyze "$run" --bin 0.032 --quiet --json "$tmp/coarse.json" ||
	{ echo "$NAME: FAIL: analyze --bin 0.032 exit $?"; exit 1; }
/usr/bin/python3 - "$tmp/fine.json" "$tmp/coarse.json" <<'PY'
import json, sys
fails = []
for path, coarse in ((sys.argv[1], False), (sys.argv[2], True)):
    a = json.load(open(path))
    p, notes = a["pattern"], a["notes"]
    what = "--bin 0.032" if coarse else "1 ms"
    hub = p["hubs"][0] if p["hubs"] else None
    role = next((h["role"] for h in a["hosts"] if h["addr"] == hub), None)
    if (p["kind"], p["ranks"], role) != ("star", 6, "server"):
        fails.append(f"{what}: {p['kind']}/{p['ranks']}, hub {hub} a {role} (want star/6, a server)")
    if any("hub-shaped collective" in n for n in notes):
        fails.append(f"{what}: read as a hub-shaped collective")
    said = any("too coarse to tell a server" in n for n in notes)
    if said != coarse:
        fails.append(f"{what}: the coarse-bins note {'missing' if coarse else 'made'}")
    print(f"hub_coarse: {what}: {p['kind']}/{p['ranks']}, hub a {role}")
for f in fails:
    print("hub_coarse: FAIL:", f)
sys.exit(1 if fails else 0)
PY
