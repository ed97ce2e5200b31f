// micropul's part of the page: hand and reserve counts, the reserve tap, and the board drawn over
// the live picture (open groups outlined, closed groups filled in their owner's colour, the groups
// the last tile closed marked with their worth).
"use strict";
(function () {
  const { t, el } = window.TC;
  const NS = "http://www.w3.org/2000/svg";
  const MICROPUL = { W: "#f4f4f4", B: "#111111" };

  function svg(tag, attrs, text) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function points(poly, w, h) { return poly.map(([x, y]) => `${(x * w).toFixed(1)},${(y * h).toFixed(1)}`).join(" "); }

  window.TC.games.micropul = {
    playerDetails(p) {
      return el("span", { class: "details" },
        el("span", { class: "count", "data-count": "hand" }, `${t("hand")} ${p.hand}`),
        el("span", { class: "count", "data-count": "reserve" }, `${t("reserve")} ${p.reserve}`),
        el("span", { class: "count", "data-count": "stones" }, `${t("stones_left")} ${p.stones_left}`));
    },

    actions(s) {
      return [
        el("button", { type: "button", id: "btn-reserve", class: "primary", onclick: () => window.TC.correction("reserve") }, t("took_reserve")),
        el("button", { type: "button", id: "btn-counts", class: "ghost", onclick: () => window.TC.openCounts() }, t("correct_counts")),
        el("button", { type: "button", id: "btn-finish", class: "ghost danger", onclick: () => window.TC.correction("finish") }, t("end_game")),
      ];
    },

    // Where the board is in the picture (0..1), with a tile and a half around it for the next tile.
    focus(s) {
      const tiles = (s.board && s.board.tiles) || [];
      const xs = [], ys = [];
      for (const tile of tiles) for (const [x, y] of tile.poly) { xs.push(x); ys.push(y); }
      if (!xs.length) return null;
      const [w, h] = (s.live && s.live.size) || [1014, 760];
      const tilePx = Math.max(...tiles.map((tile) => Math.hypot((tile.poly[1][0] - tile.poly[0][0]) * w,
                                                               (tile.poly[1][1] - tile.poly[0][1]) * h)));
      const mx = (1.5 * tilePx) / w, my = (1.5 * tilePx) / h;
      return [Math.max(0, Math.min(...xs) - mx), Math.max(0, Math.min(...ys) - my),
              Math.min(1, Math.max(...xs) + mx), Math.min(1, Math.max(...ys) + my)];
    },

    overlay(root, s) {
      const size = (s.live && s.live.size) || [1014, 760];
      const [w, h] = size;
      const unit = w / 200; // stroke widths follow the picture's size
      for (const tile of s.board.tiles || []) {
        root.append(svg("polygon", { points: points(tile.poly, w, h), class: tile.illegal ? "tile illegal" : "tile",
          "stroke-width": (tile.illegal ? 1.2 : 0.4) * unit }));
      }
      for (const g of s.board.groups || []) {
        const cls = ["group", g.closed ? "closed" : "open", g.just_closed ? "just" : ""].join(" ");
        const fill = g.closed ? (g.owner || "#888") : "none";
        for (const poly of g.polys) {
          root.append(svg("polygon", { points: points(poly, w, h), class: cls, fill: fill,
            stroke: g.just_closed ? "#ffd400" : MICROPUL[g.colour], "stroke-width": (g.just_closed ? 0.9 : 0.45) * unit }));
        }
        if (g.closed || g.owner) {
          const [x, y] = g.label;
          const label = g.closed ? `${g.points}` : "";
          if (label) {
            root.append(svg("text", { x: (x * w).toFixed(1), y: (y * h).toFixed(1), class: "worth" + (g.just_closed ? " just" : ""),
              "font-size": 4 * unit, "text-anchor": "middle", "dominant-baseline": "central" }, label));
          }
        }
        if (g.owner && !g.closed) {
          const [x, y] = g.label;
          root.append(svg("circle", { cx: (x * w).toFixed(1), cy: (y * h).toFixed(1), r: 1.2 * unit, fill: g.owner, class: "owner" }));
        }
      }
    },
  };
})();
