#!/usr/bin/python3
"""A steady TCP stream beside a job (run_job.py --background): a bulk
transfer between two of its hosts, as a checkpoint copy, a dataset pulled
from a peer or an iperf would run.

  stream.py recv PORT           accept one connection, read and discard
  stream.py send ADDR PORT MBPS [ON OFF]
                                send at MBPS Mbit/s (paced every 10 ms)
                                until killed (SIGTERM/SIGINT), then print
                                the bytes sent; with ON and OFF (seconds)
                                send ON seconds, pause OFF, and so on (a
                                checkpoint written every so often), over
                                the one connection

Exits 0 when stopped by a signal; 1 when the connection cannot be made.
"""
import signal
import socket
import sys
import time

CHUNK = 64 * 1024
TICK = 0.01


def recv(port):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(1)
    conn, _ = srv.accept()
    got = 0
    while True:
        b = conn.recv(1 << 20)
        if not b:
            break
        got += len(b)
    print(f"received {got} bytes", flush=True)


def send(addr, port, mbps, on=0.0, off=0.0):
    s = None
    for _ in range(100):  # the receiver may not listen yet
        try:
            s = socket.create_connection((addr, port), timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    if s is None:
        print(f"stream: cannot connect to {addr}:{port}", file=sys.stderr)
        return 1
    s.settimeout(None)
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    signal.signal(signal.SIGINT, lambda *a: stop.append(1))
    per_tick = mbps * 1e6 / 8 * TICK
    buf = bytes(CHUNK)
    sent, t0, owed = 0, time.monotonic(), 0.0
    start = t0
    while not stop:
        if on > 0 and off > 0 and (t0 - start) % (on + off) >= on:
            owed = 0.0  # paused: nothing owed for the pause
        else:
            owed += per_tick
        while owed >= 1 and not stop:
            n = int(min(owed, CHUNK))
            try:
                k = s.send(buf[:n])
            except (InterruptedError, BrokenPipeError, ConnectionResetError):
                stop.append(1)
                break
            sent += k
            owed -= k
        t0 += TICK
        d = t0 - time.monotonic()
        if d > 0:
            time.sleep(d)
    try:
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    print(f"sent {sent} bytes", flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["recv"]:
        recv(int(sys.argv[2]))
    elif sys.argv[1:2] == ["send"]:
        sys.exit(send(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]),
                      *[float(x) for x in sys.argv[5:7]]))
    else:
        sys.exit(__doc__)
