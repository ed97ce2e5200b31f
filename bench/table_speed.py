"""How long the per-frame table step takes at 2028x1520 (the HQ camera's binned mode).

    .venv/bin/python bench/table_speed.py [--frames 60] [--px-per-mm 2] [--threads N] [--against REV]

Frames come from the simulator (a tilted camera with a real lens, nuisances on) when it is
available, else from a plain synthetic table. Single photos (four renders, each its own light and
noise) time the first lock (search of the whole frame) and the whole one-photo table step that
every game's `detect` pays (`read_table`: lock, warp maps, top-down image, white reference).
The frame loop runs on a simulator sequence (a game in play: pieces change, hands come and go,
sensor noise in every frame) and times a locked frame (`TableTracker.update`), the same with
every marker detected again (as when a hand or a change of light touches all four), the
top-down warp (one cached remap), the white balance, and the whole per-frame step, then each
game's own per-frame table step at its own search resolution. Times are this process's CPU
time (time.process_time), which other jobs on a shared machine stretch far less than the wall
clock; the load average is printed.

`--against REV` (speed work on the one-photo step): REV's own tablecam/calibration (from git, as a
package of its own) and the working tree's time `find_table` and the one-photo table step
(`find_table`, the top-down image at 1 px/mm, the white reference) on the same photos, alternating
in one process, and say whether every table fix is the same to the last bit.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from tablecam.calibration.geometry import TableGeometry
from tablecam.calibration.lens import CameraProfile
from tablecam.calibration.light import white_reference
from tablecam.calibration.table import find_table
from tablecam.calibration.topdown import rectify, rectify_maps
from tablecam.calibration.tracker import TableTracker, TrackerSettings
from tablecam.vision.table_view import TableReader, read_table

RESOLUTION = (2028, 1520)


def simulator_frames(count: int) -> tuple[list[np.ndarray], CameraProfile, str]:
    from tablecam.simulator import CameraModel, Nuisances, random_state, render

    rng = np.random.default_rng(11)
    camera = CameraModel.random(rng, resolution=RESOLUTION)
    nuisances = Nuisances.random(rng)
    state = random_state("micropul", rng)
    frames = [render(state, camera, nuisances, seed=s).image for s in range(count)]
    profile = CameraProfile(tuple(tuple(r) for r in camera.K.tolist()), tuple(camera.dist), RESOLUTION, 0.0)
    return frames, profile, (f"simulator: micropul, tilt {camera.tilt_deg:.0f} deg, "
                             f"height {camera.height_mm:.0f} mm, nuisances on")


def simulator_sequence(count: int) -> list[np.ndarray]:
    """`count` frames of a micropul game in play, as the companion's camera sees them (the camera
    and nuisances of `simulator_frames`)."""
    from itertools import islice

    from tablecam.simulator import CameraModel, Nuisances
    from tablecam.simulator.sequence import sequence

    rng = np.random.default_rng(11)
    camera = CameraModel.random(rng, resolution=RESOLUTION)
    nuisances = Nuisances.random(rng)
    return [f.image for f in islice(sequence("micropul", 11, camera, nuisances), count)]


def synthetic_frames(count: int) -> tuple[list[np.ndarray], None, str]:
    from tablecam.calibration.marker_sheet import marker_image

    g = TableGeometry()
    ppm = 2.0
    table = np.full((int(700 * ppm), int(1000 * ppm), 3), (70, 110, 150), np.uint8)
    for m in range(4):
        cx, cy = g.marker_centre(m)
        side = int(g.marker_mm * ppm)
        x0, y0 = int((cx + 100 - 25) * ppm), int((cy + 100 - 25) * ppm)
        table[y0:y0 + int(50 * ppm), x0:x0 + int(50 * ppm)] = 255
        x0, y0 = int((cx + 100 - 20) * ppm), int((cy + 100 - 20) * ppm)
        table[y0:y0 + side, x0:x0 + side] = marker_image(m, side)[..., None]
    src = np.float32([[0, 0], [table.shape[1], 0], [table.shape[1], table.shape[0]], [0, table.shape[0]]])
    dst = np.float32([[60, 90], [1960, 40], [2000, 1480], [20, 1430]])
    warped = cv2.warpPerspective(table, cv2.getPerspectiveTransform(src, dst), RESOLUTION)
    rng = np.random.default_rng(0)
    frames = [np.clip(warped + rng.normal(0, 3, warped.shape), 0, 255).astype(np.uint8) for _ in range(count)]
    return frames, None, "synthetic: flat table warped by a homography, noise"


def summary(name: str, samples: list[float]) -> str:
    ms = sorted(1000 * s for s in samples)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return f"{name:<44} median {statistics.median(ms):7.2f} ms   p95 {p95:7.2f} ms   (n={len(ms)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--px-per-mm", type=float, default=2.0)
    ap.add_argument("--threads", type=int, default=None, help="OpenCV threads (default: OpenCV's choice)")
    ap.add_argument("--against", metavar="REV", help="time REV's calibration code side by side on the photos")
    args = ap.parse_args()
    if args.threads is not None:
        cv2.setNumThreads(args.threads)
    try:
        distinct, profile, source = simulator_frames(4)
        stream = simulator_sequence(args.frames + 1)
    except Exception as exc:  # the simulator is optional for this benchmark
        print(f"(simulator unavailable: {exc}; using a synthetic table)")
        distinct, profile, source = synthetic_frames(4)
        stream = synthetic_frames(args.frames + 1)[0]
    geometry = TableGeometry()
    print(f"frames {RESOLUTION[0]}x{RESOLUTION[1]} from {source}; OpenCV {cv2.__version__}, "
          f"{cv2.getNumThreads()} threads; top-down image at {args.px_per_mm:g} px/mm")

    clock = time.process_time
    first_lock = []
    for i in range(max(10, args.frames // 4)):
        t0 = clock()
        find_table(distinct[i % len(distinct)], geometry, profile)
        first_lock.append(clock() - t0)

    one_photo = []
    for i in range(max(10, args.frames // 4)):
        t0 = clock()
        read_table(distinct[i % len(distinct)], geometry, profile, search_ppm=1.0, margin_mm=20.0)
        one_photo.append(clock() - t0)

    maps = []
    fix = find_table(distinct[0], geometry, profile)
    for _ in range(5):
        t0 = clock()
        rectify_maps(fix, args.px_per_mm, 40.0)
        maps.append(clock() - t0)

    tracker = TableTracker(geometry, profile)
    always = TableTracker(geometry, profile, TrackerSettings(patch_change=0.0))
    tracker.update(stream[0])
    always.update(stream[0])
    locked, detected, warp, light, total = [], [], [], [], []
    for frame in stream[1:]:
        t0 = clock()
        fix = tracker.update(frame)
        t1 = clock()
        rect = tracker.rectify(frame, fix, args.px_per_mm)
        t2 = clock()
        ref = white_reference(frame, fix)
        ref.correct(rect.image)
        t3 = clock()
        always.update(frame)
        t4 = clock()
        locked.append(t1 - t0)
        warp.append(t2 - t1)
        light.append(t3 - t2)
        total.append(t3 - t0)
        detected.append(t4 - t3)
        assert not fix.relocked, "the benchmark's table should stay locked"
    h, w = rect.image.shape[:2]
    print(summary("first lock: find_table, whole frame", first_lock))
    print(summary("one photo: read_table (every detect pays it)", one_photo))
    print(summary("warp maps, once per lock", maps))
    print(summary("locked frame: TableTracker.update", locked))
    print(summary("  the same, every marker detected again", detected))
    print(summary(f"top-down warp {w}x{h}: TableTracker.rectify", warp))
    print(summary("white balance: white_reference + correct", light))
    print(summary("per-frame table step (update + rectify + light)", total))
    for name, times in games_table_steps(stream, geometry, profile).items():
        print(summary(name, times))
    if args.against:
        photos = distinct + stream[1::max(1, len(stream) // 16)]  # the four photos and frames of the game
        for name, times in side_by_side(photos, geometry, profile, args.against).items():
            print(summary(name, times) if isinstance(times, list) else f"{name} {times}")
    print(f"(CPU time of this process; load average {' '.join(f'{v:.2f}' for v in os.getloadavg())} "
          f"on {os.cpu_count()} cores)")


def games_table_steps(stream: list[np.ndarray], geometry: TableGeometry, profile) -> dict[str, list[float]]:
    """Each game's own per-frame table step, as its detector calls it (search resolutions as in
    tablecam/vision: micropul 1.2 px/mm without margin, ENIX and Stixx `TableReader.view` at
    0.5 px/mm, Enigmo the lock and the white reference only)."""
    clock = time.process_time
    micropul, enigmo = TableTracker(geometry, profile), TableTracker(geometry, profile)
    enix = TableReader(geometry, profile, 0.5, 20.0)
    stixx = TableReader(geometry, profile, 0.5, 40.0)
    names = ("  micropul (update, 1.2 px/mm, light)", "  ENIX TableReader.view (0.5 px/mm)",
             "  Stixx TableReader.view (0.5 px/mm)", "  Enigmo (update, light)")
    out: dict[str, list[float]] = {name: [] for name in names}
    steps = list(out.values())
    for k, frame in enumerate(stream):
        t0 = clock()
        fix = micropul.update(frame)
        micropul.rectify(frame, fix, 1.2, 0.0)
        white_reference(frame, fix)
        t1 = clock()
        enix.view(frame)
        t2 = clock()
        stixx.view(frame)
        t3 = clock()
        white_reference(frame, enigmo.update(frame))
        t4 = clock()
        if k:  # the first frame locks
            for times, t in zip(steps, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
                times.append(t)
    return out


def revision_calibration(rev: str):
    """tablecam/calibration as it was at revision `rev` (git), as a package of its own in a
    temporary folder: its modules import each other, every other module is the working tree's."""
    root = Path(__file__).resolve().parents[1]
    name = "calibration_at_" + "".join(ch for ch in rev if ch.isalnum())
    package = Path(tempfile.mkdtemp(prefix="tablecam_against_")) / name
    package.mkdir()
    listing = subprocess.run(["git", "ls-tree", "--name-only", rev, "tablecam/calibration/"], cwd=root, check=True,
                             capture_output=True, text=True).stdout.split()
    for path in listing:
        if path.endswith(".py"):
            text = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=root, check=True, capture_output=True,
                                  text=True).stdout
            (package / Path(path).name).write_text(text.replace("tablecam.calibration", name))
    sys.path.insert(0, str(package.parent))
    return importlib.import_module(name)


def side_by_side(photos: list[np.ndarray], geometry: TableGeometry, profile, rev: str) -> dict:
    """`find_table` and the one-photo table step (find_table, the top-down image at 1 px/mm with a
    20 mm margin, the white reference) of revision `rev` and of the working tree, alternating on
    the same photos (each twice); and how many of the fixes are the same to the last bit."""
    old = revision_calibration(rev)
    arms = {"new": (find_table, rectify, white_reference), rev: (old.find_table, old.rectify, old.white_reference)}
    clock = time.process_time
    times: dict[str, list[float]] = {}
    same = 0
    for k, photo in enumerate(photos * 2):
        fixes = {}
        for arm in (("new", rev) if k % 2 else (rev, "new")):
            find, warp, light = arms[arm]
            t0 = clock()
            fix = find(photo, geometry, profile)
            t1 = clock()
            warp(photo, fix, 1.0, 20.0)
            light(photo, fix)
            t2 = clock()
            times.setdefault(f"{arm}: find_table", []).append(t1 - t0)
            times.setdefault(f"{arm}: one-photo table step", []).append(t2 - t0)
            fixes[arm] = (fix.homography.tobytes(), fix.markers_seen, fix.warnings,
                          [(m, c.tobytes()) for m, c in sorted(fix.marker_corners_px.items())])
        same += fixes["new"] == fixes[rev]
    ordered = {name: times[name] for step in ("find_table", "one-photo table step") for name in
               (f"{rev}: {step}", f"new: {step}")}
    return {**ordered, "fixes the same to the last bit:": f"{same} of {2 * len(photos)}"}


if __name__ == "__main__":
    main()
