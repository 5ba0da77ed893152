// The timeline of a podwatch trace: drawn from the model in #pw-data (see
// htmlmodel.go) for the window's width and the zoom at hand. Only what is
// in view is drawn; where marks are too many to draw one by one they are
// drawn as density; labels that would overlap are left out, the more
// telling ones kept first. With #pw-selftest in the URL the page checks
// itself and writes a verdict into #pw-selftest (see the browser test).
(function () {
  "use strict";
  var M = JSON.parse(document.getElementById("pw-data").textContent);
  ["lanes", "marks", "ticks", "breaks"].forEach(function (k) { M[k] = M[k] || []; });
  var NS = "http://www.w3.org/2000/svg";
  var chart = document.getElementById("pw-chart");
  var detail = document.getElementById("pw-detail");
  var AXIS_H = 30, GAP = 4;
  var HEIGHT = { fixed: 30, req: 30, pods: 20, pod: 16 };
  // Marks drawn as density once more than one per DENSE_PX pixels are in
  // view, in bins of BIN_PX pixels.
  var DENSE_PX = 5, BIN_PX = 4;

  // Each lane's marks, sorted by place.
  var byLane = M.lanes.map(function () { return []; });
  M.marks.forEach(function (m) { byLane[m.l].push(m); });
  byLane.forEach(function (l) { l.sort(function (a, b) { return a.u - b.u; }); });
  var pad = Math.max(M.span * 0.01, 1);
  var view = { a: -pad, b: M.span + pad };
  var svg = null, geo = null, charW = 6.6;

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { if (attrs[k] !== undefined) e.setAttribute(k, attrs[k]); }
    if (parent) parent.appendChild(e);
    return e;
  }
  function titled(parent, kind, title, at) {
    var g = el("g", { "class": "mk", "data-kind": kind }, parent);
    if (title) { el("title", {}, g).textContent = title; }
    if (at !== undefined) { g.pwAt = at; }
    return g;
  }
  function fmtMs(ms) { return ms >= 1000 ? (ms / 1000).toFixed(3) + "s" : ms.toFixed(3) + "ms"; }

  // First mark at or after u in a sorted lane.
  function lowerBound(list, u) {
    var lo = 0, hi = list.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (list[mid].u < u) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function visible(list) {
    var out = [], i = lowerBound(list, view.a);
    for (; i < list.length && list[i].u <= view.b; i++) out.push(list[i]);
    return out;
  }

  // Labels: candidates are gathered per lane band, then placed most telling
  // first, each only where it overlaps nothing placed before.
  function Band(y) { this.y = y; this.cands = []; }
  Band.prototype.add = function (x, text, prio, cls, alt) {
    this.cands.push({ x: x, text: text, w: text.length * charW, prio: prio, cls: cls, alt: alt });
  };
  Band.prototype.place = function (parent) {
    var placed = [], lo = geo.x0, hi = geo.x0 + geo.pw;
    this.cands.sort(function (p, q) { return q.prio - p.prio || p.x - q.x; });
    function free(x, w) {
      if (x < lo || x + w > hi) return false;
      for (var i = 0; i < placed.length; i++) {
        var p = placed[i];
        if (x < p.x + p.w + GAP && p.x < x + w + GAP) return false;
      }
      return true;
    }
    var y = this.y;
    this.cands.forEach(function (c) {
      var x = c.x;
      if (!free(x, c.w)) {
        if (c.alt === undefined || !free(c.alt, c.w)) return;
        x = c.alt;
      }
      placed.push({ x: x, w: c.w });
      el("text", { x: x.toFixed(1), y: y, "class": "halo " + (c.cls || "") }, parent).textContent = c.text;
    });
  };

  function measure() {
    var t = el("text", { x: 0, y: -10 }, svg);
    t.textContent = "0123456789";
    var w = t.getComputedTextLength() / 10;
    svg.removeChild(t);
    return w > 0 ? w : 6.6;
  }

  function laneHeight(l) { return HEIGHT[l.k] || 22; }

  function render() {
    var W = Math.max(chart.clientWidth, 300);
    var col = Math.max(110, Math.min(230, Math.round(W * 0.2)));
    var pw = W - col - 12;
    geo = { x0: col, pw: pw, k: pw / (view.b - view.a) };
    var H = AXIS_H;
    M.lanes.forEach(function (l) { H += laneHeight(l); });
    H += 8;
    if (svg) chart.removeChild(svg);
    svg = el("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "timeline of the run" });
    chart.appendChild(svg);
    charW = measure();
    var defs = el("defs", {}, svg);
    var pat = el("pattern", { id: "pw-hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
    el("rect", { width: 6, height: 6, fill: "#fff8e0" }, pat);
    el("path", { d: "M0 0V6", stroke: "#e8c860", "stroke-width": 2 }, pat);
    var X = function (u) { return geo.x0 + (u - view.a) * geo.k; };
    var clampX = function (x) { return Math.max(geo.x0, Math.min(geo.x0 + geo.pw, x)); };
    var grid = el("g", {}, svg);
    drawBreaks(grid, X, clampX, H);
    drawAxis(grid, X, H);
    var y = AXIS_H;
    M.lanes.forEach(function (l, i) {
      drawLane(l, i, y, X, clampX);
      y += laneHeight(l);
    });
  }

  function drawBreaks(g, X, clampX, H) {
    var band = new Band(22);
    M.breaks.forEach(function (b) {
      if (b.b < view.a || b.a > view.b) return;
      var x0 = clampX(X(b.a)), x1 = clampX(X(b.b));
      var mk = titled(g, "break", "a pause of " + b.x + ", drawn compressed");
      el("rect", { "class": "break", fill: "url(#pw-hatch)", x: x0.toFixed(1), y: AXIS_H - 4, width: Math.max(x1 - x0, 1).toFixed(1), height: H - AXIS_H - 4 }, mk);
      var text = "⋯" + b.x + "⋯";
      band.add((x0 + x1) / 2 - text.length * charW / 2, text, 3, "breaklabel");
    });
    g.pwBreaks = band;
  }

  function drawAxis(g, X, H) {
    var band = g.pwBreaks;
    el("text", { "class": "lane", x: 8, y: 22 }, g).textContent = "time";
    M.ticks.forEach(function (t) {
      if (t.u < view.a || t.u > view.b) return;
      band.add(X(t.u) + 2, t.x, 1, "tick");
    });
    var ticks = el("g", {}, g);
    band.place(ticks);
    // A grid line at each time written.
    Array.prototype.forEach.call(ticks.querySelectorAll("text.tick"), function (t) {
      var x = parseFloat(t.getAttribute("x")) - 2;
      el("path", { "class": "grid", d: "M" + x.toFixed(1) + " " + (AXIS_H - 4) + "V" + (H - 8) }, g);
    });
  }

  function laneName(l) {
    var max = Math.floor((geo.x0 - 12) / charW);
    return l.n.length > max ? l.n.slice(0, Math.max(max - 1, 1)) + "…" : l.n;
  }

  function drawLane(l, i, y, X, clampX) {
    var g = el("g", { "data-lane": l.k }, svg);
    var h = laneHeight(l), band = new Band(y + h / 2 + 4);
    if (l.k === "req") {
      var lg = titled(g, "request", l.t);
      el("text", { x: 8, y: y + 12 }, lg).textContent = laneName(l);
      el("text", { "class": "format", x: 8, y: y + 25 }, lg).textContent = l.s.length * charW * 0.82 > geo.x0 - 12 ? l.s.slice(0, Math.floor((geo.x0 - 12) / (charW * 0.82)) - 1) + "…" : l.s;
      if (l.b >= view.a && l.a <= view.b) {
        var x0 = clampX(X(l.a)), x1 = clampX(X(l.b));
        el("rect", { "class": "bar " + (l.c || ""), x: x0.toFixed(1), y: y + 1, width: Math.max(x1 - x0, 2).toFixed(1), height: h - 4, rx: 3 }, lg);
        if (l.e && l.c !== "failed" && X(l.b) <= geo.x0 + geo.pw) {
          el("path", { "class": "endcap", d: "M" + (x1 - 1.5).toFixed(1) + " " + (y - 1) + "h3v" + (h) + "h-3z" }, lg);
        }
        if (l.e) {
          band.y = y + 14;
          band.add(x1 + 5, l.e, 5, "endlabel", x1 - 5 - l.e.length * charW);
        }
      }
    } else if (l.k === "pod") {
      var pg = titled(g, "pod", l.n);
      el("text", { x: 14, y: y + 12 }, pg).textContent = laneName(l);
      (l.sp || []).forEach(function (s) {
        if (s[1] < view.a || s[0] > view.b) return;
        var a = clampX(X(s[0])), b = clampX(X(s[1]));
        el("rect", { "class": "life", x: a.toFixed(1), y: y + 3, width: Math.max(b - a, 2).toFixed(1), height: h - 6, rx: 2 }, pg);
      });
    } else {
      el("text", { "class": l.k === "pods" ? "podhead" : "lane", x: 8, y: y + h / 2 + 4 }, g).textContent = laneName(l);
    }
    if (l.k === "fixed") {
      // Two tiers: labels above, marks below, so that neither hides the other.
      band.y = y + 11;
      drawMarks(g, byLane[i], y + 14, h - 14, X, band);
    } else {
      drawMarks(g, byLane[i], y, h, X, band);
    }
    band.place(g);
  }

  // drawMarks draws a lane's marks in view: one by one, or where a kind is
  // too dense, as bins whose height tells how many they hold.
  function drawMarks(g, list, y, h, X, band) {
    var vis = visible(list);
    // Spans that begin before the view still show.
    for (var i = lowerBound(list, view.a) - 1; i >= 0 && i >= lowerBound(list, view.a) - 64; i--) {
      if (list[i].w && list[i].u + list[i].w >= view.a) vis.unshift(list[i]);
    }
    var groups = {};
    vis.forEach(function (m) { (groups[m.k] = groups[m.k] || []).push(m); });
    Object.keys(groups).forEach(function (k) {
      var ms = groups[k];
      var dense = k !== "backoff" && ms.length > geo.pw / DENSE_PX;
      if (dense) density(g, k, ms, y, h, X); else ms.forEach(function (m) { drawMark(g, m, y, h, X); });
      ms.forEach(function (m) {
        // Right of its mark, or else left of it (at the view's right edge).
        var off = m.k === "rv" ? 2 : 6;
        if (m.x) band.add(X(m.u) + off, m.x, labelPrio(m), labelClass(m), X(m.u) - off - m.x.length * charW);
      });
    });
  }
  function labelPrio(m) { return m.k === "missed" || m.k === "stall" ? 4 : m.k === "backoff" || m.k === "relist" ? 3 : 1; }
  function labelClass(m) { return m.k === "missed" ? "missedlabel" : m.k === "rv" ? "rv" : ""; }

  function density(g, kind, ms, y, h, X) {
    var bins = {}, maxN = 0;
    ms.forEach(function (m) {
      var b = Math.floor((X(m.u) - geo.x0) / BIN_PX);
      var bin = bins[b] = bins[b] || { n: 0, from: m.at, to: m.at, types: {} };
      bin.n++; bin.from = Math.min(bin.from, m.at); bin.to = Math.max(bin.to, m.at);
      var t = m.c || kind; bin.types[t] = (bin.types[t] || 0) + 1;
      maxN = Math.max(maxN, bin.n);
    });
    Object.keys(bins).forEach(function (b) {
      var bin = bins[b], bh = Math.max(2, (h - 6) * (0.25 + 0.75 * bin.n / maxN));
      var types = Object.keys(bin.types).map(function (t) { return bin.types[t] + " " + t; }).join(", ");
      var mk = titled(g, "density", bin.n + " " + kind + " marks (" + types + ") from " + fmtMs(bin.from) + " to " + fmtMs(bin.to) + ": zoom in to see each");
      mk.setAttribute("data-of", kind);
      mk.setAttribute("data-count", bin.n);
      el("rect", { "class": "dens" + (kind === "event" ? " ev" : ""), x: (geo.x0 + b * BIN_PX).toFixed(1), y: (y + h - 3 - bh).toFixed(1), width: BIN_PX - 0.5, height: bh.toFixed(1) }, mk);
    });
  }

  function drawMark(g, m, y, h, X) {
    var x = X(m.u), mk = titled(g, m.k, m.t, m.at), c = m.c || "";
    if (m.k === "event") mk.setAttribute("data-type", c);
    var mid = y + h / 2;
    switch (m.k) {
      case "read": el("path", { "class": "read", d: "M" + x.toFixed(1) + " " + (y + h - 10) + "v6" }, mk); break;
      case "frame": el("path", { "class": "frame", d: "M" + x.toFixed(1) + " " + (y + h - 7) + "v5" }, mk); break;
      case "event": el("rect", { "class": c, x: (x - 2).toFixed(1), y: y + 3, width: 4, height: h - 10 }, mk); break;
      case "change": el("rect", { "class": c, x: (x - 2).toFixed(1), y: y + 2, width: 4, height: h - 4 }, mk); break;
      case "push": case "conn": case "decision":
        el("circle", { "class": m.k, cx: x.toFixed(1), cy: mid, r: m.k === "decision" ? 3 : 4 }, mk); break;
      case "rv": el("path", { "class": "rvtick", d: "M" + x.toFixed(1) + " " + (y + 2) + "v" + (h - 5) }, mk); break;
      case "backoff":
        var x1 = Math.min(X(m.u + m.w), geo.x0 + geo.pw), x0 = Math.max(x, geo.x0);
        el("rect", { "class": "backoff", x: x0.toFixed(1), y: mid - 6, width: Math.max(x1 - x0, 3).toFixed(1), height: 12 }, mk); break;
      case "relist": el("path", { "class": "relist", d: "M" + x.toFixed(1) + " " + (mid - 6) + "l6 12h-12z" }, mk); break;
      case "replace": el("path", { "class": "replace", d: "M" + x.toFixed(1) + " " + (mid - 6) + "l6 6l-6 6l-6-6z" }, mk); break;
      case "stall": el("path", { "class": "stall " + c, d: "M" + (x - 5).toFixed(1) + " " + (mid - 6) + "h10l-10 12h10z" }, mk); break;
      case "missed": el("path", { "class": "missed", d: "M" + (x - 5).toFixed(1) + " " + (mid - 5) + "l10 10m0-10l-10 10" }, mk); break;
      default: el("circle", { "class": "step", cx: x.toFixed(1), cy: mid, r: 3 }, mk);
    }
  }

  // Zoom and pan.
  var minWidth = Math.min(8, M.span + 2 * pad);
  function setView(a, b) {
    var w = Math.max(b - a, minWidth), full = M.span + 2 * pad;
    if (w >= full) { a = -pad; w = full; }
    a = Math.max(-pad, Math.min(a, M.span + pad - w));
    view = { a: a, b: a + w };
    schedule();
  }
  function zoomAt(px, f) {
    var u = view.a + (px - geo.x0) / geo.k, w = (view.b - view.a) / f;
    setView(u - (px - geo.x0) / geo.pw * w, u - (px - geo.x0) / geo.pw * w + w);
  }
  function pan(dx) { var d = dx / geo.k; setView(view.a + d, view.b + d); }
  var pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; render(); });
  }
  chart.addEventListener("wheel", function (e) {
    e.preventDefault();
    var px = e.clientX - chart.getBoundingClientRect().left;
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan(e.deltaX || e.deltaY);
    else zoomAt(Math.max(px, geo.x0), Math.pow(1.002, -e.deltaY));
  }, { passive: false });
  var drag = null;
  chart.addEventListener("pointerdown", function (e) {
    drag = { x: e.clientX, a: view.a, b: view.b, moved: false };
    // Keep the drag's pointer when it leaves the chart, so that its end is seen.
    if (chart.setPointerCapture) chart.setPointerCapture(e.pointerId);
  });
  chart.addEventListener("pointercancel", function () { drag = null; });
  chart.addEventListener("pointermove", function (e) {
    if (!drag) return;
    var dx = e.clientX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    if (drag.moved) { var d = -dx / geo.k; setView(drag.a + d, drag.b + d); }
  });
  chart.addEventListener("pointerup", function (e) {
    var wasDrag = drag && drag.moved;
    drag = null;
    if (wasDrag) return;
    // The chart holds the pointer (see pointerdown): find what is under it.
    var under = document.elementFromPoint(e.clientX, e.clientY);
    var g = under && under.closest ? under.closest("g.mk") : null;
    var t = g && g.querySelector("title");
    if (t) detail.textContent = t.textContent;
  });
  chart.addEventListener("keydown", function (e) {
    var mid = geo.x0 + geo.pw / 2;
    switch (e.key) {
      case "+": case "=": zoomAt(mid, 2); break;
      case "-": zoomAt(mid, 0.5); break;
      case "0": setView(-pad, M.span + pad); break;
      case "ArrowLeft": pan(-geo.pw / 5); break;
      case "ArrowRight": pan(geo.pw / 5); break;
      default: return;
    }
    e.preventDefault();
  });
  Array.prototype.forEach.call(document.querySelectorAll("button[data-zoom]"), function (b) {
    b.addEventListener("click", function () {
      var z = b.getAttribute("data-zoom");
      if (z === "fit") setView(-pad, M.span + pad); else zoomAt(geo.x0 + geo.pw / 2, z === "in" ? 2 : 0.5);
    });
  });
  window.addEventListener("resize", schedule);
  render();

  // The self-test: labels that overlap at several zooms, errors, and the
  // events drawn (one by one or in density) against the events in the model.
  if (location.hash.indexOf("pw-selftest") < 0) return;
  function overlaps() {
    var boxes = Array.prototype.map.call(svg.querySelectorAll("text"), function (t) {
      var r = t.getBoundingClientRect();
      return { l: r.left, r: r.right, t: r.top, b: r.bottom, s: t.textContent };
    }).filter(function (b) { return b.r > b.l; });
    boxes.sort(function (p, q) { return p.l - q.l; });
    var out = [];
    for (var i = 0; i < boxes.length; i++) {
      for (var j = i + 1; j < boxes.length && boxes[j].l < boxes[i].r - 0.5; j++) {
        var p = boxes[i], q = boxes[j];
        if (Math.min(p.b, q.b) - Math.max(p.t, q.t) > 0.5) out.push(p.s + " / " + q.s);
      }
    }
    return { texts: boxes.length, overlaps: out };
  }
  function eventsDrawn() {
    var n = svg.querySelectorAll('g[data-kind="event"]').length;
    Array.prototype.forEach.call(svg.querySelectorAll('g[data-kind="density"][data-of="event"]'), function (g) {
      n += parseInt(g.getAttribute("data-count"), 10);
    });
    return n;
  }
  var verdict = { width: window.innerWidth, views: [] };
  function check(name) {
    var o = overlaps();
    verdict.views.push({ name: name, texts: o.texts, overlaps: o.overlaps.slice(0, 10), overlapCount: o.overlaps.length,
      density: svg.querySelectorAll('g[data-kind="density"]').length, svgWidth: svg.getBoundingClientRect().width });
  }
  check("whole run");
  verdict.eventsInModel = M.marks.filter(function (m) { return m.k === "event"; }).length;
  verdict.eventsDrawn = eventsDrawn();
  var full = view.b - view.a;
  [[0.5, 4], [0.5, 32], [0.02, 200], [0.98, 50]].forEach(function (z) {
    var c = -pad + full * z[0], w = full / z[1];
    view = { a: c - w / 2, b: c + w / 2 };
    render();
    check("zoom x" + z[1] + " at " + z[0]);
  });
  view = { a: -pad, b: M.span + pad };
  render();
  // The controls, as a user works them: the wheel zooms in, "0" shows the
  // whole run again, a click on an event shows its details.
  var box = chart.getBoundingClientRect(), width = view.b - view.a;
  chart.dispatchEvent(new WheelEvent("wheel", { deltaY: -500, clientX: box.left + geo.x0 + geo.pw / 2, clientY: box.top + 10, bubbles: true, cancelable: true }));
  // A run too short to zoom into stays whole.
  verdict.wheelZooms = width > 2 * minWidth ? view.b - view.a < width / 2 : view.b - view.a === width;
  chart.dispatchEvent(new KeyboardEvent("keydown", { key: "0", bubbles: true, cancelable: true }));
  verdict.keyResets = Math.abs(view.b - view.a - width) < 1e-9;
  // Close enough to the first event to see it drawn alone.
  var first = M.marks.filter(function (m) { return m.k === "event"; })[0];
  if (first) { view = { a: first.u - 10, b: first.u + 10 }; }
  render();
  var ev = svg.querySelector('g[data-kind="event"] > rect');
  if (ev) {
    ev.scrollIntoView({ block: "center" });
    var r = ev.getBoundingClientRect(), at = { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true, pointerId: 1 };
    chart.dispatchEvent(new PointerEvent("pointerdown", at));
    chart.dispatchEvent(new PointerEvent("pointerup", at));
    verdict.clickShows = detail.textContent === ev.parentNode.querySelector("title").textContent;
    window.scrollTo(0, 0);
  }
  view = { a: -pad, b: M.span + pad };
  render();
  verdict.scrollWidth = document.documentElement.scrollWidth;
  verdict.errors = window.pwErrors;
  var out = document.createElement("pre");
  out.id = "pw-selftest";
  out.textContent = JSON.stringify(verdict);
  document.body.appendChild(out);
})();
