// The positions explorer (course_lib.views.positions_view): pick a position p and an offset
// k; see the encodings of p and p + k as bars, their dot product along every offset, and
// each sine/cosine pair as a dial whose two hands are p and p + k.
// Chapter 4's figure's conventions: cosine across, sine up (anticlockwise from 3 o'clock;
// SVG's y points down, so y = cy - r sin), the hand of p blue, of p + k green. The dot
// product is data.dots[|k|] = sum_i cos(k w_i), computed in Python: one number per offset.

function start(root, data) {
  var L = data.length, D = data.width, colours = data.colours;
  var state = { p: data.p, k: data.k, want: data.k };
  function value(p, j) { return data.table[p * D + j] / 1000; }
  function dot(k) { return data.dots[Math.abs(k)] / 1000; }

  if (data.title) el("p", { "class": "clv-title" }, root, data.title);
  var controls = el("div", { "class": "clv-controls" }, root);
  var panels = el("div", { "class": "clv-panels" }, root);
  var barPanel = el("div", { "class": "clv-panel" }, panels);
  var curvePanel = el("div", { "class": "clv-panel" }, panels);
  var readout = el("p", { "class": "clv-readout", "aria-live": "polite" }, root);
  var dialPanel = el("div", { "class": "clv-dials" }, root);

  var positions = [];
  for (var p = 0; p < L; p++) positions.push(p);
  slider(controls, "position p", positions, state.p, function (i) { state.p = i; draw(); });

  // The offset slider holds k itself and runs over the offsets that keep p + k in the
  // table (-p .. L - 1 - p), with a tick at k = 0; it remembers the k asked for, so a p
  // that cut k short gives it back when p returns.
  var wrap = el("label", { "class": "clv-picker" }, controls);
  el("span", {}, wrap, "offset k ");
  var ticks = root.id + "-k0";
  var kInput = el("input", { type: "range", step: "1", "aria-label": "offset k", list: ticks },
    wrap);
  var kShown = el("output", {}, wrap);
  var kRange = el("span", { "class": "clv-range" }, wrap);
  el("option", { value: "0", label: "0" }, el("datalist", { id: ticks }, wrap));
  kInput.addEventListener("input", function () {
    state.k = state.want = Number(kInput.value);
    draw();
  });
  function syncOffset() {
    var lo = -state.p, hi = L - 1 - state.p;
    state.k = Math.max(lo, Math.min(hi, state.want));
    kInput.min = String(lo);
    kInput.max = String(hi);
    kInput.value = String(state.k);
    kShown.textContent = String(state.k);
    kInput.setAttribute("aria-valuetext", kShown.textContent);
    kRange.textContent = "(" + lo + " to " + hi + ")";
  }

  function drawBars(q) {
    clear(barPanel);
    var w = Math.max(4, Math.min(14, Math.floor(260 / D))), h = 36, gap = 10;
    var width = 72 + D * w, height = 2 * (2 * h + gap);
    var svg = el("svg:svg", { "class": "clv-bars", viewBox: "0 0 " + width + " " + height,
      width: width, height: height, role: "img",
      "aria-label": "the encodings of positions p and p + k, one bar per feature" }, barPanel);
    [[state.p, "p = " + state.p, colours.p], [q, "p + k = " + q, colours.q]].forEach(
      function (row, r) {
        var y0 = r * (2 * h + gap) + h + 2;
        el("svg:text", { x: 0, y: y0 + 4 }, svg, row[1]);
        el("svg:line", { x1: 72, y1: y0, x2: 72 + D * w, y2: y0, stroke: "currentColor",
          "stroke-opacity": "0.3" }, svg);
        for (var j = 0; j < D; j++) {
          var v = value(row[0], j);
          el("svg:rect", { "class": "clv-bar", x: 72 + j * w, y: v >= 0 ? y0 - v * h : y0,
            width: w - 1, height: Math.abs(v) * h, fill: row[2],
            "fill-opacity": j % 2 ? "0.55" : "0.95", "data-row": String(r),
            "data-j": String(j), "data-v": v.toFixed(3) }, svg);
        }
      });
  }

  function drawCurve() {
    clear(curvePanel);
    var width = 340, height = 180, left = 40, right = 10, top = 20, bottom = 40;
    var svg = el("svg:svg", { "class": "clv-curve", viewBox: "0 0 " + width + " " + height,
      width: width, height: height, role: "img",
      "aria-label": "dot product of the encodings of p and p + k, for every offset k" },
    curvePanel);
    // One scale for every p: the curve keeps its place and its shape, cut at other ends.
    var lo = 0, hi = dot(0);
    for (var k = 0; k < L; k++) lo = Math.min(lo, dot(k));
    function X(k) { return left + (k + L - 1) / (2 * L - 2 || 1) * (width - left - right); }
    function Y(v) { return top + (hi - v) / (hi - lo || 1) * (height - top - bottom); }
    el("svg:line", { x1: left, y1: Y(0), x2: width - right, y2: Y(0), stroke: "currentColor",
      "stroke-opacity": "0.35" }, svg);
    el("svg:line", { x1: X(0), y1: top, x2: X(0), y2: height - bottom, stroke: "currentColor",
      "stroke-opacity": "0.35" }, svg);
    el("svg:text", { x: left, y: top - 8 }, svg, "PE(p) \u00b7 PE(p + k)");
    [lo, 0, hi].forEach(function (v, i) {
      if (i === 0 && v === 0) return;
      el("svg:text", { x: left - 4, y: Y(v) + 4, "text-anchor": "end" }, svg,
        String(Number(v.toPrecision(3))));
    });
    [[-(L - 1), "start"], [0, "middle"], [L - 1, "end"]].forEach(function (t) {
      el("svg:text", { x: X(t[0]), y: height - bottom + 14, "text-anchor": t[1] }, svg,
        String(t[0]));
    });
    el("svg:text", { x: left + (width - left - right) / 2, y: height - 6,
      "text-anchor": "middle" }, svg, "offset k");
    var every = [], inside = [];
    for (var o = -(L - 1); o <= L - 1; o++) {
      var pt = X(o).toFixed(1) + "," + Y(dot(o)).toFixed(1);
      every.push(pt);
      if (state.p + o >= 0 && state.p + o < L) inside.push(pt);
    }
    el("svg:polyline", { points: every.join(" "), fill: "none", stroke: colours.turn,
      "stroke-opacity": "0.3", "stroke-width": "1" }, svg);
    el("svg:polyline", { "class": "clv-dot-curve", points: inside.join(" "), fill: "none",
      stroke: colours.turn, "stroke-width": "2" }, svg);
    el("svg:circle", { "class": "clv-marker", cx: X(state.k), cy: Y(dot(state.k)), r: 4,
      fill: colours.turn, stroke: "currentColor" }, svg);
  }

  // The legend once; the dials, each an SVG of its own, wrap into rows at a phone's width
  // (text stays 11 px) instead of shrinking.
  var legend = el("p", { "class": "clv-legend" }, dialPanel);
  var legendP = el("span", {}, legend), legendQ = el("span", {}, legend);
  function swatch(parent, colour, width) {
    var s = el("svg:svg", { width: 18, height: 10, viewBox: "0 0 18 10", "aria-hidden": "true" },
      parent);
    el("svg:line", { x1: 1, y1: 5, x2: 17, y2: 5, stroke: colour, "stroke-width": width,
      "stroke-linecap": "round" }, s);
  }
  var turnKey = el("span", {}, legend);
  var wedge = el("svg:svg", { width: 18, height: 10, viewBox: "0 0 18 10", "aria-hidden": "true" },
    turnKey);
  el("svg:rect", { x: 1, y: 0, width: 16, height: 10, fill: colours.turn, "fill-opacity": "0.35" },
    wedge);
  el("span", {}, turnKey, " the turn k \u00b7 \u03c9\u1d62 (\u03c9: radians per position)");
  el("p", { "class": "clv-caption" }, dialPanel,
    "Each dial is one (sine, cosine) pair: cosine across, sine up, angles anticlockwise " +
    "from 3 o'clock, as in the figure above. Whatever p, the two hands are k \u00b7 \u03c9\u1d62 " +
    "apart. Bars: sines full, cosines light.");
  var dialRow = el("div", { "class": "clv-dial-row" }, dialPanel);

  function drawDials(q) {
    clear(legendP);
    swatch(legendP, colours.p, 4);
    el("span", {}, legendP, " hand of p = " + state.p);
    clear(legendQ);
    swatch(legendQ, colours.q, 2);
    el("span", {}, legendQ, " hand of p + k = " + q);
    clear(dialRow);
    var r = 26, size = 78, cx = size / 2, cy = r + 6;
    for (var i = 0; i < data.dials; i++) {
      var svg = el("svg:svg", { "class": "clv-dial", viewBox: "0 0 " + size + " 96",
        width: size, height: 96, role: "img", "data-pair": String(i),
        "aria-label": "dims " + 2 * i + ", " + (2 * i + 1) + ", " + data.speed_labels[i] +
          " radians per position: the hands of p and p + k" }, dialRow);
      el("svg:circle", { cx: cx, cy: cy, r: r, fill: "none", stroke: "currentColor",
        "stroke-opacity": "0.35" }, svg);
      el("svg:line", { x1: cx - r, y1: cy, x2: cx + r, y2: cy, stroke: "currentColor",
        "stroke-opacity": "0.15" }, svg);
      el("svg:line", { x1: cx, y1: cy - r, x2: cx, y2: cy + r, stroke: "currentColor",
        "stroke-opacity": "0.15" }, svg);
      var a0 = Math.atan2(value(state.p, 2 * i), value(state.p, 2 * i + 1));
      var turn = (state.k * data.speeds[i]) % (2 * Math.PI);
      if (Math.abs(turn) > 1e-3) {
        var w = r / 2, a1 = a0 + turn;
        el("svg:path", { "class": "clv-turn", fill: colours.turn, "fill-opacity": "0.35",
          d: "M" + cx + "," + cy + " L" + (cx + w * Math.cos(a0)).toFixed(2) + "," +
            (cy - w * Math.sin(a0)).toFixed(2) + " A" + w + "," + w + " 0 " +
            (Math.abs(turn) > Math.PI ? 1 : 0) + " " + (turn > 0 ? 0 : 1) + " " +
            (cx + w * Math.cos(a1)).toFixed(2) + "," + (cy - w * Math.sin(a1)).toFixed(2) +
            " Z" }, svg);
      }
      [[state.p, colours.p, "4", "p"], [q, colours.q, "2", "q"]].forEach(function (hand) {
        var s = value(hand[0], 2 * i), c = value(hand[0], 2 * i + 1);
        el("svg:line", { "class": "clv-hand clv-hand-" + hand[3], x1: cx, y1: cy,
          x2: (cx + r * c).toFixed(2), y2: (cy - r * s).toFixed(2), stroke: hand[1],
          "stroke-width": hand[2], "stroke-linecap": "round" }, svg);
      });
      el("svg:text", { x: cx, y: cy + r + 16, "text-anchor": "middle" }, svg,
        "dims " + 2 * i + ", " + (2 * i + 1));
      el("svg:text", { x: cx, y: cy + r + 30, "text-anchor": "middle" }, svg,
        data.speed_labels[i]);
    }
  }

  function draw() {
    syncOffset();
    var q = state.p + state.k;
    drawBars(q);
    drawCurve();
    drawDials(q);
    readout.textContent = "PE(" + state.p + ") \u00b7 PE(" + q + ") = " +
      dot(state.k).toFixed(3) + ": the same for every p at offset k = " + state.k;
  }

  draw();
}

boot(start);
