/* A camera reading held for the host: one tap per die to fix.

   Every die the reader doubts and every die it did not find is a slot to set: doubtful
   dice are marked "?" on the photo where they lie, missing ones as empty dashed slots where
   something die-like was seen, or in a row beside the photo when nothing was. The picker
   under the photo sets the slot in hand and moves on to the next unset one, so each die
   is one tap; tapping any die on the photo (a sure one too) puts it in hand. Slot i is the
   i-th select of the dice entry form (those read first, then the missing ones), which the
   panel's "Enter these dice" sends; it stays disabled while a slot is unset.

   For many dice a row typed in one go ("5 5 3 1 …", or "553164"; "r b r" for chance
   cubes) sets the slots in order, die 1 first; a face a die does not have is said under
   it. A reading newly held is brought into view: the host finds it at once. */
"use strict";
(function () {
  const { faceText, el, COLOURS } = window.Faces;
  const NS = "http://www.w3.org/2000/svg";
  const NOT_A_DIE = "none";
  let current = 0;
  let shownKey = null;
  let shown = null;
  let rowWrong = false;  // the typed row says more dice, or faces, than there are

  const selects = () => Array.from(document.querySelectorAll("#dice-inputs select"));
  const unset = () => selects().filter((s) => s.value === "").length;

  function label(value) {
    if (value === "" || value === undefined || value === null) return "?";
    if (value === NOT_A_DIE) return "not a die";
    const colour = COLOURS[value];
    return colour ? colour.shape + " " + colour.word : String(value);
  }

  /* The slots of a held reading: each die read (box, guess, doubted) then each missing die. */
  function slots(held) {
    return held.dice.map((d) => ({ box: d.box, guess: d.value, unsure: d.unsure, missing: false }))
      .concat(held.missing.map((m) => ({ box: m.box, guess: null, unsure: true, missing: true })));
  }

  function draw(held) {
    const img = document.getElementById("held-img"), svg = document.getElementById("held-marks");
    const list = slots(held), inputs = selects();
    const w = img.naturalWidth, h = img.naturalHeight;
    svg.replaceChildren();
    if (w && h) {
      svg.setAttribute("viewBox", "0 0 " + w + " " + h);
      const size = Math.max(14, Math.round(Math.min(w, h) / 18));
      list.forEach((slot, i) => {
        if (!slot.box) return;
        const [x, y, x2, y2] = slot.box;  /* in the photo's own pixels */
        const value = inputs[i] ? inputs[i].value : "";
        const g = document.createElementNS(NS, "g");
        g.setAttribute("class", "mark pickable" + (slot.missing ? " missing" : "") + (slot.unsure ? " unsure" : "")
          + (value !== "" ? " set" : "") + (i === current ? " current" : ""));
        g.dataset.index = i;
        const r = document.createElementNS(NS, "rect");
        r.setAttribute("x", x); r.setAttribute("y", y); r.setAttribute("width", x2 - x); r.setAttribute("height", y2 - y);
        r.setAttribute("rx", Math.round(Math.min(x2 - x, y2 - y) / 8));
        const t = document.createElementNS(NS, "text");
        t.setAttribute("x", (x + x2) / 2); t.setAttribute("y", y - size * 0.3 < size ? y2 + size : y - size * 0.3);
        t.setAttribute("font-size", size); t.setAttribute("text-anchor", "middle");
        t.textContent = value !== "" ? label(value) : (slot.missing ? "?" : label(slot.guess) + " ?");
        g.append(r, t);
        g.addEventListener("click", () => pick(held, i));
        svg.append(g);
      });
    }
    /* dice not found anywhere on the photo: a row of empty slots beside it */
    const row = document.getElementById("held-unplaced");
    const loose = list.map((slot, i) => [slot, i]).filter(([slot]) => slot.missing && !slot.box);
    row.hidden = !loose.length;
    row.replaceChildren(...(loose.length ? [el("span", "muted", "Not seen on the photo:")] : []), ...loose.map(([, i]) => {
      const value = inputs[i] ? inputs[i].value : "";
      const b = el("button", "slot" + (value !== "" ? " set" : "") + (i === current ? " current" : ""), label(value));
      b.type = "button"; b.dataset.index = i;
      b.title = "die " + (i + 1) + ", not found on the photo";
      b.addEventListener("click", () => pick(held, i));
      return b;
    }));
    picker(held, list);
    status();
  }

  const PIPS = ["\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];
  const kind = () => (document.getElementById("f-dice") || { dataset: {} }).dataset.kind || "";

  /* A value's button shows it as the die does: pips, the chance colour, the taught symbol. */
  function valueButton(v, dice) {
    const b = el("button", "pick");
    b.type = "button"; b.dataset.value = v;
    const n = Number(v), shows = dice || kind();
    if (shows === "spike" && n >= 1 && n <= 6) {
      const img = el("img");
      img.src = "/spike-face/" + n + ".png"; img.alt = "";
      img.addEventListener("error", () => img.remove());  // no key taught: the number alone
      b.append(img, " " + n);
    } else if (shows === "pips" && n >= 1 && n <= 6) {
      b.append(el("span", "pip-face", PIPS[n - 1]), " " + n);
    } else {
      b.textContent = v === NOT_A_DIE ? "not a die" : faceText(v);
      if (v === "red" || v === "blue") b.classList.add(v);  // the chance cube's own colour
    }
    return b;
  }

  function picker(held, list) {
    const box = document.getElementById("held-picker"), inputs = selects();
    const select = inputs[current];
    box.hidden = !select;
    if (!select) return;
    const slot = list[current];
    const what = slot.missing ? "Die " + (current + 1) + " (not found)" : "Die " + (current + 1)
      + (slot.unsure ? " (looks like " + label(slot.guess) + ")" : "");
    document.getElementById("held-picker-title").textContent = what + " is:";
    const values = Array.from(select.options).map((o) => o.value).filter((v) => v !== "");
    document.getElementById("held-picker-values").replaceChildren(...values.map((v) => {
      const b = valueButton(v);
      if (select.value === v) b.classList.add("chosen");
      b.addEventListener("click", () => set(held, current, v));
      return b;
    }));
  }

  function pick(held, index) {
    current = index;
    draw(held);
  }

  /* A die set by hand (picker or its own select): the host has taken over from the row. */
  function byHand() {
    if (!rowWrong && !Object.keys(beforeRow).length) return;
    rowWrong = false;
    beforeRow = {};
    document.getElementById("dice-row-note").hidden = true;
  }

  function set(held, index, value) {
    const select = selects()[index];
    if (!select) return;
    byHand();
    select.value = value;
    const inputs = selects();
    const after = inputs.findIndex((s, i) => i > index && s.value === "");
    const next = after >= 0 ? after : inputs.findIndex((s) => s.value === "");
    current = next >= 0 ? next : index;
    draw(held);
  }

  /* "Enter these dice" waits for every die: the reason in words beside it. */
  function status() {
    const button = document.getElementById("dice-enter"), why = document.getElementById("dice-unset");
    if (!button) return;
    const left = unset();
    button.disabled = left > 0 || rowWrong;
    why.textContent = left ? left + (left === 1 ? " die is" : " dice are") + " not set yet: "
      + (document.getElementById("held-card").hidden ? "pick each one" : "tap each one on the photo, or pick it")
      : (rowWrong ? "the typed row does not fit the dice: see above it" : "");
    why.hidden = !left && !rowWrong;
    button.title = why.textContent;
  }

  /* --- a row typed in one go ------------------------------------------------------- */

  const CHANCE = { r: "red", red: "red", v: "red", val: "red", b: "blue", blue: "blue", d: "blue", des: "blue" };

  /* The values of a typed row: chance cubes as letters or words, numbers as digits (each
     digit a die) or, with spaces or commas between, whole numbers (a d10 or a d20). */
  function parseRow(text) {
    const t = text.trim().toLowerCase();
    if (!t) return [];
    const words = (/[\s,;]/.test(t) ? t.split(/[\s,;]+/) : t.split("")).filter(Boolean);
    return kind() === "chance" ? words.map((w) => CHANCE[w] || w) : words;
  }

  /* What each slot held before the row set it: a shorter row gives it back. */
  let beforeRow = {};

  function typed() {
    const input = document.getElementById("dice-row"), note = document.getElementById("dice-row-note");
    const inputs = selects(), values = parseRow(input.value), problems = [];
    Object.entries(beforeRow).forEach(([i, v]) => { if (Number(i) >= values.length && inputs[i]) { inputs[i].value = v; delete beforeRow[i]; } });
    values.slice(0, inputs.length).forEach((_, i) => { if (!(i in beforeRow)) beforeRow[i] = inputs[i].value; });
    if (values.length > inputs.length) problems.push(values.length + " typed, but " + inputs.length + (inputs.length === 1 ? " die is" : " dice are") + " wanted");
    values.slice(0, inputs.length).forEach((v, i) => {
      const faces = Array.from(inputs[i].options).map((o) => o.value).filter((o) => o !== "" && o !== NOT_A_DIE);
      inputs[i].value = faces.includes(v) ? v : "";  // a face it does not have leaves the die unset
      if (!faces.includes(v)) problems.push("die " + (i + 1) + ": " + (v.length > 8 ? v.slice(0, 8) + "…" : v) + " is not one of its faces (" + faces.map(faceText).join(", ") + ")");
    });
    note.textContent = problems.slice(0, 2).join("; ");
    note.hidden = !problems.length;
    rowWrong = problems.length > 0;
    if (shown) draw(shown); else status();
  }

  /* A held reading shown (or gone); `fresh`: the dice entry was just rebuilt for it. */
  function render(held, fresh) {
    const card = document.getElementById("held-card");
    const appeared = !!held && card.hidden;
    card.hidden = !held;
    if (fresh) { document.getElementById("dice-row").value = ""; document.getElementById("dice-row-note").hidden = true; rowWrong = false; beforeRow = {}; }
    if (!held) { shownKey = null; shown = null; status(); return; }
    if (appeared) card.scrollIntoView({ block: "start" });  // the host finds it at once, even far down a phone
    document.getElementById("held-reason").textContent = held.reason;
    const key = JSON.stringify(held);
    if (fresh || key !== shownKey) {
      const inputs = selects();
      const first = inputs.findIndex((s) => s.value === "");
      current = first >= 0 ? first : 0;
    }
    shownKey = key;
    shown = held;
    const frame = document.getElementById("held-frame"), img = document.getElementById("held-img");
    frame.hidden = !held.photo;
    if (held.photo) {
      const src = "/photo/" + held.photo;
      if (img.getAttribute("src") !== src) { img.src = src; img.addEventListener("load", () => draw(held), { once: true }); }
    }
    draw(held);
  }

  /* A die picked in the dice entry's own selects: the photo and the button follow. */
  function changed() {
    byHand();
    if (shown) draw(shown); else status();
  }

  document.getElementById("dice-row").addEventListener("input", typed);

  window.HeldFix = { render, changed, NOT_A_DIE, unset, rowWrong: () => rowWrong, valueButton };
})();
