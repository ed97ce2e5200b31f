// Enigmo's part of the page: the ten shutters (the ones the roll allows highlighted), the dice and
// the points at stake, and the taps the camera cannot see: the word found or missed (and red).
"use strict";
(function () {
  const { t, el } = window.TC;
  const NS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, text) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function shutters(x) {
    const allowed = new Set((x.options || []).flat());
    const row = el("div", { class: "shutters", id: "enigmo-shutters", style: "display:flex;gap:4px;width:100%" });
    (x.shutters || []).forEach((open, i) => {
      const label = i + 1;
      const style = "flex:1;min-height:48px;display:flex;align-items:center;justify-content:center;border-radius:8px;font-weight:800;"
        + (open ? "background:transparent;border:2px dashed var(--line);color:var(--muted);"
          : allowed.has(label) ? "background:#ffd400;color:#000;border:3px solid #000;" : "background:var(--card);border:2px solid var(--line);");
      row.append(el("span", { class: "shutter" + (open ? " open" : "") + (allowed.has(label) ? " allowed" : ""), "data-label-no": label, style: style }, String(label)));
    });
    return row;
  }

  function word(s, right) {
    const players = s.players || [];
    const who = el("select", { "aria-label": t("who") }, ...players.map((p, i) => el("option", { value: i }, p.name)));
    const red = el("input", { type: "checkbox", id: "enigmo-red" });
    const error = el("p", { class: "error" });
    const dlg = el("dialog", { id: "dlg-enigmo" });
    const ok = async () => {
      const [done, message] = await window.TC.send("/api/correction", { kind: "word", player: Number(who.value), right: right, red: red.checked });
      if (done) { dlg.close(); dlg.remove(); } else error.textContent = message;
    };
    dlg.append(el("h2", {}, t(right ? "enigmo_found" : "enigmo_missed")),
      el("label", {}, t("who"), who),
      el("label", { style: "flex-direction:row;align-items:center;gap:10px" }, red, t("enigmo_red")), error,
      el("div", { class: "row" },
        el("button", { type: "button", class: "ghost", onclick: () => { dlg.close(); dlg.remove(); } }, t("cancel")),
        el("button", { type: "button", class: "primary", id: "btn-enigmo-ok", onclick: ok }, t("save"))));
    document.body.append(dlg);
    dlg.showModal();
  }

  // Marking the shutter row: the players tap its four corners on the live picture (top-left,
  // then clockwise); the taps go to the server as fractions of the picture, which turns them
  // into table mm with the table lock it has. null when not marking.
  let marking = null;
  const $ = (id) => document.getElementById(id);

  function startMarking() {
    marking = { points: [], error: "" };
    if (window.TC.state) window.TC.render(window.TC.state, true);
  }

  async function tap(ev) {
    if (!marking || marking.busy) return;
    const rect = ev.currentTarget.getBoundingClientRect();
    if (!rect.width || !rect.height) return;
    marking.points.push([(ev.clientX - rect.left) / rect.width, (ev.clientY - rect.top) / rect.height]);
    marking.error = "";
    if (marking.points.length === 4) {
      marking.busy = true;
      window.TC.render(window.TC.state, true);
      const [ok, message] = await window.TC.send("/api/settings/shutter-row", { corners: marking.points });
      marking = ok ? { saved: true, points: [] } : { points: [], error: message || t("enigmo_tap_1") };
    }
    window.TC.render(window.TC.state, true);
  }
  // the page's scripts come after the picture, so it is there already
  if ($("live")) $("live").addEventListener("click", tap);

  function rowPrompt(x) {
    const out = [];
    if (marking && !marking.saved) {
      const n = Math.min(marking.points.length + 1, 4);
      out.push(el("p", { class: "todo", id: "enigmo-row-step", role: "status" },
        marking.busy ? "…" : t("enigmo_tap_" + n)));
      if (marking.error) out.push(el("p", { class: "error", id: "enigmo-row-error" }, marking.error));
      out.push(el("button", { type: "button", class: "ghost", onclick: () => { marking = null; window.TC.render(window.TC.state, true); } }, t("cancel")));
      return out;
    }
    const saved = !!(marking && marking.saved);
    if (saved) out.push(el("p", { class: "small", id: "enigmo-row-saved" }, t("enigmo_row_saved")));
    if (x.row_unmarked && !saved) out.push(el("p", { class: "todo", id: "enigmo-row-ask" }, t("enigmo_row_ask")));
    out.push(el("button", { type: "button", id: "btn-mark-row", class: x.row_unmarked && !saved ? "primary" : "ghost", onclick: startMarking }, t("enigmo_mark_row")));
    return out;
  }

  window.TC.games.enigmo = {
    playerDetails() { return null; },

    actions(s) {
      const x = s.enigmo || {};
      const dice = x.roll ? x.roll.join(" · ") : "—";
      return [
        ...rowPrompt(x),
        shutters(x),
        el("p", { class: "core", id: "enigmo-stake" },
          `${t("enigmo_at_stake")}: ${x.at_stake} (${t("enigmo_red")} ${x.at_stake_red}) · ${t("enigmo_dice")}: ${dice} · ${t("enigmo_round")} ${x.round}`),
        el("button", { type: "button", id: "btn-right", class: "primary", onclick: () => word(s, true) }, t("right")),
        el("button", { type: "button", id: "btn-wrong", class: "ghost", onclick: () => word(s, false) }, t("wrong")),
        el("button", { type: "button", id: "btn-finish", class: "ghost danger", onclick: () => window.TC.correction("finish") }, t("end_game")),
      ];
    },

    overlay(root, s) {
      const [w, h] = (s.live && s.live.size) || [1014, 760];
      const unit = w / 200;
      if (marking && !marking.saved && marking.points.length) {
        const pts = marking.points.map(([x, y]) => [x * w, y * h]);
        root.append(svg("polyline", { points: pts.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" "),
          fill: "none", stroke: "#00e5ff", "stroke-width": 0.5 * unit, class: "row-mark" }));
        for (const [x, y] of pts) root.append(svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 1.2 * unit, fill: "#00e5ff", class: "row-corner" }));
      }
      for (const d of s.board.dice || []) {
        root.append(svg("polygon", { points: d.poly.map(([x, y]) => `${(x * w).toFixed(1)},${(y * h).toFixed(1)}`).join(" "),
          fill: "none", stroke: "#ffd400", "stroke-width": 0.8 * unit, class: "die" }));
      }
    },
  };
})();
