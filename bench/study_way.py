#!/usr/bin/python3
"""The study's per-run pipeline, for comparison: tshark -T fields to text,
then pandas: bytes per host, a source-destination matrix, flows, and
throughput resampled in 1 ms bins.  usage: study_way.py CAPTURE"""
import io
import subprocess
import sys

import pandas as pd

cmd = ["tshark", "-n", "-r", sys.argv[1], "-T", "fields", "-E", "separator=,",
       "-e", "frame.time_epoch", "-e", "ip.src", "-e", "ip.dst", "-e", "tcp.srcport",
       "-e", "tcp.dstport", "-e", "frame.len"]
text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
df = pd.read_csv(io.StringIO(text), names=["t", "src", "dst", "sport", "dport", "len"])
per_host = df.groupby("src")["len"].sum()
matrix = df.groupby(["src", "dst"])["len"].sum().unstack(fill_value=0)
flows = df.groupby(["src", "dst", "sport", "dport"]).size()
df.index = pd.to_datetime(df["t"], unit="s")
series = df["len"].resample("1ms").sum()
print(len(per_host), matrix.shape, len(flows), len(series), file=sys.stderr)
