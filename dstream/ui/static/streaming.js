/*
 * streaming.js: the Streaming tab (DStreams). Page "" shows the streaming statistics (input
 * rate, scheduling delay, processing time, total delay: average, timeline and histogram
 * each; input rate per input stream) and the active and completed batches; page "batch"
 * (?id=BATCH_TIME_MS) shows one batch and its output operations with their Spark jobs.
 * Data: REST streaming/statistics, streaming/receivers, streaming/batches[/{id}/operations].
 * Built on ui.js (UI.timeline, UI.histogram, UI.table...): text only via textContent.
 */
(function () {
  "use strict";
  var UI = window.UI;
  var REFRESH_MS = 1000;

  function batchLink(b) { return "/streaming/batch/?id=" + b.batchId; }

  function fmtRate(v) { return v === null || v === undefined ? "-" : v.toFixed(2) + " records/sec"; }

  function fmtMs(v) { return v === null || v === undefined ? "-" : UI.formatDuration(v); }

  /* The exception line of a failure (its last line: Python tracebacks end with it). */
  function errorLine(text) {
    var lines = String(text || "").split("\n").filter(function (l) { return l.trim() !== ""; });
    return lines.length ? lines[lines.length - 1] : "";
  }

  function opsText(b) {
    return b.numCompletedOutputOps + "/" + b.numTotalOutputOps +
      (b.numFailedOutputOps ? " (" + b.numFailedOutputOps + " failed)" : "");
  }

  var ACTIVE_COLUMNS = [
    {title: "Batch Time", value: function (b) { return b.batchId; }, format: function (v, b) { return UI.formatDate(b.batchTime); },
     link: batchLink},
    {title: "Records", value: function (b) { return b.inputSize; }, format: function (v) { return v + " records"; }},
    {title: "Scheduling Delay", value: function (b) { return b.schedulingDelay; }, format: fmtMs},
    {title: "Processing Time", value: function (b) { return b.processingTime; }, format: fmtMs},
    {title: "Output Ops: Succeeded/Total", value: function (b) { return b.numCompletedOutputOps; },
     format: function (v, b) { return opsText(b); }},
    {title: "Status", value: function (b) { return b.status === "QUEUED" ? "queued" : "processing"; }}
  ];

  var COMPLETED_COLUMNS = [
    {title: "Batch Time", value: function (b) { return b.batchId; }, format: function (v, b) { return UI.formatDate(b.batchTime); },
     link: batchLink},
    {title: "Records", value: function (b) { return b.inputSize; }, format: function (v) { return v + " records"; }},
    {title: "Scheduling Delay", value: function (b) { return b.schedulingDelay; }, format: fmtMs},
    {title: "Processing Time", value: function (b) { return b.processingTime; }, format: fmtMs},
    {title: "Total Delay", value: function (b) { return b.totalDelay; }, format: fmtMs},
    {title: "Output Ops: Succeeded/Total", value: function (b) { return b.numCompletedOutputOps; },
     format: function (v, b) { return opsText(b); }},
    {title: "Error", value: function (b) { return errorLine(b.firstFailureReason); }}
  ];

  /* One statistics row: name + average, timeline, histogram (three cells of a table row). */
  function statRow(table, id, title) {
    var row = document.getElementById(id + "-row");
    if (!row) {
      row = UI.el("tr", {id: id + "-row", "class": "stat-row"},
        UI.el("td", {"class": "stat-name"}, UI.el("div", {"class": "stat-title"}, title),
              UI.el("div", {id: id + "-avg", "class": "stat-avg"})),
        UI.el("td", {}, UI.el("div", {id: id + "-timeline", "class": "stat-timeline"})),
        UI.el("td", {}, UI.el("div", {id: id + "-histogram", "class": "stat-histogram"})));
      table.appendChild(row);
    }
    return {avg: document.getElementById(id + "-avg"), timeline: document.getElementById(id + "-timeline"),
            histogram: document.getElementById(id + "-histogram")};
  }

  function statsTable(host) {
    var table = document.getElementById("streaming-stats-table");
    if (!table) {
      table = UI.el("table", {id: "streaming-stats-table", "class": "table stats"},
        UI.el("thead", {}, UI.el("tr", {}, UI.el("th", {}, ""), UI.el("th", {}, "Timelines (Last batches)"),
                                 UI.el("th", {}, "Histograms"))));
      var body = UI.el("tbody", {id: "streaming-stats-body"});
      table.appendChild(body);
      host.appendChild(table);
    }
    return document.getElementById("streaming-stats-body");
  }

  function drawStat(cells, points, avgText, unitFormat, opts) {
    cells.avg.textContent = "Avg: " + avgText;
    var chartOpts = {xFormat: UI.formatTime, yFormat: unitFormat, width: 460, height: 150};
    Object.keys(opts || {}).forEach(function (k) { chartOpts[k] = opts[k]; });
    UI.timeline(cells.timeline, points, chartOpts);
    UI.histogram(cells.histogram, points.map(function (p) { return p.y; }),
                 {xFormat: unitFormat, width: 300, height: 150});
  }

  function streamingPage() {
    UI.heading("Streaming Statistics");
    var header = UI.section("streaming-header", null);
    var statsHost = UI.section("streaming-statistics", null);
    var active = UI.section("active-batches", "Active Batches");
    var completed = UI.section("completed-batches", "Completed Batches");
    UI.poll(function () {
      return Promise.all([UI.api("streaming/statistics"), UI.api("streaming/receivers"),
                          UI.api("streaming/batches")]).then(function (res) {
        var stats = res[0], receivers = res[1], batches = res[2];
        var done = batches.filter(function (b) { return b.status === "COMPLETED"; });
        var running = batches.filter(function (b) { return b.status !== "COMPLETED"; });
        var retained = batches.slice().sort(function (a, b) { return a.batchId - b.batchId; });
        UI.summary(header, [
          ["Running batches of", UI.formatDuration(stats.batchDuration)],
          ["for", UI.formatDuration(Date.now() - UI.parseDate(stats.startTime))],
          ["since", UI.formatDate(stats.startTime)],
          ["Batches", "last " + retained.length + ", " + stats.numActiveBatches + " active, " +
            stats.numTotalCompletedBatches + " completed"],
          ["Records", stats.numProcessedRecords + " processed, " + stats.numReceivedRecords + " received"],
          ["Receivers", stats.numActiveReceivers + " / " + stats.numReceivers + " active"],
          ["Retained", "the UI keeps the last " + stats.numRetainedCompletedBatches +
            " completed batches (spark.streaming.ui.retainedBatches)"]
        ]);
        var body = statsTable(statsHost);
        var interval = stats.batchDuration || 1;
        drawStat(statRow(body, "input-rate", "Input Rate"),
                 retained.map(function (b) { return {x: b.batchId, y: b.inputSize * 1000 / interval}; }),
                 fmtRate(stats.avgInputRate), function (v) { return (Math.round(v * 100) / 100) + "/s"; });
        receivers.forEach(function (r) {
          var cells = statRow(body, "stream-" + r.streamId, r.streamName +
            (r.isActive === false ? " (inactive)" : "") + (r.lastErrorMessage ? " - error: " + r.lastErrorMessage : ""));
          drawStat(cells, r.eventRates.map(function (p) { return {x: p[0], y: p[1]}; }), fmtRate(r.avgEventRate),
                   function (v) { return (Math.round(v * 100) / 100) + "/s"; }, {height: 110});
        });
        // As Spark's page: the three delay charts share one y axis (the largest delay), and
        // the processing-time chart marks the batch interval, the line a stream must stay under.
        var delayMax = 0;
        retained.forEach(function (b) {
          [b.schedulingDelay, b.processingTime, b.totalDelay].forEach(function (v) {
            if (v !== null && v !== undefined && v > delayMax) { delayMax = v; }
          });
        });
        drawStat(statRow(body, "scheduling-delay", "Scheduling Delay"),
                 retained.map(function (b) { return {x: b.batchId, y: b.schedulingDelay}; }),
                 fmtMs(stats.avgSchedulingDelay), UI.formatDuration, {yMax: delayMax});
        drawStat(statRow(body, "processing-time", "Processing Time"),
                 retained.map(function (b) { return {x: b.batchId, y: b.processingTime}; }),
                 fmtMs(stats.avgProcessingTime), UI.formatDuration,
                 {yMax: delayMax, refLine: stats.batchDuration,
                  refLabel: "batch interval " + UI.formatDuration(stats.batchDuration)});
        drawStat(statRow(body, "total-delay", "Total Delay"),
                 retained.map(function (b) { return {x: b.batchId, y: b.totalDelay}; }),
                 fmtMs(stats.avgTotalDelay), UI.formatDuration, {yMax: delayMax});
        UI.table(active, ACTIVE_COLUMNS, running, {sortColumn: 0, sortDesc: true, empty: "No active batch"});
        UI.table(completed, COMPLETED_COLUMNS, done, {sortColumn: 0, sortDesc: true, empty: "No completed batch"});
        var title = completed.parentNode.querySelector("h3");
        title.textContent = "Completed Batches (last " + done.length + " out of " + stats.numTotalCompletedBatches + ")";
      });
    }, REFRESH_MS);
  }

  var OP_COLUMNS = [
    {title: "Output Op Id", value: function (o) { return o.outputOpId; }},
    {title: "Description", value: function (o) { return o.description || o.name; }},
    {title: "Duration", value: function (o) { return o.duration; }, format: fmtMs},
    {title: "Status", value: function (o) {
      if (o.failureReason) { return "Failed"; }
      return o.endTime ? "Succeeded" : (o.startTime ? "Running" : "Queued");
    }},
    {title: "Job Ids", value: function (o) { return o.jobIds.length ? o.jobIds[0] : null; },
     format: function (v, o) {
       var span = UI.el("span", {"class": "job-ids"});
       o.jobIds.forEach(function (id, i) {
         if (i) { span.appendChild(document.createTextNode(", ")); }
         span.appendChild(UI.el("a", {href: "/jobs/job/?id=" + id, "class": "job-link"}, String(id)));
       });
       if (!o.jobIds.length) { span.appendChild(document.createTextNode("-")); }
       return span;
     }},
    {title: "Error", value: function (o) { return errorLine(o.failureReason); }}
  ];

  function batchPage() {
    var id = UI.intParam("id");
    if (id === null) {
      UI.heading("Batch");
      UI.showError(new Error("this page needs ?id=BATCH_TIME_MS"));
      return;
    }
    UI.heading("Details of batch");
    var summary = UI.section("batch-summary", null);
    var ops = UI.section("batch-operations", "Output Operations");
    UI.poll(function () {
      return Promise.all([UI.api("streaming/batches/" + id), UI.api("streaming/batches/" + id + "/operations")])
        .then(function (res) {
          var b = res[0];
          UI.heading("Details of batch at " + UI.formatDate(b.batchTime));
          UI.summary(summary, [
            ["Batch Duration", UI.formatDuration(b.batchDuration)],
            ["Input data size", b.inputSize + " records"],
            ["Status", b.status],
            ["Scheduling delay", fmtMs(b.schedulingDelay)],
            ["Processing time", fmtMs(b.processingTime)],
            ["Total delay", fmtMs(b.totalDelay)]
          ]);
          UI.table(ops, OP_COLUMNS, res[1], {sortColumn: 0, empty: "No output operation"});
        });
    }, REFRESH_MS);
  }

  if (UI.page === "batch") { batchPage(); } else { streamingPage(); }
}());
