// The positions explorer (course_lib.views.positions_view): pick a position p and an offset
// k; see the encodings of p and p + k as bars, their dot product along every offset, and
// each sine/cosine pair as a dial whose two hands are p and p + k.

function start(root, data) {
  var L = data.length, D = data.width;
  var state = { p: data.p, k: data.k };
  function value(p, j) { return data.table[p * D + j] / 1000; }
  function dot(p, q) {
    var s = 0;
    for (var j = 0; j < D; j++) s += value(p, j) * value(q, j);
    return s;
  }

  if (data.title) el("p", { "class": "clv-title" }, root, data.title);
  var controls = el("div", { "class": "clv-controls" }, root);
  var panels = el("div", { "class": "clv-panels" }, root);
  var barPanel = el("div", { "class": "clv-panel" }, panels);
  var curvePanel = el("div", { "class": "clv-panel" }, panels);
  var dialPanel = el("div", { "class": "clv-panel clv-dials" }, root);
  var readout = el("p", { "class": "clv-readout", "aria-live": "polite" }, root);

  var positions = [];
  for (var p = 0; p < L; p++) positions.push(p);
  var offsets = [];
  for (var k = -(L - 1); k <= L - 1; k++) offsets.push(k);
  slider(controls, "position p", positions, state.p, function (i) { state.p = i; draw(); });
  slider(controls, "offset k", offsets, state.k + L - 1,
    function (i) { state.k = i - (L - 1); draw(); });

  function drawBars(q) {
    clear(barPanel);
    var w = Math.max(4, Math.min(14, Math.floor(320 / D))), h = 44, top = 16;
    var width = 70 + D * w, height = 2 * (h * 2 + top) + 10;
    var svg = el("svg:svg", { "class": "clv-bars", viewBox: "0 0 " + width + " " + height,
      width: width, height: height, role: "img",
      "aria-label": "the encodings of positions p and p + k, one bar per feature" }, barPanel);
    [[state.p, "p = " + state.p], [q, "p + k = " + (q === null ? "-" : q)]].forEach(function (row, r) {
      var y0 = r * (2 * h + top) + top + h;
      el("svg:text", { x: 0, y: y0 + 4 }, svg, row[1]);
      el("svg:line", { x1: 66, y1: y0, x2: 66 + D * w, y2: y0, stroke: "currentColor",
        "stroke-opacity": "0.3" }, svg);
      if (row[0] === null) return;
      for (var j = 0; j < D; j++) {
        var v = value(row[0], j);
        el("svg:rect", { "class": "clv-cell", x: 66 + j * w, y: v >= 0 ? y0 - v * h : y0,
          width: w - 1, height: Math.abs(v) * h, "fill-opacity": j % 2 ? "0.55" : "0.95",
          "data-row": String(r), "data-j": String(j), "data-v": v.toFixed(3) }, svg);
      }
    });
  }

  function drawCurve(q) {
    clear(curvePanel);
    var width = 340, height = 190, left = 40, right = 10, top = 14, bottom = 30;
    var svg = el("svg:svg", { "class": "clv-curve", viewBox: "0 0 " + width + " " + height,
      width: width, height: height, role: "img",
      "aria-label": "dot product of the encodings of p and p + k, for every offset k" },
    curvePanel);
    var pts = [], lo = Infinity, hi = -Infinity;
    offsets.forEach(function (k) {
      var q2 = state.p + k;
      if (q2 < 0 || q2 >= L) return;
      var d = dot(state.p, q2);
      pts.push([k, d]);
      lo = Math.min(lo, d); hi = Math.max(hi, d);
    });
    lo = Math.min(lo, 0); hi = Math.max(hi, 1);
    function X(k) { return left + (k + L - 1) / (2 * L - 2 || 1) * (width - left - right); }
    function Y(v) { return top + (hi - v) / (hi - lo || 1) * (height - top - bottom); }
    el("svg:line", { x1: left, y1: Y(0), x2: width - right, y2: Y(0), stroke: "currentColor",
      "stroke-opacity": "0.3" }, svg);
    el("svg:line", { x1: X(0), y1: top, x2: X(0), y2: height - bottom, stroke: "currentColor",
      "stroke-opacity": "0.3" }, svg);
    el("svg:text", { x: left, y: height - 8 }, svg, "offset k = " + (-(L - 1)));
    el("svg:text", { x: width - right, y: height - 8, "text-anchor": "end" }, svg, String(L - 1));
    el("svg:text", { x: left + 4, y: top + 4 }, svg, "PE(p) \u00b7 PE(p + k)");
    el("svg:text", { x: 2, y: Y(hi) + 4 }, svg, hi.toFixed(0));
    el("svg:text", { x: 2, y: Y(lo) + 4 }, svg, lo.toFixed(0));
    el("svg:polyline", { points: pts.map(function (pt) { return X(pt[0]).toFixed(1) + "," +
      Y(pt[1]).toFixed(1); }).join(" "), fill: "none", stroke: "var(--clv-accent)",
      "stroke-width": "1.5" }, svg);
    if (q !== null) {
      el("svg:circle", { "class": "clv-marker", cx: X(state.k), cy: Y(dot(state.p, q)), r: 4,
        fill: "var(--clv-focus)" }, svg);
    }
  }

  function drawDials(q) {
    clear(dialPanel);
    var pairs = Math.min(Math.floor(D / 2), data.dials), r = 22, size = 2 * r + 16;
    var svg = el("svg:svg", { viewBox: "0 0 " + pairs * size + " " + (size + 14),
      width: pairs * size, height: size + 14, role: "img",
      "aria-label": "each sine/cosine pair as a dial: the hands of p and p + k" }, dialPanel);
    for (var i = 0; i < pairs; i++) {
      var cx = i * size + size / 2, cy = r + 6;
      el("svg:circle", { cx: cx, cy: cy, r: r, fill: "none", stroke: "currentColor",
        "stroke-opacity": "0.35" }, svg);
      [[state.p, "var(--clv-accent)"], [q, "var(--clv-focus)"]].forEach(function (hand) {
        if (hand[0] === null) return;
        var s = value(hand[0], 2 * i), c = value(hand[0], 2 * i + 1);
        el("svg:line", { x1: cx, y1: cy, x2: (cx + r * s).toFixed(2), y2: (cy - r * c).toFixed(2),
          stroke: hand[1], "stroke-width": "2", "stroke-linecap": "round" }, svg);
      });
      el("svg:text", { x: cx, y: size + 10, "text-anchor": "middle" }, svg, "pair " + i);
    }
    el("p", { "class": "clv-caption" }, dialPanel,
      "Dials: pair i is the (sine, cosine) of p \u00b7 w_i; the hand of p is orange, of " +
      "p + k blue, and the angle between them is k \u00b7 w_i, whatever p. Bars: sines " +
      "dark, cosines light.");
  }

  function draw() {
    var q = state.p + state.k;
    if (q < 0 || q >= L) q = null;
    drawBars(q);
    drawCurve(q);
    drawDials(q);
    readout.textContent = q === null
      ? "p + k = " + (state.p + state.k) + " lies outside the table (0 to " + (L - 1) + ")"
      : "PE(" + state.p + ") \u00b7 PE(" + q + ") = " + dot(state.p, q).toFixed(3) +
        ": the same for every p at offset k = " + state.k;
  }

  draw();
}

boot(start);
