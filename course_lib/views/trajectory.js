// The trajectory view (course_lib.views.trajectory_view): a map of one trajectory in metres
// (observed fixes, true future, prediction) with the attention of one predicted point over
// the observed fixes drawn on them, and pickers for the trajectory, the predicted point,
// the layer and the head (or the mean of the heads). The fixes are one tab stop: the arrow
// keys move between them.

function start(root, data) {
  var PLOT_W = 380, PLOT_H = 300, LEFT = 46, TOP = 8, BOTTOM = 36;
  var ACCENT = "#d35f00";
  var C = data.colors;
  var state = { item: 0, step: 0, layer: 0, head: data.heads > 1 ? -1 : 0, focus: null };
  var weights = data.items.map(function (item) { return bytes(item.w); });

  if (data.title) el("p", { "class": "clv-title" }, root, data.title);
  var controls = el("div", { "class": "clv-controls" }, root);
  var caption = el("p", { "class": "clv-caption" }, root);
  var panel = el("div", { "class": "clv-panel" }, root);
  var readout = el("p", { "class": "clv-readout", "aria-live": "polite" }, root);
  var fixes = [];  // the fixes' <g> elements of the map drawn last

  if (data.items.length > 1) {
    picker(controls, "Trajectory", data.labels, state.item,
      function (i) { state.item = i; state.focus = null; draw(); });
  }
  var T = data.items[0].p.length, S = data.items[0].o.length;
  var points = [];
  for (var t = 0; t < T; t++) points.push("predicted point " + (t + 1));
  if (T > 1) {
    picker(controls, "Predicted point", points, state.step,
      function (i) { state.step = i; draw(); });
  }
  if (data.layers.length > 1) {
    picker(controls, "Layer", data.layers, state.layer,
      function (i) { state.layer = i; draw(); });
  }
  if (data.heads > 1) {
    var heads = ["mean of heads"];
    for (var h = 0; h < data.heads; h++) heads.push("head " + (h + 1));
    picker(controls, "Head", heads, state.head + 1,
      function (i) { state.head = i - 1; draw(); });
  }

  // The weight of fix s for the chosen predicted point, layer and head (or mean of heads).
  function weight(s) {
    var w = weights[state.item], H = data.heads;
    function at(h) { return w[((state.layer * H + h) * T + state.step) * S + s] / 100; }
    if (state.head >= 0) return at(state.head);
    var sum = 0;
    for (var h = 0; h < H; h++) sum += at(h);
    return sum / H;
  }

  // The equal-axes frame around the points, as course_lib/views/trajectory.py's frame().
  function frame(pts) {
    var xs = pts.map(function (p) { return p[0]; }), ys = pts.map(function (p) { return p[1]; });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    var pad = 0.08 * Math.max(x1 - x0, y1 - y0) + 5;
    x0 -= pad; y0 -= pad; x1 += pad; y1 += pad;
    var scale = Math.min(PLOT_W / (x1 - x0), PLOT_H / (y1 - y0));
    var cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    var raw = Math.max(PLOT_W, PLOT_H) / scale / 5;
    var mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var r = raw / mag, step = mag * (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10);
    return { x0: cx - PLOT_W / scale / 2, y0: cy - PLOT_H / scale / 2, scale: scale, step: step };
  }

  function metres(v) { return String(Math.round(v)).replace(/^-0$/, "0"); }

  function where(p) {
    var e = Math.round(p[0]), n = Math.round(p[1]);
    return Math.abs(e) + " m " + (e < 0 ? "west" : "east") + ", " +
      Math.abs(n) + " m " + (n < 0 ? "south" : "north");
  }

  function cross(parent, x, y, r) {
    el("svg:path", { d: "M" + (x - r) + " " + (y - r) + "L" + (x + r) + " " + (y + r) +
      "M" + (x - r) + " " + (y + r) + "L" + (x + r) + " " + (y - r),
    stroke: C.predicted, "stroke-width": "2" }, parent);
  }

  function polyline(parent, pts, stroke, dash) {
    var attrs = { points: pts.map(function (p) { return p[0] + "," + p[1]; }).join(" "),
      fill: "none", stroke: stroke, "stroke-width": "1.5" };
    if (dash) attrs["stroke-dasharray"] = dash;
    el("svg:polyline", attrs, parent);
  }

  function drawMap(item) {
    clear(panel);
    var all = item.o.concat(item.f, item.p, [[0, 0]]);
    var f = frame(all), top = TOP;
    function at(p) {
      return [LEFT + (p[0] - f.x0) * f.scale, top + PLOT_H - (p[1] - f.y0) * f.scale];
    }
    var width = LEFT + PLOT_W + 10, height = top + PLOT_H + BOTTOM + 40;
    var svg = el("svg:svg", { "class": "clv-map", viewBox: "0 0 " + width + " " + height,
      width: width, height: height, role: "group",
      "aria-label": "map in metres: observed fixes, true future and prediction" }, panel);
    var grid = el("svg:g", { "stroke-opacity": "0.15", stroke: "currentColor" }, svg);
    var v, d;
    for (v = Math.ceil(f.x0 / f.step) * f.step; v <= f.x0 + PLOT_W / f.scale; v += f.step) {
      d = LEFT + (v - f.x0) * f.scale;
      el("svg:line", { x1: d, y1: top, x2: d, y2: top + PLOT_H }, grid);
      el("svg:text", { x: d, y: top + PLOT_H + 14, "text-anchor": "middle",
        "font-size": "10" }, svg, metres(v));
    }
    for (v = Math.ceil(f.y0 / f.step) * f.step; v <= f.y0 + PLOT_H / f.scale; v += f.step) {
      d = top + PLOT_H - (v - f.y0) * f.scale;
      el("svg:line", { x1: LEFT, y1: d, x2: LEFT + PLOT_W, y2: d }, grid);
      el("svg:text", { x: LEFT - 4, y: d + 3.5, "text-anchor": "end" }, svg, metres(v));
    }
    el("svg:text", { x: LEFT + PLOT_W / 2, y: top + PLOT_H + 28, "text-anchor": "middle" },
      svg, "east (m)");
    el("svg:text", { x: 12, y: top + PLOT_H / 2, "text-anchor": "middle",
      transform: "rotate(-90 12 " + (top + PLOT_H / 2) + ")" }, svg, "north (m)");

    var last = item.o[S - 1];
    polyline(svg, item.o.map(at), C.observed);
    polyline(svg, [last].concat(item.f).map(at), C.future, "5 3");
    polyline(svg, [last].concat(item.p).map(at), C.predicted, "2 3");
    var from = at(item.p[state.step]);
    var links = el("svg:g", {}, svg);
    var s, w, xy;
    for (s = 0; s < S; s++) {
      w = weight(s); xy = at(item.o[s]);
      el("svg:line", { "class": "clv-link", x1: from[0], y1: from[1], x2: xy[0], y2: xy[1],
        stroke: ACCENT, "stroke-width": (0.5 + 6 * w).toFixed(2),
        "stroke-opacity": Math.max(w, 0.08).toFixed(2), "data-s": String(s),
        "data-w": fmt(w) }, links);
    }
    item.f.forEach(function (p) {
      var q = at(p);
      el("svg:rect", { x: q[0] - 3.5, y: q[1] - 3.5, width: 7, height: 7, fill: C.future }, svg);
    });
    item.p.forEach(function (p, t) {
      var q = at(p);
      if (t === state.step) {
        el("svg:circle", { cx: q[0], cy: q[1], r: 10, fill: "none", stroke: C.predicted,
          "stroke-width": "1.5", "class": "clv-query" }, svg);
      }
      cross(svg, q[0], q[1], t === state.step ? 7 : 5);
    });
    fixes = [];
    for (s = 0; s < S; s++) fixes.push(fix(svg, s, at(item.o[s]), weight(s), item));
    // The legend: the marks, then the weight's colour bar.
    var y = top + PLOT_H + BOTTOM, legend = el("svg:g", { "font-size": "11" }, svg);
    el("svg:circle", { cx: 6, cy: y + 5, r: 3.5, fill: C.observed }, legend);
    el("svg:text", { x: 14, y: y + 9 }, legend, "observed");
    el("svg:rect", { x: 78, y: y + 1.5, width: 7, height: 7, fill: C.future }, legend);
    el("svg:text", { x: 90, y: y + 9 }, legend, "true future");
    cross(legend, 172, y + 5, 5);
    el("svg:text", { x: 180, y: y + 9 }, legend, "predicted");
    el("svg:text", { x: 250, y: y + 9 }, legend, "weight");
    var left = 250 + 6 * 11 * 0.58 + 6;
    for (var i = 0; i < 10; i++) {
      el("svg:rect", { x: left + i * 10, y: y, width: 10, height: 10, fill: ACCENT,
        "fill-opacity": ((i + 0.5) / 10).toFixed(2) }, legend);
    }
    el("svg:text", { x: left, y: y + 22, "font-size": "10" }, legend, "0");
    el("svg:text", { x: left + 100, y: y + 22, "font-size": "10", "text-anchor": "end" },
      legend, "1");
  }

  // One fix: its weight as an orange disc, its place as a blue dot, its number and weight;
  // a button that reads its weight out when hovered or focused.
  function fix(svg, s, xy, w, item) {
    var g = el("svg:g", { "class": "clv-token clv-fix", role: "button",
      tabindex: s === (state.focus === null ? S - 1 : state.focus) ? "0" : "-1",
      "data-s": String(s), "data-w": fmt(w),
      "aria-label": "fix " + (s + 1) + " of " + S + ", " + where(item.o[s]) +
        ": weight " + fmt(w) }, svg);
    el("svg:rect", { "class": "clv-hit", x: xy[0] - 9, y: xy[1] - 9, width: 18, height: 18,
      rx: 9 }, g);
    el("svg:circle", { cx: xy[0], cy: xy[1], r: (4 + 12 * Math.sqrt(w)).toFixed(1),
      fill: ACCENT, "fill-opacity": w.toFixed(2) }, g);
    el("svg:circle", { cx: xy[0], cy: xy[1], r: 3.5, fill: C.observed }, g);
    el("svg:text", { x: xy[0] + 7, y: xy[1] - 6, "font-size": "11" }, g,
      (s + 1) + ": " + fmt(w));
    g.addEventListener("mouseenter", function () { show(s, false); });
    g.addEventListener("focus", function () { show(s, false); });
    onKey(g, function (event) {
      var next = event.key === "ArrowRight" || event.key === "ArrowDown" ? s + 1
        : event.key === "ArrowLeft" || event.key === "ArrowUp" ? s - 1
          : event.key === "Home" ? 0 : event.key === "End" ? S - 1 : null;
      if (next === null) return;
      event.preventDefault();
      show(Math.max(0, Math.min(S - 1, next)), true);
    });
    return g;
  }

  // Fix s is the focused one: outlined, the only tab stop, read out; no redraw (so the
  // keyboard focus stays where it is).
  function show(s, moveFocus) {
    state.focus = s;
    fixes.forEach(function (g, i) {
      g.setAttribute("class", "clv-token clv-fix" + (i === s ? " clv-on" : ""));
      g.setAttribute("tabindex", i === s ? "0" : "-1");
    });
    if (moveFocus) fixes[s].focus();
    drawReadout(data.items[state.item]);
  }

  function context() {
    var parts = ["predicted point " + (state.step + 1)];
    if (data.layers.length > 1) parts.push(data.layers[state.layer]);
    if (data.heads > 1) parts.push(state.head < 0 ? "mean of heads" : "head " + (state.head + 1));
    return parts.join(", ");
  }

  function drawReadout(item) {
    clear(readout);
    if (state.focus === null) {
      readout.appendChild(document.createTextNode(context() + " \u2192 "));
      var row = [];
      for (var s = 0; s < S; s++) row.push("fix " + (s + 1) + " " + fmt(weight(s)));
      readout.appendChild(document.createTextNode(row.join(" \u00b7 ") +
        ". Hover over a fix, or tab to the fixes and use the arrow keys."));
      return;
    }
    var f = state.focus;
    el("b", {}, readout, "fix " + (f + 1) + " of " + S);
    readout.appendChild(document.createTextNode(" (" + where(item.o[f]) + "): weight " +
      fmt(weight(f)) + " from " + context()));
  }

  function draw() {
    var item = data.items[state.item];
    var text = data.captions[state.item];
    caption.textContent = text;
    caption.style.display = text ? "" : "none";
    drawMap(item);
    if (state.focus !== null) fixes[state.focus].setAttribute("class", "clv-token clv-fix clv-on");
    drawReadout(item);
  }

  draw();
}

boot(start);
