// The offset view (course_lib.views.offset_view): the scores of one query position m
// against every key position n, drawn along the offset n - m, one curve per kind of
// position. Move m: a curve that keeps its shape depends on the offset alone.

function start(root, data) {
  var L = data.length;
  var state = { m: data.m };
  function score(c, m, n) { return data.curves[c].scores[m * L + n] / 1000; }

  if (data.title) el("p", { "class": "clv-title" }, root, data.title);
  var controls = el("div", { "class": "clv-controls" }, root);
  var panel = el("div", { "class": "clv-panel" }, root);
  var readout = el("p", { "class": "clv-readout", "aria-live": "polite" }, root);
  var positions = [];
  for (var p = 0; p < L; p++) positions.push(p);
  slider(controls, "query position m", positions, state.m,
    function (i) { state.m = i; draw(); });

  var lo = Infinity, hi = -Infinity;
  data.curves.forEach(function (curve, c) {
    for (var i = 0; i < L * L; i++) {
      lo = Math.min(lo, curve.scores[i] / 1000); hi = Math.max(hi, curve.scores[i] / 1000);
    }
  });

  function draw() {
    clear(panel);
    var width = 520, height = 240, left = 44, right = 12, top = 14, bottom = 34;
    var svg = el("svg:svg", { viewBox: "0 0 " + width + " " + height, width: width,
      height: height, role: "img",
      "aria-label": "score of query position m against every key position, along the offset" },
    panel);
    function X(k) { return left + (k + L - 1) / (2 * L - 2 || 1) * (width - left - right); }
    function Y(v) { return top + (hi - v) / (hi - lo || 1) * (height - top - bottom); }
    el("svg:line", { x1: X(0), y1: top, x2: X(0), y2: height - bottom, stroke: "currentColor",
      "stroke-opacity": "0.3" }, svg);
    el("svg:text", { x: left, y: height - 10 }, svg, "offset n - m = " + (-(L - 1)));
    el("svg:text", { x: width - right, y: height - 10, "text-anchor": "end" }, svg,
      String(L - 1));
    el("svg:text", { x: 2, y: Y(hi) + 4 }, svg, hi.toFixed(1));
    el("svg:text", { x: 2, y: Y(lo) + 4 }, svg, lo.toFixed(1));
    var colours = ["var(--clv-accent)", "var(--clv-focus)", "currentColor"];
    var parts = [];
    data.curves.forEach(function (curve, c) {
      var pts = [];
      for (var n = 0; n < L; n++) pts.push(X(n - state.m).toFixed(1) + "," + Y(score(c, state.m, n)).toFixed(1));
      el("svg:polyline", { "class": "clv-score", "data-curve": String(c), points: pts.join(" "),
        fill: "none", stroke: colours[c % 3], "stroke-width": "1.8" }, svg);
      el("svg:text", { x: width - right, y: top + 12 + 14 * c, "text-anchor": "end",
        style: "fill:" + colours[c % 3] }, svg, curve.name);
      parts.push(curve.name + " " + score(c, state.m, state.m).toFixed(2));
    });
    readout.textContent = "m = " + state.m + ", score at offset 0: " + parts.join(" \u00b7 ");
  }

  draw();
}

boot(start);
