#!/usr/bin/env python3
"""Check an htsim_ndp run of a connection matrix written by dmlscope generate.

usage: htsim_check.py MATRIX.cm FLOWS.csv HTSIM_STDOUT open|closed [FORMULA_S]

Every flow id of the matrix must finish ("flow_id K finished at T" in
htsim's output, T in us), each id's size must equal the CSV row K's bytes
(id K is row K), and per iteration the simulated time (last finish minus
the iteration's first planned start) must be within 10 % of the plan
written in the matrix's header (open loop) or of FORMULA_S, the
collective's formula time (closed loop).  Prints one line per iteration.
"""
import csv
import re
import sys

cm, flows, out, mode = sys.argv[1:5]
formula = float(sys.argv[5]) if len(sys.argv) > 5 else None
plan, sizes = {}, {}
for line in open(cm):
    m = re.match(r"# iteration (\d+) start_ps (\d+) planned_end_ps (\d+)", line)
    if m:
        plan[int(m.group(1))] = (int(m.group(2)) / 1e12, int(m.group(3)) / 1e12)
    m = re.match(r"(\d+)->(\d+) id (\d+) .*size (\d+)", line)
    if m:
        sizes[int(m.group(3))] = int(m.group(4))
rows = list(csv.DictReader(open(flows)))
bad = []
if len(rows) != len(sizes):
    bad.append("%d CSV rows, %d flows in the matrix" % (len(rows), len(sizes)))
for k, r in enumerate(rows, 1):
    if sizes.get(k) != int(r["bytes"]):
        bad.append("id %d: %s bytes in the matrix, %s in the CSV" % (k, sizes.get(k), r["bytes"]))
        break
done = {}
for line in open(out):
    m = re.search(r"flow_id (\d+) finished at ([0-9.e+]+)", line)
    if m:
        done[int(m.group(1))] = float(m.group(2)) / 1e6
missing = sorted(set(sizes) - set(done))
if missing:
    bad.append("%d of %d flows never finished (first id %d)" % (len(missing), len(sizes), missing[0]))
last = {}
for k, r in enumerate(rows, 1):
    it = int(r["iteration"])
    if k in done:
        last[it] = max(last.get(it, 0), done[k])
for it in sorted(plan):
    start, end = plan[it]
    sim = last.get(it, start) - start
    want = formula if mode == "closed" else end - start
    print("iteration %d: simulated %.1f us, %s %.1f us" %
          (it, sim * 1e6, "formula" if mode == "closed" else "planned", want * 1e6))
    if abs(sim / want - 1) > 0.10:
        bad.append("iteration %d: %.1f us simulated, %.1f us wanted" % (it, sim * 1e6, want * 1e6))
print("%d of %d flows finished" % (len(done), len(sizes)))
for b in bad:
    print("FAIL " + b)
sys.exit(1 if bad else 0)
