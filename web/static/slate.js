/* The slate: renders the table's public snapshot, and every new one the server pushes.
   Read from across the table: the current turn is the largest thing, the last result a
   card apart, the seats in seat order with their numbers, one mark for whose turn it is.
   After each render the page is fitted to the screen (fit): what does not fit the last
   result's card is left out with a word that it is, never cut off or shrunk past reading. */
"use strict";
(function () {
  const { die, markPhoto, follow, el } = window.Faces;
  const $ = (id) => document.getElementById(id);
  const title = $("game-title").textContent;
  const OK = ["ok", "ready", "connected", "running"];
  const INFO = ["demo", "off"];  // shown, but not as a problem
  const PHONE = 480;  // px wide and under: the page scrolls like any phone page
  const spikeFaces = ($("spike-key").dataset.faces || "").split(",").filter(Boolean);
  let shownPhoto = null;

  function show(node, on) { node.hidden = !on; }

  function scoreText(p, scoring) {
    if (scoring === "dice") return p.dice === null ? "–" : String(p.dice);
    const v = p.score;
    if (v === null || v === undefined) return "–";
    if (scoring === "winnings") return (v > 0 ? "+" : "") + v;
    return String(v);
  }

  function ordinal(n) {
    const tail = (n % 100 >= 11 && n % 100 <= 13) ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
    return n + tail;
  }

  /* Points games list the players best first: each seat's rank is where its score
     first appears in that order (equal scores share a rank). No rank while all are level. */
  function ranks(slate) {
    if (slate.scoring === "dice") return {};
    const scores = slate.players.map((p) => p.score);
    if (scores.every((s) => s === scores[0])) return {};
    const out = {};
    slate.players.forEach((p) => { out[p.seat] = scores.indexOf(p.score) + 1; });
    return out;
  }

  function renderPlayers(snap) {
    const slate = snap.slate;
    const list = $("players");
    const turn = new Set(snap.turn || []);
    const rank = ranks(slate);
    list.replaceChildren();
    list.dataset.count = slate.players.length;
    $("scores-title").textContent = slate.scoring === "dice" ? "Dice left" : (slate.scoring === "winnings" ? "Winnings" : "Scores");
    [...slate.players].sort((a, b) => a.seat - b.seat).forEach((p) => {
      const row = el("li", "player");
      row.dataset.seat = p.seat;
      if (turn.has(p.seat)) row.dataset.turn = "";
      if (p.role === "starts") row.dataset.starts = "";
      if (p.status) row.dataset.status = p.status;
      const seat = el("span", "seat", String(p.seat + 1));
      seat.title = "seat " + (p.seat + 1);
      const who = el("span", "who");
      const line = el("span", "who-line");
      line.append(el("span", "turn-mark", "\u25B6"), el("span", "name", p.name));
      who.append(line);
      const badges = el("span", "badges");
      if (p.role && p.role !== "to bid") badges.append(el("span", "badge role" + (p.role === "starts" ? " starts" : ""), p.role));
      if (p.status) badges.append(el("span", "badge status status-" + p.status.replace(/\s+/g, "-"), p.status));
      if (rank[p.seat]) badges.append(el("span", "badge rank", ordinal(rank[p.seat])));
      if (badges.childElementCount) who.append(badges);
      if (p.hand) who.append(el("span", "hand", p.hand));
      row.append(seat, who, el("span", "score", scoreText(p, slate.scoring)));
      list.append(row);
    });
  }

  /* A spike die shows this table's symbol above its number, as on the key. */
  function symbol(tile, value, kind) {
    if (kind !== "spike" || !spikeFaces.includes(String(value))) return tile;
    const img = el("img", "die-symbol");
    img.src = "/spike-face/" + value + ".png";
    img.alt = "";
    tile.prepend(img);
    tile.classList.add("die-spike");
    return tile;
  }

  function renderReveal(snap) {
    // While the host checks a reading, the last throw's result would pass for this one's.
    const reveal = snap.held && !snap.slate.finished ? null : snap.slate.reveal;
    show($("reveal"), !!reveal);
    if (!reveal) return;
    const dice = $("dice");
    dice.replaceChildren(...reveal.dice.map((v, i) => symbol(die(v, i), v, snap.slate.dice)));
    dice.dataset.count = reveal.dice.length > 20 ? "lots" : (reveal.dice.length > 10 ? "many" : "few");
    $("verdict").textContent = reveal.verdict;
    $("verdict").dataset.truth = /^true/i.test(reveal.verdict) ? "true" : (/^false/i.test(reveal.verdict) ? "false" : "");
    $("lines").replaceChildren(...reveal.lines.map((line) => el("li", null, line)));
    const photo = snap.photo;
    const hasPhoto = !!(snap.reveal_photo && photo && photo.id);
    show($("photo"), hasPhoto);
    $("photo").dataset.wanted = hasPhoto ? "yes" : "";
    if (hasPhoto) {
      const img = $("photo-img");
      const src = "/photo/" + photo.id;
      if (shownPhoto !== src) { img.src = src; shownPhoto = src; }
      markPhoto(img, $("photo-marks"), photo.dice, null);
    }
  }

  function renderDevices(devices) {
    const box = $("devices");
    box.replaceChildren();
    Object.entries(devices || {}).forEach(([name, d]) => {
      if (OK.includes(String(d.status).toLowerCase())) return;
      const status = String(d.status).toLowerCase();
      const note = el("span", "notice" + (INFO.includes(status) ? " info" : ""), name + ": " + status);
      note.title = d.message || d.status;
      box.append(note);
    });
  }

  function renderIdle() {
    $("board").dataset.mode = "idle";
    $("game-title").textContent = title;
    $("stage").textContent = "";
    $("prompt").textContent = "Waiting for the host to start a game";
    ["current", "pot", "reveal", "winner", "held", "notes", "spike-key", "recent"].forEach((id) => show($(id), false));
    $("players").replaceChildren();
    $("history").replaceChildren();
  }

  function render(snap) {
    renderDevices(snap.devices);
    const slate = snap.slate;
    document.body.dataset.seq = snap.seq;
    if (!slate) { renderIdle(); fit(); return; }
    const board = $("board");
    board.dataset.mode = slate.finished ? "over" : (snap.held ? "held" : "playing");
    $("game-title").textContent = slate.title;
    $("stage").textContent = slate.stage;
    if ($("prompt").textContent !== slate.prompt) pulse($("prompt"));
    if (slate.current && $("current").textContent !== slate.current) pulse($("current"));
    $("prompt").textContent = slate.prompt;
    $("prompt").dataset.phase = snap.prompt ? snap.prompt.phase : "";
    show($("winner"), slate.finished);
    $("winner").textContent = slate.winner ? slate.winner + " wins!" : "Game over";
    show($("held"), !!snap.held && !slate.finished);
    show($("current"), !!slate.current);
    $("current").textContent = slate.current || "";
    show($("pot"), slate.pot !== null && slate.pot !== undefined && !slate.finished);
    $("pot").textContent = "Pot: " + slate.pot;
    const notes = slate.notes || [];
    $("notes").replaceChildren(...notes.map((n) => el("li", null, n)));
    show($("notes"), notes.length > 0);
    show($("spike-key"), slate.dice === "spike" && spikeFaces.length > 0 && !slate.finished);
    renderPlayers(snap);
    renderReveal(snap);
    const recent = slate.reveal || (snap.held && !slate.finished) ? [] : slate.history.slice(-3).reverse();
    $("history").replaceChildren(...recent.map((h) => el("li", null, h)));
    $("history").reversed = true;  // newest first, numbered as the game went: 7, 6, 5
    $("history").start = slate.history.length;
    show($("recent"), recent.length > 0);
    fit();
  }

  /* --- fitting one screen ------------------------------------------------------------ */

  const overflows = (node) => node.scrollHeight > node.clientHeight + 1 || node.scrollWidth > node.clientWidth + 1;

  /* Hide a list's items from the end until `box` fits, saying how many are left out. */
  function trimList(list, box, word) {
    const items = [...list.children].filter((li) => !li.classList.contains("more"));
    const more = el("li", "more");
    let hidden = 0;
    while (overflows(box) && hidden < items.length) {
      items[items.length - 1 - hidden].hidden = true;
      hidden += 1;
      more.textContent = "+ " + hidden + " more " + (hidden === 1 ? word.replace(/s$/, "") : word);
      if (!more.isConnected) list.append(more);
    }
  }

  /* Called after every render and resize: undo the last fitting, then leave out, in
     order, the reveal's lines, its photo's size, its photo, the recent lines, until
     every card fits. Text is never made smaller than the page's own sizes. */
  function fit() {
    const prompt = $("prompt");
    prompt.style.removeProperty("font-size");
    document.querySelectorAll("#lines li.more, #history li.more").forEach((li) => li.remove());
    document.querySelectorAll("#lines li, #history li").forEach((li) => { li.hidden = false; });
    const photo = $("photo"), reveal = $("reveal"), recent = $("recent");
    photo.style.removeProperty("--photo-max");
    if (photo.dataset.wanted) photo.hidden = false;
    if (window.innerWidth <= PHONE) return;
    // a long prompt (a roll-off naming eight players) steps down, never under 32 px
    for (let size = parseFloat(getComputedStyle(prompt).fontSize); overflows($("board")) && size > 32; size -= 4) {
      prompt.style.fontSize = Math.max(32, size - 4) + "px";
    }
    if (!reveal.hidden) {
      trimList($("lines"), reveal, "lines");
      for (let h = photo.getBoundingClientRect().height; overflows(reveal) && !photo.hidden && h > 90; h -= 30) {
        photo.style.setProperty("--photo-max", (h - 30) + "px");
      }
      if (overflows(reveal)) photo.hidden = true;
    }
    if (!recent.hidden) trimList($("history"), recent, "lines");
  }

  /* A short glow when a line changes, so the table notices from across the room. */
  function pulse(node) {
    node.classList.remove("pulse");
    void node.offsetWidth;  // restart the animation
    node.classList.add("pulse");
  }

  /* A tap makes the slate full-screen and keeps a tablet awake (where the browser allows). */
  let wake = null;
  async function stayAwake() {
    try { if ("wakeLock" in navigator && !wake) { wake = await navigator.wakeLock.request("screen"); wake.addEventListener("release", () => { wake = null; }); } } catch (e) { /* http on a LAN: not allowed */ }
  }
  document.addEventListener("click", (e) => {
    if (e.target.closest("a")) return;
    const root = document.documentElement;
    if (!document.fullscreenElement && root.requestFullscreen) root.requestFullscreen().catch(() => {});
    stayAwake();
  });
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible" && wake === null) stayAwake(); });

  function status(state) {
    const live = $("live");
    live.dataset.state = state;
    live.textContent = state === "live" ? "live" : "reconnecting…";
  }

  let fitting = 0;
  window.addEventListener("resize", () => { cancelAnimationFrame(fitting); fitting = requestAnimationFrame(fit); });
  $("photo-img").addEventListener("load", fit);
  render(JSON.parse($("initial-state").textContent));
  follow(render, status);
})();
