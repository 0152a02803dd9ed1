/* memstream console: the health page's live charts and partition table.
   Reads /console/health.json (same origin, the session cookie) every few seconds and
   draws with uPlot (MIT, shipped in this package). Writes text only (textContent): no
   HTML from the server is ever inserted. */
(function () {
  "use strict";
  var charts = {};
  var status = document.getElementById("live-status");

  function axisSize(self, values, axisIdx, cycleNum) {
    var axis = self.axes[axisIdx];
    if (cycleNum > 1) return axis._size;  // settled: uPlot asks again while it lays out
    var widest = 0;
    self.ctx.font = axis.font[0];
    (values || []).forEach(function (value) {
      widest = Math.max(widest, self.ctx.measureText(String(value)).width);
    });
    return Math.ceil(axis.ticks.size + axis.gap + widest / (window.devicePixelRatio || 1)) + 4;
  }

  function chart(id, labels, colours) {
    var el = document.getElementById(id);
    if (!el || typeof uPlot === "undefined") return null;
    var series = [{}];
    for (var i = 0; i < labels.length; i++) {
      series.push({ label: labels[i], stroke: colours[i], width: 2, spanGaps: true });
    }
    // the y axis as wide as its widest label (uPlot's default 50 px lets "12,000" run
    // into the plot); time labels at least 64 px apart so that they never touch; the
    // legend names the series without the cursor's "--" values
    var opts = { width: el.clientWidth || 420, height: 180, series: series,
                 axes: [{ space: 64 }, { size: axisSize }],
                 legend: { show: true, live: false }, cursor: { drag: { x: false, y: false } } };
    var empty = [[]];
    for (var j = 0; j < labels.length; j++) empty.push([]);
    return new uPlot(opts, empty, el);
  }

  function draw(doc) {
    var s = doc.series;
    if (!s) return;
    if (charts.lag) charts.lag.setData([s.times, s.lag]);
    if (charts.ingest) charts.ingest.setData([s.times, s.ingest_per_second]);
    if (charts.latency) charts.latency.setData([s.times, s.search_p50_ms, s.search_p99_ms]);
    var rows = doc.partitions || [];
    for (var i = 0; i < rows.length; i++) {
      var p = rows[i];
      var tr = document.querySelector('tr[data-partition="' + Number(p.partition) + '"]');
      if (!tr) continue;
      set(tr, "end", p.end === null ? "?" : p.end);
      set(tr, "applied", p.applied);
      set(tr, "lag", p.lag === null ? "?" : p.lag);
    }
    if (doc.stats && doc.stats.embedding_lag !== undefined) {
      var cell = document.querySelector('[data-live="embedding_lag"]');
      if (cell) cell.textContent = Number(doc.stats.embedding_lag).toLocaleString();
    }
    var total = document.getElementById("waiting-total");
    if (total && doc.waiting !== undefined && doc.waiting !== null) total.textContent = String(doc.waiting);
    if (status) {
      // the same sample as the tables' (the chart's last point may be a newer one)
      var lag = doc.waiting !== undefined ? doc.waiting : (s.lag.length ? s.lag[s.lag.length - 1] : null);
      status.textContent = "Updated " + new Date().toLocaleTimeString() +
        (lag === null ? "" : "; " + lag + (lag === 1 ? " record" : " records") +
         " waiting in memory.messages");
    }
  }

  function set(tr, name, value) {
    var td = tr.querySelector('[data-cell="' + name + '"]');
    if (td) td.textContent = String(value);
  }

  function poll() {
    fetch("/console/health.json", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(draw)
      .catch(function (why) { if (status) status.textContent = "Could not update (" + why + ")"; });
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (!document.getElementById("chart-lag")) return;
    charts.lag = chart("chart-lag", ["records waiting"], ["#1f5fbf"]);
    charts.ingest = chart("chart-ingest", ["records/s"], ["#1e7b34"]);
    charts.latency = chart("chart-latency", ["p50 ms", "p99 ms"], ["#1f5fbf", "#b3261e"]);
    poll();
    setInterval(poll, 3000);
  });
})();
