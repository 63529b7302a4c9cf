/*
 * ui.js: the web UI's small library, shared by every tab's script.
 *
 * Public API (the streaming tabs use it too): UI.api, UI.apiRoot, UI.poll, UI.el,
 * UI.section, UI.table, UI.timeline, UI.histogram, UI.stacked, UI.eventTimeline, UI.dag,
 * UI.formatDuration, UI.formatBytes, UI.formatDate, UI.parseDate.
 *
 * Rule: text that comes from the application (names, descriptions, exception messages,
 * conf values) only ever enters the page through textContent / createTextNode; no
 * function here assigns markup (no innerHTML), so such text cannot execute.
 */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var body = document.body;
  var UI = {
    appId: body.dataset.appId,
    appName: body.dataset.appName,
    tab: body.dataset.tab,
    page: body.dataset.page,
    params: new URLSearchParams(window.location.search)
  };

  /* ------------------------------------------------------------------ data */

  function getJson(url) {
    return fetch(url, {cache: "no-store"}).then(function (resp) {
      if (!resp.ok) {
        return resp.text().then(function (text) {
          var err = new Error(resp.status + " " + url + ": " + text);
          err.status = resp.status;
          throw err;
        });
      }
      return resp.json();
    });
  }

  /** JSON of /api/v1/applications/{appId}/{path}. */
  UI.api = function (path) {
    return getJson("/api/v1/applications/" + encodeURIComponent(UI.appId) + "/" + path);
  };

  /** JSON of /api/v1/{path}. */
  UI.apiRoot = function (path) {
    return getJson("/api/v1/" + path);
  };

  /**
   * Run fn() now and again every ms milliseconds while the page is visible (fn may return
   * a promise: the next run waits for it). Errors are shown in a banner, not thrown.
   */
  UI.poll = function (fn, ms) {
    var timer = null;
    var running = false;
    function run() {
      timer = null;
      if (running) { return; }
      running = true;
      Promise.resolve().then(fn).then(function () {
        UI.showError(null);
      }, function (err) {
        UI.showError(err);
      }).then(function () {
        running = false;
        if (document.visibilityState === "visible" && !UI.stopped) {
          timer = window.setTimeout(run, ms);
        }
      });
    }
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible" && timer === null && !running) { run(); }
    });
    run();
  };

  UI.showError = function (err) {
    var banner = document.getElementById("ui-error");
    if (!err) {
      if (banner) { banner.remove(); }
      return;
    }
    if (!banner) {
      banner = UI.el("div", {id: "ui-error", "class": "error-banner"});
      document.body.insertBefore(banner, document.body.firstChild.nextSibling);
    }
    banner.textContent = "Could not refresh this page: " + (err.message || String(err));
  };

  /* ------------------------------------------------------------------ DOM */

  /** Create an element: attributes from attrs, children appended (strings become text nodes). */
  UI.el = function (tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (attrs[key] !== null && attrs[key] !== undefined) { node.setAttribute(key, attrs[key]); }
    });
    for (var i = 2; i < arguments.length; i++) { append(node, arguments[i]); }
    return node;
  };

  function append(node, child) {
    if (child === null || child === undefined) { return; }
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }

  function svg(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    return node;
  }

  function clear(el) {
    while (el.firstChild) { el.removeChild(el.firstChild); }
    return el;
  }
  UI.clear = clear;

  /** The element with this id inside #content, created (with an h3 title) on first use. */
  UI.section = function (id, title, parent) {
    var existing = document.getElementById(id);
    if (existing) { return existing; }
    var host = parent || document.getElementById("content");
    var wrap = UI.el("section", {"class": "ui-section", id: id + "-section"});
    if (title) { wrap.appendChild(UI.el("h3", {}, title)); }
    var el = UI.el("div", {id: id});
    wrap.appendChild(el);
    host.appendChild(wrap);
    return el;
  };

  /** Replace the loading placeholder once, and set the page heading (as text). */
  UI.heading = function (text) {
    var content = document.getElementById("content");
    var loading = content.querySelector(".loading");
    if (loading) { loading.remove(); }
    var h = document.getElementById("page-heading");
    if (!h) {
      h = UI.el("h2", {id: "page-heading"});
      content.insertBefore(h, content.firstChild);
    }
    h.textContent = text;
    return h;
  };

  /** A definition list of [label, value] pairs (values as text, or nodes). */
  UI.summary = function (el, pairs) {
    clear(el);
    var ul = UI.el("ul", {"class": "summary"});
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined) { return; }
      ul.appendChild(UI.el("li", {}, UI.el("strong", {}, p[0] + ": "), p[1]));
    });
    el.appendChild(ul);
  };

  function compare(a, b) {
    if (a === b) { return 0; }
    if (a === null || a === undefined) { return -1; }
    if (b === null || b === undefined) { return 1; }
    if (typeof a === "number" && typeof b === "number") { return a - b; }
    return String(a).localeCompare(String(b), undefined, {numeric: true});
  }

  /**
   * A sortable table. columns: [{title, value(row), link?(row), format?(v), sortValue?(row)}].
   * Clicking a header sorts by it (again: reverse); the choice survives refreshes.
   */
  UI.table = function (el, columns, rows, opts) {
    opts = opts || {};
    var state = el._uiSort || {col: opts.sortColumn === undefined ? null : opts.sortColumn,
                               desc: !!opts.sortDesc};
    el._uiSort = state;
    var sorted = rows.slice();
    if (state.col !== null && columns[state.col]) {
      var col = columns[state.col];
      var key = col.sortValue || col.value;
      sorted.sort(function (a, b) { return compare(key(a), key(b)) * (state.desc ? -1 : 1); });
    }
    var table = UI.el("table", {"class": "table" + (opts.className ? " " + opts.className : "")});
    var head = UI.el("tr");
    columns.forEach(function (c, i) {
      var th = UI.el("th", {"class": "sortable" + (state.col === i ? (state.desc ? " desc" : " asc") : ""),
                            title: "Sort by " + c.title}, c.title);
      th.addEventListener("click", function () {
        state.desc = state.col === i ? !state.desc : false;
        state.col = i;
        UI.table(el, columns, rows, opts);
      });
      head.appendChild(th);
    });
    table.appendChild(UI.el("thead", {}, head));
    var tbody = UI.el("tbody");
    sorted.forEach(function (row) {
      var tr = UI.el("tr");
      columns.forEach(function (c) {
        var v = c.value(row);
        var text = c.format ? c.format(v, row) : v;
        var cell = UI.el("td");
        if (text instanceof Node) {
          cell.appendChild(text);
        } else if (c.link && c.link(row)) {
          cell.appendChild(UI.el("a", {href: c.link(row)}, text === null || text === undefined ? "" : text));
        } else {
          append(cell, text === null || text === undefined ? "" : text);
        }
        tr.appendChild(cell);
      });
      tbody.appendChild(tr);
    });
    if (!sorted.length) {
      tbody.appendChild(UI.el("tr", {"class": "empty"},
        UI.el("td", {colspan: String(columns.length)}, opts.empty || "None")));
    }
    table.appendChild(tbody);
    clear(el).appendChild(table);
    el.dataset.rows = String(sorted.length);
    return table;
  };

  /* ------------------------------------------------------------------ charts */

  function extent(values) {
    var lo = Infinity, hi = -Infinity;
    values.forEach(function (v) { if (v < lo) { lo = v; } if (v > hi) { hi = v; } });
    if (lo === Infinity) { return [0, 1]; }
    if (lo === hi) { return [lo, lo + 1]; }
    return [lo, hi];
  }

  function scale(d, r) {
    return function (v) { return r[0] + (v - d[0]) / (d[1] - d[0]) * (r[1] - r[0]); };
  }

  function frame(el, opts, cls) {
    var w = opts.width || 420, h = opts.height || 150;
    var root = svg("svg", {width: w, height: h, viewBox: "0 0 " + w + " " + h, "class": "chart " + cls});
    clear(el).appendChild(root);
    return {root: root, w: w, h: h, left: 56, right: w - 10, top: 10, bottom: h - 24};
  }

  function label(parent, x, y, text, anchor, cls) {
    var t = svg("text", {x: x, y: y, "text-anchor": anchor || "start", "class": cls || "axis-label"});
    t.textContent = text;
    parent.appendChild(t);
    return t;
  }

  function axes(f, xd, yd, opts) {
    var yf = opts.yFormat || function (v) { return String(Math.round(v * 100) / 100); };
    var xf = opts.xFormat || function (v) { return String(v); };
    f.root.appendChild(svg("line", {x1: f.left, y1: f.bottom, x2: f.right, y2: f.bottom, "class": "axis"}));
    f.root.appendChild(svg("line", {x1: f.left, y1: f.top, x2: f.left, y2: f.bottom, "class": "axis"}));
    label(f.root, f.left - 4, f.bottom, yf(yd[0]), "end");
    label(f.root, f.left - 4, f.top + 8, yf(yd[1]), "end");
    if (xd) {
      label(f.root, f.left, f.h - 6, xf(xd[0]), "start");
      label(f.root, f.right, f.h - 6, xf(xd[1]), "end");
    }
    if (opts.yLabel) { label(f.root, f.left + 4, f.top + 8, opts.yLabel, "start", "chart-title"); }
  }

  /**
   * Line chart of points [{x, y}] (y null: a gap). One <circle class="point"> per point
   * with a y; opts: width, height, yLabel, xFormat, yFormat, onClick(point), yMin, yMax
   * (the top of the y axis at least, so several charts can share one), refLine (a y drawn
   * as a dashed <line class="ref-line">, e.g. the batch interval).
   */
  UI.timeline = function (el, points, opts) {
    opts = opts || {};
    var f = frame(el, opts, "timeline");
    var drawn = points.filter(function (p) { return p.y !== null && p.y !== undefined; });
    var xd = extent(points.map(function (p) { return p.x; }));
    var ys = drawn.map(function (p) { return p.y; }).concat([opts.yMin === undefined ? 0 : opts.yMin]);
    if (opts.yMax !== undefined && opts.yMax !== null) { ys.push(opts.yMax); }
    if (opts.refLine !== undefined && opts.refLine !== null) { ys.push(opts.refLine); }
    var yd = extent(ys);
    var sx = scale(xd, [f.left + 4, f.right - 4]), sy = scale(yd, [f.bottom, f.top]);
    axes(f, xd, yd, opts);
    if (opts.refLine !== undefined && opts.refLine !== null) {
      var ref = svg("line", {x1: f.left, x2: f.right, y1: sy(opts.refLine).toFixed(1), y2: sy(opts.refLine).toFixed(1),
                             "class": "ref-line"});
      var refTip = svg("title");
      refTip.textContent = opts.refLabel || (opts.yFormat ? opts.yFormat(opts.refLine) : String(opts.refLine));
      ref.appendChild(refTip);
      f.root.appendChild(ref);
    }
    var d = "";
    points.forEach(function (p) {
      if (p.y === null || p.y === undefined) { d += " "; return; }
      d += (d === "" || d.slice(-1) === " " ? "M" : "L") + sx(p.x).toFixed(1) + "," + sy(p.y).toFixed(1);
    });
    f.root.appendChild(svg("path", {d: d.trim().replace(/ +/g, " ") || "M0,0", "class": "line"}));
    drawn.forEach(function (p) {
      var c = svg("circle", {cx: sx(p.x).toFixed(1), cy: sy(p.y).toFixed(1), r: 3, "class": "point"});
      var tip = svg("title");
      tip.textContent = (opts.xFormat ? opts.xFormat(p.x) : p.x) + ": " + (opts.yFormat ? opts.yFormat(p.y) : p.y);
      c.appendChild(tip);
      if (opts.onClick) { c.addEventListener("click", function () { opts.onClick(p); }); }
      f.root.appendChild(c);
    });
    el.dataset.points = String(drawn.length);
    return f.root;
  };

  /** Histogram of values: opts.bins (default 10) <rect class="bar"> over the values' range. */
  UI.histogram = function (el, values, opts) {
    opts = opts || {};
    var f = frame(el, opts, "histogram");
    var nbins = opts.bins || 10;
    var vs = values.filter(function (v) { return v !== null && v !== undefined; });
    var xd = extent(vs.concat([0]));
    var counts = [];
    for (var i = 0; i < nbins; i++) { counts.push(0); }
    vs.forEach(function (v) {
      var b = Math.min(nbins - 1, Math.floor((v - xd[0]) / (xd[1] - xd[0]) * nbins));
      counts[b] += 1;
    });
    var yd = [0, Math.max(1, Math.max.apply(null, counts))];
    axes(f, xd, yd, {xFormat: opts.xFormat, yFormat: function (v) { return String(Math.round(v)); },
                     yLabel: opts.yLabel});
    var bw = (f.right - f.left) / nbins, sy = scale(yd, [f.bottom, f.top]);
    counts.forEach(function (c, b) {
      var y = sy(c);
      var r = svg("rect", {x: (f.left + b * bw + 1).toFixed(1), y: y.toFixed(1), width: Math.max(1, bw - 2).toFixed(1),
                           height: Math.max(0, f.bottom - y).toFixed(1), "class": "bar"});
      var tip = svg("title");
      var fmt = opts.xFormat || String;
      tip.textContent = fmt(xd[0] + b * (xd[1] - xd[0]) / nbins) + " to " +
        fmt(xd[0] + (b + 1) * (xd[1] - xd[0]) / nbins) + ": " + c;
      r.appendChild(tip);
      f.root.appendChild(r);
    });
    el.dataset.values = String(vs.length);
    return f.root;
  };

  /**
   * Stacked areas: series is [{name, points: [{x, y}]}] sharing the same x values; one
   * <path class="area series-N"> per series and a legend.
   */
  UI.stacked = function (el, series, opts) {
    opts = opts || {};
    var f = frame(el, opts, "stacked");
    var xs = [];
    series.forEach(function (s) { s.points.forEach(function (p) { if (xs.indexOf(p.x) < 0) { xs.push(p.x); } }); });
    xs.sort(function (a, b) { return a - b; });
    var totals = xs.map(function () { return 0; });
    var layers = series.map(function (s) {
      var byX = {};
      s.points.forEach(function (p) { byX[p.x] = p.y || 0; });
      var low = totals.slice();
      xs.forEach(function (x, i) { totals[i] += byX[x] || 0; });
      return {name: s.name, low: low, high: totals.slice()};
    });
    var xd = extent(xs), yd = extent(totals.concat([0]));
    var sx = scale(xd, [f.left + 4, f.right - 4]), sy = scale(yd, [f.bottom, f.top]);
    axes(f, xd, yd, opts);
    layers.forEach(function (layer, n) {
      if (!xs.length) { return; }
      var top = xs.map(function (x, i) { return sx(x).toFixed(1) + "," + sy(layer.high[i]).toFixed(1); });
      var bottom = xs.map(function (x, i) { return sx(x).toFixed(1) + "," + sy(layer.low[i]).toFixed(1); }).reverse();
      var path = svg("path", {d: "M" + top.join("L") + "L" + bottom.join("L") + "Z", "class": "area series-" + (n % 8)});
      var tip = svg("title");
      tip.textContent = layer.name;
      path.appendChild(tip);
      f.root.appendChild(path);
    });
    var legend = UI.el("div", {"class": "legend"});
    series.forEach(function (s, n) {
      legend.appendChild(UI.el("span", {"class": "legend-item series-" + (n % 8)}, s.name));
    });
    el.appendChild(legend);
    return f.root;
  };

  /**
   * Event timeline: items [{label, start, end (null: still running), status, link?, lane?}]
   * drawn as <rect class="event status-...">, one row per lane (default: per item).
   * Items with instant: true are drawn as markers (executors added/removed).
   */
  UI.eventTimeline = function (el, items, opts) {
    opts = opts || {};
    var now = Date.now();
    var lanes = [];
    items.forEach(function (it) { var l = it.lane || it.label; if (lanes.indexOf(l) < 0) { lanes.push(l); } });
    var rowH = 18;
    var f = frame(el, {width: opts.width || 900, height: Math.max(60, lanes.length * rowH + 40)}, "event-timeline");
    f.left = 150;
    var ends = items.map(function (it) { return it.end === null || it.end === undefined ? now : it.end; });
    var xd = extent(items.map(function (it) { return it.start; }).concat(ends));
    var sx = scale(xd, [f.left, f.right]);
    f.root.appendChild(svg("line", {x1: f.left, y1: f.bottom, x2: f.right, y2: f.bottom, "class": "axis"}));
    label(f.root, f.left, f.h - 6, UI.formatTime(xd[0]), "start");
    label(f.root, f.right, f.h - 6, UI.formatTime(xd[1]), "end");
    lanes.forEach(function (l, i) { label(f.root, f.left - 6, f.top + i * rowH + 12, l, "end", "lane-label"); });
    items.forEach(function (it, i) {
      var lane = lanes.indexOf(it.lane || it.label);
      var x0 = sx(it.start), x1 = Math.max(x0 + 3, sx(ends[i]));
      var shape = it.instant ?
        svg("circle", {cx: x0.toFixed(1), cy: (f.top + lane * rowH + 8).toFixed(1), r: 5,
                       "class": "event-marker status-" + String(it.status || "").toLowerCase()}) :
        svg("rect", {x: x0.toFixed(1), y: f.top + lane * rowH + 2, width: (x1 - x0).toFixed(1), height: rowH - 4,
                     "class": "event status-" + String(it.status || "").toLowerCase()});
      var tip = svg("title");
      tip.textContent = it.label + " (" + (it.status || "") + "): " + UI.formatTime(it.start) +
        (it.instant ? "" : " to " + (it.end ? UI.formatTime(it.end) : "now"));
      shape.appendChild(tip);
      if (it.link) {
        var a = svg("a", {href: it.link});
        a.appendChild(shape);
        f.root.appendChild(a);
      } else {
        f.root.appendChild(shape);
      }
    });
    el.dataset.items = String(items.length);
    return f.root;
  };

  /**
   * A DAG in layers (a node's layer is its longest path from a source): nodes
   * [{id, label, status?, link?}], edges [[fromId, toId]]; <g class="node"> per node.
   */
  UI.dag = function (el, nodes, edges) {
    var layer = {}, byId = {};
    nodes.forEach(function (n) { layer[n.id] = 0; byId[n.id] = n; });
    var valid = edges.filter(function (e) { return byId[e[0]] !== undefined && byId[e[1]] !== undefined; });
    for (var pass = 0; pass < nodes.length; pass++) {
      var changed = false;
      valid.forEach(function (e) {
        if (layer[e[1]] < layer[e[0]] + 1) { layer[e[1]] = layer[e[0]] + 1; changed = true; }
      });
      if (!changed) { break; }
    }
    var columns = [];
    nodes.forEach(function (n) { (columns[layer[n.id]] = columns[layer[n.id]] || []).push(n); });
    var nodeW = 150, nodeH = 40, gapX = 60, gapY = 20;
    var height = Math.max(1, Math.max.apply(null, columns.map(function (c) { return c ? c.length : 0; }).concat([1])));
    var w = Math.max(200, columns.length * (nodeW + gapX) + 20), h = height * (nodeH + gapY) + 20;
    var root = svg("svg", {width: w, height: h, viewBox: "0 0 " + w + " " + h, "class": "chart dag"});
    var defs = svg("defs");
    var marker = svg("marker", {id: "dag-arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
                                markerWidth: 8, markerHeight: 8, orient: "auto"});
    marker.appendChild(svg("path", {d: "M0,0L10,5L0,10Z", "class": "arrow"}));
    defs.appendChild(marker);
    root.appendChild(defs);
    var pos = {};
    columns.forEach(function (col, ci) {
      (col || []).forEach(function (n, ri) { pos[n.id] = {x: 10 + ci * (nodeW + gapX), y: 10 + ri * (nodeH + gapY)}; });
    });
    valid.forEach(function (e) {
      var a = pos[e[0]], b = pos[e[1]];
      root.appendChild(svg("line", {x1: a.x + nodeW, y1: a.y + nodeH / 2, x2: b.x, y2: b.y + nodeH / 2,
                                    "class": "edge", "marker-end": "url(#dag-arrow)"}));
    });
    nodes.forEach(function (n) {
      var p = pos[n.id];
      var g = svg("g", {"class": "node status-" + String(n.status || "").toLowerCase(),
                        transform: "translate(" + p.x + "," + p.y + ")"});
      g.appendChild(svg("rect", {width: nodeW, height: nodeH, rx: 4}));
      var t = svg("text", {x: nodeW / 2, y: nodeH / 2 + 4, "text-anchor": "middle"});
      t.textContent = n.label;
      g.appendChild(t);
      var tip = svg("title");
      tip.textContent = n.title || n.label;
      g.appendChild(tip);
      if (n.link) {
        var a = svg("a", {href: n.link});
        a.appendChild(g);
        root.appendChild(a);
      } else {
        root.appendChild(g);
      }
    });
    clear(el).appendChild(root);
    el.dataset.nodes = String(nodes.length);
    return root;
  };

  /* ------------------------------------------------------------------ formatting */

  /** Spark's duration text: "12 ms", "1.5 s", "2.1 min", "3.0 h". */
  UI.formatDuration = function (ms) {
    if (ms === null || ms === undefined || isNaN(ms)) { return ""; }
    if (ms < 1000) { return Math.round(ms) + " ms"; }
    var s = ms / 1000;
    if (s < 60) { return s.toFixed(1) + " s"; }
    var m = s / 60;
    if (m < 60) { return m.toFixed(1) + " min"; }
    return (m / 60).toFixed(1) + " h";
  };

  /** Spark's size text: "512.0 B", "1.5 KiB", "2.0 MiB"... */
  UI.formatBytes = function (n) {
    if (n === null || n === undefined || isNaN(n)) { return ""; }
    var units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    var i = 0;
    while (Math.abs(n) >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return n.toFixed(1) + " " + units[i];
  };

  /** Milliseconds of Spark's REST date "2026-12-01T10:00:00.000GMT" (or a number). */
  UI.parseDate = function (value) {
    if (value === null || value === undefined || value === "") { return null; }
    if (typeof value === "number") { return value; }
    var t = Date.parse(String(value).replace(/GMT$/, "Z"));
    return isNaN(t) ? null : t;
  };

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  /** "2026/12/01 10:00:00" in the browser's time zone, as Spark's pages show dates. */
  UI.formatDate = function (value) {
    var t = UI.parseDate(value);
    if (t === null) { return ""; }
    var d = new Date(t);
    return d.getFullYear() + "/" + pad(d.getMonth() + 1) + "/" + pad(d.getDate()) + " " +
      pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  };

  /** "10:00:00" of milliseconds since the epoch. */
  UI.formatTime = function (ms) {
    var d = new Date(ms);
    return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  };

  /** Duration between two REST dates (end missing: until now). */
  UI.durationBetween = function (start, end) {
    var a = UI.parseDate(start), b = UI.parseDate(end);
    if (a === null) { return null; }
    return (b === null ? Date.now() : b) - a;
  };

  /** The value of a URL parameter as an integer, else null. */
  UI.intParam = function (name) {
    var v = UI.params.get(name);
    return v !== null && /^-?\d+$/.test(v) ? parseInt(v, 10) : null;
  };

  var settings = null;

  /** Promise of the integer setting key of the application (default when unset). */
  UI.setting = function (key, dflt) {
    settings = settings || UI.api("environment").then(function (env) {
      var out = {};
      (env.sparkProperties || []).forEach(function (p) { out[p[0]] = p[1]; });
      return out;
    });
    return settings.then(function (props) {
      var v = props[key];
      return v !== undefined && /^\d+$/.test(v) ? parseInt(v, 10) : dflt;
    });
  };

  /** Say under a section how much the UI keeps: "the last N ... (setting)". */
  UI.retentionNote = function (el, what, key, dflt) {
    return UI.setting(key, dflt).then(function (n) {
      var section = el.parentNode;
      if (section.querySelector(".note")) { return; }
      section.appendChild(UI.el("p", {"class": "note"}, "The UI keeps the last " + n + " " + what + " (" + key + ")."));
    });
  };

  /* ------------------------------------------------------------------ core tables */

  function stageLink(s) { return "/stages/stage/?id=" + s.stageId + "&attempt=" + s.attemptId; }

  /** The columns of a stage table (Spark's), with "Failure Reason" when withFailure. */
  UI.stageColumns = function (withFailure) {
    var cols = [
      {title: "Stage Id", value: function (s) { return s.stageId; },
       format: function (v, s) { return s.attemptId ? s.stageId + " (retry " + s.attemptId + ")" : String(s.stageId); },
       link: stageLink},
      {title: "Description", value: function (s) { return s.description || s.name; }, link: stageLink},
      {title: "Submitted", value: function (s) { return UI.parseDate(s.submissionTime); },
       format: function (v, s) { return UI.formatDate(s.submissionTime); }},
      {title: "Duration", value: function (s) {
        return s.submissionTime ? UI.durationBetween(s.submissionTime, s.completionTime) : null;
      }, format: UI.formatDuration},
      {title: "Tasks: Succeeded/Total", value: function (s) { return s.numCompleteTasks; },
       format: function (v, s) {
         return s.numCompleteTasks + "/" + s.numTasks +
           (s.numActiveTasks ? " (" + s.numActiveTasks + " running)" : "") +
           (s.numFailedTasks ? " (" + s.numFailedTasks + " failed)" : "");
       }},
      {title: "Input", value: function (s) { return s.inputBytes; }, format: bytesOrEmpty},
      {title: "Output", value: function (s) { return s.outputBytes; }, format: bytesOrEmpty},
      {title: "Shuffle Read", value: function (s) { return s.shuffleReadBytes; }, format: bytesOrEmpty},
      {title: "Shuffle Write", value: function (s) { return s.shuffleWriteBytes; }, format: bytesOrEmpty}
    ];
    if (withFailure) {
      cols.push({title: "Failure Reason", value: function (s) { return s.failureReason || ""; }});
    }
    return cols;
  };


  function bytesOrEmpty(v) { return v ? UI.formatBytes(v) : ""; }

  /* ------------------------------------------------------------------ page frame */

  document.title = UI.appName + " - " + body.dataset.title;
  var nameEl = document.getElementById("app-name");
  if (nameEl) { nameEl.textContent = UI.appName + " application UI"; }

  window.UI = UI;
}());
