// The attention view (course_lib.views.attention_view): a query x key weight grid and the
// same weights as lines, with pickers for the sentence, the layer and the head (or the mean
// of the heads), and every layer and head at a glance as small multiples.
// Focus a query (hover, click, or Tab then arrows) to see whom it attends to; focus a key
// (the column labels) to see who attends to it.

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
  var thumbs = el("div", { "class": "clv-thumbs" }, root);
  var panels = el("div", { "class": "clv-panels" }, root);
  var gridPanel = el("div", { "class": "clv-panel" }, panels);
  var linePanel = el("div", { "class": "clv-panel" }, panels);
  var readout = el("p", { "class": "clv-readout", "aria-live": "polite" }, root);
  var legend = el("p", { "class": "clv-legend" }, root);

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
    var sentence = picker(fixed, "Sentence", data.labels, state.item,
      function (i) { state.item = i; state.focus = null; draw(); });
    sentence.parentNode.classList.add("clv-wide");
  }

  // The layer and head pickers: their choices depend on the kind of attention.
  var layerSelect = null, headSelect = null;
  function kindPickers() {
    clear(perKind);
    layerSelect = headSelect = null;
    var kind = data.kinds[state.kind];
    if (kind.layers.length > 1) {
      layerSelect = picker(perKind, "Layer", kind.layers, state.layer,
        function (i) { state.layer = i; draw(); });
    }
    if (kind.heads > 1) {
      var heads = ["mean of heads"];
      for (var h = 0; h < kind.heads; h++) heads.push("head " + (h + 1));
      headSelect = picker(perKind, "Head", heads, state.head + 1,
        function (i) { state.head = i - 1; draw(); });
    }
  }
  kindPickers();

  function current() {
    return data.kinds[state.kind].items[state.item];
  }

  function causal() {
    return Boolean(data.kinds[state.kind].causal);
  }

  // Is key s hidden from query t by the mask? (Decoder self-attention: keys after t.)
  function blocked(t, s) {
    return causal() && s > t;
  }

  // The weight of query t on key s in the current kind and sentence, in layer l and head h
  // (h = -1: the mean of the heads).
  function weightAt(l, h, t, s) {
    var item = current();
    var w = weights[state.kind][state.item];
    var H = data.kinds[state.kind].heads, T = item.queries.length, S = item.keys.length;
    function at(j) { return w[((l * H + j) * T + t) * S + s] / 100; }
    if (h >= 0) return at(h);
    var sum = 0;
    for (var j = 0; j < H; j++) sum += at(j);
    return sum / H;
  }

  function weight(t, s) {
    return weightAt(state.layer, state.head, t, s);
  }

  function shown(t, s) {
    return blocked(t, s) ? "blocked" : fmt(weight(t, s));
  }

  // focus: null, {side: "q", i: t} (a query) or {side: "k", i: s} (a key).
  function same(a, b) {
    return a !== null && b !== null && a.side === b.side && a.i === b.i;
  }

  // Redraw for a new focus; when a token of this view had the keyboard focus, it gets it
  // back (a redraw replaces the nodes), so neither hover nor arrows lose the keyboard.
  function setFocus(f, moveKeyboard) {
    var active = document.activeElement;
    var had = active && root.contains(active) && active.getAttribute("data-tok");
    state.focus = f;
    draw();
    var target = moveKeyboard ? f.side + f.i : had;
    if (target) {
      var node = gridPanel.querySelector('[data-tok="' + target + '"]');
      if (node) {
        restoring = true;
        node.focus();
        restoring = false;
      }
    }
  }
  var restoring = false;

  // A query or key label: hover or focus shows it; arrows move along the side. One tab stop
  // per side (roving tabindex): the focused token, else the first.
  function token(parent, side, i, x, y, anchor, text, width, inGrid) {
    var f = { side: side, i: i };
    var on = same(state.focus, f);
    var n = side === "q" ? current().queries.length : current().keys.length;
    var stop = state.focus && state.focus.side === side ? on : i === 0;
    var attrs = {
      "class": "clv-token" + (on ? " clv-on" : ""), "data-tok": side + i,
      role: "button", "aria-label": (side === "q" ? "query " : "key ") + (i + 1) + ": " + text
    };
    if (side === "q") attrs["data-q"] = String(i); else attrs["data-k"] = String(i);
    if (inGrid) attrs.tabindex = stop ? "0" : "-1";
    var g = el("svg:g", attrs, parent);
    var left = anchor === "end" ? x - width : anchor === "middle" ? x - width / 2 : x;
    el("svg:rect", { "class": "clv-hit", x: left - 2, y: y - 12, width: width + 4, height: 16,
      rx: 3 }, g);
    el("svg:text", { x: x, y: y, "text-anchor": anchor }, g, text);
    g.addEventListener("mouseenter", function () {
      if (!same(state.focus, f)) setFocus(f, false);
    });
    g.addEventListener("click", function () { setFocus(f, inGrid); });
    if (!inGrid) return g;
    g.addEventListener("focus", function () {
      if (!restoring && !same(state.focus, f)) setFocus(f, true);
    });
    onKey(g, function (event) {
      var next = event.key === "ArrowDown" || event.key === "ArrowRight" ? i + 1
        : event.key === "ArrowUp" || event.key === "ArrowLeft" ? i - 1
          : event.key === "Home" ? 0 : event.key === "End" ? n - 1 : null;
      if (next === null || next < 0 || next >= n) return;
      event.preventDefault();
      setFocus({ side: side, i: next }, true);
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
      role: "group", "aria-label": "attention weights, queries (rows) by keys (columns)" },
    gridPanel);
    // A long sentence keeps readable cells and scrolls sideways instead of shrinking.
    if (Math.max(T, S) > 12) svg.style.maxWidth = "none";
    var keyRow = el("svg:g", { role: "group", "aria-label": "keys" }, svg);
    item.keys.forEach(function (k, s) {
      var x = left + s * c + c / 2, y = top - 6;
      var g = token(keyRow, "k", s, x, y, "start", k, textWidth([k]), true);
      g.setAttribute("transform", "rotate(-50 " + x + " " + y + ")");
    });
    var rows = el("svg:g", { role: "group", "aria-label": "queries" }, svg);
    for (var t = 0; t < T; t++) {
      token(rows, "q", t, left - 6, top + t * c + c / 2 + 4, "end", item.queries[t],
        textWidth([item.queries[t]]), true);
      for (var s = 0; s < S; s++) {
        var w = weight(t, s), hidden = blocked(t, s);
        var cell = el("svg:rect", {
          "class": hidden ? "clv-blocked" : "clv-cell", x: left + s * c, y: top + t * c,
          width: c - 1, height: c - 1, "data-q": String(t), "data-k": String(s),
          "data-w": shown(t, s)
        }, svg);
        if (!hidden) cell.setAttribute("fill-opacity", w.toFixed(3));
        el("svg:title", {}, cell, item.queries[t] + " \u2192 " + item.keys[s] + ": " +
          shown(t, s));
      }
    }
    el("svg:rect", { "class": "clv-frame", x: left - 0.5, y: top - 0.5, width: S * c,
      height: T * c }, svg);
    var f = state.focus;
    if (f !== null && f.side === "q") {
      el("svg:rect", { "class": "clv-row", x: left - 1.5, y: top + f.i * c - 1.5,
        width: S * c + 2, height: c + 2, "data-q": String(f.i) }, svg);
    } else if (f !== null) {
      el("svg:rect", { "class": "clv-row clv-col", x: left + f.i * c - 1.5, y: top - 1.5,
        width: c + 2, height: T * c + 2, "data-k": String(f.i) }, svg);
    }
  }

  function drawLines(item) {
    clear(linePanel);
    var T = item.queries.length, S = item.keys.length, row = 20;
    var lw = textWidth(item.queries) + 12, rw = textWidth(item.keys) + 12, gap = 120;
    var width = lw + gap + rw, height = 22 + Math.max(T, S) * row;
    var svg = el("svg:svg", { "class": "clv-lines", viewBox: "0 0 " + width + " " + height,
      width: width, height: height,
      role: "img", "aria-label": "the same weights as lines from queries to keys" },
    linePanel);
    el("svg:text", { x: lw - 4, y: 12, "text-anchor": "end", opacity: "0.7" }, svg, "query");
    el("svg:text", { x: lw + gap + 4, y: 12, opacity: "0.7" }, svg, "key");
    var links = el("svg:g", {}, svg);
    var f = state.focus;
    for (var t = 0; t < T; t++) {
      if (f !== null && f.side === "q" && f.i !== t) continue;
      for (var s = 0; s < S; s++) {
        if (f !== null && f.side === "k" && f.i !== s) continue;
        if (blocked(t, s)) continue;
        var w = weight(t, s);
        if (w <= 0 && f === null) continue;
        el("svg:line", { "class": "clv-link", x1: lw + 2, y1: 28 + t * row,
          x2: lw + gap - 2, y2: 28 + s * row,
          "stroke-width": (0.5 + 6 * w).toFixed(2),
          "stroke-opacity": (f ? Math.max(w, 0.06) : 0.7 * w).toFixed(3),
          "data-q": String(t), "data-k": String(s), "data-w": fmt(w) }, links);
      }
    }
    for (var q = 0; q < T; q++) {
      token(svg, "q", q, lw - 4, 32 + q * row, "end", item.queries[q],
        textWidth([item.queries[q]]), false);
    }
    item.keys.forEach(function (k, s) {
      token(svg, "k", s, lw + gap + 4, 32 + s * row, "start", k, textWidth([k]), false);
    });
  }

  // Every layer x head (and the mean) of this kind and sentence, small; choosing one shows
  // it in the big grid. One tab stop; arrows move, Enter or Space chooses.
  function drawThumbs(item) {
    clear(thumbs);
    var kind = data.kinds[state.kind];
    var L = kind.layers.length, H = kind.heads;
    if (L * H <= 1) return;
    var T = item.queries.length, S = item.keys.length;
    var cell = Math.max(2, Math.min(12, 48 / Math.max(T, S)));  // thumbnails ~24-48 px
    var w = Math.max(S * cell, 38), h = T * cell, gap = 10, top = 16;
    var left = L > 1 ? 7 * Math.max.apply(null, kind.layers.map(function (n) {
      return n.length;
    })) + 8 : 2;
    var cols = H > 1 ? H + 1 : 1;
    var width = left + cols * (w + gap), height = top + L * (h + gap);
    el("p", { "class": "clv-note" }, thumbs,
      "Every " + (L > 1 ? "layer and " : "") + "head at a glance: choose one to open it.");
    var svg = el("svg:svg", { "class": "clv-multiples", viewBox: "0 0 " + width + " " + height,
      width: width, height: height, role: "group",
      "aria-label": "every layer and head, small" }, thumbs);
    for (var j = 0; j < cols; j++) {
      el("svg:text", { x: left + j * (w + gap), y: 11, "class": "clv-small" }, svg,
        H > 1 ? (j === 0 ? "mean" : "head " + j) : "");
    }
    var list = [];
    for (var l = 0; l < L; l++) {
      if (L > 1) {
        el("svg:text", { x: 0, y: top + l * (h + gap) + h / 2 + 4, "class": "clv-small" }, svg,
          kind.layers[l]);
      }
      for (var c = 0; c < cols; c++) list.push([l, H > 1 ? c - 1 : 0, c]);
    }
    list.forEach(function (entry, index) {
      var l = entry[0], hd = entry[1], c = entry[2];
      var on = l === state.layer && hd === state.head;
      var x0 = left + c * (w + gap), y0 = top + l * (h + gap);
      var name = kind.layers[l] + ", " + (hd < 0 ? "mean of heads" : "head " + (hd + 1));
      var g = el("svg:g", { "class": "clv-thumb" + (on ? " clv-on" : ""), role: "button",
        tabindex: on ? "0" : "-1", "aria-label": name, "aria-pressed": on ? "true" : "false",
        "data-layer": String(l), "data-head": String(hd) }, svg);
      for (var t = 0; t < T; t++) {
        for (var s = 0; s < S; s++) {
          if (blocked(t, s)) continue;
          var v = weightAt(l, hd, t, s);
          if (v < 0.005) continue;
          el("svg:rect", { "class": "clv-cell", x: (x0 + s * cell).toFixed(1),
            y: (y0 + t * cell).toFixed(1), width: cell.toFixed(1), height: cell.toFixed(1),
            "fill-opacity": v.toFixed(2) }, g);
        }
      }
      el("svg:rect", { "class": "clv-thumb-frame", x: x0 - 1.5, y: y0 - 1.5, width: S * cell + 3,
        height: h + 3, rx: 2 }, g);
      el("svg:title", {}, g, name);
      function choose(keyboard) {
        state.layer = l;
        state.head = hd;
        if (layerSelect) layerSelect.value = String(l);
        if (headSelect) headSelect.value = String(hd + 1);
        draw();
        if (keyboard) thumbs.querySelector('.clv-thumb[tabindex="0"]').focus();
      }
      g.addEventListener("click", function () { choose(false); });
      onKey(g, function (event) {
        var step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: cols, ArrowUp: -cols }[event.key];
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          choose(true);
        } else if (step !== undefined) {
          event.preventDefault();
          var next = svg.querySelectorAll(".clv-thumb")[index + step];
          if (!next) return;
          g.setAttribute("tabindex", "-1");
          next.setAttribute("tabindex", "0");
          next.focus();
        }
      });
    });
  }

  function drawReadout(item) {
    clear(readout);
    var f = state.focus;
    if (f === null) {
      readout.textContent = "Hover over a query (a row) or a key (a column), or tab to " +
        "one and use the arrow keys; on a phone, tap one.";
      return;
    }
    if (f.side === "q") {
      el("b", {}, readout, item.queries[f.i]);
      readout.appendChild(document.createTextNode(" \u2192 " + item.keys.map(function (k, s) {
        return k + " " + shown(f.i, s);
      }).join(" \u00b7 ")));
      return;
    }
    readout.appendChild(document.createTextNode("attending to "));
    el("b", {}, readout, item.keys[f.i]);
    readout.appendChild(document.createTextNode(": " + item.queries.map(function (q, t) {
      return q + " " + shown(t, f.i);
    }).join(" \u00b7 ")));
  }

  function drawLegend() {
    clear(legend);
    var bar = el("span", { "class": "clv-ramp", "aria-hidden": "true" }, legend);
    for (var i = 0; i < 5; i++) {
      el("i", { style: "opacity:" + ((i + 0.5) / 5).toFixed(2) }, bar);
    }
    var text = "weight 0 \u2192 1, rounded to two decimals (a row sums to 1 \u00b1 0.02)";
    if (causal()) {
      el("span", { "class": "clv-blocked-key", "aria-hidden": "true" }, legend);
      text += "; grey: blocked by the causal mask. A row is the word written; its input " +
        "is the key one to the left.";
    }
    legend.appendChild(document.createTextNode(" " + text));
  }

  function draw() {
    var item = current();
    var text = data.captions[state.item];
    caption.textContent = text;
    caption.style.display = text ? "" : "none";
    drawThumbs(item);
    drawGrid(item);
    drawLines(item);
    drawReadout(item);
    drawLegend();
  }

  draw();
}

boot(start);
