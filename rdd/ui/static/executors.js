/*
 * executors.js: the Executors tab: a summary of active and dead executors and one row
 * per executor (the driver included): storage, cores, tasks, task time, input, shuffle.
 * Data: REST allexecutors.
 */
(function () {
  "use strict";
  var UI = window.UI;

  var COLUMNS = [
    {title: "Executor ID", value: function (e) { return e.id; }},
    {title: "Address", value: function (e) { return e.hostPort; }},
    {title: "Status", value: function (e) { return e.isActive ? "Active" : "Dead"; }},
    {title: "RDD Blocks", value: function (e) { return e.rddBlocks; }},
    {title: "Storage Memory", value: function (e) { return e.memoryUsed; },
     format: function (v, e) { return UI.formatBytes(v) + (e.maxMemory ? " / " + UI.formatBytes(e.maxMemory) : ""); }},
    {title: "Disk Used", value: function (e) { return e.diskUsed; }, format: UI.formatBytes},
    {title: "Cores", value: function (e) { return e.totalCores; }},
    {title: "Active Tasks", value: function (e) { return e.activeTasks; }},
    {title: "Failed Tasks", value: function (e) { return e.failedTasks; }},
    {title: "Complete Tasks", value: function (e) { return e.completedTasks; }},
    {title: "Total Tasks", value: function (e) { return e.totalTasks; }},
    {title: "Task Time (GC Time)", value: function (e) { return e.totalDuration; },
     format: function (v, e) { return UI.formatDuration(v) + " (" + UI.formatDuration(e.totalGCTime || 0) + ")"; }},
    {title: "Input", value: function (e) { return e.totalInputBytes; }, format: UI.formatBytes},
    {title: "Shuffle Read", value: function (e) { return e.totalShuffleRead; }, format: UI.formatBytes},
    {title: "Shuffle Write", value: function (e) { return e.totalShuffleWrite; }, format: UI.formatBytes},
    {title: "Removed", value: function (e) { return e.removeReason || ""; }}
  ];

  function sum(list, key) { return list.reduce(function (a, e) { return a + (e[key] || 0); }, 0); }

  UI.heading("Executors");
  var summaryEl = UI.section("executors-summary", "Summary");
  var tableEl = UI.section("executors-table", "Executors");
  UI.poll(function () {
    return UI.api("allexecutors").then(function (list) {
      var rows = [["Active", list.filter(function (e) { return e.isActive; })],
                  ["Dead", list.filter(function (e) { return !e.isActive; })],
                  ["Total", list]].map(function (g) {
        return {name: g[0] + "(" + g[1].length + ")", list: g[1]};
      });
      UI.table(summaryEl, [
        {title: "", value: function (r) { return r.name; }},
        {title: "RDD Blocks", value: function (r) { return sum(r.list, "rddBlocks"); }},
        {title: "Storage Memory", value: function (r) { return sum(r.list, "memoryUsed"); }, format: UI.formatBytes},
        {title: "Cores", value: function (r) { return sum(r.list, "totalCores"); }},
        {title: "Active Tasks", value: function (r) { return sum(r.list, "activeTasks"); }},
        {title: "Failed Tasks", value: function (r) { return sum(r.list, "failedTasks"); }},
        {title: "Complete Tasks", value: function (r) { return sum(r.list, "completedTasks"); }},
        {title: "Task Time", value: function (r) { return sum(r.list, "totalDuration"); }, format: UI.formatDuration},
        {title: "Shuffle Read", value: function (r) { return sum(r.list, "totalShuffleRead"); }, format: UI.formatBytes},
        {title: "Shuffle Write", value: function (r) { return sum(r.list, "totalShuffleWrite"); }, format: UI.formatBytes}
      ], rows);
      UI.table(tableEl, COLUMNS, list, {empty: "No executor"});
    });
  }, 2000);
}());
