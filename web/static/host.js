/* The host panel: every action is a CSRF-protected POST; the panel redraws from
   /host/state whenever the table changes (pushed over /events, no polling). */
"use strict";
(function () {
  const { die, faceText, markPhoto, follow, el } = window.Faces;
  const $ = (id) => document.getElementById(id);
  const root = $("host");
  const csrf = root.dataset.csrf;
  let view = null;
  let diceKey = null;
  let busy = false, again = false;

  /* --- talking to the companion ------------------------------------------------ */

  let quiet = null;
  function say(text, isError) {
    const box = $("message");
    box.hidden = false;
    box.textContent = text;
    box.className = "host-message " + (isError ? "error-message" : "flash");
    clearTimeout(quiet);
    if (!isError) quiet = setTimeout(() => { box.hidden = true; }, 4000);
  }
  $("message").addEventListener("click", () => { $("message").hidden = true; });

  /* A short hash of text (cyrb53): the key that makes a double tap one action. */
  function hash(text) {
    let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761); h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36).padStart(11, "0");  // one length: a press of either colour is the same size
  }

  /* Every POST says what it is and which state of the table it was tapped on (X-Once):
     the same tap twice before the panel redraws is done once (web/once.py). */
  function onceKey(url, body) {
    const field = (v) => (v instanceof File ? ["file", v.name, v.size, v.lastModified].join(":") : v);
    const text = typeof body === "string" ? body : [...(body || new FormData()).entries()].map(([k, v]) => k + "=" + field(v)).join("&");
    // the session's secret token in the hash: the key says nothing of a chip to whoever sees it
    return hash(csrf + "|" + url + "|" + text + "|" + (view ? view.seq : ""));
  }

  async function post(url, body) {
    let response, data = {};
    try {
      const headers = { "X-CSRF-Token": csrf, "Accept": "application/json", "X-Once": onceKey(url, body) };
      if (typeof body === "string") headers["Content-Type"] = "application/json";
      response = await fetch(url, { method: "POST", body, credentials: "same-origin", headers });
      data = await response.json().catch(() => ({}));
    } catch (e) {
      say("The companion did not answer: " + e.message, true);
      return false;
    }
    if (response.status === 401) { location.reload(); return false; }
    if (!response.ok) { say(data.error || ("refused (" + response.status + ")"), true); return false; }
    say(data.message || "done", false);
    refresh();
    return true;
  }

  function fields(obj) {
    const fd = new FormData();
    Object.entries(obj).forEach(([k, v]) => {
      if (Array.isArray(v)) v.forEach((x) => fd.append(k, x)); else fd.append(k, v === null ? "" : v);
    });
    return fd;
  }

  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const response = await fetch("/host/state", { credentials: "same-origin", cache: "no-store" });
      if (response.status === 401) { location.reload(); return; }
      if (response.ok) render(await response.json());
    } catch (e) { /* the stream reconnects and calls again */ }
    busy = false;
    if (again) { again = false; refresh(); }
  }

  /* --- drawing ------------------------------------------------------------------ */

  function seatName(seat) { return view.players[seat] !== undefined ? view.players[seat] : "seat " + (seat + 1); }

  function fillSeats(select, preferred) {
    const keep = select.value;
    select.replaceChildren(...view.players.map((name, i) => {
      const o = el("option", null, (i + 1) + ". " + name); o.value = i; return o;
    }));
    if (select.classList.contains("any-seat")) {
      const any = el("option", null, "(everyone)"); any.value = ""; select.prepend(any);
    }
    if (preferred !== undefined && preferred !== null) select.value = preferred;
    else if (keep !== "") select.value = keep;
  }

  function faceChoices() {
    const kind = view.options.dice;
    if (kind === "chance") return ["red", "blue"];
    if (kind === "spike") return [1, 2, 3, 4, 5, 6];
    return ["red", "blue", 1, 2, 3, 4, 5, 6];
  }

  /* A form's fields as a new turn finds them: last turn's count and face are not this
     one's (kept while the host is typing in the form). */
  function resetForTurn(form, names, turn) {
    if (form.dataset.turn === turn || form.contains(document.activeElement)) return;
    form.dataset.turn = turn;
    names.forEach((name) => {
      const field = form.elements[name];
      if (!field) return;
      if (field.tagName === "SELECT") field.selectedIndex = 0; else field.value = field.defaultValue;
    });
  }

  function renderActions(prompt) {
    const wants = prompt ? prompt.wants : [];
    document.querySelectorAll("[data-wants]").forEach((node) => { node.hidden = !wants.includes(node.dataset.wants); });
    if (!prompt) return false;
    const first = prompt.seats.length ? prompt.seats[0] : null;
    document.querySelectorAll(".seat-select").forEach((s) => {
      /* A seat the host picked holds for this turn only; the next turn's seat is taken up
         unless the host is mid-edit in that form (a field focused). */
      const turn = String(first);
      if (s.dataset.turn !== turn && !(s.form && s.form.contains(document.activeElement))) {
        delete s.dataset.touched;
        s.dataset.turn = turn;
      }
      fillSeats(s, s.dataset.touched ? null : first);
    });
    fillBidFaces(prompt.bid_faces || []);
    const faces = $("f-declaration").querySelector(".face-select");
    const keep = faces.value;
    faces.replaceChildren(...faceChoices().map((f) => { const o = el("option", null, faceText(f)); o.value = f; return o; }));
    if (keep) faces.value = keep;
    const declared = view.events.filter((e) => e.kind === "declaration" && e.in_force).length;
    resetForTurn($("f-declaration"), ["count", "face"], first + ":" + declared);
    return renderDiceEntry(prompt.dice);
  }

  /* The bid's faces: those the game takes now (the total only where it allows one), the
     host's pick kept while it is still one of them, else the first. */
  function fillBidFaces(faces) {
    const select = $("f-bid").querySelector("select[name=face]");
    const keep = select.value;
    const values = faces.map((f) => (f === null ? "" : String(f)));
    select.replaceChildren(...faces.map((f) => {
      const o = el("option", null, f === null ? "total of both dice" : String(f)); o.value = f === null ? "" : f; return o;
    }));
    select.value = values.includes(keep) && select.dataset.picked ? keep : (values[0] !== undefined ? values[0] : "");
  }

  function valueChoices(kind, sides) {
    if (kind === "chance") return ["red", "blue"];
    const n = sides || 6;
    return Array.from({ length: n }, (_, i) => i + 1);
  }

  /* One die's value: unset ("?") until someone picks it, so nothing is entered for a die
     nobody set; `extra`: the reading has dice too many, so "not a die" is a choice. */
  function dieInput(label, choices, value, extra) {
    const wrap = el("label", "die-input", label);
    const select = el("select");
    select.name = "values";
    const none = el("option", null, "?"); none.value = ""; select.append(none);
    choices.forEach((c) => { const o = el("option", null, faceText(c)); o.value = c; select.append(o); });
    if (extra) { const o = el("option", null, "not a die"); o.value = window.HeldFix.NOT_A_DIE; select.append(o); }
    select.value = value !== undefined && value !== null ? value : "";
    select.addEventListener("change", () => window.HeldFix.changed());
    wrap.append(select);
    return wrap;
  }

  function renderDiceEntry(request) {
    if (!request) { diceKey = null; return false; }
    const reading = view.held_reading;
    const held = reading ? reading.dice.map((d) => (d.unsure ? null : d.value)) : [];
    const key = JSON.stringify([request, reading]);
    if (key === diceKey) return false;
    diceKey = key;
    /* what the form was filled against: a reading that comes in meanwhile makes the table refuse it */
    $("dice-readings").value = view.events.filter((e) => e.kind === "dice" && e.in_force).length;
    $("dice-held").value = reading && reading.photo != null ? reading.photo : "";  /* the photo being fixed */
    $("dice-title").textContent = request.count + " " + request.kind + (request.count === 1 ? " die" : " dice");
    $("f-dice").dataset.kind = request.kind;
    $("dice-row").inputMode = ["pips", "spike"].includes(request.kind) ? "numeric" : "text";
    $("dice-why").textContent = request.purpose || "";
    const box = $("dice-inputs");
    box.replaceChildren();
    let index = 0;
    if (request.hands && request.hands.length) {
      request.hands.forEach(([seat, sizes]) => {
        const row = el("div", "hand");
        row.append(el("span", "seat-name", seatName(seat)));
        sizes.forEach((sides) => { row.append(dieInput("d" + sides, valueChoices("polyhedral", sides), held[index])); index += 1; });
        box.append(row);
      });
    } else if (reading) {
      const extra = reading.extra > 0;
      reading.dice.forEach((d, i) => box.append(dieInput("die " + (i + 1), valueChoices(request.kind), held[i], extra)));
      reading.missing.forEach((m, j) => box.append(
        dieInput("die " + (reading.dice.length + j + 1) + " (not found)", valueChoices(request.kind), null)));
    } else {
      for (let i = 0; i < request.count; i++) box.append(dieInput("die " + (i + 1), valueChoices(request.kind), null));
    }
    return true;
  }

  /* The last reading in force, with its values as the latest fix left them. */
  function lastReading() {
    const live = view.events.filter((e) => e.kind === "dice" && e.in_force);
    if (!live.length) return null;
    const reading = live[live.length - 1];
    const fixes = view.events.filter((e) => e.kind === "amend" && e.target === reading.index && e.event);
    return fixes.length ? Object.assign({}, reading, { values: fixes[fixes.length - 1].event.values }) : reading;
  }

  function openPicker(target, index, current) {
    const picker = $("picker");
    picker.hidden = false;
    $("picker-title").textContent = "Die " + (index + 1) + " (now " + faceText(current) + ") is really:";
    const colours = typeof current === "string";
    const choices = colours ? ["red", "blue"] : valueChoices("pips", Math.max(6, Number(current) || 6));
    $("picker-values").replaceChildren(...choices.map((c) => {
      const b = window.HeldFix.valueButton(c, view.slate ? view.slate.dice : "");  // as the die shows it
      b.addEventListener("click", () => { picker.hidden = true; post("/host/fix-die", fields({ target, die: index, value: c })); });
      return b;
    }));
  }

  function renderFix() {
    const reading = lastReading();
    $("fix-card").hidden = !reading;
    if (!reading) return;
    const target = reading.index;
    $("fix-dice").replaceChildren(...reading.values.map((v, i) => {
      const tile = die(v, i);
      tile.tabIndex = 0;
      tile.setAttribute("role", "button");
      tile.addEventListener("click", () => openPicker(target, i, v));
      return tile;
    }));
    const photo = view.photo && view.photo.event === target ? view.photo : null;
    $("fix-frame").hidden = !photo;
    if (photo) {
      const img = $("fix-img");
      const src = "/photo/" + photo.id;
      if (img.getAttribute("src") !== src) img.src = src;
      markPhoto(img, $("fix-marks"), photo.dice, (i, d) => openPicker(target, i, d.value));
    }
  }


  /* The seats' buttons, in seat order, each saying what it does in this game; a button
     that means nothing in it is not shown (Gyvahrs has none: the card goes). */
  function renderButtons() {
    const box = $("seat-buttons");
    const words = view.button_words || {};
    const seatButtons = [["green", "chip green"], ["yellow", "chip yellow"]].filter(([button]) => words[button]);
    box.replaceChildren();
    if (seatButtons.length) {
      view.players.forEach((name, seat) => {
        const row = el("div", "seat-row");
        row.append(el("span", "seat-name", (seat + 1) + ". " + name));
        seatButtons.forEach(([button, cls]) => {
          const b = el("button", "press " + cls, button + ": " + words[button]);
          b.type = "button"; b.dataset.button = button; b.dataset.seat = seat;
          row.append(b);
        });
        box.append(row);
      });
    }
    $("shared-buttons").hidden = !words.liar;
    if (words.liar) $("shared-buttons").querySelector("button").textContent = "Liar! (shared): " + words.liar;
    return seatButtons.length > 0 || !!words.liar;
  }

  /* A mistyped declaration, bid, stake...: edit its fields in place; saved as an amend.
     Each field as the table says it: the seat by its number and name, a colour, face or
     chip from its choices, a count as a number; only a list (dice sizes) is typed. */
  const EDITABLE = ["declaration", "bid", "stake", "colour_call", "chip_call", "challenge", "discard"];
  const CHOICES = {
    colour: () => ["red", "blue"],
    chip: (kind, v) => (v === "green" || v === "yellow" ? [] : [""]).concat(["green", "yellow"]),  // a hidden call: pick anew
    face: (kind, v) => (kind === "bid" ? [1, 2, 3, 4, 5, 6].concat(v === null ? [null] : []) : faceChoices()),
  };
  const WORDS = { seat: "Seat", count: "Count", face: "Face", quantity: "Quantity", amount: "Stake", colour: "Call",
    chip: "Chip", dice: "Die sizes to drop", steps: "Steps", size: "Die" };
  function editorField(kind, key, value) {
    const label = el("label", null, (WORDS[key] || key.replace(/_/g, " ")) + " ");
    let input;
    if (key === "seat") {
      input = el("select");
      view.players.forEach((name, i) => { const o = el("option", null, (i + 1) + ". " + name); o.value = i; input.append(o); });
    } else if (CHOICES[key]) {
      input = el("select");
      CHOICES[key](kind, value).forEach((c) => {
        const o = el("option", null, c === null ? "total of the dice" : (c === "" ? "(choose)" : faceText(c)));
        o.value = c === null ? "" : c; input.append(o);
      });
    } else if (typeof value === "number") {
      // a number's keypad on a phone; text, so a redraw keeps what was selected to type over
      input = el("input"); input.inputMode = "numeric"; input.pattern = "[0-9]*"; input.size = 6;
    } else {
      input = el("input");
    }
    input.name = key;
    input.value = value === null || (key === "chip" && value !== "green" && value !== "yellow") ? ""
      : (Array.isArray(value) ? value.join(", ") : String(value));
    label.append(input);
    return label;
  }
  function typed(value) {
    const text = value.trim();
    if (text === "") return null;
    if (/^-?\d+$/.test(text)) return Number(text);
    if (text.includes(",")) return text.split(",").map((v) => typed(v)).filter((v) => v !== null);
    return text;
  }
  function closeEditor() {
    const open = $("events").querySelector("tr.editor");
    if (open) open.remove();
  }
  function editRow(e, row) {
    const next = row.nextElementSibling;
    if (next && next.classList.contains("editor")) { next.remove(); return; }
    closeEditor();  // one correction at a time
    const editor = el("tr", "editor");
    editor.dataset.target = String(e.index);
    const cell = el("td"); cell.colSpan = 4;
    const form = el("form", "act");
    const amends = view.events.filter((x) => x.kind === "amend" && x.target === e.index);
    const current = amends.length ? amends[amends.length - 1].event : e;  // what is in force now
    const fieldsOf = Object.entries(current).filter(([k]) => !["kind", "index", "in_force"].includes(k));
    fieldsOf.forEach(([k, v]) => form.append(editorField(e.kind, k, v)));
    const save = el("button", "primary", "Save correction"); save.type = "submit";
    form.append(save);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const event = { kind: e.kind };
      fieldsOf.forEach(([k]) => { const v = typed(form.elements[k].value); if (v !== null || k === "face") event[k] = v; });
      post("/host/amend", JSON.stringify({ target: e.index, event })).then((ok) => { if (ok) closeEditor(); });
    });
    cell.append(form); editor.append(cell);
    row.after(editor);
    return form;
  }

  /* An event's details as a line people read: "count 3, face ▲ red (Val)"; a correction
     says what it changed ("event 4 → dice: ● blue, ▲ red"), never JSON. */
  function eventLine(e) {
    const fields = Object.entries(e).filter(([k]) => !["kind", "seat", "index", "in_force"].includes(k))
      .sort(([a], [b]) => (b === "target") - (a === "target"));  // what a correction corrects comes first
    return fields.map(([k, v]) => {
      if (k === "event" && v && typeof v === "object") {
        const seat = v.seat === undefined || v.seat === null ? "" : " for " + seatName(v.seat);
        return "now " + String(v.kind).replace(/_/g, " ") + seat + (eventLine(v) ? ": " + eventLine(v) : "");
      }
      if (k === "target") return "corrects #" + v;
      if (Array.isArray(v)) return k + " " + v.map(faceText).join(", ");
      if (v && typeof v === "object") return k + " " + Object.entries(v).map(([a, b]) => a + " " + b).join(", ");
      return k.replace(/_/g, " ") + " " + faceText(v);
    }).join("; ");
  }

  function renderUndo() {
    /* the action Undo means: if another comes in before the tap lands, the table refuses */
    const input = $("undo-expect");
    if (!input) return;
    const live = view.events.filter((e) => e.in_force);
    const last = live.length ? live[live.length - 1] : null;
    input.value = last ? last.index : "";
    const fixes = last ? view.events.filter((e) => e.kind === "amend" && e.target === last.index && e.event) : [];
    const now = fixes.length ? fixes[fixes.length - 1].event : last;  // as a fix left it (its seat too)
    const what = now ? now.kind.replace(/_/g, " ") + (now.seat === undefined || now.seat === null ? "" : " for " + seatName(now.seat)) : "";
    $("undo-button").textContent = last ? "Undo #" + last.index + ": " + what : "Undo last action";
    $("undo-button").disabled = !last;
  }

  function renderEvents() {
    // The table is redrawn on every change at the table; a correction being typed stays
    // open, with what was typed, as long as the event it corrects is still in force.
    const open = $("events").querySelector("tr.editor");
    const typing = open && {
      target: Number(open.dataset.target),
      values: Array.from(open.querySelectorAll("input, select")).map((i) => [i.name, i.value]),
      focus: document.activeElement && open.contains(document.activeElement) ? document.activeElement.name : null,
    };
    if (typing && typing.focus) {  // where the caret was, or what was selected to be typed over
      const a = document.activeElement;
      typing.selection = [a.selectionStart, a.selectionEnd, a.selectionDirection];
    }
    const rows = new Map();  // event index -> [event, row], for the rows that can be corrected
    $("events").replaceChildren(...view.events.slice().reverse().map((e) => {
      const correction = ["undo", "amend", "end_game"].includes(e.kind);
      const row = el("tr", correction ? "correction" : (e.in_force ? null : "out"));
      const details = eventLine(e);
      const what = el("td", null, e.kind.replace("_", " "));
      if (e.in_force && EDITABLE.includes(e.kind)) {
        const fix = el("button", "small-button", "fix");
        fix.type = "button"; fix.title = "correct this " + e.kind.replace("_", " ");
        fix.addEventListener("click", () => editRow(e, row));
        what.append(" ", fix);
        rows.set(e.index, [e, row]);
      }
      row.append(el("td", null, String(e.index)), what,
        el("td", null, e.seat === undefined || e.seat === null ? "" : seatName(e.seat)), el("td", null, details));
      return row;
    }));
    if (typing && rows.has(typing.target)) {
      const [e, row] = rows.get(typing.target);
      const form = editRow(e, row);
      typing.values.forEach(([name, value]) => { if (form.elements[name]) form.elements[name].value = value; });
      const focused = typing.focus && form.elements[typing.focus];
      if (focused) {
        focused.focus();
        if (typing.selection && typeof typing.selection[0] === "number" && focused.setSelectionRange) focused.setSelectionRange(...typing.selection);
      }
    }
  }

  function render(next) {
    view = next;
    const slate = view.slate;
    const running = !!slate && !slate.finished;
    $("h-title").textContent = slate ? slate.title + (slate.finished ? ": game over" : "") : "No game running";
    $("h-stage").textContent = slate ? slate.stage : "";
    $("h-prompt").textContent = slate ? (slate.finished && slate.winner ? slate.winner + " wins" : slate.prompt) : "Start a game below.";
    $("h-current").textContent = slate && slate.current ? slate.current : "";
    $("h-devices").replaceChildren(...Object.entries(view.devices || {}).map(([n, d]) => {
      const calm = ["ok", "ready", "demo", "off"].includes(String(d.status).toLowerCase());
      const note = el("span", "notice wrap" + (calm ? " info" : ""), n + ": " + d.status + (d.message ? " (" + d.message + ")" : ""));
      return note;
    }));
    $("act-card").hidden = !running;
    $("fix-tools").hidden = !slate;
    $("events-card").hidden = !slate;
    /* mid-game the start form is folded away, and starting ends the game in progress */
    if ($("start-card").dataset.running !== String(running)) {
      $("start-card").dataset.running = String(running);
      $("start-details").open = !running;
      $("start-title").textContent = running ? "Start another game" : "Start a game";
      $("end-current").hidden = !running;
      $("end-current").querySelector("input").checked = false;
    }
    const abilities = ["upgrade_die", "downgrade_die", "add_die", "remove_die", "wild_face"];
    $("tavern-card").hidden = !running || !view.prompt.wants.some((w) => abilities.includes(w));
    const fresh = renderActions(running ? view.prompt : null);
    window.HeldFix.render(running ? view.held_reading : null, fresh);
    $("buttons-card").hidden = !(running && renderButtons());
    if (slate) { renderFix(); renderEvents(); renderUndo(); } else { $("fix-card").hidden = true; }
  }

  /* --- wiring --------------------------------------------------------------------- */

  /* Trickster's Tavern abilities: each action sends only the fields it has. */
  const ABILITY_FIELDS = {
    upgrade_die: ["seat", "size", "steps"], downgrade_die: ["seat", "size", "steps"],
    add_die: ["seat", "size"], remove_die: ["seat", "size"], wild_face: ["face", "seat", "size"],
  };
  function abilityFields(form) {
    const all = new FormData(form);
    const kind = all.get("kind");
    const out = new FormData();
    out.append("kind", kind);
    ABILITY_FIELDS[kind].forEach((name) => { const v = all.get(name); if (v !== null && v !== "") out.append(name, v); });
    return out;
  }

  /* The dice: refused here while a die is unset (the button says why; the server refuses
     too); a die marked "not a die" is left out. */
  function diceFields(form) {
    const left = window.HeldFix.unset();
    if (left) {
      say(left + (left === 1 ? " die is" : " dice are") + " not set yet: tap each one, or pick its value", true);
      return null;
    }
    if (window.HeldFix.rowWrong()) {
      say("the typed row does not fit the dice: " + $("dice-row-note").textContent, true);
      return null;
    }
    const out = new FormData();
    new FormData(form).forEach((v, k) => { if (!(k === "values" && v === window.HeldFix.NOT_A_DIE)) out.append(k, v); });
    return out;
  }

  document.querySelectorAll("form.act").forEach((form) => {
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
      const body = form.id === "f-dice" ? diceFields(form)
        : (form.classList.contains("ability") ? abilityFields(form) : new FormData(form));
      if (body) post(form.getAttribute("action"), body).then((ok) => { if (ok && form.classList.contains("ability")) form.reset(); });
    });
  });

  /* Classes per seat: one choice of the shipped cards per player line. */
  const playersBox = document.querySelector("#f-start textarea[name=players]");
  function perSeatClasses() {
    const names = playersBox.value.split("\n").map((n) => n.trim()).filter(Boolean);
    document.querySelectorAll(".per-seat").forEach((box) => {
      const input = document.querySelector("#f-start input[name='" + box.dataset.for + "']");
      const cards = JSON.parse(input.dataset.cards || "[]");
      const chosen = [...box.querySelectorAll("select")].map((s) => s.value);
      input.closest("label").firstChild.textContent = "classes as names, in seat order (typed here for classes from a class file) ";
      box.hidden = false;
      box.replaceChildren(el("span", "per-seat-title", names.length ? "Class per seat" : "Class per seat: type the players first"));
      names.forEach((name, i) => {
        const label = el("label", "class-choice", (i + 1) + ". " + name);
        const select = el("select");
        cards.forEach((c) => { const o = el("option", null, c.line.length > 60 ? c.line.slice(0, 57) + "…" : c.line); o.value = c.name; o.title = c.line; select.append(o); });
        if (chosen[i]) select.value = chosen[i];
        select.addEventListener("change", sync);
        label.append(select);
        box.append(label);
      });
      function sync() { input.value = JSON.stringify([...box.querySelectorAll("select")].map((s) => s.value)); }
      sync();
    });
  }
  playersBox.addEventListener("input", perSeatClasses);
  perSeatClasses();
  document.querySelectorAll(".seat-select").forEach((s) => s.addEventListener("change", () => { s.dataset.touched = "1"; }));
  $("f-bid").querySelector("select[name=face]").addEventListener("change", (e) => { e.target.dataset.picked = "1"; });
  root.addEventListener("click", (e) => {
    const b = e.target.closest("button.press");
    // "green" and "yellow" differ by a byte: padded, a press of either is the same length
    // on the wire, so even encrypted traffic does not tell a chip's colour
    if (b) post("/host/press", fields({ seat: b.dataset.seat, button: b.dataset.button, pad: "_".repeat(6 - b.dataset.button.length) }));
  });
  $("read-now").addEventListener("click", () => post("/host/reveal", fields({})));

  const gameSelect = $("start-game");
  const showOptions = () => document.querySelectorAll("fieldset.options").forEach((f) => {
    const on = f.dataset.game === gameSelect.value;
    f.hidden = !on;
    f.disabled = !on;
  });
  gameSelect.addEventListener("change", showOptions);
  showOptions();

  setTimeout(() => document.querySelectorAll("p.flash").forEach((p) => p.remove()), 4000);
  follow(() => refresh(), () => {});
  refresh();
})();
