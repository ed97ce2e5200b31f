// The table page: live state over server-sent events, changes with the PIN.
// Plain script, no framework, nothing from the internet: the page works offline on the table's network.
"use strict";

const LABELS = JSON.parse(document.getElementById("labels").textContent);
const GAMES = JSON.parse(document.getElementById("games").textContent);
const TC = (window.TC = { games: {}, state: null, version: 0 });
const $ = (id) => document.getElementById(id);

let lang = localStorage.getItem("tablecam.lang") || ((navigator.language || "en").startsWith("fr") ? "fr" : "en");

function t(key) { return (LABELS[lang] || LABELS.en)[key] || key; }
function tx(texts) { return texts ? texts[lang] || texts.en || "" : ""; }
function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}
TC.t = t; TC.tx = tx; TC.el = el; TC.esc = esc;

// ---- language and theme ------------------------------------------------------------------------
function applyLabels() {
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-label]").forEach((n) => { n.textContent = t(n.dataset.label); });
  $("btn-lang").textContent = t("language");
  $("btn-dark").textContent = t("dark");
  if (TC.state) render(TC.state, true);
}
$("btn-lang").addEventListener("click", () => {
  lang = lang === "fr" ? "en" : "fr";
  localStorage.setItem("tablecam.lang", lang);
  applyLabels();
});
function applyTheme() {
  const theme = localStorage.getItem("tablecam.theme");
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}
$("btn-dark").addEventListener("click", () => {
  const dark = document.documentElement.dataset.theme === "dark" ||
    (!document.documentElement.dataset.theme && matchMedia("(prefers-color-scheme: dark)").matches);
  localStorage.setItem("tablecam.theme", dark ? "light" : "dark");
  applyTheme();
});

// ---- changes need the PIN -----------------------------------------------------------------------
function askPin(message) {
  const dlg = $("dlg-pin");
  $("pin-input").value = "";
  $("pin-error").textContent = message || "";
  dlg.showModal();
  return new Promise((resolve) => {
    dlg.addEventListener("close", () => resolve(dlg.returnValue === "ok" ? $("pin-input").value.trim() : null), { once: true });
  });
}

// POSTs a change; asks for the PIN when none is stored or the stored one is refused.
// Returns [ok, message]: the new state is rendered here.
async function send(path, body) {
  let pin = localStorage.getItem("tablecam.pin");
  let message = "";
  for (let attempt = 0; attempt < 4; attempt++) {
    if (!pin) {
      pin = await askPin(message);
      if (pin === null) return [false, ""];
    }
    let resp;
    try {
      resp = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json", "X-Tablecam-Pin": pin }, body: JSON.stringify(body) });
    } catch (e) {
      return [false, t("connection_lost")];
    }
    let data = {};
    try { data = await resp.json(); } catch (e) { /* an empty answer */ }
    if (resp.status === 401 || resp.status === 403) {
      localStorage.removeItem("tablecam.pin");
      pin = null;
      message = t("pin_wrong");
      continue;
    }
    if (!resp.ok) return [false, data.error || resp.statusText];
    localStorage.setItem("tablecam.pin", pin);
    if (data.version) render(data);
    return [true, ""];
  }
  return [false, t("pin_wrong")];
}
TC.send = send;

async function correction(kind, extra) {
  const [ok, message] = await send("/api/correction", Object.assign({ kind: kind }, extra || {}));
  if (!ok && message) flash(message);
  return ok;
}
TC.correction = correction;

function flash(message) {
  const b = $("banner");
  b.hidden = false;
  b.className = "banner warning";
  $("banner-text").textContent = message;
  $("btn-confirm").hidden = true;
}

// ---- new game -------------------------------------------------------------------------------------
function gameInfo(name) { return GAMES.find((g) => g.name === name) || GAMES[0]; }
function playerRow(i, name, colour, colours) {
  const select = el("select", { class: "colour", "aria-label": t("colour") },
    ...colours.map((c) => el("option", { value: c, selected: c === colour }, c)));
  return el("div", { class: "player-row" },
    el("input", { class: "name", value: name, maxlength: "24", "aria-label": t("name") }),
    select,
    el("button", { type: "button", class: "ghost", onclick: (e) => { e.target.closest(".player-row").remove(); } }, t("remove_player")));
}
function fillNewGame() {
  const info = gameInfo($("new-game").value);
  const box = $("new-players");
  box.replaceChildren();
  const current = TC.state && TC.state.players && TC.state.players.length ? TC.state.players : null;
  const count = current ? current.length : Math.max(2, info.min);
  for (let i = 0; i < count; i++) {
    const p = current ? current[i] : null;
    // A colour of another game's players is not offered here: fall back to this game's own.
    const colour = p && info.colours.includes(p.stone_colour) ? p.stone_colour : info.colours[i];
    box.append(playerRow(i, p ? p.name : `${t("player")} ${i + 1}`, colour, info.colours));
  }
}
$("btn-new").addEventListener("click", () => {
  $("new-error").textContent = "";
  fillNewGame();
  $("dlg-new").showModal();
});
$("new-game").addEventListener("change", fillNewGame);
$("btn-add-player").addEventListener("click", () => {
  const info = gameInfo($("new-game").value);
  const box = $("new-players");
  if (box.children.length >= info.max) return;
  const used = [...box.querySelectorAll(".colour")].map((s) => s.value);
  const free = info.colours.find((c) => !used.includes(c)) || info.colours[0];
  box.append(playerRow(box.children.length, `${t("player")} ${box.children.length + 1}`, free, info.colours));
});
$("btn-start").addEventListener("click", async (e) => {
  e.preventDefault();
  const players = [...$("new-players").querySelectorAll(".player-row")].map((row) => ({
    name: row.querySelector(".name").value, stone_colour: row.querySelector(".colour").value }));
  const [ok, message] = await send("/api/game", { game: $("new-game").value, players: players });
  if (ok) $("dlg-new").close("start");
  else $("new-error").textContent = message;
});

// ---- counts -------------------------------------------------------------------------------------
TC.openCounts = function () {
  const rows = $("counts-rows");
  rows.replaceChildren();
  (TC.state.players || []).forEach((p, i) => {
    rows.append(el("div", { class: "count-row", "data-player": i },
      el("span", { class: "who" }, p.name),
      el("label", {}, t("hand"), el("input", { type: "number", min: "0", max: "6", class: "hand", value: p.hand })),
      el("label", {}, t("reserve"), el("input", { type: "number", min: "0", max: "48", class: "reserve", value: p.reserve })),
      el("label", { class: "turn" }, el("input", { type: "radio", name: "to_move", value: i, checked: p.to_move }), t("to_move"))));
  });
  $("counts-error").textContent = "";
  $("dlg-counts").showModal();
};
$("btn-counts-save").addEventListener("click", async (e) => {
  e.preventDefault();
  const players = TC.state.players || [];
  for (const row of $("counts-rows").querySelectorAll(".count-row")) {
    const i = Number(row.dataset.player);
    const hand = Number(row.querySelector(".hand").value);
    const reserve = Number(row.querySelector(".reserve").value);
    if (hand !== players[i].hand || reserve !== players[i].reserve) {
      const [ok, message] = await send("/api/correction", { kind: "counts", player: i, hand: hand, reserve: reserve });
      if (!ok) { $("counts-error").textContent = message; return; }
    }
  }
  const turn = $("counts-rows").querySelector("input[name=to_move]:checked");
  if (turn && !players[Number(turn.value)].to_move) {
    const [ok, message] = await send("/api/correction", { kind: "turn", player: Number(turn.value) });
    if (!ok) { $("counts-error").textContent = message; return; }
  }
  $("dlg-counts").close("save");
});

$("btn-confirm").addEventListener("click", () => correction("accept"));

// ---- drawing the state -------------------------------------------------------------------------
function renderLive(live) {
  const phase = $("phase");
  phase.hidden = !(TC.state && TC.state.game);  // no game: nothing is being followed
  phase.dataset.phase = live.phase || "waiting";
  phase.textContent = t("phase_" + (live.phase || "waiting"));
  const cam = $("camera");
  cam.textContent = tx(live.reader_error) || tx((live.camera || {}).text);
  cam.classList.toggle("bad", !(live.camera || {}).ok || !!live.reader_error);
  $("table-warnings").textContent = (live.table_warnings || []).join(" · ");
  if (live.size) $("overlay").setAttribute("viewBox", `0 0 ${live.size[0]} ${live.size[1]}`);
}

function render(s, again) {
  if (!again && s.version < TC.version) return;
  TC.state = s;
  TC.version = s.version;
  renderLive(s.live || {});
  const firstRun = $("first-run");
  if (firstRun && !s.first_run_pin) firstRun.hidden = true;

  const game = s.game ? TC.games[s.game] : null;
  $("no-game").hidden = !!s.game;
  const banner = $("banner");
  if (s.banner) {
    banner.hidden = false;
    banner.className = "banner " + s.banner.level;
    $("banner-text").textContent = tx(s.banner.text);
    $("btn-confirm").hidden = !s.banner.confirm;
  } else {
    banner.hidden = true;
  }
  $("todo").textContent = tx(s.todo);

  const players = $("players");
  players.replaceChildren(...(s.players || []).map((p, i) => el("div",
    { class: "card player" + (p.to_move ? " to-move" : ""), "data-player": i },
    el("span", { class: "dot", style: `background:${p.stone_colour}` }),
    el("span", { class: "who" }, p.name),
    el("span", { class: "score", title: t("score") }, String(p.score)),
    game ? game.playerDetails(p, s) : null)));
  $("core").textContent = s.core_left !== undefined && s.game ? `${t("core_left")}: ${s.core_left}` : "";
  $("actions").replaceChildren(...(game && !s.over ? game.actions(s) : []));

  const ranking = $("ranking");
  const final = s.final && s.final.ranking;
  ranking.hidden = !final;
  if (final) {
    $("ranking-list").replaceChildren(...final.map((r) => el("li", {},
      el("span", { class: "dot", style: `background:${r.stone_colour}` }), `${r.name} `, el("strong", {}, String(r.score)))));
  }

  $("history").replaceChildren(...(s.history || []).map((h) => el("li", { class: `${h.level}${h.undone ? " undone" : ""}` },
    el("time", {}, new Date(h.at * 1000).toLocaleTimeString(lang)), " ",
    el("span", { class: "text" }, tx(h.text)),
    h.undone ? el("em", {}, ` (${t("undone")})`) : null,
    h.undoable && !h.undone ? el("button", { type: "button", class: "ghost undo", "data-id": h.id,
      onclick: async () => { const [ok, m] = await send("/api/undo", { id: h.id }); if (!ok && m) flash(m); } }, t("undo")) : null)));

  const svg = $("overlay");
  svg.replaceChildren();
  if (game && s.board) game.overlay(svg, s);
  applyZoom(game && game.focus && s.board ? game.focus(s) : null);
}

// ---- zoom onto the board -------------------------------------------------------------------------
// The camera sees the whole table; the board may be a small part of it. A game that says where its
// pieces are (focus: [x0, y0, x1, y1] in 0..1 of the picture) is shown zoomed onto them, with the
// picture's own proportions; one tap shows the whole table again.
let zoomWanted = localStorage.getItem("tablecam.zoom") !== "table";
let zoomBox = null;
function applyZoom(box) {
  zoomBox = box;
  const button = $("btn-zoom");
  button.hidden = !box;
  button.textContent = t(zoomWanted ? "zoom_table" : "zoom_board");
  const zoom = $("zoom");
  if (!box || !zoomWanted) { zoom.style.transform = ""; return; }
  const [x0, y0, x1, y1] = box;
  // One scale for both axes keeps the picture's shape, so the view shows the same share of its
  // width and of its height: enough for the board both ways, never closer than a third.
  const side = Math.min(1, Math.max(x1 - x0, y1 - y0, 1 / 3));
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  const left = Math.min(Math.max(cx - side / 2, 0), 1 - side);
  const top = Math.min(Math.max(cy - side / 2, 0), 1 - side);
  zoom.style.transform = `scale(${(1 / side).toFixed(4)}) translate(${(-left * 100).toFixed(3)}%, ${(-top * 100).toFixed(3)}%)`;
}
$("btn-zoom").addEventListener("click", () => {
  zoomWanted = !zoomWanted;
  localStorage.setItem("tablecam.zoom", zoomWanted ? "board" : "table");
  applyZoom(zoomBox);
});
TC.render = render;

// ---- live updates --------------------------------------------------------------------------------
function connect() {
  const source = new EventSource("/api/events");
  source.addEventListener("state", (e) => { $("offline").hidden = true; render(JSON.parse(e.data)); });
  // Only the live figures changed (phase, camera, frame rate): the rest of the page stays as it is.
  source.addEventListener("live", (e) => {
    const u = JSON.parse(e.data);
    if (!TC.state || u.version < TC.version) return;
    TC.version = u.version;
    TC.state.live = u.live;
    renderLive(u.live);
  });
  source.addEventListener("open", () => { $("offline").hidden = true; });
  source.addEventListener("error", () => {
    $("offline").hidden = false;
    // The browser retries a dropped connection itself, but gives up on an answer such as 503
    // (too many viewers): try again a little later rather than stay offline for good.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
  });
}

applyTheme();
applyLabels();
// The games' scripts come after this one: the first state is asked for once they have all run, or a
// state that arrived first would be drawn without its game's part (no hand or reserve counts) until
// the next change.
document.addEventListener("DOMContentLoaded", () => {
  fetch("/api/state").then((r) => r.json()).then((s) => render(s)).catch(() => { $("offline").hidden = false; });
  connect();
});
// The MJPEG stream never ends loading: start it after the page's load so "load" still fires.
window.addEventListener("load", () => { $("live").src = "/stream.mjpg"; });
// Until the first picture arrives the frame says so (a black box looks broken).
$("live").addEventListener("load", () => { $("picture-wait").hidden = true; }, { once: true });
