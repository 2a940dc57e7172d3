// The host panel's camera page: the camera's picture refreshed every two seconds, the table
// region drawn over it, and a new region dragged across it (the form then sets it).
(function () {
  "use strict";
  const view = document.getElementById("cam-view");
  const picture = document.getElementById("cam-picture");
  const regionBox = document.getElementById("cam-region");
  const drawing = document.getElementById("cam-drawing");
  const missing = document.getElementById("cam-nopicture");
  const form = document.getElementById("f-region");
  const base = picture.dataset.src;
  const stateUrl = document.getElementById("camera-page").dataset.state;
  let state = null;
  let drag = null;

  function place(box, roi) {
    if (!state || !state.picture || !roi) { box.hidden = true; return; }
    const w = state.picture.width, h = state.picture.height;
    box.style.left = (100 * roi[0] / w) + "%";
    box.style.top = (100 * roi[1] / h) + "%";
    box.style.width = (100 * (roi[2] - roi[0]) / w) + "%";
    box.style.height = (100 * (roi[3] - roi[1]) / h) + "%";
    box.hidden = false;
  }

  function refreshState() {
    fetch(stateUrl, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((s) => {
        if (!s) return;
        if (s.withheld) { location.reload(); return; }  // a game started: the picture is hidden
        state = s;
        place(regionBox, s.roi);
      })
      .catch(() => {});
  }

  function refreshPicture() {
    const next = new Image();
    next.onload = () => { picture.src = next.src; picture.hidden = false; missing.hidden = true; };
    next.onerror = () => { missing.hidden = false; };
    next.src = base + "?t=" + Date.now();
  }

  function cameraPoint(event) {
    const rect = picture.getBoundingClientRect();
    const x = Math.min(Math.max(event.clientX - rect.left, 0), rect.width);
    const y = Math.min(Math.max(event.clientY - rect.top, 0), rect.height);
    return [Math.round(x / rect.width * state.picture.width), Math.round(y / rect.height * state.picture.height)];
  }

  function dragged(event) {
    const [x, y] = cameraPoint(event);
    return [Math.min(drag[0], x), Math.min(drag[1], y), Math.max(drag[0], x), Math.max(drag[1], y)];
  }

  view.addEventListener("pointerdown", (event) => {
    if (!form || !state || !state.picture) return;
    drag = cameraPoint(event);
    view.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  view.addEventListener("pointermove", (event) => {
    if (drag) place(drawing, dragged(event));
  });
  view.addEventListener("pointerup", (event) => {
    if (!drag) return;
    const roi = dragged(event);
    drag = null;
    ["x1", "y1", "x2", "y2"].forEach((name, i) => { form.elements[name].value = roi[i]; });
    place(drawing, roi);
    form.querySelector("button").focus();
  });

  if (picture.complete && picture.naturalWidth === 0) missing.hidden = false;
  picture.addEventListener("error", () => { missing.hidden = false; });
  refreshState();
  setInterval(refreshPicture, 2000);
  setInterval(refreshState, 5000);
})();
