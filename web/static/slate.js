/* The slate: renders the table's public snapshot, and every new one the server pushes. */
"use strict";
(function () {
  const { die, markPhoto, follow, el } = window.Faces;
  const $ = (id) => document.getElementById(id);
  const title = $("game-title").textContent;
  const OK = ["ok", "ready", "connected", "running"];
  const INFO = ["demo", "off"];  // shown, but not as a problem
  let shownPhoto = null;

  function show(node, on) { node.hidden = !on; }

  function scoreText(p, scoring) {
    if (scoring === "dice") return p.dice === null ? "–" : p.dice + (p.dice === 1 ? " die" : " dice");
    const v = p.score;
    if (v === null || v === undefined) return "–";
    if (scoring === "winnings") return (v > 0 ? "+" : "") + v;
    return String(v);
  }

  function renderPlayers(slate) {
    const list = $("players");
    list.replaceChildren();
    list.toggleAttribute("data-many", slate.players.length > 6);
    $("scores-title").textContent = slate.scoring === "dice" ? "Dice left" : (slate.scoring === "winnings" ? "Winnings" : "Scores");
    slate.players.forEach((p, i) => {
      const row = el("li", "player");
      if (p.role) row.classList.add("has-role");
      if (p.status) row.dataset.status = p.status;
      row.append(el("span", "rank", String(i + 1)));
      const who = el("span", "who");
      who.append(el("span", "name", p.name));
      if (p.role) who.append(el("span", "badge role", p.role));
      if (p.status) who.append(el("span", "badge status status-" + p.status.replace(/\s+/g, "-"), p.status));
      if (p.hand) who.append(el("span", "hand", p.hand));
      row.append(who, el("span", "score", scoreText(p, slate.scoring)));
      list.append(row);
    });
  }

  function renderReveal(slate, photo) {
    const reveal = slate.reveal;
    show($("reveal"), !!reveal);
    $("board").classList.toggle("revealing", !!reveal);
    if (!reveal) return;
    const dice = $("dice");
    dice.replaceChildren(...reveal.dice.map((v, i) => die(v, i)));
    dice.dataset.count = reveal.dice.length > 20 ? "lots" : (reveal.dice.length > 10 ? "many" : "few");
    $("verdict").textContent = reveal.verdict;
    $("verdict").dataset.truth = /^true/i.test(reveal.verdict) ? "true" : (/^false/i.test(reveal.verdict) ? "false" : "");
    $("lines").replaceChildren(...reveal.lines.map((line) => el("li", null, line)));
    const hasPhoto = !!(photo && photo.id);
    show($("photo"), hasPhoto);
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

  function render(snap) {
    renderDevices(snap.devices);
    const slate = snap.slate;
    const board = $("board");
    if (!slate) {
      board.dataset.mode = "idle";
      $("game-title").textContent = title;
      $("stage").textContent = "";
      $("prompt").textContent = "Waiting for the host to start a game";
      [$("current"), $("pot"), $("reveal"), $("winner")].forEach((n) => show(n, false));
      $("players").replaceChildren();
      $("history").replaceChildren();
      return;
    }
    board.dataset.mode = slate.finished ? "over" : "playing";
    $("game-title").textContent = slate.title;
    $("stage").textContent = slate.stage;
    if ($("prompt").textContent !== slate.prompt) pulse($("prompt"));
    if (slate.current && $("current").textContent !== slate.current) pulse($("current"));
    $("prompt").textContent = slate.prompt;
    $("prompt").dataset.phase = snap.prompt ? snap.prompt.phase : "";
    show($("winner"), slate.finished);
    $("winner").textContent = slate.winner ? slate.winner + " wins!" : "Game over";
    show($("current"), !!slate.current);
    $("current").textContent = slate.current || "";
    show($("pot"), slate.pot !== null && slate.pot !== undefined);
    $("pot").textContent = "Pot: " + slate.pot;
    renderPlayers(slate);
    renderReveal(slate, snap.photo);
    const history = slate.history.slice(-5).reverse();
    $("history").replaceChildren(...history.map((h) => el("li", null, h)));
    document.body.dataset.seq = snap.seq;
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

  render(JSON.parse($("initial-state").textContent));
  follow(render, status);
})();
