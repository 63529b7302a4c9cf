/*
 * structured_streaming.js: the Structured Streaming tab. Page "" lists the active and
 * completed queries; page "statistics" (?id=RUN_ID) shows one run's progress charts over
 * its retained progresses: input rate, process rate, input rows, batch duration, operation
 * durations (stacked), state rows and watermark gap. Data: REST sql/streaming/queries,
 * sql/streaming/queries/{runId}[/progress] (dstreams' addition: Spark has no such REST).
 */
(function () {
  "use strict";
  var UI = window.UI;
  var REFRESH_MS = 1000;

  function queryLink(q) { return "/StreamingQuery/statistics/?id=" + encodeURIComponent(q.runId); }

  function rate(v) { return (Math.round(v * 10) / 10).toFixed(1); }

  var COLUMNS = [
    {title: "Name", value: function (q) { return q.name || "<no name>"; }, link: queryLink},
    {title: "Status", value: function (q) { return q.status; }},
    {title: "ID", value: function (q) { return q.id; }},
    {title: "Run ID", value: function (q) { return q.runId; }, link: queryLink},
    {title: "Start Time", value: function (q) { return UI.parseDate(q.startTimestamp); },
     format: function (v, q) { return UI.formatDate(q.startTimestamp); }},
    {title: "Duration", value: function (q) { return q.duration; }, format: UI.formatDuration},
    {title: "Avg Input /sec", value: function (q) { return q.avgInputRate; }, format: rate},
    {title: "Avg Process /sec", value: function (q) { return q.avgProcessRate; }, format: rate},
    {title: "Latest Batch", value: function (q) { return q.latestBatchId; },
     format: function (v) { return v === null ? "-" : String(v); }},
    {title: "Error", value: function (q) { return q.exception ? q.exception.split("\n")[0] : ""; }}
  ];

  function listPage() {
    UI.heading("Streaming Query");
    var active = UI.section("active-queries", "Active Streaming Queries");
    var completed = UI.section("completed-queries", "Completed Streaming Queries");
    UI.poll(function () {
      return UI.api("sql/streaming/queries").then(function (list) {
        UI.table(active, COLUMNS, list.filter(function (q) { return q.status === "RUNNING"; }),
                 {sortColumn: 4, sortDesc: true, empty: "No active query"});
        UI.table(completed, COLUMNS, list.filter(function (q) { return q.status !== "RUNNING"; }),
                 {sortColumn: 4, sortDesc: true, empty: "No completed query"});
      });
    }, REFRESH_MS);
  }

  function chart(host, id, title) {
    var el = document.getElementById(id);
    if (!el) {
      var box = UI.el("div", {"class": "query-chart"}, UI.el("h4", {}, title), UI.el("div", {id: id}));
      host.appendChild(box);
      el = document.getElementById(id);
    }
    return el;
  }

  function sum(list, key) {
    return (list || []).reduce(function (acc, op) { return acc + (op[key] || 0); }, 0);
  }

  function statisticsPage() {
    var runId = UI.params.get("id");
    if (!runId) {
      UI.heading("Streaming Query Statistics");
      UI.showError(new Error("this page needs ?id=RUN_ID"));
      return;
    }
    UI.heading("Streaming Query Statistics");
    var summary = UI.section("query-summary", null);
    var charts = UI.section("query-charts", "Progress");
    var base = "sql/streaming/queries/" + encodeURIComponent(runId);
    UI.poll(function () {
      return Promise.all([UI.api(base), UI.api(base + "/progress")]).then(function (res) {
        var q = res[0], progress = res[1];
        UI.summary(summary, [
          ["Name", q.name || "<no name>"], ["Id", q.id], ["RunId", q.runId], ["Status", q.status],
          ["Running for", UI.formatDuration(q.duration)], ["Started at", UI.formatDate(q.startTimestamp)],
          ["Completed batches", String(progress.length ? q.latestBatchId + 1 : 0)],
          ["Error", q.exception || null]
        ]);
        var xs = progress.map(function (p) { return Date.parse(p.timestamp); });
        function series(fn) { return progress.map(function (p, i) { return {x: xs[i], y: fn(p)}; }); }
        var opts = {xFormat: UI.formatTime, width: 460, height: 150};
        UI.timeline(chart(charts, "input-rate", "Input Rate (rows/sec)"), series(function (p) {
          return p.inputRowsPerSecond; }), opts);
        UI.timeline(chart(charts, "process-rate", "Process Rate (rows/sec)"), series(function (p) {
          return p.processedRowsPerSecond; }), opts);
        UI.timeline(chart(charts, "input-rows", "Input Rows"), series(function (p) { return p.numInputRows; }), opts);
        UI.timeline(chart(charts, "batch-duration", "Batch Duration"), series(function (p) { return p.batchDuration; }),
                    {xFormat: UI.formatTime, yFormat: UI.formatDuration, width: 460, height: 150});
        var names = [];
        progress.forEach(function (p) {
          Object.keys(p.durationMs || {}).forEach(function (k) {
            if (k !== "triggerExecution" && names.indexOf(k) < 0) { names.push(k); }
          });
        });
        UI.stacked(chart(charts, "operation-duration", "Operation Duration (ms)"), names.map(function (name) {
          return {name: name, points: series(function (p) { return (p.durationMs || {})[name] || 0; })};
        }), {xFormat: UI.formatTime, width: 460, height: 150});
        var stateful = progress.some(function (p) { return (p.stateOperators || []).length; });
        if (stateful) {
          UI.timeline(chart(charts, "state-rows-total", "Aggregated Number Of Total State Rows"),
                      series(function (p) { return sum(p.stateOperators, "numRowsTotal"); }), opts);
          UI.timeline(chart(charts, "state-rows-updated", "Aggregated Number Of Updated State Rows"),
                      series(function (p) { return sum(p.stateOperators, "numRowsUpdated"); }), opts);
          UI.timeline(chart(charts, "state-memory", "Aggregated State Memory Used In Bytes"),
                      series(function (p) { return sum(p.stateOperators, "memoryUsedBytes"); }),
                      {xFormat: UI.formatTime, yFormat: UI.formatBytes, width: 460, height: 150});
          UI.timeline(chart(charts, "state-dropped", "Aggregated Number Of Rows Dropped By Watermark"),
                      series(function (p) { return sum(p.stateOperators, "numRowsDroppedByWatermark"); }), opts);
        }
        var watermarked = progress.some(function (p) { return p.eventTime && p.eventTime.watermark; });
        if (watermarked) {
          UI.timeline(chart(charts, "watermark-gap", "Global Watermark Gap"), series(function (p) {
            var w = p.eventTime && p.eventTime.watermark;
            return w ? (Date.parse(p.timestamp) - Date.parse(w)) : null;
          }), {xFormat: UI.formatTime, yFormat: UI.formatDuration, width: 460, height: 150});
        }
      });
    }, REFRESH_MS);
  }

  if (UI.page === "statistics") { statisticsPage(); } else { listPage(); }
}());
