/* Faces and photos, shared by the slate and the host panel.
   Chance-cube colours always carry a word and a shape too (colour-blind players). */
"use strict";
(function () {
  const COLOURS = {
    red: { word: "red", name: "Val", shape: "\u25B2" },   // triangle
    blue: { word: "blue", name: "Des", shape: "\u25CF" },  // disc
  };

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  /* One die as a tile: a colour with its shape and word, or a number. */
  function die(value, index) {
    const colour = COLOURS[value];
    const tile = el("span", "die " + (colour ? "die-" + value : "die-number"));
    if (colour) {
      tile.append(el("span", "die-shape", colour.shape), el("span", "die-word", colour.word));
      tile.title = colour.word + " (" + colour.name + ")";
    } else {
      tile.append(el("span", "die-value", value === null || value === undefined ? "?" : String(value)));
    }
    if (index !== undefined) tile.dataset.index = index;
    return tile;
  }

  function faceText(value) {
    const colour = COLOURS[value];
    return colour ? colour.shape + " " + colour.word + " (" + colour.name + ")" : String(value);
  }

  /* Numbered marks over the photo at each die's box, once the image size is known. */
  function markPhoto(img, svg, dice, onPick) {
    const draw = () => {
      const w = img.naturalWidth, h = img.naturalHeight;
      if (!w || !h) return;
      svg.setAttribute("viewBox", "0 0 " + w + " " + h);
      svg.replaceChildren();
      const ns = "http://www.w3.org/2000/svg";
      const size = Math.max(14, Math.round(Math.min(w, h) / 18));
      (dice || []).forEach((d, i) => {
        if (!d.box) return;
        const [x, y, x2, y2] = d.box;  /* [x1, y1, x2, y2] in the photo's pixels */
        const bw = x2 - x, bh = y2 - y;
        const g = document.createElementNS(ns, "g");
        g.setAttribute("class", "mark" + (onPick ? " pickable" : "") + (d.unsure ? " unsure" : ""));
        g.dataset.index = i;
        const r = document.createElementNS(ns, "rect");
        r.setAttribute("x", x); r.setAttribute("y", y); r.setAttribute("width", bw); r.setAttribute("height", bh);
        r.setAttribute("rx", Math.round(Math.min(bw, bh) / 8));
        const t = document.createElementNS(ns, "text");
        t.setAttribute("x", x + bw / 2); t.setAttribute("y", y - size * 0.3 < size ? y + bh + size : y - size * 0.3);
        t.setAttribute("font-size", size); t.setAttribute("text-anchor", "middle");
        const colour = COLOURS[d.value];
        t.textContent = (colour ? colour.shape + " " + colour.word : String(d.value)) + (d.unsure ? " ?" : "");
        g.append(r, t);
        if (onPick) g.addEventListener("click", () => onPick(i, d));
        svg.append(g);
      });
    };
    if (img.complete) draw(); else img.addEventListener("load", draw, { once: true });
  }

  /* The table's state, live: EventSource reconnects by itself after a dropped stream
     (the server sends retry: 1000), but gives up on a refusal (503 when too many slates
     are open): then a new one is opened after 5 to 10 s. After any reconnect the full
     state is fetched once to resync. */
  function follow(onState, onStatus) {
    let dropped = false;
    let source = null;
    const open = () => {
      source = new EventSource("/events");
      source.addEventListener("state", (e) => onState(JSON.parse(e.data)));
      source.addEventListener("open", () => {
        onStatus("live");
        if (dropped) {
          dropped = false;
          fetch("/api/state", { cache: "no-store" }).then((r) => r.json()).then(onState).catch(() => {});
        }
      });
      source.addEventListener("error", () => {
        dropped = true;
        onStatus("reconnecting");
        if (source.readyState === EventSource.CLOSED) setTimeout(open, 5000 + Math.random() * 5000);
      });
    };
    open();
    return { close: () => source.close() };
  }

  window.Faces = { die, faceText, markPhoto, follow, el, COLOURS };
})();
