// President web app: plain JavaScript, no build step, nothing fetched but this server's /api.
"use strict";

const RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"];
const SUITS = ["\u2663", "\u2666", "\u2665", "\u2660"];
const JOKER = 52;
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ helpers
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function cardName(c) {
  return c === JOKER ? "JK" : RANKS[Math.floor(c / 4)] + "cdhs"[c % 4];
}

function cardEl(c, opts = {}) {
  const joker = c === JOKER;
  const red = !joker && (c % 4 === 1 || c % 4 === 2);
  const cls = ["card", red ? "red" : "", joker ? "joker" : "", opts.small ? "small" : "",
    opts.selected ? "selected" : "", opts.fresh ? "new" : ""].join(" ").trim();
  const rank = joker ? "JK" : RANKS[Math.floor(c / 4)];
  const suit = joker ? "\u2605" : SUITS[c % 4];
  const tag = opts.onclick ? "button" : "div";
  const attrs = { class: cls, "data-card": String(c), title: cardName(c) };
  if (opts.onclick) { attrs.type = "button"; attrs.onclick = opts.onclick; attrs.disabled = !!opts.disabled; }
  if (opts.index !== undefined) attrs["data-index"] = String(opts.index);
  return el(tag, attrs, el("span", { class: "corner", text: rank }), el("span", { class: "suit", text: suit }));
}

const ordinal = (n) => n + (["th", "st", "nd", "rd"][(n % 100 > 10 && n % 100 < 14) ? 0 : Math.min(n % 10, 4) % 4] || "th");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function showError(message) {
  $("error-text").textContent = message;
  $("error").hidden = false;
}
function clearError() { $("error").hidden = true; $("error-text").textContent = ""; }

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let res;
  try { res = await fetch(path, opts); } catch (e) { throw new Error("the server cannot be reached: " + e.message); }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) throw new Error((data && data.error) || `HTTP ${res.status}`);
  return data;
}

// ------------------------------------------------------------------ play: state
const play = {
  game: null,        // the last full view from the server
  shown: null,       // the snapshot on screen
  selected: new Set(), // indices into shown.hand
  busy: false,
  skip: false,
  options: null,
};
window.president = play; // for tests and the curious

function seatName(view, s) {
  const who = view.spec.seats[s];
  return s === view.spec.human ? "You" : `${who[0].toUpperCase()}${who.slice(1)} (seat ${s})`;
}

function renderSeat(view, snap, s, isMe) {
  const st = snap.seats[s];
  const over = snap.phase === "over";
  const classes = ["seat", snap.current === s && !over ? "to-act" : "", st.place >= 0 && !over ? "out" : ""];
  const backs = el("div", { class: "backs" });
  if (!isMe) for (let i = 0; i < Math.min(st.left, 20); i++) backs.append(el("span", { class: "back" }));
  const facts = [`${st.left} card${st.left === 1 ? "" : "s"}`, `score ${st.score}`];
  if (st.place >= 0 && !over) facts.push(`out ${ordinal(st.place + 1)}`);
  if (st.returns > 0) facts.push(`returns ${st.returns}`);
  return el("div", { class: classes.join(" "), "data-seat": String(s) },
    el("div", { class: "who", text: seatName(view, s) }),
    el("div", { class: "title", text: st.title === "-" ? "\u00a0" : st.title }),
    isMe ? null : backs,
    el("div", { class: "facts", text: facts.join(" \u00b7 ") }),
    el("div", { class: "said", text: st.passed && !st.said ? "pass" : st.said }));
}

function renderPile(target, snap, nameOf) {
  target.replaceChildren();
  if (!snap.pile) { target.append(el("span", { class: "empty", text: "empty pile" })); return; }
  for (const c of snap.pile.cards) target.append(cardEl(c));
  target.append(el("span", { class: "by", text: `by ${nameOf(snap.pile.by)}` }));
}

function renderInfo(view, snap) {
  const info = $("info");
  info.replaceChildren(
    el("span", { class: "badge", text: `${view.preset || "custom"} \u00b7 ${view.spec.seats.length} players` }),
    el("span", { class: "badge", text: `deal ${snap.deal + 1} of ${view.deals}` }),
    el("span", { class: "badge", text: snap.phase }));
  if (snap.revolution) info.append(el("span", { class: "badge revolution", id: "revolution", text: "REVOLUTION \u2014 order reversed" }));
  if (view.exchange && (view.exchange.gave.length || view.exchange.received.length) && snap.deal > 0) {
    info.append(el("span", { class: "badge", text: `exchange: gave ${view.exchange.gave.map(cardName).join(" ") || "-"}, received ${view.exchange.received.map(cardName).join(" ") || "-"}` }));
  }
}

function renderSnapshot(view, snap, interactive) {
  play.shown = snap;
  renderInfo(view, snap);
  const seats = $("seats");
  seats.replaceChildren();
  const p = snap.seats.length, me = view.spec.human;
  for (let k = 1; k < p; k++) seats.append(renderSeat(view, snap, (me + k) % p, false));
  $("me-seat").replaceChildren(renderSeat(view, snap, me, true));
  renderPile($("pile"), snap, (s) => seatName(view, s));
  const hand = $("hand");
  hand.replaceChildren();
  const fresh = new Set(view.exchange ? view.exchange.received : []);
  snap.hand.forEach((c, i) => hand.append(cardEl(c, {
    index: i, selected: play.selected.has(i), fresh: interactive && snap.phase !== "over" && snap.deal > 0 && fresh.has(c),
    onclick: () => toggleCard(i), disabled: !interactive,
  })));
  let status = "";
  if (snap.phase === "over") status = "Game over";
  else if (snap.current === me) status = snap.phase === "exchange" ? "Your turn: return a card" : "Your turn";
  else status = `${seatName(view, snap.current)} to play\u2026`;
  $("status").textContent = status;
}

// ------------------------------------------------------------------ play: selection
function selectionKeys() {
  const cards = [...play.selected].sort((a, b) => a - b).map((i) => play.shown.hand[i]).sort((a, b) => a - b);
  return {
    card: cards.join(","),
    rank: cards.map((c) => Math.min(Math.floor(c / 4), 13)).sort((a, b) => a - b).join(","),
    n: cards.length,
  };
}

function matchingActions() {
  const g = play.game;
  if (!g || play.busy || !play.selected.size) return [];
  const keys = selectionKeys();
  return g.legal.filter((a) => a.id !== 0 && a.key === keys[a.match]);
}

function toggleCard(i) {
  if (play.busy || !isMyTurn()) return;
  if (play.selected.has(i)) play.selected.delete(i); else play.selected.add(i);
  for (const b of $("hand").querySelectorAll(".card")) b.classList.toggle("selected", play.selected.has(Number(b.dataset.index)));
  renderControls();
}

function isMyTurn() {
  const g = play.game;
  return !!g && g.state.phase !== "over" && g.state.current === g.spec.human && g.legal.length > 0;
}

function renderControls() {
  const g = play.game;
  const mine = isMyTurn() && !play.busy;
  const matches = mine ? matchingActions() : [];
  const box = $("matches");
  box.replaceChildren();
  for (const a of matches) {
    box.append(el("button", { type: "button", class: "play", "data-action": String(a.id),
      text: `${a.name.startsWith("give") ? "" : "Play "}${a.name} (${a.cards.map(cardName).join(" ")})`,
      onclick: () => sendMove(a.id) }));
  }
  if (mine && !matches.length) {
    box.append(el("button", { type: "button", class: "play", id: "play-selected", disabled: true, text: "Play" }));
  }
  const canPass = mine && g.legal.some((a) => a.id === 0);
  $("pass").disabled = !canPass;
  $("clear").disabled = !mine || !play.selected.size;
  let hint = "";
  if (mine && play.selected.size && !matches.length) hint = "not a legal play \u2014 change the selection";
  else if (mine && g.state.phase === "exchange" && g.legal.length && g.legal[0].name.startsWith("ask ")) hint = "name a card the Bum must give you (on the right)";
  else if (mine && g.state.phase === "exchange") hint = `select a card to return (${g.state.seats[g.spec.human].returns} left)`;
  else if (mine && !play.selected.size) hint = "select cards, or pick a play on the right";
  $("hint").textContent = hint;
  const legal = $("legal");
  legal.replaceChildren();
  if (!mine) legal.append(el("span", { class: "none", text: g && g.state.phase === "over" ? "the game is over" : "waiting\u2026" }));
  else for (const a of g.legal) legal.append(el("button", { type: "button", "data-action": String(a.id), text: a.name, onclick: () => sendMove(a.id) }));
}

// ------------------------------------------------------------------ play: log, results, final
function logEvent(view, ev) {
  const mine = ev.seat === view.spec.human;
  const cards = ev.cards.length ? ` (${ev.cards.map(cardName).join(" ")})` : "";
  $("log").append(el("li", { class: mine ? "mine" : "", text: `${seatName(view, ev.seat)}: ${ev.name}${cards}` }));
  if (ev.deal_over) {
    const order = ev.deal_over.places.map((pl, s) => [pl, s]).sort((a, b) => a[0] - b[0]).map(([pl, s]) => `${ordinal(pl + 1)} ${seatName(view, s)}`);
    $("log").append(el("li", { class: "deal", text: `Deal ${ev.deal_over.deal + 1} over: ${order.join(", ")}` }));
  }
  const log = $("log");
  log.scrollTop = log.scrollHeight;
}

function renderResults(view) {
  const box = $("results");
  box.replaceChildren();
  const p = view.spec.seats.length;
  const head = el("tr", {}, el("th", { text: "deal" }));
  for (let s = 0; s < p; s++) head.append(el("th", { text: s === view.spec.human ? "you" : `s${s}` }));
  const table = el("table", { class: "scores" }, head);
  for (const r of view.results) {
    const row = el("tr", {}, el("td", { text: String(r.deal + 1) }));
    for (let s = 0; s < p; s++) row.append(el("td", { text: `${ordinal(r.places[s] + 1)} \u00b7 ${r.scores[s]}` }));
    table.append(row);
  }
  if (!view.results.length) box.append(el("span", { class: "muted", text: "no deal finished yet" }));
  else box.append(table);
}

function renderFinal(view) {
  const box = $("final");
  if (!view.final) { box.hidden = true; box.replaceChildren(); return; }
  const rows = view.final.standings.map((pl, s) => [pl, s]).sort((a, b) => a[0] - b[0]);
  const table = el("table", { id: "final-places" }, el("tr", {}, el("th", { text: "place" }), el("th", { text: "player" }), el("th", { text: "score" }), el("th", { text: "last deal" })));
  for (const [pl, s] of rows) {
    table.append(el("tr", { class: s === view.spec.human ? "you" : "", "data-seat": String(s), "data-place": String(pl) },
      el("td", { text: ordinal(pl + 1) }), el("td", { text: seatName(view, s) }),
      el("td", { text: String(view.final.scores[s]) }), el("td", { text: view.state.seats[s].title })));
  }
  const mine = view.final.standings[view.spec.human] + 1;
  box.replaceChildren(el("h2", { text: `Game over \u2014 you finished ${ordinal(mine)}` }), table,
    el("p", {}, el("button", { type: "button", class: "primary", text: "Rematch (seats rotated)", onclick: rematch }), " ",
      el("button", { type: "button", text: "Close", onclick: () => { box.hidden = true; } })));
  box.hidden = false;
}

// ------------------------------------------------------------------ play: server round trips
function setBusy(busy) {
  play.busy = busy;
  document.body.dataset.busy = busy ? "1" : "0";
}

async function showGame(view, fresh) {
  setBusy(true);
  play.skip = false;
  play.selected.clear();
  $("skip").disabled = false;
  if (fresh) { $("log").replaceChildren(); $("final").hidden = true; }
  renderControls();
  for (const ev of view.events) {
    logEvent(view, ev);
    if (play.skip || ev.seat === view.spec.human) continue;
    renderSnapshot(view, ev.view, false);
    const delay = Number($("speed").value);
    if (delay > 0) await sleep(delay);
  }
  play.game = view;
  setBusy(false);
  $("skip").disabled = true;
  $("rematch").disabled = view.state.phase !== "over";
  sessionStorage.setItem("president.game", view.id);
  renderSnapshot(view, view.state, isMyTurn());
  renderControls();
  renderResults(view);
  renderFinal(view);
  document.body.dataset.ply = String(view.ply);
  document.body.dataset.phase = view.state.phase;
}

async function sendMove(action) {
  const g = play.game;
  if (!g || play.busy) return;
  setBusy(true);
  renderControls();
  try {
    const view = await api("POST", `/api/games/${g.id}/move`, { action, ply: g.ply });
    clearError();
    await showGame(view, false);
  } catch (e) {
    showError(`Move refused: ${e.message}`);
    setBusy(false);
    renderSnapshot(g, g.state, isMyTurn());
    renderControls();
  }
}

async function newGame(ev) {
  if (ev) ev.preventDefault();
  const n = Number($("f-players").value);
  const opponents = [...$("f-opponents").querySelectorAll("select")].map((s) => s.value);
  const body = { preset: $("f-preset").value, players: n, deals: Number($("f-deals").value),
    seat: Number($("f-seat").value), opponents };
  if ($("f-seed").value !== "") body.seed = Number($("f-seed").value);
  try {
    const view = await api("POST", "/api/games", body);
    clearError();
    await showGame(view, true);
  } catch (e) { showError(`New game refused: ${e.message}`); }
}

async function rematch() {
  const g = play.game;
  if (!g || play.busy) return;
  try {
    const view = await api("POST", `/api/games/${g.id}/rematch`);
    clearError();
    await showGame(view, true);
  } catch (e) { showError(`Rematch refused: ${e.message}`); }
}

function renderOpponentChoices() {
  const n = Math.max(3, Math.min(8, Number($("f-players").value) || 4));
  const seat = Math.max(0, Math.min(n - 1, Number($("f-seat").value) || 0));
  const box = $("f-opponents");
  const before = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  let k = 0;
  for (let s = 0; s < n; s++) {
    if (s === seat) continue;
    const sel = el("select", { "data-seat": String(s) });
    for (const a of play.options.agents) sel.append(el("option", { value: a, text: a }));
    sel.value = before[k] || "hard";
    k += 1;
    box.append(el("label", {}, `Seat ${s}`, sel));
  }
}

// ------------------------------------------------------------------ replay
const replay = { data: null, index: 0 };
window.presidentReplay = replay;

function renderFrame() {
  const data = replay.data;
  if (!data) return;
  const f = data.frames[replay.index];
  const last = data.frames.length - 1;
  $("r-slider").max = String(last);
  $("r-slider").value = String(replay.index);
  $("r-step").textContent = `step ${replay.index} of ${last}`;
  $("r-step").dataset.index = String(replay.index);
  const nameOf = (s) => {
    const who = data.players[s];
    return who && who !== `seat ${s}` ? `seat ${s} (${who})` : `seat ${s}`;
  };
  const move = f.move;
  const mv = $("r-move");
  mv.replaceChildren();
  if (!move) mv.append(`Deal ${f.deal + 1}: the hands as dealt`);
  else mv.append(`${nameOf(move.seat)}: ${move.name}${move.cards.length ? " (" + move.cards.map(cardName).join(" ") + ")" : ""}`);
  if (f.deal_over) mv.append(el("div", { text: "Deal over: " + f.deal_over.places.map((pl, s) => [pl, s]).sort((a, b) => a[0] - b[0]).map(([pl, s]) => `${ordinal(pl + 1)} ${nameOf(s)}`).join(", ") }));
  if (f.revolution) mv.append(el("div", {}, el("span", { class: "badge revolution", text: "REVOLUTION" })));
  renderPile($("r-pile"), f, nameOf);
  if (!f.pile && move && move.cards.length && move.name.indexOf("give") !== 0) {
    $("r-pile").replaceChildren(...move.cards.map((c) => cardEl(c)), el("span", { class: "by", text: "cleared the pile" }));
  }
  const seats = $("r-seats");
  seats.replaceChildren();
  f.seats.forEach((st, s) => {
    const hand = el("div", { class: "hand" });
    for (const c of st.hand) hand.append(cardEl(c, { small: true }));
    const top = el("div", { class: "top" });
    if (move && move.seat === s && move.top.length) {
      top.append(el("div", { class: "muted-light", text: "policy's top actions:" }));
      for (const t of move.top) top.append(el("div", {}, el("span", { class: "bar", style: `width:${Math.round(t.p * 80)}px` }), `${t.name} ${(t.p * 100).toFixed(1)}%`));
    }
    const facts = [`${st.left} cards`, `score ${st.score}`];
    if (st.place >= 0) facts.push(`out ${ordinal(st.place + 1)}`);
    seats.append(el("div", { class: `seat${f.current === s ? " to-act" : ""}`, "data-seat": String(s) },
      el("div", { class: "who", text: `${nameOf(s)}${st.title !== "-" ? " \u00b7 " + st.title : ""}` }),
      el("div", { class: "facts", text: facts.join(" \u00b7 ") }),
      el("div", { class: "said", text: st.said }), hand, top));
  });
}

function stepTo(i) {
  if (!replay.data) return;
  replay.index = Math.max(0, Math.min(replay.data.frames.length - 1, i));
  renderFrame();
}

async function openReplay(promise) {
  try {
    replay.data = await promise;
    replay.index = 0;
    clearError();
    $("r-source").textContent = `${replay.data.source}: ${replay.data.frames.length - 1} moves`;
    renderFrame();
  } catch (e) { showError(`Record refused: ${e.message}`); }
}

function switchTab(name) {
  $("play-view").hidden = name !== "play";
  $("replay-view").hidden = name !== "replay";
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-replay").classList.toggle("active", name === "replay");
}

// ------------------------------------------------------------------ start
async function init() {
  $("error-close").onclick = clearError;
  $("tab-play").onclick = () => switchTab("play");
  $("tab-replay").onclick = () => switchTab("replay");
  $("new-game").addEventListener("submit", newGame);
  $("rematch").onclick = rematch;
  $("pass").onclick = () => sendMove(0);
  $("clear").onclick = () => { play.selected.clear(); renderSnapshot(play.game, play.game.state, isMyTurn()); renderControls(); };
  $("skip").onclick = () => { play.skip = true; };
  const speedText = () => { $("speed-text").textContent = `${$("speed").value} ms per move`; };
  $("speed").oninput = speedText;
  speedText();
  $("f-players").oninput = renderOpponentChoices;
  $("f-seat").oninput = renderOpponentChoices;
  $("r-first").onclick = () => stepTo(0);
  $("r-prev").onclick = () => stepTo(replay.index - 1);
  $("r-next").onclick = () => stepTo(replay.index + 1);
  $("r-last").onclick = () => stepTo(Infinity);
  $("r-slider").oninput = () => stepTo(Number($("r-slider").value));
  $("r-open").onclick = () => {
    const name = $("r-list").value;
    if (name) openReplay(api("GET", `/api/records/${encodeURIComponent(name)}`));
  };
  $("r-file").onchange = async () => {
    const file = $("r-file").files[0];
    if (file) openReplay(api("POST", "/api/replays", await file.text()));
  };
  document.addEventListener("keydown", (e) => {
    if ($("replay-view").hidden) return;
    if (e.key === "ArrowRight") stepTo(replay.index + 1);
    if (e.key === "ArrowLeft") stepTo(replay.index - 1);
  });
  try {
    play.options = await api("GET", "/api/options");
  } catch (e) { showError(e.message); return; }
  for (const p of play.options.presets) $("f-preset").append(el("option", { value: p.name, text: `${p.name} (${p.players[0]}-${p.players[1]})` }));
  for (const r of play.options.records) $("r-list").append(el("option", { value: r, text: r }));
  renderOpponentChoices();
  const id = sessionStorage.getItem("president.game");
  if (id) {
    try { await showGame(await api("GET", `/api/games/${id}`), true); }
    catch (e) { sessionStorage.removeItem("president.game"); showError(`Your last game is gone: ${e.message}`); }
  }
  if (!play.game) $("status").textContent = "Choose the table and press New game";
  document.body.dataset.ready = "1";
}

init();
