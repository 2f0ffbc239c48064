// The mask view (course_lib.views.mask_view): which keys each query may see under each
// family's mask, with a slider where a family has a parameter (a sliding window's width).

function start(root, data) {
  var state = { family: 0, value: 0, focus: null };
  if (data.title) el("p", { "class": "clv-title" }, root, data.title);
  var controls = el("div", { "class": "clv-controls" }, root);
  var sliderBox = el("span", {}, controls);
  var panel = el("div", { "class": "clv-panel" }, root);
  var readout = el("p", { "class": "clv-readout", "aria-live": "polite" }, root);
  var T = data.tokens.length;

  if (data.families.length > 1) {
    picker(controls, "Mask", data.families.map(function (f) { return f.name; }), 0,
      function (i) { state.family = i; state.value = data.families[i].start; drawSlider(); draw(); });
  }
  controls.appendChild(sliderBox);

  function drawSlider() {
    clear(sliderBox);
    var family = data.families[state.family];
    state.value = family.start;
    if (family.values.length > 1) {
      slider(sliderBox, family.parameter, family.values, family.start,
        function (i) { state.value = i; draw(); });
    }
  }

  function blocked(t, s) {
    return data.families[state.family].masks[state.value].charAt(t * T + s) === "1";
  }

  // Show query t; the keyboard focus goes to it (keyboard) or stays on the token that had
  // it (hover), though the redraw replaces the nodes.
  var restoring = false;
  function show(t, keyboard) {
    if (state.focus === t && !keyboard) return;
    var active = document.activeElement;
    var had = active && panel.contains(active) ? active.getAttribute("data-q") : null;
    state.focus = t;
    draw();
    var target = keyboard ? String(t) : had;
    if (target === null) return;
    restoring = true;
    panel.querySelector('.clv-token[data-q="' + target + '"]').focus();
    restoring = false;
  }

  function draw() {
    clear(panel);
    var c = 24, words = data.tokens;
    var wide = Math.max.apply(null, words.map(function (w) { return w.length; })) * 7;
    var left = wide + 10, top = wide * 0.75 + 14;
    var width = left + T * c + 4, height = top + T * c + 4;
    var svg = el("svg:svg", { "class": "clv-grid", viewBox: "0 0 " + width + " " + height,
      width: width, height: height, role: "group",
      "aria-label": "mask: rows are queries, columns keys, filled = may attend" }, panel);
    words.forEach(function (k, s) {
      var x = left + s * c + c / 2, y = top - 6;
      el("svg:text", { x: x, y: y, transform: "rotate(-50 " + x + " " + y + ")" }, svg, k);
    });
    for (var t = 0; t < T; t++) {
      // One tab stop for the queries (roving tabindex): the focused one, else the first.
      var stop = state.focus === null ? t === 0 : state.focus === t;
      var g = el("svg:g", {
        "class": "clv-token" + (state.focus === t ? " clv-on" : ""),
        tabindex: stop ? "0" : "-1",
        role: "button", "data-q": String(t), "aria-label": "query " + (t + 1) + ": " + words[t]
      }, svg);
      el("svg:rect", { "class": "clv-hit", x: 2, y: top + t * c + 3, width: left - 4,
        height: c - 6, rx: 3 }, g);
      el("svg:text", { x: left - 6, y: top + t * c + c / 2 + 4, "text-anchor": "end" }, g,
        words[t]);
      (function (t, g) {
        g.addEventListener("mouseenter", function () { show(t, false); });
        g.addEventListener("focus", function () { if (!restoring) show(t, true); });
        g.addEventListener("click", function () { show(t, true); });
        onKey(g, function (event) {
          var next = event.key === "ArrowDown" || event.key === "ArrowRight" ? t + 1
            : event.key === "ArrowUp" || event.key === "ArrowLeft" ? t - 1
              : event.key === "Home" ? 0 : event.key === "End" ? T - 1 : null;
          if (next === null || next < 0 || next >= T) return;
          event.preventDefault();
          show(next, true);
        });
      })(t, g);
      for (var s = 0; s < T; s++) {
        var off = blocked(t, s);
        var cell = el("svg:rect", { "class": off ? "clv-blocked" : "clv-cell",
          x: left + s * c, y: top + t * c, width: c - 1, height: c - 1,
          "fill-opacity": off ? null : (state.focus === null || state.focus === t ? "0.85" : "0.35"),
          "data-q": String(t), "data-k": String(s), "data-blocked": off ? "1" : "0" }, svg);
        if (off) cell.removeAttribute("fill-opacity");
        el("svg:title", {}, cell, words[t] + " \u2192 " + words[s] + (off ? ": blocked" : ": may attend"));
      }
    }
    el("svg:rect", { "class": "clv-frame", x: left - 0.5, y: top - 0.5, width: T * c,
      height: T * c }, svg);
    if (state.focus !== null) {
      el("svg:rect", { "class": "clv-row", x: left - 1.5, y: top + state.focus * c - 1.5,
        width: T * c + 2, height: c + 2, "data-q": String(state.focus) }, svg);
    }
    clear(readout);
    if (state.focus === null) {
      readout.textContent = "Hover over a query, tap it or tab to it (then the arrow keys): " +
        "what may it see?";
      return;
    }
    var seen = [];
    for (var k = 0; k < T; k++) if (!blocked(state.focus, k)) seen.push(words[k]);
    readout.appendChild(document.createTextNode("query " + (state.focus + 1) + " "));
    el("b", {}, readout, "\u201c" + words[state.focus] + "\u201d");
    readout.appendChild(document.createTextNode(seen.length
      ? " may see " + seen.length + " of " + T + ": " + seen.join(" ")
      : " may see nothing: every key is blocked"));
  }

  drawSlider();
  draw();
}

boot(start);
