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
  /* A line fit() may shorten (shorten): its whole text, and setting it afresh. */
  const fullText = (node) => (node.dataset.full !== undefined ? node.dataset.full : node.textContent);
  function setText(node, text) {
    delete node.dataset.full;
    node.removeAttribute("title");
    node.textContent = text;
  }

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

  /* A reveal's dice as the table counts them: each die that counts toward the bid marked
     (a d12's 12 that counts two says so), polyhedral dice with their size; dice that came
     seat by seat grouped under each player's seat number and name (closed up: the number
     alone); a big reveal read as one (the liar's
     dice games' whole table) sorted, the counted dice first. */
  function revealDice(reveal, slate) {
    const counted = reveal.counted || [], sizes = reveal.sizes || [], hands = reveal.hands || [];
    const mixed = new Set(sizes).size > 1;
    const tile = (i) => {
      const v = reveal.dice[i];
      const t = symbol(die(v, i), v, slate.dice);
      if (mixed && sizes[i]) t.append(el("span", "die-size", "d" + sizes[i]));
      if (counted[i] > 0) {
        t.classList.add("die-counted");
        t.title = "counts toward the bid" + (counted[i] > 1 ? " " + counted[i] + " times" : "");
        if (counted[i] > 1) t.append(el("span", "die-times", "\u00D7" + counted[i]));
      }
      return t;
    };
    const order = reveal.dice.map((_, i) => i);
    if (hands.length) {
      const byName = Object.fromEntries(slate.players.map((p) => [p.seat, p.name]));
      let next = 0;
      return hands.map(([seat, n]) => {
        const group = el("span", "hand-group");
        const number = el("span", "hand-seat", String(seat + 1));  // as the seats are numbered
        number.title = byName[seat] || "";
        group.append(number, el("span", "hand-name", byName[seat] || ""), ...order.slice(next, next + n).map(tile));
        next += n;
        return group;
      });
    }
    if (reveal.dice.length > 10 && counted.some((c) => c > 0)) {
      order.sort((a, b) => (counted[b] > 0) - (counted[a] > 0) || String(reveal.dice[a]).localeCompare(String(reveal.dice[b]), undefined, { numeric: true }));
    }
    return order.map(tile);
  }

  function renderReveal(snap) {
    // While the host checks a reading, the last throw's result would pass for this one's.
    const reveal = snap.held && !snap.slate.finished ? null : snap.slate.reveal;
    show($("reveal"), !!reveal);
    if (!reveal) return;
    const dice = $("dice");
    dice.replaceChildren(...revealDice(reveal, snap.slate));
    dice.dataset.count = reveal.dice.length > 20 ? "lots" : (reveal.dice.length > 10 ? "many" : "few");
    setText($("verdict"), reveal.verdict);
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
    ["current", "pot", "reveal", "winner", "held", "notes", "fixes", "spike-key", "recent"].forEach((id) => show($(id), false));
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
    if (slate.current && fullText($("current")) !== slate.current) pulse($("current"));
    $("prompt").textContent = slate.prompt;
    $("prompt").dataset.phase = snap.prompt ? snap.prompt.phase : "";
    show($("winner"), slate.finished);
    $("winner").textContent = slate.winner ? slate.winner + " wins!" : "Game over";
    show($("held"), !!snap.held && !slate.finished);
    show($("current"), !!slate.current);
    setText($("current"), slate.current || "");
    show($("pot"), slate.pot !== null && slate.pot !== undefined && !slate.finished);
    $("pot").textContent = "Pot: " + slate.pot;
    const notes = slate.notes || [];
    $("notes").replaceChildren(...notes.map((n) => el("li", null, n)));
    show($("notes"), notes.length > 0);
    const fixes = snap.fixes || [];  // the host's corrections, said as the host's
    $("fixes").replaceChildren(...fixes.map((n) => el("li", null, n)));
    show($("fixes"), fixes.length > 0 && !slate.finished);
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

  /* The layouts the seats may take, best first: the largest name size, then the least
     width taken from the turn, then the fewest columns; last, the join card left out.
     Names stay at 32 px or more up to eight seats, 24 px at nine to twelve (issue 66). */
  function layouts(count, phone, landscape) {
    const base = parseFloat(getComputedStyle(document.body).fontSize) * 1.4;  // --big
    const floor = phone ? 20 : (count > 8 ? 24 : 32);
    const sizes = [];
    for (let size = Math.max(base, floor); size > floor; size -= 4) sizes.push(Math.round(size));
    sizes.push(floor);
    const columns = phone ? [1] : (count > 8 ? [2, 3, 1] : (count > 4 ? [1, 2] : [1]));
    const widths = landscape && !phone ? ["", "wide", "wider", "widest"] : [""];
    const out = [];
    for (const join of phone ? [true] : [true, false]) {
      for (const size of sizes) for (const seats of widths) for (const cols of columns) out.push({ size, seats, cols, join });
    }
    return out;
  }

  function applyLayout(layout) {
    const list = $("players"), board = $("board");
    list.style.setProperty("--name-size", layout.size + "px");
    list.dataset.cols = layout.cols;
    if (layout.seats) board.dataset.seats = layout.seats; else delete board.dataset.seats;
    if (layout.join) delete board.dataset.join; else board.dataset.join = "off";
  }

  /* Every seat whole: no name broken inside a word, nothing cut off, on the screen. */
  function seatsWhole() {
    const list = $("players"), section = list.closest("section");
    const bottom = $("board").getBoundingClientRect().bottom;
    return !overflows(section) && section.getBoundingClientRect().bottom <= bottom + 1
      && [...list.children].every((row) => !overflows(row) && [...row.querySelectorAll(".name, .who-line, .who")].every((n) => !overflows(n)));
  }

  /* Every card fits: the board and each card within it. */
  function pageFits() {
    const doc = document.documentElement;
    if (overflows($("board")) || doc.scrollHeight > window.innerHeight || doc.scrollWidth > window.innerWidth) return false;
    return [...$("board").children].every((card) => card.hidden || !overflows(card)) && seatsWhole();
  }

  /* Undo the last fitting of the cards' contents. */
  function unfit() {
    const photo = $("photo");
    ["prompt", "current", "winner", "verdict"].forEach((id) => {
      const node = $(id);
      node.style.removeProperty("font-size");
      if (node.dataset.full !== undefined) { node.textContent = node.dataset.full; delete node.dataset.full; node.removeAttribute("title"); }
    });
    delete $("dice").dataset.compact;
    $("lines").hidden = false;
    document.querySelectorAll("#lines li.more, #history li.more").forEach((li) => li.remove());
    document.querySelectorAll("#lines li, #history li").forEach((li) => { li.hidden = false; });
    $("recent").hidden = !$("history").children.length;
    photo.style.removeProperty("--photo-max");
    if (photo.dataset.wanted) photo.hidden = false;
  }

  /* The largest font size for `node`, in `step` px steps down from its own and never under
     `floor`, at which it is no longer `crowded()` (the floor if none is): a binary search
     (crowding only eases as text gets smaller), each try one layout of the page. */
  function stepDown(node, floor, step, crowded) {
    if (node.hidden || !crowded()) return;
    const size = parseFloat(getComputedStyle(node).fontSize);
    const at = (k) => { node.style.fontSize = Math.max(floor, size - k * step) + "px"; };
    let lo = 1, hi = Math.ceil((size - floor) / step);  // steps down; the floor at hi
    if (hi < 1) return;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      at(mid);
      if (crowded()) lo = mid + 1; else hi = mid;
    }
    at(lo);
  }

  /* The last resort for a line too long for its card (twelve long names in a list of
     calls or a verdict): the fewest words left out, from the end, to make it fit, and
     "…" where they were; the whole line stays the element's title. A binary search. */
  function shorten(node, crowded) {
    if (node.hidden || !crowded()) return;
    const full = node.dataset.full || node.textContent;
    node.dataset.full = full;
    node.title = full;
    const words = full.split(" ");
    let lo = 0, hi = words.length - 1;  // words kept: the most that fit, at least none
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      node.textContent = words.slice(0, mid).join(" ") + " …";
      if (crowded()) hi = mid - 1; else lo = mid;
    }
    node.textContent = words.slice(0, lo).join(" ") + " …";
  }

  /* Fit the cards' contents to the room a layout leaves. The turn steps down while the
     page is crowded: the prompt never under 32 px nor under the names (it stays the
     largest text), the line under it never under 20 px, the winner never under 40 px.
     Then the last result leaves out, in order, its lines, its photo's size, its photo;
     its verdict steps down to 20 px and its dice close up; if that is not room enough
     the turn steps down further. Last, the recent lines are left out. */
  function fitCards() {
    const prompt = $("prompt"), current = $("current"), winner = $("winner"), turn = $("turn");
    const photo = $("photo"), reveal = $("reveal"), recent = $("recent"), lines = $("lines");
    const names = parseFloat($("players").style.getPropertyValue("--name-size")) || 0;
    const top = () => overflows($("board")) || overflows(turn) || !seatsWhole();
    const low = () => !reveal.hidden && overflows(reveal);
    const stepTurn = (crowded) => {
      stepDown(prompt, Math.max(32, names + 1), 4, crowded);
      stepDown(current, 20, 2, crowded);
      stepDown(winner, Math.max(40, names + 1), 4, crowded);
    };
    stepTurn(top);
    if (!reveal.hidden) {
      trimList(lines, reveal, "lines");
      for (let h = photo.getBoundingClientRect().height; low() && !photo.hidden && h > 90; h -= 30) {
        photo.style.setProperty("--photo-max", (h - 30) + "px");
      }
      if (low()) photo.hidden = true;
      stepDown($("verdict"), 20, 2, low);
      if (low()) $("dice").dataset.compact = "";
      stepTurn(low);
      if (low() && [...lines.children].every((li) => li.hidden || li.classList.contains("more"))) lines.hidden = true;
      shorten($("verdict"), low);
    }
    shorten(current, top);
    if (!recent.hidden) {
      trimList($("history"), recent, "lines");
      if (overflows(recent)) recent.hidden = true;  // not even one line fits: "Before" waits
    }
  }

  /* Called after every render and resize: the first layout (layouts) at which the whole
     page fits, or failing any, the first at which every seat is whole. A phone's page
     scrolls: only the seats are fitted there. */
  function fit() {
    const list = $("players"), board = $("board");
    unfit();
    list.style.removeProperty("--name-size");
    delete list.dataset.cols;
    delete board.dataset.seats;
    delete board.dataset.join;
    const count = list.children.length;
    const phone = window.innerWidth <= PHONE;
    if (!count) { if (!phone) fitCards(); return; }
    const options = layouts(count, phone, window.innerWidth > window.innerHeight);
    let fallback = null;
    const wide = (n) => n.scrollWidth > n.clientWidth + 1;
    for (const layout of options) {
      applyLayout(layout);
      if (phone) { if (seatsWhole()) return; continue; }
      unfit();
      // a name too wide for its seat is too wide whatever the cards do: next layout, cheaply
      if ([...list.querySelectorAll(".player, .name, .who-line")].some(wide)) continue;
      fitCards();
      if (pageFits()) return;
      if (!fallback && seatsWhole()) fallback = layout;
    }
    applyLayout(fallback || options[options.length - 1]);
    unfit();
    if (!phone) fitCards();
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
