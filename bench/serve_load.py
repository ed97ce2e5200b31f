"""Load on `tablecam serve` over loopback: does the frame loop keep its rate, is any state update lost?

Starts the server on the demo camera (2028x1520 at 5 frames a second, the real micropul
recogniser unless `--reader truth`), starts a game, measures the frame loop alone, then with N
clients on server-sent events and N on the MJPEG stream for the given time (clients in a
separate process, bounded in time, 127.0.0.1 only), then alone again (the rate alone is the mean
of before and after, so a neighbour's load that comes and goes weighs on both sides alike).
While the clients watch, one more SSE and one more MJPEG client must be turned away (503) and
the page's own API must still answer.

Prints: the loop's rate alone and under load (and their ratio), the loop thread's CPU time per
frame (not disturbed by other processes the way the rate is), CPU of the server's threads and
of the clients, per SSE client the updates published while it watched vs those it received,
MJPEG frames per second per client, JPEG encodes per frame, the API's answer times.

    .venv/bin/python bench/serve_load.py [--seconds 60] [--clients 20] [--baseline 20]
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


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
    queue.put((out, time.process_time()))


def thread_cpu() -> dict[str, float]:
    """CPU seconds so far of this process's threads, by role (from /proc: Linux only)."""
    roles: dict[str, float] = {}
    for t in threading.enumerate():
        try:
            fields = Path(f"/proc/self/task/{t.native_id}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        seconds = (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
        role = ("waitress workers" if t.name.startswith("waitress-") else t.name)
        roles[role] = roles.get(role, 0.0) + seconds
    return roles


def window(server, seconds: float) -> dict:
    """The loop's frames, rate and CPU over `seconds`."""
    frames0, encoded0, cpu0, proc0 = server.loop.frames, server.pictures.encoded, thread_cpu(), time.process_time()
    start = time.monotonic()
    time.sleep(seconds)
    took = time.monotonic() - start
    frames = server.loop.frames - frames0
    cpu1 = thread_cpu()
    return {"frames": frames, "rate": frames / took, "seconds": took, "loop_cpu_ms": server.loop.cpu_ms,
            "encoded": server.pictures.encoded - encoded0, "process_cpu": (time.process_time() - proc0) / took,
            "threads": {k: (v - cpu0.get(k, 0.0)) / took for k, v in cpu1.items()}}


def refused(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    status = conn.getresponse().status
    conn.close()
    return status


def api_times(port: int, n: int = 20) -> list[float]:
    times = []
    for _ in range(n):
        started = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/api/state")
        resp = conn.getresponse()
        resp.read()
        conn.close()
        assert resp.status == 200
        times.append((time.monotonic() - started) * 1000)
        time.sleep(0.1)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="time under load (default 60)")
    parser.add_argument("--baseline", type=float, default=20.0, help="time without clients, before and after (default 20)")
    parser.add_argument("--clients", type=int, default=20, help="SSE clients, and as many MJPEG clients (default 20)")
    parser.add_argument("--fps", type=float, default=5.0, help="demo camera frames per second (default 5)")
    parser.add_argument("--resolution", default="2028x1520")
    parser.add_argument("--reader", default="detector", choices=("detector", "truth"),
                        help="detector (default: the product) or the demo's truth (the server without recognition)")
    args = parser.parse_args()
    if not (5 <= args.seconds <= 600 and 1 <= args.clients <= 100 and 1 <= args.baseline <= 600):
        parser.error("keep the load bounded: 5-600 s, 1-100 clients")

    from tablecam.companion.serve import Server, ServeConfig

    w, h = (int(v) for v in args.resolution.split("x"))
    data = Path(tempfile.mkdtemp(prefix="tablecam-load-"))
    server = Server(ServeConfig(host="127.0.0.1", port=0, camera="demo", data_dir=data, reader=args.reader,
                                demo_fps=args.fps, demo_resolution=(w, h), threads=2 * args.clients + 8,
                                ranking_pause_s=2.0))
    port = server.start()
    server.hub.new_game("micropul", [{"name": "Ann", "stone_colour": "red"}, {"name": "Bob", "stone_colour": "blue"}])
    time.sleep(5)  # the demo's first frames (building the camera model) are slow
    before = window(server, args.baseline)

    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=clients, args=(port, args.clients, args.seconds, queue))
    proc.start()
    time.sleep(2.0)  # let the clients connect
    loaded_s = args.seconds - 4.0
    result: dict = {}
    probe = threading.Thread(target=lambda: result.update(
        sse_41=refused(port, "/api/events"), mjpeg_41=refused(port, "/stream.mjpg"), api_ms=api_times(port)))
    probe.start()
    loaded = window(server, loaded_s)
    last_version = server.hub.version
    probe.join(30)
    results, client_cpu = queue.get(timeout=args.seconds + 60)
    proc.join(30)
    time.sleep(2.0)
    after = window(server, args.baseline)
    server.close()

    alone = (before["rate"] + after["rate"]) / 2
    sse = [r for r in results if r[0] == "sse"]
    mjpeg = [r for r in results if r[0] == "mjpeg"]
    gaps = missing = 0
    per_client = []
    for _, _, ids in sse:
        if not ids:
            missing += 1
            continue
        gaps += sum(b - a - 1 for a, b in zip(ids, ids[1:]) if b > a + 1)
        published = set(range(ids[0], last_version + 1))  # everything published while it watched
        got = set(ids)
        missing += len(published - got)
        per_client.append((len(published), len(published & got)))
    print(f"tablecam serve under load: demo camera {w}x{h} at {args.fps:g} fps, reader {args.reader}, "
          f"{args.clients} SSE + {args.clients} MJPEG clients on 127.0.0.1 for {args.seconds:g} s")
    print(f"machine load average at the end: {open('/proc/loadavg').read().split()[:3]} on {os.cpu_count()} cores")
    for name, w_ in (("alone (before)", before), ("with clients  ", loaded), ("alone (after) ", after)):
        threads = ", ".join(f"{k} {v * 100:.0f}%" for k, v in sorted(w_["threads"].items(), key=lambda kv: -kv[1])
                            if v >= 0.005)
        print(f"frame loop {name}: {w_['rate']:.2f} frames/s ({w_['frames']} frames in {w_['seconds']:.0f} s), "
              f"loop thread CPU {w_['loop_cpu_ms']:.1f} ms/frame (median), JPEG encodes {w_['encoded']}, "
              f"server process CPU {w_['process_cpu'] * 100:.0f}% of a core ({threads}), "
              f"{w_['process_cpu'] * w_['seconds'] / max(1, w_['frames']) * 1000:.0f} ms per frame")
    print(f"rate with clients / alone: {loaded['rate'] / alone * 100:.1f} % (target >= 95 %)")
    per_frame = [w_["process_cpu"] * w_["seconds"] / max(1, w_["frames"]) for w_ in (before, loaded, after)]
    print(f"server CPU per frame with clients / alone: {per_frame[1] / ((per_frame[0] + per_frame[2]) / 2) * 100:.0f} % "
          f"(what the clients cost the server, less sensitive to other processes than the rate)")
    print(f"clients' process CPU: {client_cpu / args.seconds * 100:.0f}% of a core")
    print(f"SSE clients connected: {len(sse)}/{args.clients}; updates published while each watched vs received: "
          + ", ".join(f"{p}/{g}" for p, g in per_client[:5]) + (" ..." if len(per_client) > 5 else "")
          + f"; all clients: {sum(p for p, _ in per_client)} published, {sum(g for _, g in per_client)} received")
    print(f"SSE bytes received per client: median {statistics.median(r[1] for r in sse) if sse else 0:.0f}")
    fps = [r[2] / args.seconds for r in mjpeg]
    print(f"MJPEG clients connected: {len(mjpeg)}/{args.clients}; frames/s per client: median "
          f"{statistics.median(fps) if fps else 0:.2f}, min {min(fps) if fps else 0:.2f}; "
          f"bytes per client: median {statistics.median(r[1] for r in mjpeg) if mjpeg else 0:.0f}; "
          f"JPEG encodes per loop frame under load: {loaded['encoded'] / max(1, loaded['frames']):.2f}")
    api = result.get("api_ms") or [float("nan")]
    print(f"one client too many: SSE answered {result.get('sse_41')}, MJPEG answered {result.get('mjpeg_41')} "
          f"(503 expected); /api/state meanwhile: median {statistics.median(api):.1f} ms, max {max(api):.1f} ms")
    print(f"updates lost: {gaps} gaps in the numbered updates, {missing} updates a client never got")
    ok = gaps == 0 and missing == 0 and len(sse) == args.clients and result.get("sse_41") == 503
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
