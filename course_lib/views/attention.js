// The attention view (course_lib.views.attention_view): a query x key weight grid and the
// same weights as lines from the focused query to every key, with pickers for the sentence,
// the layer and the head (or the mean of the heads).

function start(root, data) {
  var state = { kind: data.kind, item: 0, layer: data.layer, head: data.head, focus: null };
  var weights = data.kinds.map(function (kind) {
    return kind.items.map(function (item) { return bytes(item.w); });
  });

  if (data.title) el("p", { "class": "clv-title" }, root, data.title);
  var controls = el("div", { "class": "clv-controls" }, root);
  var fixed = el("span", { "class": "clv-controls" }, controls);
  var perKind = el("span", { "class": "clv-controls" }, controls);
  var caption = el("p", { "class": "clv-caption" }, root);
  var panels = el("div", { "class": "clv-panels" }, root);
  var gridPanel = el("div", { "class": "clv-panel" }, panels);
  var linePanel = el("div", { "class": "clv-panel" }, panels);
  var readout = el("p", { "class": "clv-readout", "aria-live": "polite" }, root);

  if (data.kinds.length > 1) {
    picker(fixed, "Attention", data.kinds.map(function (k) { return k.name; }), state.kind,
      function (i) {
        state.kind = i;
        state.layer = Math.min(state.layer, data.kinds[i].layers.length - 1);
        state.head = data.kinds[i].heads > 1 ? -1 : 0;
        state.focus = null;
        kindPickers();
        draw();
      });
  }
  if (data.labels.length > 1) {
    picker(fixed, "Sentence", data.labels, state.item,
      function (i) { state.item = i; state.focus = null; draw(); });
  }

  // The layer and head pickers: their choices depend on the kind of attention.
  function kindPickers() {
    clear(perKind);
    var kind = data.kinds[state.kind];
    if (kind.layers.length > 1) {
      picker(perKind, "Layer", kind.layers, state.layer,
        function (i) { state.layer = i; draw(); });
    }
    if (kind.heads > 1) {
      var heads = ["mean of heads"];
      for (var h = 0; h < kind.heads; h++) heads.push("head " + (h + 1));
      picker(perKind, "Head", heads, state.head + 1,
        function (i) { state.head = i - 1; draw(); });
    }
  }
  kindPickers();

  function current() {
    return data.kinds[state.kind].items[state.item];
  }

  // The weight of query t on key s in the current kind, sentence, layer and head (or the
  // mean of the heads).
  function weight(t, s) {
    var item = current();
    var w = weights[state.kind][state.item];
    var H = data.kinds[state.kind].heads, T = item.queries.length, S = item.keys.length;
    function at(h) { return w[((state.layer * H + h) * T + t) * S + s] / 100; }
    if (state.head >= 0) return at(state.head);
    var sum = 0;
    for (var h = 0; h < H; h++) sum += at(h);
    return sum / H;
  }

  // Show query t; "panel" (the grid's or the lines' panel) gets the keyboard focus back
  // after the redraw when the token there had it.
  function focusQuery(t, panel) {
    state.focus = t;
    draw();
    if (panel) panel.querySelector('.clv-token[data-q="' + t + '"]').focus();
  }

  function token(parent, t, x, y, anchor, text, width) {
    var g = el("svg:g", {
      "class": "clv-token" + (state.focus === t ? " clv-on" : ""),
      tabindex: "0", role: "button", "data-q": String(t),
      "aria-label": "query " + (t + 1) + ": " + text
    }, parent);
    var left = anchor === "end" ? x - width : x;
    el("svg:rect", { "class": "clv-hit", x: left - 2, y: y - 12, width: width + 4, height: 16,
      rx: 3 }, g);
    el("svg:text", { x: x, y: y, "text-anchor": anchor }, g, text);
    var panel = parent.closest(".clv-panel");
    g.addEventListener("mouseenter", function () { if (state.focus !== t) focusQuery(t, null); });
    g.addEventListener("focus", function () { if (state.focus !== t) focusQuery(t, panel); });
    g.addEventListener("keydown", function (event) {
      var T = current().queries.length;
      var next = event.key === "ArrowDown" || event.key === "ArrowRight" ? t + 1
        : event.key === "ArrowUp" || event.key === "ArrowLeft" ? t - 1 : null;
      if (next === null || next < 0 || next >= T) return;
      event.preventDefault();
      focusQuery(next, panel);
    });
    return g;
  }

  function textWidth(words) {
    return Math.max.apply(null, words.map(function (w) { return w.length; }).concat([1])) * 7;
  }

  function drawGrid(item) {
    clear(gridPanel);
    var T = item.queries.length, S = item.keys.length;
    var c = Math.max(22, Math.min(44, Math.floor(176 / Math.max(T, S))));  // cell size
    var left = textWidth(item.queries) + 10, top = textWidth(item.keys) * 0.75 + 12;
    var width = left + S * c + 4, height = top + T * c + 4;
    var svg = el("svg:svg", { "class": "clv-grid", viewBox: "0 0 " + width + " " + height,
      width: width, height: height,
      role: "img", "aria-label": "attention weights, queries by keys" }, gridPanel);
    item.keys.forEach(function (k, s) {
      var x = left + s * c + c / 2, y = top - 6;
      el("svg:text", { x: x, y: y, transform: "rotate(-50 " + x + " " + y + ")",
        "text-anchor": "start" }, svg, k);
    });
    for (var t = 0; t < T; t++) {
      token(svg, t, left - 6, top + t * c + c / 2 + 4, "end", item.queries[t],
        textWidth([item.queries[t]]));
      for (var s = 0; s < S; s++) {
        var w = weight(t, s);
        var cell = el("svg:rect", { "class": "clv-cell", x: left + s * c, y: top + t * c,
          width: c - 1, height: c - 1, "fill-opacity": w.toFixed(3),
          "data-q": String(t), "data-k": String(s), "data-w": fmt(w) }, svg);
        el("svg:title", {}, cell, item.queries[t] + " \u2192 " + item.keys[s] + ": " + fmt(w));
      }
    }
    el("svg:rect", { "class": "clv-frame", x: left - 0.5, y: top - 0.5, width: S * c,
      height: T * c }, svg);
    if (state.focus !== null) {
      el("svg:rect", { "class": "clv-row", x: left - 1.5, y: top + state.focus * c - 1.5,
        width: S * c + 2, height: c + 2, "data-q": String(state.focus) }, svg);
    }
  }

  function drawLines(item) {
    clear(linePanel);
    var T = item.queries.length, S = item.keys.length, row = 20;
    var lw = textWidth(item.queries) + 6, rw = textWidth(item.keys) + 6, gap = 120;
    var width = lw + gap + rw, height = 22 + Math.max(T, S) * row;
    var svg = el("svg:svg", { "class": "clv-lines", viewBox: "0 0 " + width + " " + height,
      width: width, height: height,
      role: "img", "aria-label": "attention weights as lines from queries to keys" },
    linePanel);
    el("svg:text", { x: lw - 4, y: 12, "text-anchor": "end", opacity: "0.7" }, svg, "query");
    el("svg:text", { x: lw + gap + 4, y: 12, opacity: "0.7" }, svg, "key");
    var links = el("svg:g", {}, svg);
    var shown = state.focus === null ? null : [state.focus];
    for (var t = 0; t < T; t++) {
      if (shown && shown.indexOf(t) < 0) continue;
      for (var s = 0; s < S; s++) {
        var w = weight(t, s);
        if (w <= 0 && shown === null) continue;
        el("svg:line", { "class": "clv-link", x1: lw + 2, y1: 28 + t * row,
          x2: lw + gap - 2, y2: 28 + s * row,
          "stroke-width": (0.5 + 6 * w).toFixed(2),
          "stroke-opacity": (shown ? Math.max(w, 0.06) : 0.7 * w).toFixed(3),
          "data-q": String(t), "data-k": String(s), "data-w": fmt(w) }, links);
      }
    }
    for (var q = 0; q < T; q++) {
      token(svg, q, lw - 4, 32 + q * row, "end", item.queries[q], textWidth([item.queries[q]]));
    }
    item.keys.forEach(function (k, s) {
      el("svg:text", { x: lw + gap + 4, y: 32 + s * row }, svg, k);
    });
  }

  function drawReadout(item) {
    clear(readout);
    if (state.focus === null) {
      readout.textContent = "Hover over a query token, or tab to one, to see its weights.";
      return;
    }
    el("b", {}, readout, item.queries[state.focus]);
    readout.appendChild(document.createTextNode(" \u2192 " + item.keys.map(function (k, s) {
      return k + " " + fmt(weight(state.focus, s));
    }).join(" \u00b7 ")));
  }

  function draw() {
    var item = current();
    var text = data.captions[state.item];
    caption.textContent = text;
    caption.style.display = text ? "" : "none";
    drawGrid(item);
    drawLines(item);
    drawReadout(item);
  }

  draw();
}

boot(start);
