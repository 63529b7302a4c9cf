/*
 * jobs.js: the Jobs tab. Page "" lists the jobs (event timeline, active / completed /
 * failed tables); page "job" (?id=N) shows one job: its summary, its stage DAG and its
 * stages. Data: REST jobs, jobs/{id}, stages, executors (Spark's field names).
 */
(function () {
  "use strict";
  var UI = window.UI;

  function jobLink(job) { return "/jobs/job/?id=" + job.jobId; }

  function jobTitle(job) { return job.jobGroup ? job.jobId + " (" + job.jobGroup + ")" : String(job.jobId); }

  function stagesText(job) {
    var total = job.stageIds ? job.stageIds.length : 0;
    return job.numCompletedStages + "/" + (total - job.numSkippedStages) +
      (job.numSkippedStages ? " (" + job.numSkippedStages + " skipped)" : "") +
      (job.numFailedStages ? " (" + job.numFailedStages + " failed)" : "");
  }

  function tasksText(job) {
    return job.numCompletedTasks + "/" + (job.numTasks - job.numSkippedTasks) +
      (job.numActiveTasks ? " (" + job.numActiveTasks + " running)" : "") +
      (job.numFailedTasks ? " (" + job.numFailedTasks + " failed)" : "") +
      (job.numSkippedTasks ? " (" + job.numSkippedTasks + " skipped)" : "");
  }

  var JOB_COLUMNS = [
    {title: "Job Id", value: function (j) { return j.jobId; }, format: function (v, j) { return jobTitle(j); },
     link: jobLink},
    {title: "Description", value: function (j) { return j.description || j.name; }, link: jobLink},
    {title: "Submitted", value: function (j) { return UI.parseDate(j.submissionTime); },
     format: function (v, j) { return UI.formatDate(j.submissionTime); }},
    {title: "Duration", value: function (j) { return UI.durationBetween(j.submissionTime, j.completionTime); },
     format: UI.formatDuration},
    {title: "Stages: Succeeded/Total", value: function (j) { return j.numCompletedStages; },
     format: function (v, j) { return stagesText(j); }},
    {title: "Tasks (for all stages): Succeeded/Total", value: function (j) { return j.numCompletedTasks; },
     format: function (v, j) { return tasksText(j); }}
  ];

  function jobsPage() {
    UI.heading("Spark Jobs");
    var summary = UI.section("jobs-summary", null);
    var timeline = UI.section("jobs-timeline", "Event Timeline");
    var active = UI.section("active-jobs", "Active Jobs");
    var completed = UI.section("completed-jobs", "Completed Jobs");
    var failed = UI.section("failed-jobs", "Failed Jobs");
    UI.retentionNote(failed, "finished jobs", "spark.ui.retainedJobs", 1000).catch(UI.showError);
    UI.poll(function () {
      return Promise.all([
        UI.apiRoot("applications/" + encodeURIComponent(UI.appId)), UI.api("jobs"), UI.api("allexecutors")
      ]).then(function (r) {
        var app = r[0], jobs = r[1], executors = r[2];
        var attempt = (app.attempts || [])[0] || {};
        var by = function (s) { return jobs.filter(function (j) { return j.status === s; }); };
        var running = by("RUNNING"), done = by("SUCCEEDED"), bad = by("FAILED");
        UI.summary(summary, [
          ["User", attempt.sparkUser],
          ["Started At", UI.formatDate(attempt.startTime)],
          ["Total Uptime", UI.formatDuration(UI.durationBetween(attempt.startTime,
            attempt.completed ? attempt.endTime : null))],
          ["Scheduling Mode", "FIFO"],
          ["Active Jobs", String(running.length)],
          ["Completed Jobs", String(done.length)],
          ["Failed Jobs", String(bad.length)]
        ]);
        var items = [];
        executors.forEach(function (e) {
          var added = UI.parseDate(e.addTime);
          if (added !== null) {
            items.push({label: "Executor " + e.id + " added", lane: "Executors", start: added, instant: true,
                        status: "added"});
          }
          var removed = UI.parseDate(e.removeTime);
          if (removed !== null) {
            items.push({label: "Executor " + e.id + " removed", lane: "Executors", start: removed, instant: true,
                        status: "removed"});
          }
        });
        jobs.slice().sort(function (a, b) { return a.jobId - b.jobId; }).forEach(function (j) {
          var start = UI.parseDate(j.submissionTime);
          if (start === null) { return; }
          items.push({label: (j.description || j.name) + " (Job " + j.jobId + ")", lane: "Job " + j.jobId,
                      start: start, end: UI.parseDate(j.completionTime), status: j.status, link: jobLink(j)});
        });
        UI.eventTimeline(timeline, items.slice(-100));
        UI.table(active, JOB_COLUMNS, running, {sortColumn: 0, sortDesc: true, empty: "No active jobs"});
        UI.table(completed, JOB_COLUMNS, done, {sortColumn: 0, sortDesc: true, empty: "No completed jobs"});
        UI.table(failed, JOB_COLUMNS, bad, {sortColumn: 0, sortDesc: true, empty: "No failed jobs"});
      });
    }, 2000);
  }

  function jobPage() {
    var id = UI.intParam("id");
    if (id === null) {
      UI.heading("Job details");
      UI.showError(new Error("this page needs ?id=JOB_ID"));
      return;
    }
    UI.heading("Details for Job " + id);
    var summary = UI.section("job-summary", null);
    var dag = UI.section("job-dag", "DAG Visualization");
    var stagesEl = UI.section("job-stages", "Stages");
    UI.poll(function () {
      return Promise.all([UI.api("jobs/" + id), UI.api("stages")]).then(function (r) {
        var job = r[0];
        var ids = job.stageIds || [];
        var latest = {};
        r[1].forEach(function (s) {
          if (ids.indexOf(s.stageId) >= 0 && (!latest[s.stageId] || latest[s.stageId].attemptId < s.attemptId)) {
            latest[s.stageId] = s;
          }
        });
        var stages = ids.map(function (sid) { return latest[sid]; }).filter(Boolean);
        UI.summary(summary, [
          ["Status", job.status],
          ["Description", job.description || job.name],
          ["Submitted", UI.formatDate(job.submissionTime)],
          ["Duration", UI.formatDuration(UI.durationBetween(job.submissionTime, job.completionTime))],
          ["Job Group", job.jobGroup || null],
          ["Stages", stagesText(job)],
          ["Tasks", tasksText(job)]
        ]);
        var nodes = ids.slice().sort(function (a, b) { return a - b; }).map(function (sid) {
          var s = latest[sid];
          return {id: sid, label: "Stage " + sid, status: s ? s.status : "PENDING",
                  title: s ? "Stage " + sid + ": " + s.name + " (" + s.status + ")" : "Stage " + sid,
                  link: s ? "/stages/stage/?id=" + sid + "&attempt=" + s.attemptId : null};
        });
        UI.dag(dag, nodes, stageEdges(ids, latest));
        UI.table(stagesEl, UI.stageColumns(true), stages, {sortColumn: 0, sortDesc: true,
                                                                     empty: "No stages"});
      });
    }, 2000);
  }

  /* Edges from each stage's parentIds (the REST data's stage graph); a stage without the
   * field is drawn unconnected rather than guessed at. */
  function stageEdges(ids, latest) {
    var edges = [];
    ids.forEach(function (sid) {
      ((latest[sid] && latest[sid].parentIds) || []).forEach(function (p) { edges.push([p, sid]); });
    });
    return edges;
  }

  if (UI.page === "job") { jobPage(); } else { jobsPage(); }
}());
