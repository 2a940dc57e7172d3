// The meetup's leaderboard: tiles per table and the evening's standings, asked for every
// few seconds (/api/leaderboard). Every text goes in with textContent: names come from
// the tables, and nothing a table sends may become markup here.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const poll = Number($("lb-script").dataset.poll) || 2000;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function clock(epochSeconds) {
    const d = new Date(epochSeconds * 1000);
    return String(d.getHours()).padStart(2, "0") + ":" + String(d.getMinutes()).padStart(2, "0");
  }

  function tile(t) {
    const li = el("li", "lb-tile");
    li.dataset.table = t.table;
    li.dataset.online = t.online ? "yes" : "no";
    const head = el("div", "lb-tile-head");
    head.append(el("span", "lb-tile-name", t.title));
    const state = t.online ? "live" : (t.since ? "offline since " + clock(t.since) : "not seen yet");
    head.append(el("span", "live lb-state", state));
    head.lastChild.dataset.state = t.online ? "live" : "reconnecting";
    li.append(head);
    const slate = t.slate;
    if (!slate) {
      li.append(el("div", "muted", "No game running"));
    } else {
      li.append(el("div", "lb-game", slate.title + (slate.stage ? " · " + slate.stage : "")));
      const line = slate.finished ? (slate.winner ? slate.winner + " wins" : "Game over") : (slate.prompt || "");
      li.append(el("div", "lb-prompt", line));
      const players = el("ol", "lb-players");
      (slate.players || []).forEach((p) => {
        const row = el("li", "lb-player");
        row.append(el("span", "name", p.name));
        if (p.status) row.append(el("span", "badge status-" + String(p.status).replace(/\s+/g, "-"), p.status));
        const score = slate.scoring === "dice" ? p.dice : p.score;
        row.append(el("span", "score", score === null || score === undefined ? "" : score));
        players.append(row);
      });
      li.append(players);
    }
    li.append(el("div", "muted small", t.games + (t.games === 1 ? " game finished" : " games finished")));
    return li;
  }

  // One table's odd slate costs only its own tile, never the page (the server checks the
  // slate's shape too: companion.meetup.read_slate).
  function safeTile(t) {
    try {
      return tile(t);
    } catch (err) {
      const li = el("li", "lb-tile");
      li.dataset.table = String(t && t.table);
      li.dataset.broken = "yes";
      li.append(el("div", "lb-tile-head", t && (t.title || t.table)));
      li.append(el("div", "muted", "This table's slate cannot be shown"));
      return li;
    }
  }

  function standingsTable(table, rows, mode) {
    table.replaceChildren();
    const head = el("tr");
    ["#", "Player", mode === "points" ? "Points" : "Wins", "Games", "Calls right", "Bluffs worked"]
      .forEach((h) => head.append(el("th", null, h)));
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    rows.forEach((r) => {
      const tr = el("tr");
      tr.append(el("td", "rank", r.place), el("td", "name", r.player),
        el("td", "score", mode === "points" ? r.points : r.wins), el("td", null, r.games),
        el("td", null, r.calls ? r.correct_calls + "/" + r.calls : "–"),
        el("td", null, r.bluffs ? r.bluffs_worked + "/" + r.bluffs : "–"));
      body.append(tr);
    });
    if (!rows.length) {
      const tr = el("tr");
      const td = el("td", "muted", "No game finished yet");
      td.colSpan = 6;
      tr.append(td);
      body.append(tr);
    }
    table.append(thead, body);
  }

  function render(view) {
    $("lb-title").textContent = view.title;
    $("lb-games").textContent = view.games + (view.games === 1 ? " game tonight" : " games tonight");
    $("lb-scoring").textContent = "· " + view.scoring.text;
    const broker = $("lb-broker");
    broker.replaceChildren();
    if (view.broker && view.broker.connected === false) {
      broker.append(el("span", "notice", "no broker" + (view.broker.since ? " since " + clock(view.broker.since) : "")));
    }
    $("lb-tiles").replaceChildren(...view.tables.map(safeTile));
    standingsTable($("lb-overall"), view.overall, view.scoring.mode);
    const byGame = $("lb-by-game");
    byGame.replaceChildren();
    if (view.by_game.length > 1) {
      view.by_game.forEach((g) => {
        const box = el("section", "lb-kind");
        box.append(el("h3", null, g.title + " (" + g.games + ")"));
        const table = el("table", "list lb-table");
        standingsTable(table, g.standings, view.scoring.mode);
        box.append(table);
        byGame.append(box);
      });
    }
  }

  function refresh() {
    fetch("/api/leaderboard", { cache: "no-store" })
      .then((r) => { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then((view) => { render(view); $("live").dataset.state = "live"; $("live").textContent = "live"; })
      .catch(() => { $("live").dataset.state = "reconnecting"; $("live").textContent = "reconnecting"; })
      .finally(() => setTimeout(refresh, poll));
  }

  render(JSON.parse($("initial-state").textContent));
  setTimeout(refresh, poll);
}());
