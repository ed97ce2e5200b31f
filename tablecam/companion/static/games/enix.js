// ENIX's part of the page: each player's revealed total, place in the order and tile; the tiles the
// chosen pawn may reach with its total circled on the picture (with the cost), the tiles that may
// only turn dashed, the cap, the last tile action; the tap "I end the game" and the final scoring.
"use strict";
(function () {
  const { t, el } = window.TC;
  const NS = "http://www.w3.org/2000/svg";
  let chosen = null; // the pawn colour whose walks are drawn (tap a player to choose)

  function svg(tag, attrs, text) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function pawnShown(s) {
    const players = s.players || [];
    if (chosen && players.some((p) => p.stone_colour === chosen)) return chosen;
    const first = (s.enix && s.enix.order && s.enix.order[0]) || null;
    const p = players.find((q) => q.name === first) || players[0];
    return p ? p.stone_colour : null;
  }

  window.TC.games.enix = {
    playerDetails(p, s) {
      const mine = pawnShown(s) === p.stone_colour;
      return el("span", { class: "details" },
        el("span", { class: "count", "data-count": "total" }, `${t("enix_total")} ${p.total === null || p.total === undefined ? "—" : p.total}`),
        p.place ? el("span", { class: "count", "data-count": "place" }, `#${p.place}`) : null,
        p.on ? el("span", { class: "count", "data-count": "on" }, `${t("enix_on")} ${p.on}`) : null,
        el("button", { type: "button", class: mine ? "primary walks" : "ghost walks", "data-colour": p.stone_colour,
          onclick: () => { chosen = p.stone_colour; window.TC.render(window.TC.state, true); } }, t("enix_walks_for")));
    },

    actions(s) {
      const x = s.enix || {};
      const out = [];
      if (x.last_layout) {
        out.push(el("p", { class: "core", id: "enix-last", style: x.last_layout.legal ? "" : "color:var(--warn);font-weight:700" },
          window.TC.tx(x.last_layout.text)));
      }
      out.push(el("p", { class: "core", id: "enix-order" },
        `${t("enix_order_label")}: ${(x.order || []).join(", ") || "—"} · ${t("enix_cap")}: ${x.cap || "—"}`
        + ((x.cut_tiles || []).length ? ` · ${x.cut_tiles.join(", ")}: ${t("enix_cut")}` : "")));
      if (!x.ended_by) {
        const who = el("select", { id: "enix-ender", "aria-label": t("who") }, ...(s.players || []).map((p, i) => el("option", { value: i }, p.name)));
        out.push(who, el("button", { type: "button", id: "btn-end", class: "ghost", onclick: () => window.TC.correction("end", { player: Number(who.value) }) }, t("enix_end")));
      }
      out.push(el("button", { type: "button", id: "btn-finish", class: x.ended_by ? "primary" : "ghost danger", onclick: () => window.TC.correction("finish") }, t("end_game")));
      return out;
    },

    overlay(root, s) {
      const [w, h] = (s.live && s.live.size) || [1014, 760];
      const unit = w / 200;
      const pawn = pawnShown(s);
      const pts = (poly) => poly.map(([x, y]) => `${(x * w).toFixed(1)},${(y * h).toFixed(1)}`).join(" ");
      for (const tile of s.board.tiles || []) {
        const cost = pawn && tile.reach ? tile.reach[pawn] : undefined;
        const reach = cost !== undefined;
        root.append(svg("polygon", { points: pts(tile.poly), class: "hex" + (reach ? " reachable" : "") + (tile.illegal ? " illegal" : ""),
          fill: reach ? pawn : "none", "fill-opacity": reach ? 0.3 : 0,
          stroke: tile.illegal ? "#ff1744" : reach ? "#ffd400" : "#00e5ff", "stroke-width": (reach || tile.illegal ? 1.0 : 0.4) * unit,
          "stroke-dasharray": tile.cut ? `${2 * unit} ${unit}` : "none" }));
        const [x, y] = tile.label;
        const label = [tile.cap ? t("enix_cap") : "", reach ? String(cost) : ""].filter(Boolean).join(" · ");
        if (label) {
          root.append(svg("text", { x: (x * w).toFixed(1), y: (y * h).toFixed(1), "font-size": 5 * unit, "text-anchor": "middle",
            "dominant-baseline": "central", fill: "#fff", stroke: "#000", "stroke-width": 0.6, "paint-order": "stroke", "font-weight": 800 }, label));
        }
      }
    },
  };
})();
