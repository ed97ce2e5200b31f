"""Frame to frame: a hand over a marker, a bumped camera, a camera that never saw the table."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from synthetic_table import Scene, profile_of, table_errors_mm, view
from tablecam.calibration.table import TableNotFound
from tablecam.calibration.tracker import TableTracker, TrackerSettings, marker_patch, patch_unchanged

SCENE = Scene()
PLAY_AREA = np.random.default_rng(3).uniform((0, 0), (800, 500), (200, 2))
BUMPED = replace(SCENE, cam=replace(SCENE.cam, aim_mm=(394.0, 257.0), roll_deg=5.0), seed=4)


def tracker() -> TableTracker:
    return TableTracker(SCENE.geometry, profile_of(SCENE.cam))


def test_a_hand_over_a_marker_keeps_the_last_table_position_and_says_so():
    t = tracker()
    first = t.update(view(SCENE))
    assert first.warnings == () and not first.held
    covered = t.update(view(replace(SCENE, covered=(2,), seed=5)))
    assert covered.held and covered.markers_seen == (0, 1, 3)
    assert covered.warnings == ("marker 2 covered: using the last table position",)
    assert np.array_equal(covered.homography, first.homography)  # not refitted: no shimmer
    assert table_errors_mm(covered, SCENE.cam, PLAY_AREA).max() < 1.0
    two = t.update(view(replace(SCENE, covered=(1, 3), seed=6)))
    assert two.warnings == ("markers 1 and 3 covered: using the last table position",)
    back = t.update(view(replace(SCENE, seed=7)))
    assert not back.held and back.warnings == () and np.array_equal(back.homography, first.homography)


def test_a_bumped_camera_is_noticed_and_the_table_re_locked():
    t = tracker()
    t.update(view(SCENE))
    before = t.update(view(SCENE))
    assert table_errors_mm(before, BUMPED.cam, PLAY_AREA).max() > 3.0  # the old fix is now wrong
    moved = t.update(view(BUMPED))
    assert moved.relocked and moved.warnings[0] == "the camera or the mat moved: re-locked"
    assert table_errors_mm(moved, BUMPED.cam, PLAY_AREA).max() < 1.0
    steady = t.update(view(replace(BUMPED, seed=8)))
    assert not steady.relocked and steady.warnings == ()


def test_a_move_seen_through_too_few_markers_holds_until_they_show():
    t = tracker()
    t.update(view(SCENE))
    half_hidden = t.update(view(replace(BUMPED, covered=(1, 3))))
    assert half_hidden.held and not half_hidden.relocked
    assert "only 2 markers can be seen: uncover the markers to re-lock" in half_hidden.warnings[0]
    seen = t.update(view(BUMPED))
    assert seen.relocked and table_errors_mm(seen, BUMPED.cam, PLAY_AREA).max() < 1.0


def test_before_any_lock_two_markers_are_not_a_table():
    with pytest.raises(TableNotFound, match="only markers 0 and 3"):
        tracker().update(view(replace(SCENE, covered=(1, 2))))


def test_the_rectified_image_is_the_same_while_the_table_is_held():
    t = tracker()
    img = view(SCENE)
    fix = t.update(img)
    a = t.rectify(img, fix, px_per_mm=1.0)
    held = t.update(view(replace(SCENE, covered=(0,), seed=9)))
    b = t.rectify(img, held, px_per_mm=1.0)
    assert np.array_equal(a.image, b.image)
    assert a.raster == b.raster


def test_one_nudged_marker_does_not_drag_the_table_along():
    t = tracker()
    first = t.update(view(SCENE))
    nudged = t.update(view(replace(SCENE, marker_shift=((2, (6.0, -4.0)),), seed=10)))
    assert not nudged.relocked and nudged.held
    assert nudged.warnings == ("marker 2 is out of place (nudged or partly covered): using the last table position",)
    assert np.array_equal(nudged.homography, first.homography)


def asked_for(t: TableTracker) -> list[list[int]]:
    """The markers `t` looks for near their last places, frame by frame (the search itself still runs)."""
    asked = []
    track = t._finder.track

    def counting(image, expected):
        asked.append(sorted(expected))
        return track(image, expected)

    t._finder.track = counting
    return asked


def test_a_still_table_is_not_detected_again_and_reads_the_same():
    fast = tracker()
    always = TableTracker(SCENE.geometry, profile_of(SCENE.cam), TrackerSettings(patch_change=0.0))
    fast.update(view(SCENE))
    always.update(view(SCENE))
    asked, asked_always = asked_for(fast), asked_for(always)
    for seed in (11, 12, 13):  # only the sensor noise changes
        a = fast.update(view(replace(SCENE, seed=seed)))
        b = always.update(view(replace(SCENE, seed=seed)))
        assert a.summary() == b.summary() and np.array_equal(a.homography, b.homography)
    assert asked == [] and asked_always == [[0, 1, 2, 3]] * 3


def test_after_still_frames_a_hand_a_nudge_and_a_bump_are_still_noticed():
    t = tracker()
    first = t.update(view(SCENE))
    t.update(view(replace(SCENE, seed=11)))
    asked = asked_for(t)
    covered = t.update(view(replace(SCENE, covered=(2,), seed=12)))
    assert covered.warnings == ("marker 2 covered: using the last table position",)
    assert asked == [[2]]  # only the covered marker is looked for
    back = t.update(view(replace(SCENE, seed=13)))
    assert not back.held and back.warnings == () and np.array_equal(back.homography, first.homography)
    nudged = t.update(view(replace(SCENE, marker_shift=((2, (6.0, -4.0)),), seed=14)))
    assert nudged.warnings == ("marker 2 is out of place (nudged or partly covered): using the last table position",)
    moved = t.update(view(BUMPED))
    assert moved.relocked and table_errors_mm(moved, BUMPED.cam, PLAY_AREA).max() < 1.0


def test_a_marker_patch_tells_noise_from_a_shift_of_one_pixel():
    frame = view(SCENE)
    sighting = tracker()._finder.find_all(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)).markers[1]
    patch = marker_patch(frame, sighting)
    assert patch is not None
    assert patch_unchanged(view(replace(SCENE, seed=21)), patch)
    for dx, dy in ((1, 0), (0, 1)):
        shifted = cv2.warpAffine(frame, np.float32([[1, 0, dx], [0, 1, dy]]), frame.shape[1::-1],
                                 borderMode=cv2.BORDER_REPLICATE)
        assert not patch_unchanged(shifted, patch)
    dimmer = (frame * 0.8).astype(np.uint8)  # the light changed: detect again (and re-measure)
    assert not patch_unchanged(dimmer, patch)
