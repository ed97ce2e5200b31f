// Stixx's part of the page: sticks taken per player, the sticks that may be taken now highlighted on
// the picture (and the grey marker), and the two taps the camera cannot see: "I show my colour" and
// "I name a colour" (right or wrong).
"use strict";
(function () {
  const { t, el } = window.TC;
  const NS = "http://www.w3.org/2000/svg";
  const STICK = { red: "#e53935", orange: "#fb8c00", yellow: "#fdd835", green: "#43a047", blue: "#1e88e5", purple: "#8e24aa", grey: "#9e9e9e" };

  function svg(tag, attrs) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    return n;
  }

  // One dialog for both taps: who, which colour, (whose and right/wrong for a guess).
  function declare(s, guess) {
    const players = s.players || [];
    const who = el("select", { class: "who", "aria-label": t("who") },
      ...players.map((p, i) => el("option", { value: i, selected: p.to_move }, p.name)));
    const colour = el("select", { class: "colour", "aria-label": t("colour") }, ...(s.colours || []).map((c) => el("option", { value: c }, c)));
    const of = el("select", { class: "of", "aria-label": t("stixx_of") }, ...players.map((p, i) => el("option", { value: i }, p.name)));
    const error = el("p", { class: "error" });
    const dlg = el("dialog", { id: "dlg-stixx" });
    const send = async (extra) => {
      const body = Object.assign({ player: Number(who.value), colour: colour.value }, extra);
      const [ok, message] = await window.TC.send("/api/correction", Object.assign({ kind: guess ? "guess" : "reveal" }, body));
      if (ok) { dlg.close(); dlg.remove(); } else error.textContent = message;
    };
    const buttons = guess
      ? [el("button", { type: "button", class: "primary", id: "btn-stixx-right", onclick: () => send({ of: Number(of.value), right: true }) }, t("right")),
         el("button", { type: "button", class: "ghost danger", id: "btn-stixx-wrong", onclick: () => send({ of: Number(of.value), right: false }) }, t("wrong"))]
      : [el("button", { type: "button", class: "primary", id: "btn-stixx-ok", onclick: () => send({}) }, t("save"))];
    dlg.append(el("h2", {}, t(guess ? "stixx_guess" : "stixx_reveal")),
      el("label", {}, t("who"), who),
      guess ? el("label", {}, t("stixx_of"), of) : null,
      el("label", {}, t("colour"), colour), error,
      el("div", { class: "row" }, el("button", { type: "button", class: "ghost", onclick: () => { dlg.close(); dlg.remove(); } }, t("cancel")), ...buttons));
    document.body.append(dlg);
    dlg.showModal();
  }

  window.TC.games.stixx = {
    playerDetails(p) {
      return el("span", { class: "details" },
        el("span", { class: "count", "data-count": "taken" }, `${t("stixx_taken")} ${p.taken}`),
        p.colour ? el("span", { class: "count", "data-count": "own" },
          el("span", { class: "dot", style: `background:${STICK[p.colour] || p.colour}` }), ` ${t("stixx_own")} ${p.own}`) : null);
    },

    actions(s) {
      const x = s.stixx || {};
      const may = (x.options || []).length;
      return [
        el("p", { class: "core", id: "stixx-options" }, `${t("stixx_may_take")}: ${may ? x.options.join(", ") : "—"}`),
        el("button", { type: "button", id: "btn-reveal", class: "primary", onclick: () => declare(s, false) }, t("stixx_reveal")),
        el("button", { type: "button", id: "btn-guess", class: "ghost", onclick: () => declare(s, true) }, t("stixx_guess")),
        el("button", { type: "button", id: "btn-finish", class: "ghost danger", onclick: () => window.TC.correction("finish") }, t("end_game")),
      ];
    },

    overlay(root, s) {
      const [w, h] = (s.live && s.live.size) || [1014, 760];
      const unit = w / 200;
      const line = (seg, attrs) => root.append(svg("line", Object.assign({
        x1: (seg[0][0] * w).toFixed(1), y1: (seg[0][1] * h).toFixed(1), x2: (seg[1][0] * w).toFixed(1), y2: (seg[1][1] * h).toFixed(1),
        "stroke-linecap": "round" }, attrs)));
      for (const o of s.board.options || []) {
        // A wide yellow halo under the stick's own colour: visible on any stick.
        line(o.line, { stroke: "#ffd400", "stroke-width": 3.2 * unit, "stroke-opacity": 0.85, class: "may-take" });
        line(o.line, { stroke: STICK[o.colour] || "#fff", "stroke-width": 1.1 * unit });
      }
      if (s.board.marker) line(s.board.marker.line, { stroke: "#fff", "stroke-width": 1.4 * unit, "stroke-dasharray": `${2 * unit} ${unit}`, class: "marker" });
    },
  };
})();
