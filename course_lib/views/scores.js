// The score view (course_lib.views.score_view): scaled dot-product attention for the picked
// query, step by step, one column per key: q and k, the products and q.k, the division by
// sqrt(d), the mask, exp and the softmax's division by the sum. Every number is the
// library's, computed in Python and embedded; this script only writes them out.

var MINUS = "\u2212";
var CSS = [
  ".clv-scores .clv-queries{display:flex;flex-wrap:wrap;gap:0.3em;align-items:center;margin:0 0 0.5em}",
  ".clv-scores .clv-queries button{font:inherit;color:inherit;background:transparent;border:1px solid currentColor;border-radius:3px;padding:1px 8px;cursor:pointer;opacity:0.75}",
  ".clv-scores .clv-queries button[aria-checked=true]{opacity:1;font-weight:700;color:var(--clv-focus);border-width:2px}",
  ".clv-scores .clv-queries button:focus-visible{outline:2px solid var(--clv-focus);outline-offset:2px}",
  ".clv-scores .clv-table-box{max-width:100%;overflow-x:auto}",
  ".clv-scores table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:12px}",
  ".clv-scores th,.clv-scores td{padding:1px 3px;text-align:right;vertical-align:top;white-space:nowrap}",
  ".clv-scores thead th{text-align:center;border-bottom:1px solid currentColor}",
  ".clv-scores th.clv-step{text-align:left;font-weight:600;white-space:normal;padding-top:0.6em;border-bottom:1px solid rgba(128,128,128,0.4)}",
  ".clv-scores th.clv-name{font-weight:400;text-align:left;opacity:0.85}",
  ".clv-scores td.clv-sum{font-weight:700}",
  ".clv-scores td.clv-off{background:repeating-linear-gradient(45deg,rgba(128,128,128,0.10) 0 4px,rgba(128,128,128,0.30) 4px 6px);font-style:italic}",
  ".clv-scores .clv-entry{display:flex;align-items:center;justify-content:flex-end;gap:2px;line-height:1.25;font-size:11px}",
  ".clv-scores .clv-bar{position:relative;display:inline-block;width:14px;height:8px;flex:none}",
  ".clv-scores .clv-bar i{position:absolute;top:0;height:8px}",
  ".clv-scores .clv-pos{background:var(--clv-accent)}",
  ".clv-scores .clv-neg{background:var(--clv-second)}",
  ".clv-scores .clv-wbar{display:block;height:6px;background:var(--clv-accent);margin:2px 0 1px auto}",
  ".clv-scores .clv-strip{display:flex;align-items:flex-end;height:30px;gap:1px}",
  ".clv-scores .clv-legend{font-size:12px;margin:0.4em 0 0;display:flex;flex-wrap:wrap;gap:0.2em 1em}",
  ".clv-scores .clv-key{display:inline-block;width:12px;height:8px;margin-right:4px;vertical-align:middle}",
  ".clv-scores{--clv-second:#1f6fb8}"
].join("\n");

function num(value, decimals) {
  return value.toFixed(decimals).replace("-", MINUS);
}

function expText(value) {
  return value >= 1e5 ? value.toExponential(3).replace("-", MINUS) : num(value, 4);
}

function start(root, data) {
  el("style", {}, root, CSS);
  var T = data.queries.length, S = data.keys.length, d = data.d;
  var state = { query: 0 };
  if (data.title) el("p", { "class": "clv-title" }, root, data.title);
  var bar = el("div", { "class": "clv-queries" }, root);
  el("span", { id: root.id + "-ql" }, bar, "Query:");
  var group = el("span", { role: "radiogroup", "aria-labelledby": root.id + "-ql",
    "class": "clv-queries" }, bar);
  group.style.margin = "0";
  var buttons = data.queries.map(function (word, t) {
    var b = el("button", { type: "button", role: "radio", "class": "clv-token",
      "data-q": String(t), "aria-label": "query " + (t + 1) + " of " + T + ": " + word },
    group, word);
    b.addEventListener("click", function () { pick(t, true); });
    b.addEventListener("mouseenter", function () { pick(t, false); });
    b.addEventListener("focus", function () { pick(t, false); });
    onKey(b, function (event) {
      var next = event.key === "ArrowRight" || event.key === "ArrowDown" ? t + 1
        : event.key === "ArrowLeft" || event.key === "ArrowUp" ? t - 1
          : event.key === "Home" ? 0 : event.key === "End" ? T - 1 : null;
      if (next === null) return;
      event.preventDefault();
      pick(Math.max(0, Math.min(T - 1, next)), true);
    });
    return b;
  });
  var box = el("div", { "class": "clv-table-box" }, root);
  var readout = el("p", { "class": "clv-readout", "aria-live": "polite" }, root);
  var legend = el("p", { "class": "clv-legend" }, root);
  [["clv-pos", "positive entry"], ["clv-neg", "negative entry"],
    ["clv-off", "blocked by the mask"]].forEach(function (pair) {
    if (pair[0] === "clv-off" && !data.masked) return;
    var item = el("span", {}, legend);
    var swatch = el("span", { "class": "clv-key " + pair[0], "aria-hidden": "true" }, item);
    if (pair[0] === "clv-off") {
      swatch.style.background = "repeating-linear-gradient(45deg,rgba(128,128,128,0.15) 0 2px,rgba(128,128,128,0.5) 2px 3px)";
    }
    item.appendChild(document.createTextNode(pair[1]));
  });
  el("span", {}, legend, "bars are to scale within each row of vectors; " +
    "numbers rounded (vectors to 3 decimals, the rest to 4)");

  function pick(t, focus) {
    if (t !== state.query) {
      state.query = t;
      draw();
    }
    if (focus) buttons[t].focus();
  }

  function blocked(t, s) { return data.blocked[t].charAt(s) === "1"; }

  // A vector as a column of entries, each a signed bar and its number; or, past
  // NUMBERS_UP_TO entries, a strip of bars.
  function vector(cell, values, scale, what) {
    if (!data.numbers) {
      var strip = el("div", { "class": "clv-strip", role: "img",
        "aria-label": what + ": " + d + " entries, drawn as bars" }, cell);
      values.forEach(function (v) {
        var i = el("i", { "class": v >= 0 ? "clv-pos" : "clv-neg" }, strip);
        i.style.width = "2px";
        i.style.height = Math.max(1, Math.round(28 * Math.abs(v) / scale)) + "px";
        i.style.display = "block";
      });
      return;
    }
    values.forEach(function (v, i) {
      var entry = el("div", { "class": "clv-entry", "data-i": String(i) }, cell);
      var barBox = el("span", { "class": "clv-bar", "aria-hidden": "true" }, entry);
      var w = 7 * Math.abs(v) / scale;
      var b = el("i", { "class": v >= 0 ? "clv-pos" : "clv-neg" }, barBox);
      b.style.width = w.toFixed(1) + "px";
      b.style.left = (v >= 0 ? 7 : 7 - w).toFixed(1) + "px";
      el("span", {}, entry, num(v, 3));
    });
  }

  function maxAbs(rows) {
    var m = 0;
    rows.forEach(function (row) { row.forEach(function (v) { m = Math.max(m, Math.abs(v)); }); });
    return m || 1;
  }

  function draw() {
    var t = state.query;
    buttons.forEach(function (b, i) {
      b.setAttribute("aria-checked", i === t ? "true" : "false");
      b.setAttribute("tabindex", i === t ? "0" : "-1");
    });
    clear(box);
    var table = el("table", {}, box);
    el("caption", { "class": "clv-title", style: "text-align:left" }, table,
      "Query " + data.queries[t] + " (" + (t + 1) + " of " + T + "): its score for every key");
    var head = el("tr", {}, el("thead", {}, table));
    el("th", { scope: "col" }, head, "q");
    data.keys.forEach(function (k) { el("th", { scope: "col" }, head, k); });
    var body = el("tbody", {}, table);

    function step(text) {
      el("th", { colspan: String(S + 1), scope: "colgroup", "class": "clv-step" },
        el("tr", {}, body), text);
    }
    function row(name, kind, text, extra) {
      var tr = el("tr", { "data-step": kind }, body);
      el("th", { scope: "row", "class": "clv-name" }, tr, name);
      for (var s = 0; s < S; s++) {
        var off = blocked(t, s);
        var cell = el("td", { "data-k": String(s), "data-blocked": off ? "1" : "0" }, tr);
        var value = text(s, off);
        if (value !== null) cell.textContent = value;
        if (extra) extra(cell, s, off);
      }
      return tr;
    }

    var q = data.q[t];
    step("1 \u00b7 the query q and each key k (d = " + d + " numbers each)");
    var vecRow = el("tr", { "data-step": "vectors" }, body);
    var scale = maxAbs([q].concat(data.k));
    vector(el("td", { "data-k": "q" }, vecRow), q, scale, "q");
    data.k.forEach(function (k, s) {
      vector(el("td", { "data-k": String(s) }, vecRow), k, scale, data.keys[s]);
    });

    step("2 \u00b7 multiply entry by entry, add up: q\u00b7k = \u03a3 q\u1d62k\u1d62");
    var products = data.k.map(function (k) { return k.map(function (v, i) { return q[i] * v; }); });
    var prodRow = el("tr", { "data-step": "products" }, body);
    el("th", { scope: "row", "class": "clv-name" }, prodRow, "q\u1d62k\u1d62");
    var pscale = maxAbs(products);
    products.forEach(function (p, s) {
      vector(el("td", { "data-k": String(s) }, prodRow), p, pscale, "products with " + data.keys[s]);
    });
    row("q\u00b7k", "dot", function (s) { return num(data.dots[t][s], 4); },
      function (cell) { cell.className = "clv-sum"; });

    step("3 \u00b7 divide by \u221ad = \u221a" + d + " = " + num(Math.sqrt(d), 4) + ": the score");
    row("score", "score", function (s) { return num(data.scores[t][s], 4); });

    if (data.masked) {
      step("4 \u00b7 the mask: a blocked key's score becomes " + MINUS + "\u221e");
      row("mask", "mask", function (s, off) { return off ? "blocked" : "allowed"; },
        function (cell, s, off) { if (off) cell.className = "clv-off"; });
      row("score", "masked", function (s, off) {
        return off ? MINUS + "\u221e" : num(data.scores[t][s], 4);
      }, function (cell, s, off) { if (off) cell.className = "clv-off"; });
    } else {
      step("4 \u00b7 no mask: every key takes part");
    }

    var shift = data.shift[t], total = 0;
    data.exps[t].forEach(function (v) { total += v; });
    step("5 \u00b7 softmax: exp of each score, then divide by their sum, " + expText(total));
    row(shift === 0 ? "exp" : "exp(\u2212" + num(shift, 1) + ")", "exp", function (s, off) {
      return off ? "0" : expText(data.exps[t][s]);
    }, function (cell, s, off) { if (off) cell.className = "clv-off"; });
    row("weight", "weight", function () { return null; }, function (cell, s, off) {
      if (off) {
        cell.className = "clv-off";
        cell.textContent = "blocked";
        return;
      }
      var w = data.weights[t][s];
      var wb = el("span", { "class": "clv-wbar", "aria-hidden": "true" }, cell);
      wb.style.width = Math.round(48 * w) + "px";
      el("span", { "class": "clv-w" }, cell, num(w, 4));
    });
    var sum = 0;
    data.weights[t].forEach(function (w) { sum += w; });
    var foot = el("tr", { "data-step": "sum" }, body);
    el("th", { colspan: String(S + 1), scope: "row", "class": "clv-step" }, foot,
      "the weights add up to " + num(sum, 4));

    readout.textContent = data.queries[t] + ": weights " + data.keys.map(function (k, s) {
      return k + " " + (blocked(t, s) ? "blocked" : num(data.weights[t][s], 4));
    }).join(" \u00b7 ") + " (sum " + num(sum, 4) + ")";
  }

  draw();
}

boot(start);
