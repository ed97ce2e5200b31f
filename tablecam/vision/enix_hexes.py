"""Where the six ENIX energy hexes lie: each one's energy (its colour), centre, and the angle of its
sides (modulo 60 degrees; which side is which comes from its rays, enix_rays.py).

Tiles lie edge to edge (the rules keep the layout in one piece), so their centres sit on a hex
lattice. The layout is read in two steps on the coarse class map (enix_search.py):

1. Seeds: for each energy, where its colour (rays bridged, holes filled) fills a hexagon's
   inscribed square and not the band around it; a card of that colour is too small, a patch of
   table that happens to look alike fills the band too. The seeds that look like whole tiles
   give the lattice: its angle from the directions between neighbours and from their outlines,
   its origin from their centres.
2. Cells: every lattice cell near the seeds is measured, the share of its hexagon in each
   energy's colour; each energy goes to the cell it fills best (one tile per energy, one tile per
   cell). A tile seen whole gets its own centroid (real tiles are not laid exactly on a lattice);
   one partly hidden (a hand) gets its cell's centre, which the hidden part cannot pull. A partly
   seen one with no tile beside it is dropped: tiles lie edge to edge, so that is a card of its
   colour while the tile itself is hidden.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from tablecam.rules.enix.lattice import hex_round

from .enix_search import ClassMap, _ids_lut, fill_holes

SIDE_MM = 64.0  # enix.md (model): a regular hexagon, side 64 mm
APOTHEM_MM = SIDE_MM * math.sqrt(3) / 2
PITCH_MM = 2 * APOTHEM_MM  # centre to centre across a side
AREA_MM2 = 3 * math.sqrt(3) / 2 * SIDE_MM ** 2
CLOSE_MM = 9.0  # joins a tile's sectors across its rays (6 mm) and path points (9 mm)
INNER_SQUARE = 1.3  # of the apothem: the side of a square well inside the hexagon
MIN_SEED = 0.45  # filled square minus filled band: a tile scores about 0.9
WHOLE = (0.85, 1.2)  # a seed blob with this share of a hexagon is a whole tile (it sets the lattice)
# A seed whose outline's angle lies farther than this from the seeds' median (modulo 60) is no tile
# (a hand of a tile's colour) and sets no lattice. Tiles' outlines lie within 7 degrees of the true
# angle (one within 9), a hand read as wind or solar 10-30 off (2200069, 2200116, 2300107: it
# turned the whole lattice 5-13 degrees, and a tile's rays read at that angle still matched a turn).
MAX_OUTLINE_OFF = 8.0
PRINT_SHARE = 0.93  # the share of a tile's hexagon in its colour (rays are its colour lightened; the source is not)
MIN_FILL = 0.3  # of PRINT_SHARE: less of a cell in a colour is not a tile (a card, a hand over it)
WHOLE_FILL = 0.87  # of PRINT_SHARE: a tile this complete is measured on its own; below, it is partly hidden
CELL_RINGS = 3  # cells searched around the seeds
OWN_AGREES_MM = 2.0  # a whole tile's centroid this near the covering place is taken (the map's pixel is 2 mm)
SLIDE_MM = 12.0  # a partly hidden tile may lie this far off its lattice cell (tiles are pushed by hand)
COVER_SLACK = 0.01  # of a hexagon's area: hexagon places covering this nearly all the colour seen are ties


@dataclass(frozen=True)
class HexFit:
    energy: str
    centre: tuple[float, float]  # table mm
    side_angle: float  # degrees in [0, 60): the normal of side k points at -90 + side_angle + 60 k
    seen: float  # share of the tile's expected colour seen (1 = all of it)
    snapped: bool = False  # the centre is its lattice cell's (the tile is partly hidden)


@dataclass(frozen=True)
class _Seed:
    energy: str
    centre_px: tuple[float, float]
    angle: float
    seen: float


def find_hexes(cmap: ClassMap, energies: tuple[str, ...], px_to_mm, mm_to_px, ppm: float) -> list[HexFit]:
    """The energy tiles in a frame, at most one per energy."""
    seeds = _seeds(cmap, energies, ppm)
    agreeing = _agreeing(seeds)
    whole = [s for s in agreeing if WHOLE[0] <= s.seen <= WHOLE[1]] or agreeing
    if not whole:
        return []
    angle = _lattice_angle(whole, ppm)
    centres_mm = px_to_mm(np.array([s.centre_px for s in whole]))
    origin = _lattice_origin(centres_mm, angle)
    cells = _cells_near(centres_mm, origin, angle)
    fills = _cell_fills(cmap, energies, cells, origin, angle, mm_to_px, ppm)  # (cells, energies)
    out: list[HexFit] = []
    for c, e in _chosen(cells, fills / PRINT_SHARE):
        share = fills[c, e] / PRINT_SHARE
        centre = _cell_centre(cells[c], origin, angle)
        snapped = True
        covering = _covering_centre(cmap, energies[e], centre, angle, mm_to_px, px_to_mm, ppm)
        if share >= WHOLE_FILL:
            own = _own_centre(cmap, energies[e], centre, angle, mm_to_px, px_to_mm, ppm)
            # The centroid is the finer measure, unless something over the tile's edge (a hand,
            # a card) pulls it off the place its hexagon covers.
            centre = own if math.dist(own, covering) <= OWN_AGREES_MM else covering
            snapped = False
        else:
            centre = covering
        out.append(HexFit(energies[e], (float(centre[0]), float(centre[1])), angle, float(share), snapped))
    return out


def _agreeing(seeds: list[_Seed]) -> list[_Seed]:
    """The seeds whose outline angle lies within MAX_OUTLINE_OFF of the seeds' circular median
    (modulo 60): the others are no tiles' outlines. With fewer than three seeds none can be told
    from the others: all are kept."""
    if len(seeds) < 3:
        return seeds
    angles = [s.angle for s in seeds]
    median = min(angles, key=lambda a: sum(abs(_off60(a - b)) for b in angles))
    return [s for s in seeds if abs(_off60(s.angle - median)) <= MAX_OUTLINE_OFF]


def _off60(d: float) -> float:
    """An angle difference modulo 60 degrees (a hexagon's sides), in [-30, 30)."""
    return (d + 30.0) % 60.0 - 30.0


def _chosen(cells: np.ndarray, shares: np.ndarray) -> list[tuple[int, int]]:
    """(cell, energy) pairs: the surest first, each cell and each energy used once (greedy), less
    the partly seen tiles that lie off the layout (_off_layout)."""
    flat = np.argsort(-shares, axis=None)[:int(np.count_nonzero(shares >= MIN_FILL))]
    out: list[tuple[int, int]] = []
    taken_cells: set[int] = set()
    done: set[int] = set()
    for c, e in zip(*(a.tolist() for a in np.unravel_index(flat, shares.shape))):
        if c in taken_cells or e in done:
            continue
        taken_cells.add(c)
        done.add(e)
        out.append((c, e))
    return [p for p, off in zip(out, _off_layout(cells, shares, out)) if not off]


_NEIGHBOURS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))  # a cell's six, in (i, j) steps


def _off_layout(cells: np.ndarray, shares: np.ndarray, pairs: list[tuple[int, int]]) -> list[bool]:
    """For each chosen pair: a partly seen tile with no other tile beside it. The rules lay tiles
    edge to edge, so such a patch of a colour is no tile: a card of that colour whose own tile is
    hidden under a hand, the card then cut from the map as a tile (5361, 5411, 5494, 5834). Its
    energy stays unread, never placed on the card. A tile seen whole stands on its own, and so do
    tiles beside each other (the hand over a layout's middle leaves groups of them)."""
    if len(pairs) < 2:
        return [False] * len(pairs)
    placed = {(int(cells[c][0]), int(cells[c][1])) for c, _ in pairs}
    return [shares[c, e] < WHOLE_FILL
            and not any((int(cells[c][0]) + i, int(cells[c][1]) + j) in placed for i, j in _NEIGHBOURS)
            for c, e in pairs]


# --- step 1: seeds ---------------------------------------------------------------------------------
def _seeds(cmap: ClassMap, energies: tuple[str, ...], ppm: float) -> list[_Seed]:
    k = max(3, int(round(CLOSE_MM * ppm)) | 1)
    kernel = _disc(k)
    inner = max(3, int(round(INNER_SQUARE * APOTHEM_MM * ppm)) | 1)
    band_in = max(inner + 2, int(round(2.15 * APOTHEM_MM * ppm)) | 1)
    band_out = max(band_in + 2, int(round(2.6 * APOTHEM_MM * ppm)) | 1)
    out = []
    for energy in energies:
        mask = cmap.mask(energy)
        if cv2.countNonZero(mask) < 0.3 * AREA_MM2 * ppm * ppm:
            continue
        # Only around where the colour is (plus the band): most of the table holds none of it.
        bx, by, bw, bh = cv2.boundingRect(mask)  # its pixels' bounds (no list of them needed)
        pad = band_out // 2 + k
        y0, x0 = max(by - pad, 0), max(bx - pad, 0)
        y1, x1 = min(by + bh + pad, mask.shape[0]), min(bx + bw + pad, mask.shape[1])
        # (The crop's origin stays: the centre below is worked out in its pixels.) The closing reaches
        # k // 2 past the colour and the fill no farther: both are worked out within k of the colour's
        # bounds (a margin that leaves the closing the whole map's), all beyond is empty.
        mask = fill_holes(_closed_near(mask[y0:y1, x0:x1], (bx - x0, by - y0, bw, bh), kernel, k))
        # Whole pixel counts in the boxes (8-bit in, 16-bit sums when they fit: cheaper than 32-bit
        # or float boxes, the same counts), only where a box can reach the closed colour (within
        # inner // 2 of it): elsewhere every box is empty.
        ix0, iy0 = max(bx - x0 - k - inner // 2, 0), max(by - y0 - k - inner // 2, 0)
        near = mask[iy0:by - y0 + bh + k + inner // 2, ix0:bx - x0 + bw + k + inner // 2]
        inside = cv2.boxFilter(near, cv2.CV_16U if inner * inner < 1 << 16 else cv2.CV_32S, (inner, inner),
                               normalize=False, borderType=cv2.BORDER_CONSTANT)
        # The score is at most the square's share: only where that reaches MIN_SEED can a seed be,
        # and only there (their bounding box) is the band measured; the band's boxes reach
        # band_out // 2 beyond it (the crop's edge, zero beyond, as before).
        sx, sy, sw, sh = cv2.boundingRect((inside >= _least_seed_count(inner)).view(np.uint8))
        if sw == 0:
            continue
        ring = _ring_counts(mask, (sx + ix0, sy + iy0, sw, sh), band_in, band_out)
        # The square's share rounded to float32 from double, as a normalised float box filter rounds it.
        fill_in = (inside[sy:sy + sh, sx:sx + sw] * (1.0 / (inner * inner))).astype(np.float32)
        sx, sy = sx + ix0, sy + iy0
        score = fill_in - ring.astype(np.float32) / float(band_out * band_out - band_in * band_in)
        _, best, _, (x, y) = cv2.minMaxLoc(score)
        if best < MIN_SEED:
            continue
        (cx, cy), seen, blob = _blob_centre(mask, (x + sx, y + sy), ppm)
        out.append(_Seed(energy, (cx + x0, cy + y0), _outline_angle(blob), seen))
    return out


def _closed_near(mask: np.ndarray, rect: tuple[int, int, int, int], kernel: np.ndarray, k: int) -> np.ndarray:
    """cv2.morphologyEx(mask, MORPH_CLOSE, kernel) of a mask empty outside `rect` (x, y, w, h), for
    a kernel of k x k: worked out only within k of the rect. The closing sets nothing farther than
    k // 2 from the mask, and with that margin empty the window's border adds and removes nothing
    the whole mask's would not."""
    x, y, w, h = rect
    out = np.zeros(mask.shape, mask.dtype)  # (np.zeros: zeros_like's array, at a third of its cost)
    rows, cols = mask.shape
    window = (slice(max(y - k, 0), min(y + h + k, rows)), slice(max(x - k, 0), min(x + w + k, cols)))
    out[window] = cv2.morphologyEx(mask[window], cv2.MORPH_CLOSE, kernel)
    return out


def _ring_counts(mask: np.ndarray, rect: tuple[int, int, int, int], band_in: int, band_out: int) -> np.ndarray:
    """(h, w) int32: at each place of `rect` (x, y, w, h) of a 0/1 mask, its pixels in the band_out
    square about it less those in the band_in square (both odd; the mask's outside counts as empty,
    as BORDER_CONSTANT). Both squares' whole counts from one summed-area table of the rect grown by
    band_out // 2: the very counts of two box filters, at about two thirds of their cost."""
    x, y, w, h = rect
    r = band_out // 2
    rows, cols = mask.shape
    y0, y1, x0, x1 = y - r, y + h + r, x - r, x + w + r
    window = cv2.copyMakeBorder(mask[max(y0, 0):min(y1, rows), max(x0, 0):min(x1, cols)], max(-y0, 0),
                                max(y1 - rows, 0), max(-x0, 0), max(x1 - cols, 0), cv2.BORDER_CONSTANT, value=0)
    total = cv2.integral(window)  # (int32: every count fits)

    def squares(n: int) -> np.ndarray:
        o = r - n // 2
        return (total[o + n:o + n + h, o + n:o + n + w] - total[o:o + h, o + n:o + n + w]
                - total[o + n:o + n + h, o:o + w] + total[o:o + h, o:o + w])

    return squares(band_out) - squares(band_in)


@lru_cache(maxsize=4)
def _disc(k: int) -> np.ndarray:
    """The k x k elliptic structuring element that bridges a tile's rays (made once, read-only)."""
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    disc.setflags(write=False)
    return disc


def _least_seed_count(inner: int) -> int:
    """A count of the inner square's pixels below which its share stays under MIN_SEED (one short of
    the least that could reach it: rounding never makes up two pixels)."""
    return int(math.floor(MIN_SEED * inner * inner)) - 1


def _blob_centre(mask: np.ndarray, start: tuple[int, int], ppm: float) -> tuple[tuple[float, float], float, np.ndarray]:
    """The centroid of the colour within a hexagon's circumcircle of the centre, iterated."""
    r = SIDE_MM * 1.05 * ppm
    h, w = mask.shape
    x0, y0 = max(int(start[0] - 2 * r), 0), max(int(start[1] - 2 * r), 0)
    x1, y1 = min(int(start[0] + 2 * r) + 1, w), min(int(start[1] + 2 * r) + 1, h)
    sub = mask[y0:y1, x0:x1] > 0
    cx, cy = float(start[0]), float(start[1])
    disc, box, m = np.zeros((0, 0), bool), (slice(0, 0), slice(0, 0)), {"m00": 0}
    for _ in range(3):
        # Only the disc's box is tested (the window is twice as wide): the same pixels, fewer tests.
        bx0, by0 = max(int(math.floor(cx - r)), x0), max(int(math.floor(cy - r)), y0)
        bx1, by1 = max(min(int(math.ceil(cx + r)) + 1, x1), bx0), max(min(int(math.ceil(cy + r)) + 1, y1), by0)
        yy, xx = np.arange(by0, by1)[:, None], np.arange(bx0, bx1)  # (a column and a row: the disc test broadcasts them)
        box = (slice(by0 - y0, by1 - y0), slice(bx0 - x0, bx1 - x0))
        disc = sub[box] & ((xx - cx) ** 2 + (yy - cy) ** 2 <= r * r)
        m = cv2.moments(disc.view(np.uint8)) if disc.size else {"m00": 0}
        if m["m00"] == 0:
            break
        # The centroid as the mean of whole pixel coordinates (exact sums either way). The mask is 0/1:
        # its grey moments are the binaryImage ones (OpenCV scales those from 255s back to whole
        # counts exactly), at a third of the cost.
        ny, nx = (m["m01"] + by0 * m["m00"]) / m["m00"], (m["m10"] + bx0 * m["m00"]) / m["m00"]
        if (nx, ny) == (cx, cy):
            break  # (settled: another pass would test the very same disc)
        cy, cx = ny, nx
    blob = np.zeros(sub.shape, sub.dtype)
    blob[box] = disc
    # (The last disc's pixel count is its moments' m00, a whole number: no second count of it.)
    return (cx, cy), float(m["m00"]) / (AREA_MM2 * ppm * ppm), blob


def _outline_angle(blob: np.ndarray) -> float:
    """Sides' angle (mod 60) from a filled blob's outline: edge normals lie at -90 + angle + 60 k."""
    x, y, w, h = cv2.boundingRect(blob.view(np.uint8))
    if w == 0:
        return 0.0
    b = blob[max(y - 2, 0):y + h + 2, max(x - 2, 0):x + w + 2].view(np.uint8)
    # On 0/1 pixels the 3x3 Sobel is a whole number in -4..4: as 16-bit integers, the float32 values
    # exactly (from 8 bits at a fraction of a float filter's cost), made float only on the outline.
    # (spatialGradient: both 3x3 Sobels of cv2.Sobel, border reflected alike, in one call at a fifth of two.)
    gx, gy = cv2.spatialGradient(b)
    # Each outline pixel's term |g| exp(6i atan2(gy, gx)) depends only on its (gx, gy), one of 81
    # pairs: looked up from `_outline_terms` (the very values, made by the very expression) rather
    # than an arctangent and a complex exponential per pixel; summed in the same order as before.
    code = gx * 9
    code += gy
    edge = code != 0  # (the outline: (0, 0) is the only pair giving 0; elsewhere the gradient adds nothing)
    z = _outline_terms().take(code[edge] + 40).sum()
    # Outward normals at -90 + a + 60k and the gradient of a filled blob points inwards (+180):
    # six times that is 6a - 540 + 1080, i.e. 6a + 180 modulo a turn.
    return float((np.degrees(np.angle(z)) - 180.0) / 6.0 % 60.0)


@lru_cache(maxsize=1)
def _outline_terms() -> np.ndarray:
    """`_outline_angle`'s term |g| exp(6i atan2(gy, gx)) (complex64) of every 3x3 Sobel pair of a 0/1
    image, gx and gy in -4..4, at (gx + 4) * 9 + (gy + 4): the expression `_outline_angle` used per
    outline pixel, on float32 copies of the pairs."""
    g = np.arange(-4, 5)
    gx, gy = (a.ravel().astype(np.float32) for a in np.meshgrid(g, g, indexing="ij"))
    out = cv2.magnitude(gx, gy).ravel() * np.exp(6j * np.arctan2(gy, gx))
    out.setflags(write=False)
    return out


def _lattice_angle(seeds: list[_Seed], ppm: float) -> float:
    """The sides' angle from neighbouring centres (weight 3 each) and the outlines (weight 1)."""
    vec = np.zeros(2)
    for s in seeds:
        vec += (math.cos(math.radians(6 * s.angle)), math.sin(math.radians(6 * s.angle)))
    pitch_px = PITCH_MM * ppm
    for i, a in enumerate(seeds):
        for b in seeds[i + 1:]:
            dx, dy = b.centre_px[0] - a.centre_px[0], b.centre_px[1] - a.centre_px[1]
            if abs(math.hypot(dx, dy) - pitch_px) < 0.15 * pitch_px:
                # Neighbours across a side: the step points along a side's normal, -90 + angle + 60 k.
                e = math.degrees(math.atan2(dy, dx)) + 90.0
                vec += 3.0 * np.array((math.cos(math.radians(6 * e)), math.sin(math.radians(6 * e))))
    return float(math.degrees(math.atan2(vec[1], vec[0])) / 6.0 % 60.0)


# --- step 2: the lattice's cells ---------------------------------------------------------------------
@lru_cache(maxsize=8)
def _steps(angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Lattice vectors (mm): to the neighbour across side 0 and across side 1 (made once per angle:
    a frame asks for them for every cell and seed)."""
    a0, a1 = math.radians(-90.0 + angle), math.radians(-30.0 + angle)
    d0, d1 = PITCH_MM * np.array([math.cos(a0), math.sin(a0)]), PITCH_MM * np.array([math.cos(a1), math.sin(a1)])
    d0.setflags(write=False)
    d1.setflags(write=False)
    return d0, d1


def _to_cell(points: np.ndarray, origin: np.ndarray, angle: float) -> np.ndarray:
    d0, d1 = _steps(angle)
    m = np.column_stack([d0, d1])
    return np.linalg.solve(m, (np.asarray(points) - origin).T).T  # fractional (i, j)


def _cell_centre(cell, origin: np.ndarray, angle: float) -> np.ndarray:
    d0, d1 = _steps(angle)
    return origin + cell[0] * d0 + cell[1] * d1


def _hex_round(f: np.ndarray) -> np.ndarray:
    """Nearest lattice cells of fractional axial coordinates (cube rounding)."""
    if len(f) <= 16 and np.isfinite(f).all():
        # (A few points - a frame's seeds - by the rules' own cube rounding in Python numbers: round()
        # halves to even as np.round does, and whole numbers less a float are the float differences:
        # the same cells, without a dozen numpy calls on arrays of six.)
        return np.array([hex_round(i, j) for i, j in f.tolist()], dtype=int).reshape(-1, 2)
    i, j = f[:, 0], f[:, 1]
    k = -i - j
    ri, rj, rk = np.round(i), np.round(j), np.round(k)
    di, dj, dk = np.abs(ri - i), np.abs(rj - j), np.abs(rk - k)
    fix_i = (di > dj) & (di > dk)
    fix_j = ~fix_i & (dj > dk)
    ri = np.where(fix_i, -rj - rk, ri)
    rj = np.where(fix_j, -ri - rk, rj)
    return np.column_stack([ri, rj]).astype(int)


def _lattice_origin(centres_mm: np.ndarray, angle: float) -> np.ndarray:
    origin = centres_mm[0].astype(np.float64)
    for _ in range(2):
        cells = _hex_round(_to_cell(centres_mm, origin, angle))
        fitted = _cell_centre(cells.T[:, :, None], origin, angle)  # (every cell at once, the same sums)
        origin = origin + (centres_mm - fitted).mean(axis=0)
    return origin


def _cells_near(centres_mm: np.ndarray, origin: np.ndarray, angle: float) -> np.ndarray:
    """(n, 2) int: the cells within CELL_RINGS of the seeds' cells, in (i, j) order."""
    base = _hex_round(_to_cell(centres_mm, origin, angle))
    cells = (base[:, None, :] + _RING_OFFSETS[None, :, :]).reshape(-1, 2)
    # np.unique(cells, axis=0), by one key per cell that sorts as its (i, j) row does (a plain
    # unique of numbers is several times cheaper than one of rows).
    low = cells.min(axis=0)
    span = int(cells[:, 1].max() - low[1]) + 1
    keys = np.unique((cells[:, 0] - low[0]) * span + (cells[:, 1] - low[1]))
    return np.column_stack([keys // span + low[0], keys % span + low[1]])


def _ring_offsets(rings: int) -> np.ndarray:
    d = np.arange(-rings, rings + 1)
    di, dj = (a.ravel() for a in np.meshgrid(d, d, indexing="ij"))
    keep = np.maximum(np.maximum(np.abs(di), np.abs(dj)), np.abs(di + dj)) <= rings
    return np.column_stack([di[keep], dj[keep]])


_RING_OFFSETS = _ring_offsets(CELL_RINGS)


def _hexagon_mm(centre: np.ndarray, angle: float, shrink: float = 1.0) -> np.ndarray:
    # Corners sit between the side normals: at -60 + angle + 60 k, at the circumradius.
    return np.asarray(centre) + shrink * SIDE_MM * _corner_directions(angle)


@lru_cache(maxsize=8)
def _corner_directions(angle: float) -> np.ndarray:
    """(6, 2) unit vectors to a hexagon's corners (one frame asks for the same angle for every cell)."""
    out = np.array([[math.cos(math.radians(-60.0 + angle + 60 * k)), math.sin(math.radians(-60.0 + angle + 60 * k))]
                    for k in range(6)])
    out.setflags(write=False)
    return out


def hexagons_mask(hexes: list[HexFit], shape: tuple[int, int], mm_to_px, grow: float = 1.04) -> np.ndarray:
    """uint8 mask (coarse map pixels) of the tiles' hexagons, grown a little (their shadow and blur)."""
    out = np.zeros(shape, np.uint8)
    if not hexes:
        return out
    # (All corners mapped and rounded at once: the same values, a call each instead of one per tile.)
    corners = np.round(mm_to_px(np.concatenate([_hexagon_mm(np.asarray(h.centre, dtype=np.float64), h.side_angle, grow)
                                                for h in hexes]))).astype(np.int32).reshape(len(hexes), 6, 2)
    for poly in corners:
        cv2.fillConvexPoly(out, poly, 1)
    return out


def _cell_fills(cmap: ClassMap, energies, cells, origin, angle, mm_to_px, ppm: float) -> np.ndarray:
    """(cells, energies): the share of each cell's hexagon labelled with each energy."""
    h, w = cmap.labels.shape
    n = len(energies)
    out = np.zeros((len(cells), n))
    if len(cells) == 0:
        return out
    d0, d1 = _steps(angle)
    centres = origin + cells[:, :1] * d0 + cells[:, 1:] * d1
    polys = mm_to_px((centres[:, None, :] + 0.97 * SIDE_MM * _corner_directions(angle)[None]).reshape(-1, 2))
    polys = polys.reshape(len(cells), 6, 2)
    lows = np.floor(polys.min(axis=1)).astype(int)
    highs = np.ceil(polys.max(axis=1)).astype(int) + 1
    # Most cells searched are bare table: a cell whose box holds no energy's label is left at zero
    # without drawing its hexagon (a summed-area table answers for each box at once).
    energy = cv2.integral(_ids_lut(cmap.labels, range(n)))  # (the energies are labels 0..n-1)
    bx0, by0 = np.clip(lows[:, 0], 0, w), np.clip(lows[:, 1], 0, h)
    bx1, by1 = np.clip(highs[:, 0], 0, w), np.clip(highs[:, 1], 0, h)
    any_energy = (energy[by1, bx1] - energy[by0, bx1] - energy[by1, bx0] + energy[by0, bx0]) > 0
    total = AREA_MM2 * 0.97 ** 2 * ppm * ppm
    corners = np.round(polys - lows[:, None, :]).astype(np.int32)  # each hexagon in its own box
    labels = cmap.labels.view(np.uint8)  # (-1, nothing fits, is 255: past every energy)
    lows, highs = lows.tolist(), highs.tolist()
    measured, counts = [], []
    for ci in np.flatnonzero(any_energy).tolist():
        x0, y0 = lows[ci]
        x1, y1 = highs[ci]
        if x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
            continue
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(inside, corners[ci], 1)
        # Each label's count inside the hexagon: one histogram under the hexagon's mask.
        counts.append(cv2.calcHist([labels[cy0:cy1, cx0:cx1]], [0], inside[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0],
                                   [256], [0, 256]).ravel()[:n])
        measured.append(ci)
    if measured:  # (the shares of all cells measured in one division: each the same quotient)
        out[measured] = np.array(counts).astype(np.float64) / total
    return out


def _covering_centre(cmap: ClassMap, energy: str, cell_mm: np.ndarray, angle: float, mm_to_px, px_to_mm,
                     ppm: float) -> np.ndarray:
    """A partly hidden tile's centre: of the places near its lattice cell where its hexagon takes in
    all of its colour that shows, the one nearest the cell. Its visible edges hold it (a tile pushed
    off the lattice is found where it is); the hidden part, which a centroid would miss, cannot pull
    it; a slide towards the hidden side, which no edge stops, is not taken."""
    k = max(3, int(round(CLOSE_MM * ppm)) | 1)
    poly = mm_to_px(_hexagon_mm(np.asarray(cell_mm, dtype=np.float64), angle, 1.0))
    c_px = poly.mean(axis=0)
    reach = int(math.ceil(SLIDE_MM * ppm)) + 1
    half = int(math.ceil(np.abs(poly - c_px).max())) + reach + k
    h, w = cmap.labels.shape
    x0, y0 = int(round(c_px[0])) - half, int(round(c_px[1])) - half
    if x0 < 0 or y0 < 0 or x0 + 2 * half + 1 > w or y0 + 2 * half + 1 > h:
        return np.asarray(cell_mm, dtype=np.float64)  # at the map's edge: the cell it is
    mask = cmap.mask(energy)[y0:y0 + 2 * half + 1, x0:x0 + 2 * half + 1]
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _disc(k))
    kernel = np.zeros((2 * (half - reach) + 1,) * 2, np.uint8)
    cv2.fillConvexPoly(kernel, np.round(poly - c_px + (half - reach)).astype(np.int32), 1)
    # The hexagon's cover at each shift within reach only (the kernel then stays inside the window).
    cover = _cover(mask, kernel)
    yy, xx, near = _shifts(reach, SLIDE_MM * ppm)
    best = float(cover[near].max())
    ties = near & (cover >= best - COVER_SLACK * float(cv2.countNonZero(kernel)))  # (0/1: its sum)
    # The tie nearest the cell, the first in row order among equals: the distances of the ties alone
    # (np.argmin of them all, inf elsewhere, picks the same one).
    ty, tx = np.nonzero(ties)
    j = int(np.argmin(np.hypot(xx[ty, tx] + (c_px[0] - round(c_px[0])), yy[ty, tx] + (c_px[1] - round(c_px[1])))))
    iy, ix = int(ty[j]), int(tx[j])
    return px_to_mm(np.array([[x0 + half - reach + ix, y0 + half - reach + iy]], dtype=np.float64))[0]


def _cover(mask: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """How many pixels of a 0/1 kernel (uint8) fall on a 0/1 mask (uint8) at each shift: whole
    counts, rounded off the correlation's float error (under 1e-3 here). From the 8-bit images as
    they are: the same counts as from float32 copies, at three quarters of the cost."""
    return np.rint(cv2.matchTemplate(mask, kernel, cv2.TM_CCORR))


@lru_cache(maxsize=4)
def _shifts(reach: int, within: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shifts (y, x) of -reach..reach a side, and those no farther than `within` (made once)."""
    yy, xx = np.mgrid[-reach:reach + 1, -reach:reach + 1]
    near = np.hypot(xx, yy) <= within
    for a in (yy, xx, near):
        a.setflags(write=False)
    return yy, xx, near


def _own_centre(cmap: ClassMap, energy: str, near_mm: np.ndarray, angle: float, mm_to_px, px_to_mm,
                ppm: float) -> np.ndarray:
    """A whole tile's own centre: the centroid of its colour (rays bridged, holes filled) within its
    hexagon, re-centred twice (so colour of the table or a card beyond its edge does not count)."""
    mask = cmap.mask(energy)
    k = max(3, int(round(CLOSE_MM * ppm)) | 1)
    h, w = mask.shape
    centre = np.asarray(near_mm, dtype=np.float64)
    box, sub = None, None
    for _ in range(2):
        poly = mm_to_px(_hexagon_mm(centre, angle, 1.04))
        xs, ys = poly.T.tolist()  # (six corners: their bounds as Python numbers, the same floors and ceilings)
        x0, y0 = max(math.floor(min(xs)) - k, 0), max(math.floor(min(ys)) - k, 0)
        x1, y1 = min(math.ceil(max(xs)) + k + 1, w), min(math.ceil(max(ys)) + k + 1, h)
        if x1 <= x0 or y1 <= y0:
            break
        if box != (x0, y0, x1, y1):  # (re-centred by less than a pixel: the same window, bridged and filled once)
            box = (x0, y0, x1, y1)
            sub = fill_holes(cv2.morphologyEx(mask[y0:y1, x0:x1], cv2.MORPH_CLOSE, _disc(k)))
        inside = np.zeros(sub.shape, sub.dtype)
        cv2.fillConvexPoly(inside, np.round(poly - (x0, y0)).astype(np.int32), 1)
        inside &= sub  # (in place: the same 0/1 pixels as sub & inside)
        # The centroid as the mean of whole pixel coordinates (exact sums either way; no pixel list).
        m = cv2.moments(inside)  # (0/1: its binary moments, see _blob_centre)
        if m["m00"] == 0:
            break
        centre = px_to_mm(np.array([[m["m10"] / m["m00"] + x0, m["m01"] / m["m00"] + y0]]))[0]
    return centre
