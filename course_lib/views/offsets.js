// The offset view (course_lib.views.offset_view): the scores of one query position m
// against every key position n, drawn along the offset n - m, one curve per kind of
// position. Faint behind them, the curves of every m: where they coincide, the score
// depends on the offset alone. Hover over the plot (or use the offset slider) to read the
// scores at one offset.

function start(root, data) {
  var L = data.length, colours = data.colours;
  var state = { m: data.m, k: 0, want: 0 };
  function score(c, m, n) { return data.curves[c].scores[m * L + n] / 1000; }

  if (data.title) el("p", { "class": "clv-title" }, root, data.title);
  var controls = el("div", { "class": "clv-controls" }, root);
  var legend = el("p", { "class": "clv-legend" }, root);
  var panel = el("div", { "class": "clv-panel" }, root);
  var readout = el("p", { "class": "clv-readout", "aria-live": "polite" }, root);
  var positions = [];
  for (var p = 0; p < L; p++) positions.push(p);
  slider(controls, "query position m", positions, state.m,
    function (i) { state.m = i; draw(); });

  // The offset n - m under the pointer, or from this slider: -m .. L - 1 - m, a tick at 0.
  var wrap = el("label", { "class": "clv-picker" }, controls);
  el("span", {}, wrap, "offset n \u2212 m ");
  var ticks = root.id + "-k0";
  var kInput = el("input", { type: "range", step: "1", "aria-label": "offset n - m",
    list: ticks }, wrap);
  var kShown = el("output", {}, wrap);
  el("option", { value: "0", label: "0" }, el("datalist", { id: ticks }, wrap));
  kInput.addEventListener("input", function () {
    state.k = state.want = Number(kInput.value);
    drawFocus();
  });

  data.curves.forEach(function (curve, c) {
    var item = el("span", {}, legend);
    var s = el("svg:svg", { width: 18, height: 10, viewBox: "0 0 18 10", "aria-hidden": "true" },
      item);
    el("svg:line", { x1: 1, y1: 5, x2: 17, y2: 5, stroke: colours[c], "stroke-width": "3",
      "stroke-linecap": "round" }, s);
    el("span", {}, item, " " + curve.name);
  });
  el("span", { "class": "clv-note" }, legend, "faint: the same curves for every other m");

  var lo = 0, hi = 0;
  data.curves.forEach(function (curve) {
    for (var i = 0; i < L * L; i++) {
      lo = Math.min(lo, curve.scores[i] / 1000); hi = Math.max(hi, curve.scores[i] / 1000);
    }
  });

  // Round values 1, 2 or 5 times a power of ten apart, about count of them.
  function niceTicks(a, b, count) {
    var raw = (b - a) / count, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (f) { return f * mag; })
      .filter(function (s) { return s >= raw * (1 - 1e-9); })[0];
    var out = [];
    for (var i = Math.ceil(a / step - 1e-9); i <= Math.floor(b / step + 1e-9); i++) {
      out.push(Number((i * step).toPrecision(10)));
    }
    return out;
  }

  var svg, focus, X, Y, width, left, right, top = 12, height = 230, bottom = 40;
  function draw() {
    var lo2 = -state.m, hi2 = L - 1 - state.m;
    state.k = Math.max(lo2, Math.min(hi2, state.want));
    kInput.min = String(lo2);
    kInput.max = String(hi2);
    clear(panel);
    // As wide as the page allows (up to 560 px): the text stays 12 px on a phone.
    width = Math.max(280, Math.min(560, panel.clientWidth || 520));
    left = 44; right = 10;
    svg = el("svg:svg", { "class": "clv-plot", viewBox: "0 0 " + width + " " + height,
      width: width, height: height, role: "group",
      "aria-label": "score of query position m against every key position, along the offset" },
    panel);
    X = function (k) { return left + (k + L - 1) / (2 * L - 2 || 1) * (width - left - right); };
    Y = function (v) { return top + (hi - v) / (hi - lo || 1) * (height - top - bottom); };
    niceTicks(lo, hi, 5).forEach(function (v) {
      el("svg:line", { "class": v === 0 ? "clv-zero" : "clv-grid-line", x1: left, y1: Y(v),
        x2: width - right, y2: Y(v), stroke: "currentColor",
        "stroke-opacity": v === 0 ? "0.5" : "0.12" }, svg);
      el("svg:text", { x: left - 4, y: Y(v) + 4, "text-anchor": "end" }, svg, String(v));
    });
    niceTicks(-(L - 1), L - 1, width < 400 ? 4 : 6).forEach(function (k) {
      el("svg:line", { x1: X(k), y1: height - bottom, x2: X(k), y2: height - bottom + 4,
        stroke: "currentColor" }, svg);
      el("svg:text", { x: X(k), y: height - bottom + 16, "text-anchor": "middle" }, svg,
        String(k));
    });
    el("svg:line", { x1: X(0), y1: top, x2: X(0), y2: height - bottom, stroke: "currentColor",
      "stroke-opacity": "0.3" }, svg);
    el("svg:text", { x: left + (width - left - right) / 2, y: height - 6,
      "text-anchor": "middle" }, svg, "offset n \u2212 m");
    function points(c, m) {
      var pts = [];
      for (var n = 0; n < L; n++) pts.push(X(n - m).toFixed(1) + "," + Y(score(c, m, n)).toFixed(1));
      return pts.join(" ");
    }
    data.curves.forEach(function (curve, c) {
      for (var m = 0; m < L; m++) {
        el("svg:polyline", { "class": "clv-faint", "data-curve": String(c), "data-m": String(m),
          points: points(c, m), fill: "none", stroke: colours[c], "stroke-opacity": "0.15",
          "stroke-width": "1" }, svg);
      }
    });
    data.curves.forEach(function (curve, c) {
      el("svg:polyline", { "class": "clv-score", "data-curve": String(c),
        points: points(c, state.m), fill: "none", stroke: colours[c], "stroke-width": "2.2" },
      svg);
    });
    focus = el("svg:g", { "class": "clv-focus" }, svg);
    var hit = el("svg:rect", { x: left, y: top, width: width - left - right,
      height: height - top - bottom, fill: "transparent", "pointer-events": "all" }, svg);
    function pick(event) {
      var box = svg.getBoundingClientRect();
      var x = (event.clientX - box.left) * width / (box.width || width);
      var k = Math.round((x - left) / (width - left - right) * (2 * L - 2) - (L - 1));
      k = Math.max(-state.m, Math.min(L - 1 - state.m, k));
      if (k === state.k) return;
      state.k = state.want = k;
      drawFocus();
    }
    hit.addEventListener("pointermove", pick);
    hit.addEventListener("pointerdown", pick);
    drawFocus();
  }

  function drawFocus() {
    kInput.value = String(state.k);
    kShown.textContent = String(state.k);
    kInput.setAttribute("aria-valuetext", kShown.textContent);
    clear(focus);
    var n = state.m + state.k;
    el("svg:line", { "class": "clv-guide", x1: X(state.k), y1: top, x2: X(state.k),
      y2: height - bottom, stroke: "currentColor", "stroke-dasharray": "3 3" }, focus);
    var parts = [];
    data.curves.forEach(function (curve, c) {
      var v = score(c, state.m, n);
      el("svg:circle", { "class": "clv-point", "data-curve": String(c), cx: X(state.k),
        cy: Y(v), r: 4, fill: colours[c], stroke: "currentColor" }, focus);
      parts.push(curve.name + " " + v.toFixed(2));
    });
    readout.textContent = "m = " + state.m + ", score at offset " + state.k + ": " +
      parts.join(" \u00b7 ") + " (key n = " + n + ")";
  }

  draw();
  var resized = null;
  window.addEventListener("resize", function () {
    clearTimeout(resized);
    resized = setTimeout(draw, 100);
  });
}

boot(start);
