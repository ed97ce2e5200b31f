"""Remake docs/renders.png: every game rendered with random nuisances, whole view and a 100% crop.

    .venv/bin/python bench/contact_sheet.py [--seed N] [--out docs/renders.png]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablecam.simulator import GAMES, render_random  # noqa: E402

CELL = (480, 360)


def crop_around_pieces(image: np.ndarray, truth: dict, size: tuple[int, int]) -> np.ndarray:
    """A native-resolution crop centred on the pieces, to show the detail a detector gets."""
    px = truth["pixels"]
    # The main piece group of each game: the board, the hex layout, the tiles, the shutter row.
    if "board" in px:
        pts = px["board"]
    elif "shutter_row" in px:
        pts = px["shutter_row"]
    else:
        pts = [p["center_px"] for key in ("tiles", "hexes") for p in px.get(key, []) if p["in_view"]]
    h, w = image.shape[:2]
    cx, cy = np.median(np.asarray(pts), axis=0) if pts else (w / 2, h / 2)
    x0 = int(np.clip(cx - size[0] / 2, 0, w - size[0]))
    y0 = int(np.clip(cy - size[1] / 2, 0, h - size[1]))
    return image[y0:y0 + size[1], x0:x0 + size[0]]


def label(img: np.ndarray, text: str) -> np.ndarray:
    out = img.copy()
    cv2.rectangle(out, (0, 0), (len(text) * 11 + 12, 24), (0, 0, 0), -1)
    cv2.putText(out, text, (6, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs" / "renders.png"))
    args = ap.parse_args()
    columns = []
    for k, game in enumerate(GAMES):
        shot = render_random(game, args.seed + k, (2028, 1520), nuisances=True)
        whole = cv2.resize(shot.image, CELL, interpolation=cv2.INTER_AREA)
        crop = crop_around_pieces(shot.image, shot.truth, CELL)
        columns.append(np.vstack([label(whole, f"{game}, seed {args.seed + k}, 2028x1520"),
                                  label(crop, f"{game}: 100% crop")]))
    sheet = np.hstack([np.pad(c, ((0, 0), (0, 4), (0, 0)), constant_values=255) for c in columns])[:, :-4]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(args.out, sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print(f"wrote {args.out} ({sheet.shape[1]}x{sheet.shape[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
