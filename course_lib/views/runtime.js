// Shared by every course_lib view (course_lib/views/_html.py wraps it, with ROOT_ID, in a
// function of its own). Plain JavaScript, no library, no network.

// The SVG namespace, read from an <svg> the HTML parser made (so no URL is written here).
var SVG_NS = (function () {
  var box = document.createElement("div");
  box.innerHTML = "<svg></svg>";
  return box.firstChild.namespaceURI;
})();

function el(tag, attrs, parent, text) {
  var node = tag.indexOf("svg:") === 0
    ? document.createElementNS(SVG_NS, tag.slice(4))
    : document.createElement(tag);
  for (var name in attrs || {}) {
    if (Object.prototype.hasOwnProperty.call(attrs, name)) node.setAttribute(name, attrs[name]);
  }
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

// The weights travel as bytes, round(100 * w), base64-encoded: 0..100 -> 0.00..1.00.
function bytes(b64) {
  var raw = atob(b64);
  var out = new Uint8Array(raw.length);
  for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function fmt(value) {
  return value.toFixed(2);
}

// A <select> with a visible label; onChange gets the chosen index.
function picker(parent, label, options, chosen, onChange) {
  var wrap = el("label", { "class": "clv-picker" }, parent);
  el("span", {}, wrap, label + " ");
  var select = el("select", { "aria-label": label }, wrap);
  options.forEach(function (text, i) {
    var option = el("option", { value: String(i) }, select, text);
    if (i === chosen) option.selected = true;
  });
  select.addEventListener("change", function () { onChange(Number(select.value)); });
  return select;
}

// A range input with its value shown; onChange gets the chosen index into values.
function slider(parent, label, values, chosen, onChange) {
  var wrap = el("label", { "class": "clv-picker" }, parent);
  el("span", {}, wrap, label + " ");
  var input = el("input", {
    type: "range", min: "0", max: String(values.length - 1), step: "1",
    value: String(chosen), "aria-label": label
  }, wrap);
  var shown = el("output", {}, wrap, String(values[chosen]));
  // Screen readers read the shown value, not the index into values.
  input.setAttribute("aria-valuetext", String(values[chosen]));
  input.addEventListener("input", function () {
    shown.textContent = String(values[Number(input.value)]);
    input.setAttribute("aria-valuetext", shown.textContent);
    onChange(Number(input.value));
  });
  return input;
}

// Every root with this view's id that is not running yet (two identical views share an id).
function boot(start) {
  var roots = document.querySelectorAll('[id="' + ROOT_ID + '"]');
  Array.prototype.forEach.call(roots, function (root) {
    if (root.getAttribute("data-clv-ready")) return;
    root.setAttribute("data-clv-ready", "1");
    var data = JSON.parse(root.querySelector("script.clv-data").textContent);
    var fallback = root.querySelector(".clv-fallback");
    if (fallback) fallback.style.display = "none";
    // Lumino (JupyterLab) skips its shortcuts for keys pressed under this attribute.
    root.setAttribute("data-lm-suppress-shortcuts", "true");
    start(root, data);
  });
}

// The view's own key handlers, called by the guard below: onKey(node, handler).
function onKey(node, handler) {
  node.__clvKey = handler;
}

// A view's keys are the view's. Notebook 7 reads its shortcuts (ArrowDown = next cell, "a" =
// insert a cell) in the capture phase, before the event reaches the view, so one guard per
// page, on the window (which sees the event first), stops every key pressed inside a running
// view from going further and hands a keydown to the view's own handler (onKey). Native
// controls (a picker, a slider) keep their default actions.
if (!window.__clvKeyGuard) {
  window.__clvKeyGuard = true;
  ["keydown", "keypress", "keyup"].forEach(function (type) {
    window.addEventListener(type, function (event) {
      var node = event.target;
      var root = node && node.closest ? node.closest(".clv[data-clv-ready]") : null;
      if (!root) return;
      event.stopPropagation();
      if (type !== "keydown") return;
      for (; node && node !== root.parentNode; node = node.parentNode) {
        if (node.__clvKey) {
          node.__clvKey(event);
          return;
        }
      }
    }, true);
  });
}
