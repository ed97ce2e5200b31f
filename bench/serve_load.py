"""Load on `tablecam serve` over loopback: does the frame loop keep its rate, is any state update lost?

Starts the server on the demo camera (default 2028x1520 at 5 frames a second, reading the
simulator's truth so the figure is the server's, not the recogniser's), starts a game, measures
the frame loop's rate alone, then with N clients on server-sent events and N on the MJPEG stream
for the given time (clients in a separate process, bounded in time, 127.0.0.1 only). Prints
frames per second with and without load, bytes and events received, and updates lost (gaps in
the numbered states an SSE client received, or states it never got).

    .venv/bin/python bench/serve_load.py [--seconds 60] [--clients 20] [--baseline 20]
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import statistics
import tempfile
import threading
import time
from pathlib import Path


def sse_client(port: int, seconds: float, out: list) -> None:
    ids: list[int] = []
    received = 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/events")
    resp = conn.getresponse()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = resp.fp.readline()
        if not line:
            break
        received += len(line)
        if line.startswith(b"id: "):
            ids.append(int(line[4:]))
    conn.close()
    out.append(("sse", received, ids))


def mjpeg_client(port: int, seconds: float, out: list) -> None:
    received = frames = 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/stream.mjpg")
    resp = conn.getresponse()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        chunk = resp.read1(65536)
        if not chunk:
            break
        received += len(chunk)
        frames += chunk.count(b"--frame\r\n")
    conn.close()
    out.append(("mjpeg", received, frames))


def clients(port: int, n: int, seconds: float, queue) -> None:
    out: list = []
    threads = [threading.Thread(target=sse_client, args=(port, seconds, out)) for _ in range(n)]
    threads += [threading.Thread(target=mjpeg_client, args=(port, seconds, out)) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 30)
    queue.put(out)


def loop_rate(server, seconds: float) -> tuple[float, int]:
    start_frames, start = server.loop.frames, time.monotonic()
    time.sleep(seconds)
    frames = server.loop.frames - start_frames
    return frames / (time.monotonic() - start), frames


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="time under load (default 60)")
    parser.add_argument("--baseline", type=float, default=20.0, help="time without clients (default 20)")
    parser.add_argument("--clients", type=int, default=20, help="SSE clients, and as many MJPEG clients (default 20)")
    parser.add_argument("--fps", type=float, default=5.0, help="demo camera frames per second (default 5)")
    parser.add_argument("--resolution", default="2028x1520")
    args = parser.parse_args()
    if not (1 <= args.seconds <= 600 and 1 <= args.clients <= 100 and 1 <= args.baseline <= 600):
        parser.error("keep the load bounded: 1-600 s, 1-100 clients")

    from tablecam.companion.serve import Server, ServeConfig

    w, h = (int(v) for v in args.resolution.split("x"))
    data = Path(tempfile.mkdtemp(prefix="tablecam-load-"))
    server = Server(ServeConfig(host="127.0.0.1", port=0, camera="demo", data_dir=data, reader="truth",
                                demo_fps=args.fps, demo_resolution=(w, h), threads=2 * args.clients + 8,
                                ranking_pause_s=2.0))
    port = server.start()
    server.hub.new_game("micropul", [{"name": "Ann", "stone_colour": "red"}, {"name": "Bob", "stone_colour": "blue"}])
    time.sleep(3)  # the demo's first frames (building the camera model) are slow
    base_rate, base_frames = loop_rate(server, args.baseline)

    queue = multiprocessing.get_context("spawn").Queue()
    proc = multiprocessing.get_context("spawn").Process(target=clients, args=(port, args.clients, args.seconds, queue))
    first_version = server.hub.version
    proc.start()
    time.sleep(1.0)  # let the clients connect
    load_rate, load_frames = loop_rate(server, args.seconds - 2.0)
    last_version = server.hub.version
    results = queue.get(timeout=args.seconds + 60)
    proc.join(30)
    server.close()

    sse = [r for r in results if r[0] == "sse"]
    mjpeg = [r for r in results if r[0] == "mjpeg"]
    gaps = missing = 0
    for _, _, ids in sse:
        gaps += sum(b - a - 1 for a, b in zip(ids, ids[1:]) if b > a + 1)
        got = set(ids)
        # Every state published while the clients were surely connected must have reached each one.
        missing += sum(1 for v in range(first_version + 2, last_version + 1) if v not in got)
    print(f"tablecam serve under load: demo camera {w}x{h} at {args.fps:g} fps, {args.clients} SSE + "
          f"{args.clients} MJPEG clients on 127.0.0.1 for {args.seconds:g} s")
    print(f"frame loop alone:     {base_rate:.2f} frames/s ({base_frames} frames in {args.baseline:g} s)")
    print(f"frame loop with load: {load_rate:.2f} frames/s ({load_frames} frames in {args.seconds - 2:g} s)")
    print(f"SSE clients connected: {len(sse)}/{args.clients}; states published during the load: "
          f"{last_version - first_version}; events received per client: "
          f"median {statistics.median(len(r[2]) for r in sse) if sse else 0:g}")
    print(f"SSE bytes received: {sum(r[1] for r in sse)}")
    print(f"MJPEG clients connected: {len(mjpeg)}/{args.clients}; frames received per client: median "
          f"{statistics.median(r[2] for r in mjpeg) if mjpeg else 0:g}; bytes received: {sum(r[1] for r in mjpeg)}")
    print(f"updates lost: {gaps} gaps in the numbered states, {missing} states a client never got")
    return 0 if (gaps == 0 and missing == 0 and len(sse) == args.clients) else 1


if __name__ == "__main__":
    raise SystemExit(main())
