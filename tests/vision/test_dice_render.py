"""read_dice on dice drawn with OpenCV: every value, turn and size, and grounds without dice."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tablecam.errors import UserError
from tablecam.vision.dice import read_dice
from dice_drawing import draw_die, ground, row_of_dice

WHITE, BLACK = (235, 235, 235), (25, 25, 25)


def values_left_to_right(image: np.ndarray, **kw) -> list:
    return [d.value for d in sorted(read_dice(image, **kw), key=lambda d: d.centre_px[0])]


@pytest.mark.parametrize("side", [36, 64])
@pytest.mark.parametrize("angle", [0, 20, 45, 70])
def test_white_dice_on_dark_wood_read_one_to_six(side, angle):
    image = row_of_dice(side, angle, WHITE, BLACK, (90, 80, 70), seed=side + angle)
    assert values_left_to_right(image) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("angle", [0, 30])
def test_black_dice_with_white_pips_on_paper_read_one_to_six(angle):
    image = row_of_dice(40, angle, (40, 40, 40), (230, 230, 230), (200, 200, 200), seed=angle)
    assert values_left_to_right(image) == [1, 2, 3, 4, 5, 6]


def test_each_die_is_boxed_where_it_lies():
    image = ground((200, 300), (90, 80, 70), noise=3)
    draw_die(image, 5, (150, 100), 60, 25, WHITE, BLACK)
    (die,) = read_dice(image)
    x0, y0, x1, y1 = die.box_px
    assert die.value == 5 and die.confidence > 0.5
    assert abs(die.centre_px[0] - 150) < 3 and abs(die.centre_px[1] - 100) < 3
    assert x0 < 150 - 25 and x1 > 150 + 25 and x1 - x0 < 110  # a turned 60 px face, not the whole photo


def test_known_scale_reads_only_dark_pips_of_that_size():
    image = ground((240, 480), (150, 140, 130), noise=3)
    draw_die(image, 4, (100, 120), 50, 10, WHITE, BLACK)
    draw_die(image, 3, (330, 120), 50, 60, WHITE, BLACK)
    dice = sorted(read_dice(image, pip_radius_px=4.5, pips="dark", min_contrast=40), key=lambda d: d.centre_px[0])
    assert [d.value for d in dice] == [4, 3]


def test_no_dice_on_a_plain_or_noisy_table():
    assert read_dice(ground((300, 400), (180, 170, 160))) == []
    noisy = ground((300, 400), (120, 110, 100), noise=25, seed=3)
    assert [d for d in read_dice(noisy) if d.value is not None] == []


def test_a_die_half_out_of_the_picture_is_not_given_a_value():
    image = ground((160, 160), (90, 80, 70), noise=3)
    draw_die(image, 6, (80, 80), 60, 0, WHITE, BLACK)
    cut = image[:, 80:].copy()  # the right half of a 6: its one row of three could pass for a 3
    assert [d.value for d in read_dice(cut) if d.value is not None] == []


@pytest.mark.parametrize("bad", [np.zeros((0, 0), np.uint8), np.zeros((10, 10), np.float32), "photo.jpg",
                                 np.zeros((8, 8), np.uint8)])
def test_bad_frames_are_one_sentence(bad):
    with pytest.raises(UserError):
        read_dice(bad)


def test_bad_options_are_one_sentence():
    image = ground((100, 100), (90, 80, 70))
    with pytest.raises(UserError, match="pip radius"):
        read_dice(image, pip_radius_px=-2)
    with pytest.raises(UserError, match="pips must be"):
        read_dice(image, pips="grey")


@pytest.mark.parametrize("angle", [0, 30])
def test_dice_of_sixteen_pixels_read_three_to_six_and_no_smaller_value(angle):
    # pips of about a pixel: three or more clear pips make a die; a lone pip or a pair that
    # small is not told from part of a bigger face, so 1s and 2s are left out
    image = row_of_dice(16, angle, WHITE, BLACK, (90, 80, 70), seed=angle)
    assert values_left_to_right(image) == [3, 4, 5, 6]


def test_a_few_small_dice_are_not_lost_under_one_big_unread_lattice():
    from tablecam.vision.dice import Die, _suppress

    # four small dark dice on white paper make the four "pips" of a big unread lattice
    phantom = Die(None, (0, 0, 200, 200), (100, 100), 0.0, side_px=200, pips=4)
    small = Die(3, (90, 90, 112, 112), (101, 101), 0.8, side_px=22, pips=3)
    a_pip_read_as_one = Die(1, (60, 60, 140, 140), (100, 100), 0.9, side_px=80, pips=1)
    assert set(_suppress([phantom, small])) == {phantom, small}
    assert _suppress([phantom, a_pip_read_as_one]) == [phantom]


def test_a_face_region_is_found_with_its_size():
    from tablecam.calibration.images import to_grey
    from tablecam.vision.dice import face_regions

    image = ground((160, 160), (225, 225, 225), noise=2)
    draw_die(image, 5, (80, 80), 40, 20, (40, 40, 40), (230, 230, 230))  # a dark die on white paper
    image = cv2.GaussianBlur(image, (5, 5), 0)  # a photo's soft focus (MSER finds no drawn sharp square)
    regions = [r for r in face_regions(to_grey(image)) if abs(r[0] - 80) < 4 and abs(r[1] - 80) < 4]
    assert regions and any(32 <= side <= 46 for _, _, side in regions)
    assert face_regions(to_grey(ground((160, 160), (225, 225, 225)))) == []  # plain paper: no face


def test_a_face_region_is_read_at_its_own_scale_only_where_no_die_lies():
    from dataclasses import replace

    from tablecam.calibration.images import to_grey
    from tablecam.vision.dice import Die, _with_faces_read_whole

    image = ground((200, 200), (225, 225, 225), noise=2)
    draw_die(image, 4, (100, 100), 30, 15, (40, 40, 40), (230, 230, 230))
    grey = to_grey(cv2.GaussianBlur(image, (5, 5), 0))
    (die,) = [d for d in _with_faces_read_whole(grey, [], (True, False), 10.0) if d.value is not None]
    assert die.value == 4 and math.dist(die.centre_px, (100, 100)) < 4
    # a die already read there (here: left unread) keeps its place; nothing is added over it
    there = replace(die, value=None, confidence=0.0)
    assert _with_faces_read_whole(grey, [there], (True, False), 10.0) == [there]


def test_a_one_whose_pip_holds_two_pips_is_a_die_not_a_pip():
    # a white die on a dark table read as the light pip of a big dark 1: its own dark pips lie
    # inside that "pip"; one spot alone (glare on a glossy pip) leaves the 1 as it is
    from tablecam.vision.dice import Die, _unless_pip_holds_pips

    one = Die(1, (0, 0, 200, 200), (100.0, 100.0), 0.9, side_px=200.0, pips=1, dark_pips=False)
    pip = (100.0, 100.0, 20.0, False)
    two_spots = [pip, (94.0, 94.0, 3.0, True), (106.0, 106.0, 3.0, True)]
    assert _unless_pip_holds_pips(one, two_spots).value is None
    glare = [pip, (96.0, 96.0, 3.0, True), (96.5, 96.0, 2.5, True)]  # one spot, seen at two scales
    assert _unless_pip_holds_pips(one, glare).value == 1
    far = [pip, (94.0, 94.0, 3.0, True), (100.0, 130.0, 3.0, True)]  # the second spot off the pip
    assert _unless_pip_holds_pips(one, far).value == 1
    big = [pip, (94.0, 94.0, 12.0, True), (106.0, 106.0, 12.0, True)]  # spots as big as pips: not held
    assert _unless_pip_holds_pips(one, big).value == 1
    # two dark dice touching on white paper, one "pip" of a big dark 1 at a coarse scale: at a
    # finer scale it is two smaller spots of its own polarity off its centre
    dark_one = Die(1, (0, 0, 200, 200), (100.0, 100.0), 0.9, side_px=200.0, pips=1, dark_pips=True)
    blob = (100.0, 100.0, 20.0, True)
    assert _unless_pip_holds_pips(dark_one, [blob, (90.0, 95.0, 9.0, True), (110.0, 105.0, 9.0, True)]).value is None
    # the pip itself found again at a finer scale, a little off: still one pip
    assert _unless_pip_holds_pips(dark_one, [blob, (101.0, 100.0, 18.0, True), (93.0, 100.0, 9.0, True)]).value == 1


@pytest.mark.parametrize("spot", [122, 126])
def test_a_place_between_pip_and_face_leaves_the_photo_die_unread(spot):
    # a 2 with a half-dark spot where a 3's middle pip would be: the lattice reads 3 with its
    # least clear place just past the cut (margin 0.24-0.3); a photo reading says null
    img = ground((200, 200), (60, 50, 40), noise=3, seed=3)
    draw_die(img, 2, (100, 100), 80, 0, WHITE, BLACK)
    cv2.circle(img, (100, 100), int(round(80 * 0.09)), (spot,) * 3, -1, lineType=cv2.LINE_AA)
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    assert [d.value for d in read_dice(img)] == [None]


def test_a_speck_much_smaller_than_the_pips_does_not_take_a_photo_die_value():
    # glare on a glossy face (or on a ringed die's dark disc) makes bright specks a third of
    # the pips' size off the layout's places; a spot as big as the die's pips there is a pip
    # the lattice missed (a 6 read as 4), and takes the value away
    from tablecam.vision.dice import _STRAY_ALIKE, Die, _unless_stray_pips

    four = Die(4, (0, 0, 111, 111), (100.0, 100.0), 0.9, side_px=111.0, pips=4, dark_pips=False)
    step = 111.0 / (1 / 0.27)
    own = [(100.0 + i * step, 100.0 + j * step, 14.0, False) for i in (-1, 1) for j in (-1, 1)]
    speck = (100.0 - 1.3 * step, 100.0 + 0.15 * step, 5.0, False)
    assert _unless_stray_pips(four, own + [speck], _STRAY_ALIKE).value == 4
    missed_pip = (100.0 - step, 100.0, 13.0, False)  # a 6's edge-middle pip
    assert _unless_stray_pips(four, own + [missed_pip], _STRAY_ALIKE).value is None
    # the known-scale path (witnesses, no share given) counts every spot as before
    assert _unless_stray_pips(four, own + [speck]).value is None
