/*
 * environment.js: the Environment tab: runtime information, Spark properties (values of
 * keys matching spark.redaction.regex arrive redacted from the REST API), system
 * properties and the other property groups. Data: REST environment.
 */
(function () {
  "use strict";
  var UI = window.UI;

  var PAIR_COLUMNS = [
    {title: "Name", value: function (p) { return p[0]; }},
    {title: "Value", value: function (p) { return p[1]; }}
  ];

  /* The REST field names are Spark's (a JVM's); the values are the Python runtime's and the engine's. */
  var RUNTIME_LABELS = {javaVersion: "Python Version", javaHome: "Python Home", scalaVersion: "Engine Version"};

  UI.heading("Environment");
  var groups = [["runtime", "Runtime Information"], ["sparkProperties", "Spark Properties"],
                ["hadoopProperties", "Hadoop Properties"], ["systemProperties", "System Properties"],
                ["metricsProperties", "Metrics Properties"], ["classpathEntries", "Classpath Entries"]];
  var els = {};
  groups.forEach(function (g) { els[g[0]] = UI.section("env-" + g[0], g[1]); });
  UI.poll(function () {
    return UI.api("environment").then(function (env) {
      groups.forEach(function (g) {
        var value = env[g[0]];
        var rows = g[0] === "runtime" ? Object.keys(value || {}).map(function (k) {
          return [RUNTIME_LABELS[k] || k, value[k]];
        }) :
          (value || []);
        UI.table(els[g[0]], PAIR_COLUMNS, rows, {sortColumn: g[0] === "runtime" ? null : 0, empty: "None"});
      });
    });
  }, 5000);
}());
