/*
 * stages.js: the Stages tab. Page "" lists the stages by status; page "stage"
 * (?id=N&attempt=M) shows one attempt: its metrics, a histogram of task durations and
 * its tasks (durations, shuffle read/write, errors). Data: REST stages,
 * stages/{id}/{attempt}, stages/{id}/{attempt}/taskList.
 */
(function () {
  "use strict";
  var UI = window.UI;

  var columns = UI.stageColumns;

  function bytesOrEmpty(v) { return v ? UI.formatBytes(v) : ""; }

  function stagesPage() {
    UI.heading("Stages for All Jobs");
    var summary = UI.section("stages-summary", null);
    var sections = [["ACTIVE", "active-stages", "Active Stages"], ["PENDING", "pending-stages", "Pending Stages"],
                    ["COMPLETE", "completed-stages", "Completed Stages"], ["SKIPPED", "skipped-stages", "Skipped Stages"],
                    ["FAILED", "failed-stages", "Failed Stages"]];
    var els = sections.map(function (s) { return UI.section(s[1], s[2]); });
    UI.retentionNote(els[els.length - 1], "finished stages", "spark.ui.retainedStages", 1000).catch(UI.showError);
    UI.poll(function () {
      return UI.api("stages").then(function (stages) {
        var pairs = [];
        sections.forEach(function (s, i) {
          var rows = stages.filter(function (st) { return st.status === s[0]; });
          pairs.push([s[2], String(rows.length)]);
          UI.table(els[i], columns(s[0] === "FAILED"), rows, {sortColumn: 0, sortDesc: true,
                                                               empty: "No " + s[2].toLowerCase()});
        });
        UI.summary(summary, pairs);
      });
    }, 2000);
  }

  function metric(t, group, name) {
    var m = t.taskMetrics;
    if (!m) { return null; }
    return group ? (m[group] ? m[group][name] : null) : m[name];
  }

  function shuffleRead(t) {
    var local = metric(t, "shuffleReadMetrics", "localBytesRead"), remote = metric(t, "shuffleReadMetrics",
                                                                                     "remoteBytesRead");
    return local === null && remote === null ? null : (local || 0) + (remote || 0);
  }

  var TASK_COLUMNS = [
    {title: "Index", value: function (t) { return t.index; }},
    {title: "Task ID", value: function (t) { return t.taskId; }},
    {title: "Attempt", value: function (t) { return t.attempt; }},
    {title: "Status", value: function (t) { return t.status; }},
    {title: "Locality Level", value: function (t) { return t.taskLocality; }},
    {title: "Executor ID", value: function (t) { return t.executorId; }},
    {title: "Host", value: function (t) { return t.host; }},
    {title: "Launch Time", value: function (t) { return UI.parseDate(t.launchTime); },
     format: function (v, t) { return UI.formatDate(t.launchTime); }},
    {title: "Duration", value: function (t) { return t.duration; }, format: UI.formatDuration},
    {title: "GC Time", value: function (t) { return metric(t, null, "jvmGcTime"); },
     format: function (v) { return v ? UI.formatDuration(v) : ""; }},
    {title: "Shuffle Read", value: shuffleRead, format: bytesOrEmpty},
    {title: "Shuffle Write", value: function (t) { return metric(t, "shuffleWriteMetrics", "bytesWritten"); },
     format: bytesOrEmpty},
    {title: "Errors", value: function (t) { return t.errorMessage || ""; }}
  ];

  function quantiles(values) {
    var vs = values.filter(function (v) { return v !== null && v !== undefined; }).sort(function (a, b) {
      return a - b;
    });
    if (!vs.length) { return null; }
    return [0, 0.25, 0.5, 0.75, 1].map(function (q) { return vs[Math.min(vs.length - 1, Math.round(q * (vs.length - 1)))]; });
  }

  function stagePage() {
    var id = UI.intParam("id"), attempt = UI.intParam("attempt") || 0;
    if (id === null) {
      UI.heading("Stage details");
      UI.showError(new Error("this page needs ?id=STAGE_ID&attempt=ATTEMPT_ID"));
      return;
    }
    UI.heading("Details for Stage " + id + " (Attempt " + attempt + ")");
    var summary = UI.section("stage-summary", null);
    var metricsEl = UI.section("stage-metrics", "Summary Metrics for Completed Tasks");
    var histEl = UI.section("stage-durations", "Task Durations");
    var tasksEl = UI.section("stage-tasks", "Tasks");
    UI.retentionNote(tasksEl, "tasks of a stage", "spark.ui.retainedTasks", 100000).catch(UI.showError);
    UI.poll(function () {
      var base = "stages/" + id + "/" + attempt;
      return Promise.all([UI.api(base), UI.api(base + "/taskList?offset=0&length=1000&sortBy=ID")]).then(function (r) {
        var s = r[0], tasks = r[1];
        UI.summary(summary, [
          ["Status", s.status],
          ["Description", s.description || s.name],
          ["Total Time Across All Tasks", UI.formatDuration(s.executorRunTime)],
          ["Input Size / Records", s.inputBytes ? UI.formatBytes(s.inputBytes) + " / " + s.inputRecords : null],
          ["Shuffle Read Size / Records", s.shuffleReadBytes ?
            UI.formatBytes(s.shuffleReadBytes) + " / " + s.shuffleReadRecords : null],
          ["Shuffle Write Size / Records", s.shuffleWriteBytes ?
            UI.formatBytes(s.shuffleWriteBytes) + " / " + s.shuffleWriteRecords : null],
          ["Failure Reason", s.failureReason || null]
        ]);
        var done = tasks.filter(function (t) { return t.status === "SUCCESS"; });
        var rows = [
          ["Duration", function (t) { return t.duration; }, UI.formatDuration],
          ["Executor Run Time", function (t) { return metric(t, null, "executorRunTime"); }, UI.formatDuration],
          ["Result Size", function (t) { return metric(t, null, "resultSize"); }, UI.formatBytes],
          ["Shuffle Read", shuffleRead, UI.formatBytes],
          ["Shuffle Write", function (t) { return metric(t, "shuffleWriteMetrics", "bytesWritten"); }, UI.formatBytes]
        ].map(function (m) {
          return {name: m[0], q: quantiles(done.map(m[1])), fmt: m[2]};
        }).filter(function (m) { return m.q !== null; });
        var qcols = [{title: "Metric", value: function (m) { return m.name; }}];
        ["Min", "25th percentile", "Median", "75th percentile", "Max"].forEach(function (title, i) {
          qcols.push({title: title, value: function (m) { return m.q[i]; }, format: function (v, m) { return m.fmt(v); }});
        });
        UI.table(metricsEl, qcols, rows, {empty: "No completed task yet"});
        UI.histogram(histEl, done.map(function (t) { return t.duration; }),
                     {xFormat: UI.formatDuration, yLabel: "tasks"});
        UI.table(tasksEl, TASK_COLUMNS, tasks, {sortColumn: 0, empty: "No tasks yet"});
      });
    }, 2000);
  }

  if (UI.page === "stage") { stagePage(); } else { stagesPage(); }
}());
