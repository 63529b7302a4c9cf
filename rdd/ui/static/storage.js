/*
 * storage.js: the Storage tab. Page "" lists the persisted RDDs; page "rdd" (?id=N) shows
 * one RDD: its data distribution over executors and its cached partitions. Data: REST
 * storage/rdd and storage/rdd/{id}.
 */
(function () {
  "use strict";
  var UI = window.UI;

  function rddLink(r) { return "/storage/rdd/?id=" + r.id; }

  var RDD_COLUMNS = [
    {title: "ID", value: function (r) { return r.id; }, link: rddLink},
    {title: "RDD Name", value: function (r) { return r.name; }, link: rddLink},
    {title: "Storage Level", value: function (r) { return r.storageLevel; }},
    {title: "Cached Partitions", value: function (r) { return r.numCachedPartitions; }},
    {title: "Fraction Cached", value: function (r) { return r.numPartitions ? r.numCachedPartitions / r.numPartitions : 0; },
     format: function (v) { return Math.round(v * 100) + "%"; }},
    {title: "Size in Memory", value: function (r) { return r.memoryUsed; }, format: UI.formatBytes},
    {title: "Size on Disk", value: function (r) { return r.diskUsed; }, format: UI.formatBytes}
  ];

  function storagePage() {
    UI.heading("Storage");
    var rdds = UI.section("storage-rdds", "RDDs");
    UI.poll(function () {
      return UI.api("storage/rdd").then(function (list) {
        UI.table(rdds, RDD_COLUMNS, list, {sortColumn: 0, empty: "No persisted RDD"});
      });
    }, 2000);
  }

  function rddPage() {
    var id = UI.intParam("id");
    if (id === null) {
      UI.heading("RDD Storage Info");
      UI.showError(new Error("this page needs ?id=RDD_ID"));
      return;
    }
    UI.heading("RDD Storage Info for RDD " + id);
    var summary = UI.section("rdd-summary", null);
    var dist = UI.section("rdd-distribution", "Data Distribution on Executors");
    var parts = UI.section("rdd-partitions", "Partitions");
    UI.poll(function () {
      return UI.api("storage/rdd/" + id).then(function (r) {
        UI.heading("RDD Storage Info for " + r.name);
        UI.summary(summary, [
          ["Storage Level", r.storageLevel],
          ["Cached Partitions", String(r.numCachedPartitions)],
          ["Total Partitions", String(r.numPartitions)],
          ["Memory Size", UI.formatBytes(r.memoryUsed)],
          ["Disk Size", UI.formatBytes(r.diskUsed)]
        ]);
        UI.table(dist, [
          {title: "Host", value: function (d) { return d.address; }},
          {title: "On Heap Memory Usage", value: function (d) { return d.memoryUsed; },
           format: function (v, d) {
             return UI.formatBytes(v) + (d.memoryRemaining ? " (" + UI.formatBytes(d.memoryRemaining) + " Remaining)" : "");
           }},
          {title: "Disk Usage", value: function (d) { return d.diskUsed; }, format: UI.formatBytes}
        ], r.dataDistribution || [], {empty: "No executor holds a block"});
        UI.table(parts, [
          {title: "Block Name", value: function (p) { return p.blockName; }},
          {title: "Storage Level", value: function (p) { return p.storageLevel; }},
          {title: "Size in Memory", value: function (p) { return p.memoryUsed; }, format: UI.formatBytes},
          {title: "Size on Disk", value: function (p) { return p.diskUsed; }, format: UI.formatBytes},
          {title: "Executors", value: function (p) { return (p.executors || []).join(" "); }}
        ], r.partitions || [], {sortColumn: 0, empty: "No cached partition"});
      });
    }, 2000);
  }

  if (UI.page === "rdd") { rddPage(); } else { storagePage(); }
}());
