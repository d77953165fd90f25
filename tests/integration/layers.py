#!/usr/bin/env python3
"""The library's layers (README.md, Layout): who may call whom.

usage: layers.py LIBDMLSCOPE.a SRCDIR

From the symbols each object of the library defines and uses (nm), every
call or data reference from one source file to another is an edge.  Two
rules:
  - no two files use each other (a pair of files is one unit, or one of
    them is below the other);
  - a file uses only files of its own layer or of the layers below it, in
    the order of LAYERS: the decoder and the reader, then the series and
    the sinks, the analysis, the job that drives them, the result,
    compare, the model (fit), the renderers, and generate.
The same order holds for includes: no source or public header includes a
header of a layer above its own.  Prints each violation and exits 1; 0
when there is none.
"""
import collections
import glob
import os
import re
import subprocess
import sys

LAYERS = ["util", "decode", "io", "series", "flow", "analysis", "job", "result",
          "compare", "model", "out", "gen"]
# The layer of each public header (include/dmlscope): where it is implemented.
HEADERS = {"error.h": "util", "itable.h": "util", "units.h": "util", "version.h": "util",
           "decode.h": "decode", "capture.h": "io", "input.h": "io", "live.h": "io",
           "runfolder.h": "io", "runlist.h": "io", "series.h": "series",
           "burst.h": "series", "sink.h": "flow", "stats.h": "flow", "serial.h": "flow",
           "analysis.h": "analysis", "watch.h": "analysis", "job.h": "job",
           "part.h": "job", "result.h": "result", "compare.h": "compare",
           "model.h": "model", "render.h": "out", "render_watch.h": "out",
           "gen.h": "gen"}

lib, src = sys.argv[1:3]
paths = {}
for p in glob.glob(os.path.join(src, "src", "*", "*.c")):
    rel = os.path.relpath(p, src)
    base = os.path.basename(p)
    if rel.split(os.sep)[1] in ("cli", "mpi"):
        continue  # the programs, not the library
    if base in paths:
        sys.exit("layers: two sources named %s: %s and %s" % (base, paths[base], rel))
    paths[base] = rel

out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
defs, uses = {}, collections.defaultdict(set)
for line in out.splitlines():
    where, _, rest = line.rpartition(":")
    member = where.split(":")[-1]
    if not member.endswith(".c.o"):
        continue
    f = paths.get(member[:-2])
    if f is None:
        continue  # generated sources (the embedded report assets)
    p = rest.split()
    if len(p) == 3 and p[1] in "TDBRC":
        defs[p[2]] = f
    elif len(p) == 2 and p[0] == "U":
        uses[f].add(p[1])

edges = collections.defaultdict(set)
for f, syms in uses.items():
    for s in syms:
        t = defs.get(s)
        if t and t != f:
            edges[f].add((t, s))

layer = lambda f: f.split(os.sep)[1]
bad = []

# Includes: a source's or a public header's of a header above its layer.
def included_layer(inc):
    if inc.startswith("dmlscope/"):
        return HEADERS.get(inc.split("/", 1)[1], "?" + inc)
    return inc.split("/")[0] if "/" in inc else None

sources = [(os.path.join(src, f), layer(f)) for f in paths.values()]
sources += [(p, layer(os.path.relpath(p, src)))
            for p in glob.glob(os.path.join(src, "src", "*", "*.h"))
            if layer(os.path.relpath(p, src)) not in ("cli", "mpi")]
for h in glob.glob(os.path.join(src, "include", "dmlscope", "*.h")):
    name = os.path.basename(h)
    if name not in HEADERS:
        bad.append("include/dmlscope/%s: no layer in layers.py's HEADERS" % name)
    else:
        sources.append((h, HEADERS[name]))
for path, lf in sources:
    for line in open(path):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        lt = m and included_layer(m.group(1))
        if not lt:
            continue
        if lt not in LAYERS:
            bad.append("%s includes %s: no such layer" % (os.path.relpath(path, src), m.group(1)))
        elif LAYERS.index(lt) > LAYERS.index(lf):
            bad.append("%s (%s) includes %s of %s, a layer above it"
                       % (os.path.relpath(path, src), lf, m.group(1), lt))
for f in sorted(edges):
    for t, s in sorted(edges[f]):
        if any(u == f for u, _ in edges.get(t, ())):
            if f < t:
                bad.append("%s and %s use each other (%s, and back)" % (f, t, s))
        lf, lt = layer(f), layer(t)
        if lf not in LAYERS or lt not in LAYERS:
            bad.append("%s: layer %s is not in the list" % (f if lf not in LAYERS else t,
                                                             lf if lf not in LAYERS else lt))
        elif LAYERS.index(lt) > LAYERS.index(lf):
            bad.append("%s (%s) uses %s of %s, a layer above it" % (f, lf, s, t))
if len(defs) < 100:
    bad.append("only %d symbols read from %s" % (len(defs), lib))
for b in sorted(set(bad)):
    print("FAIL", b)
if not bad:
    print("layers: %d files, %d uses between files, %d with includes; none up a layer "
          "or both ways" % (len(paths), sum(len(e) for e in edges.values()), len(sources)))
sys.exit(1 if bad else 0)
