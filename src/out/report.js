/*
 * report.js - draws the dmlscope HTML report from the JSON inlined in the
 * page (script#dmls-data, written by src/out/report_html.c) with uPlot,
 * inlined before this script.  Embedded by cmake/embed.cmake.
 *
 * The figures are the study's cross-run figures (README.md, doc/compare.md):
 * total volume per run beside the gradient size, the communication-pattern
 * heatmap, flows per run, link throughput in 10 ms bins, burstiness
 * (peak-to-mean vs timescale), accuracy vs data transmitted, bytes per
 * iteration, and (with runs at several loss levels) training time vs packet
 * loss.  Bars and heatmaps are plain HTML; curves are uPlot charts.
 * Every name from the data is set as text, never parsed as HTML.
 */
(function () {
	"use strict";
	var data = JSON.parse(document.getElementById("dmls-data").textContent);
	var root = document.getElementById("report");
	var runs = data.runs.filter(function (r) { return r.row; });
	var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
		       "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
	var WIDTH = Math.max(480, Math.min(1150, root.clientWidth || 1100));

	function color(i) { return PALETTE[i % PALETTE.length]; }

	function el(tag, cls, text, parent) {
		var e = document.createElement(tag);
		if (cls) e.className = cls;
		if (text !== undefined && text !== null) e.textContent = text;
		if (parent) parent.appendChild(e);
		return e;
	}

	function human(v, units, base) {
		if (v === null || v === undefined || !isFinite(v)) return "-";
		var u = 0;
		while (Math.abs(v) >= base && u < units.length - 1) { v /= base; u++; }
		var d = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
		return v.toFixed(d) + " " + units[u];
	}
	function bytes(v) { return human(v, ["B", "kB", "MB", "GB", "TB"], 1000); }
	function bps(v) { return human(v, ["bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"], 1000); }

	function cell(v, unit) {
		if (v === null || v === undefined) return "-";
		switch (unit) {
		case "b": return bytes(v);
		case "r": return bps(v);
		case "t": return v < 1 ? v.toFixed(4) + " s" : v.toFixed(3) + " s";
		case "i": return String(Math.round(v));
		case "f": return Number(v.toPrecision(3)).toString();
		default: return String(v);
		}
	}

	/* A caption's `quoted` words as code, the rest as text (never HTML). */
	function prose(parent, text) {
		text.split("`").forEach(function (part, k) {
			if (k % 2) el("code", null, part, parent);
			else parent.appendChild(document.createTextNode(part));
		});
	}

	function section(title, caption) {
		var s = el("section", null, null, root);
		el("h2", null, title, s);
		if (caption) prose(el("p", "caption", null, s), caption);
		return s;
	}

	function summary() {
		var p = el("p", "meta", runs.length + " run" + (runs.length === 1 ? "" : "s") +
			   " analyzed by " + data.tool.name + " " + data.tool.version + ".", root);
		data.runs.forEach(function (r) {
			if (r.error)
				el("div", "failed", r.name + ": " + r.error, p);
		});
	}

	function runTable() {
		var s = section("Runs", "One row per run, the columns of `dmlscope compare` " +
				"(runs.csv has them all, in bytes, seconds and bit/s).");
		var t = el("table", "runs", null, s), tr = el("tr", null, null, el("thead", null, null, t));
		var cols = data.columns.filter(function (c) { return c.title; });
		cols.forEach(function (c) { el("th", null, c.title, tr).title = c.key; });
		var tb = el("tbody", null, null, t);
		runs.forEach(function (r, i) {
			var row = el("tr", null, null, tb);
			cols.forEach(function (c, j) {
				var td = el("td", c.unit === "s" ? null : "num", cell(r.row[c.key], c.unit), row);
				if (j === 0) td.style.borderLeft = "4px solid " + color(i);
			});
		});
	}

	/* Horizontal bars, one row per run; cols: [{title, value(run), fmt}] */
	function barChart(parent, cols) {
		var g = el("div", cols.length === 1 ? "bars one" : "bars", null, parent);
		el("div", "head", "run", g);
		cols.forEach(function (c) { el("div", "head", c.title, g); });
		var max = cols.map(function (c) {
			return runs.reduce(function (m, r) { var v = c.value(r); return v > m ? v : m; }, 0);
		});
		runs.forEach(function (r, i) {
			el("div", "name", r.name, g);
			cols.forEach(function (c, k) {
				var v = c.value(r), b = el("div", "bar", null, g), f = el("div", null, null, b);
				f.style.width = (v > 0 && max[k] > 0 ? 100 * v / max[k] : 0) + "%";
				f.style.background = color(i);
				f.style.opacity = k ? 0.55 : 0.85;
				el("span", null, c.fmt(v), b);
			});
		});
	}

	function volumeFigure() {
		var s = section("Total volume per run beside the gradient size",
				"Bytes on the wire over the whole capture, and the gradient size S " +
				"the traffic implies (bytes per worker per iteration and the pattern).");
		barChart(s, [
			{title: "wire bytes", value: function (r) { return r.row.wire_bytes; }, fmt: bytes},
			{title: "gradient size S", value: function (r) { return r.row.gradient_bytes; },
			 fmt: bytes}]);
	}

	function flowsFigure() {
		var s = section("Flows per run", "TCP/UDP 5-tuples, one per direction.");
		barChart(s, [{title: "flows", value: function (r) { return r.row.flows; },
			      fmt: function (v) { return v === null ? "-" : String(v); }}]);
	}

	/* Heat color for a share x in [0,1] of the run's largest pair (log, 4 decades). */
	function heat(x) {
		if (!(x > 0)) return "#ffffff";
		var t = Math.max(0, Math.min(1, 1 + Math.log10(x) / 4));
		var l = 96 - 62 * t;
		return "hsl(210, 75%, " + l + "%)";
	}

	/* Rows and columns in the job's order: a ring in ring order, then the
	 * job's ranks (servers first), then the other hosts. */
	function ordered(m) {
		var idx = m.hosts.map(function (h, i) { return i; });
		if (m.rank) idx.sort(function (a, b) { return m.rank[a] - m.rank[b]; });
		return {hosts: idx.map(function (i) { return m.hosts[i]; }),
			roles: idx.map(function (i) { return m.roles[i]; }),
			wire_bytes: idx.map(function (i) {
				return idx.map(function (j) { return m.wire_bytes[i][j]; });
			})};
	}

	function heatmap(parent, r) {
		var m = ordered(r.figures.matrix), n = m.hosts.length, max = 0;
		var box = el("div", null, null, parent);
		el("h3", null, r.name + " (" + (r.row.pattern || "unknown") + ")", box);
		m.wire_bytes.forEach(function (row) { row.forEach(function (v) { if (v > max) max = v; }); });
		var t = el("table", "heat", null, box), tr = el("tr", null, null, t);
		el("th", null, "src \\ dst", tr);
		m.hosts.forEach(function (h, j) { el("th", null, h + (m.roles[j] === "server" ? " (server)" : ""), tr); });
		for (var i = 0; i < n; i++) {
			tr = el("tr", null, null, t);
			el("th", null, m.hosts[i] + (m.roles[i] === "server" ? " (server)" : ""), tr);
			for (var j = 0; j < n; j++) {
				var v = m.wire_bytes[i][j], td = el("td", null, v ? bytes(v) : "", tr);
				td.style.background = heat(max ? v / max : 0);
				td.style.color = max && v / max > 0.3 ? "#fff" : "#222";
				td.title = m.hosts[i] + " -> " + m.hosts[j] + ": " + v + " wire bytes";
			}
		}
	}

	function flowCdfFigure() {
		var s = section("Flow sizes",
				"Cumulative distribution of the wire bytes per flow (TCP/UDP 5-tuple, " +
				"one per direction): the share of a run's flows of at most that size.");
		overlay(s, {xlabel: "bytes", scales: {x: {time: false, distr: 3}, y: {range: [0, 1]}},
			    axes: [logAxis("flow size (wire bytes)", bytes), {label: "share of flows"}]},
			runs.map(function (r) {
				var c = r.figures.flow_cdf;
				return c && c.wire_bytes && c.wire_bytes.length ?
					{x: c.wire_bytes, y: c.fraction} : null;
			}));
	}

	function heatmapFigure() {
		var s = section("Communication pattern",
				"Wire bytes from each source (row) to each destination (column), " +
				"hosts in the job's order (a ring in ring order, servers first); " +
				"color on a log scale over four decades of the run's largest pair.");
		var g = el("div", "grid", null, s);
		runs.forEach(function (r) { heatmap(g, r); });
	}

	function plot(parent, opts, d) {
		opts.width = opts.width || WIDTH;
		opts.height = opts.height || 280;
		return new uPlot(opts, d, el("div", null, null, parent));
	}

	function logAxis(label, fmt) {
		/* uPlot passes null for the ticks a log axis leaves unlabelled */
		return {label: label, values: function (u, vals) {
			return vals.map(function (v) { return v == null ? "" : fmt(v); });
		}};
	}

	function throughputFigure() {
		var s = section("Link throughput over time",
				"All wire bytes of the run in 10 ms bins (coarser for very long runs), " +
				"seconds from the run's first packet; same scale for every run.");
		var ymax = 0, series = runs.map(function (r) {
			var tp = r.figures.throughput, x = [], y = [];
			tp.wire_bytes.forEach(function (b, k) {
				x.push(tp.t0_s + k * tp.bin_s);
				y.push(b * 8 / tp.bin_s / 1e9);
				if (y[k] > ymax) ymax = y[k];
			});
			return {x: x, y: y, bin: tp.bin_s};
		});
		runs.forEach(function (r, i) {
			el("h3", null, r.name + " (" + (series[i].bin * 1000) + " ms bins)", s);
			plot(s, {height: 200, legend: {show: false},
				 scales: {x: {time: false}, y: {range: [0, ymax * 1.05 || 1]}},
				 axes: [{label: "time (s)"}, {label: "Gbit/s"}],
				 series: [{}, {label: r.name, stroke: color(i), fill: color(i) + "33",
					       width: 1, paths: uPlot.paths.stepped({align: 1})}]},
			     [series[i].x, series[i].y]);
		});
	}

	/* Several runs' (x, y) series on one chart: uPlot.join aligns their x. */
	function overlay(parent, opts, xy) {
		var used = [];
		var tables = [];
		xy.forEach(function (p, i) {
			if (p && p.x.length) { used.push(i); tables.push([p.x, p.y]); }
		});
		if (!tables.length) {
			el("p", "meta", "No run has this data.", parent);
			return;
		}
		var d = uPlot.join(tables);
		opts.legend = {live: false}; /* run names, not a cursor's "--" */
		opts.series = [{label: opts.xlabel}].concat(used.map(function (i) {
			return {label: runs[i].name, stroke: color(i), width: 2, spanGaps: true,
				points: {show: true, size: 5, fill: color(i)}};
		}));
		plot(parent, opts, d);
	}

	function burstinessFigure() {
		var s = section("Burstiness: peak-to-mean ratio vs timescale",
				"PtM(tau) = E(tau) / (mean rate * tau), E(tau) the most wire bytes in " +
				"any window of length tau (network calculus); 1 is perfectly smooth.");
		var fmtS = function (v) {
			var r = function (x) { return Number(x.toPrecision(3)); };
			return v < 1e-3 ? r(v * 1e6) + " us" : v < 1 ? r(v * 1e3) + " ms" : r(v) + " s";
		};
		overlay(s, {xlabel: "timescale", scales: {x: {time: false, distr: 3}, y: {distr: 3}},
			    axes: [logAxis("timescale", fmtS), {label: "peak-to-mean"}]},
			runs.map(function (r) {
				var b = r.figures.burstiness;
				return b && b.timescales_s ? {x: b.timescales_s, y: b.peak_to_mean} : null;
			}));
	}

	function accuracyFigure() {
		var any = runs.some(function (r) { return r.figures.accuracy; });
		var s = section("Accuracy vs data transmitted",
				"Training accuracy from each run's train_history.log against the wire " +
				"bytes sent up to that row's time.");
		if (!any) {
			el("p", "meta", "No run has a train_history.log: accuracy is not in the traffic.", s);
			return;
		}
		overlay(s, {xlabel: "MB", scales: {x: {time: false}},
			    axes: [{label: "data transmitted (MB)"}, {label: "accuracy"}]},
			runs.map(function (r) {
				var a = r.figures.accuracy, x = [], y = [];
				if (!a) return null;
				a.cum_wire_bytes.forEach(function (v, k) {
					if (v !== null && a.accuracy[k] !== null) { x.push(v / 1e6); y.push(a.accuracy[k]); }
				});
				return {x: x, y: y};
			}));
	}

	function iterationsFigure() {
		var s = section("Bytes per iteration",
				"Payload all of the job's hosts sent in each iteration the traffic shows " +
				"(iterations found from the traffic alone).");
		var ymax = 0;
		runs.forEach(function (r) {
			var it = r.figures.iterations;
			(it && it.payload_bytes || []).forEach(function (v) { if (v / 1e6 > ymax) ymax = v / 1e6; });
		});
		overlay(s, {xlabel: "iteration",
			    scales: {x: {time: false}, y: {range: [0, ymax * 1.1 || 1]}},
			    axes: [{label: "iteration", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
				    values: function (u, vals) { return vals.map(function (v) { return String(Math.round(v)); }); }},
				   {label: "MB per iteration"}]},
			runs.map(function (r) {
				var it = r.figures.iterations, x = [], y = [];
				if (!it || !it.payload_bytes) return null;
				it.payload_bytes.forEach(function (v, k) { x.push(k); y.push(v === null ? null : v / 1e6); });
				return {x: x, y: y};
			}));
	}

	/* Loss percent from the folder name's delay field: normal 0, loss_X X. */
	function lossPercent(r) {
		var d = r.row.delay;
		if (d === "normal") return 0;
		var m = /^loss_([0-9.]+)$/.exec(d || "");
		return m ? parseFloat(m[1]) : null;
	}

	function lossFigure() {
		var loss = runs.map(lossPercent);
		var levels = loss.filter(function (v, i) { return v !== null && loss.indexOf(v) === i; });
		if (levels.length < 2) return; /* only with runs at two loss levels or more */
		var s = section("Training time vs packet loss",
				"Mean step time from train_history.log (the traffic's iteration " +
				"period where there is no log) against the loss the run's folder " +
				"name gives (netem).");
		overlay(s, {xlabel: "loss %", scales: {x: {time: false}},
			    axes: [{label: "packet loss (%)"}, {label: "step time (s)"}]},
			runs.map(function (r, i) {
				var t = r.row.mean_step_s !== null ? r.row.mean_step_s : r.row.period_s;
				return loss[i] === null || t === null ? null : {x: [loss[i]], y: [t]};
			}));
	}

	/* One run (analyze --report): its iterations over time, and no bars
	 * that compare it with nothing. */
	function timelineFigure() {
		var r = runs[0], it = r.figures.iterations;
		var s = section("Iterations over time",
				"Each iteration the traffic shows, at its start (seconds from the " +
				"first packet): how long until the next one started, and the payload " +
				"the job's hosts sent in it.  A stall is a tall point; a lost rank, a " +
				"drop in the bytes.");
		if (!it || !it.starts_s || it.starts_s.length < 2) {
			el("p", "meta", "Fewer than two iterations found: no timeline.", s);
			return;
		}
		var x = [], dur = [], mb = [];
		for (var k = 0; k + 1 < it.starts_s.length; k++) {
			x.push(it.starts_s[k]);
			dur.push(it.starts_s[k + 1] - it.starts_s[k]);
			mb.push(it.payload_bytes[k] === null ? null : it.payload_bytes[k] / 1e6);
		}
		var dmax = Math.max.apply(null, dur), bmax = Math.max.apply(null, mb);
		plot(s, {height: 220, legend: {live: false},
			 scales: {x: {time: false}, y: {range: [0, dmax * 1.2 || 1]},
				  mb: {range: [0, bmax * 1.2 || 1]}},
			 axes: [{label: "time (s)"}, {label: "iteration duration (s)"},
				{scale: "mb", side: 1, label: "MB per iteration", grid: {show: false}}],
			 series: [{}, {label: "duration (s)", stroke: color(0), width: 2,
				       points: {show: true, size: 5, fill: color(0)}},
				  {label: "MB", scale: "mb", stroke: color(1), width: 1, dash: [4, 4]}]},
		     [x, dur, mb]);
	}

	function lossFigureRun() {
		var r = runs[0], l = r.figures.loss;
		var s = section("Loss and retransmissions",
				"TCP segments sent again (a data segment that starts below the highest " +
				"sequence already sent on its flow, as Wireshark's " +
				"`tcp.analysis.retransmission`), and RoCEv2 requests sent again (a " +
				"PSN below the next one on its queue pair): per host, with their share of the " +
				"packets it sent, and the flows that retransmitted most.");
		if (!l || !l.hosts.length) {
			el("p", "meta", "No retransmission: no loss or timeout on the path.", s);
			return;
		}
		table(s, ["host", "retransmissions", "share of its packets"], l.hosts.map(function (h) {
			return [h.host, String(h.retransmissions),
				h.rate === null ? "-" : (100 * h.rate).toPrecision(3) + " %"];
		}));
		if (l.flows.length) {
			el("h3", null, "Flows that retransmitted most", s);
			table(s, ["flow", "retransmissions"], l.flows.map(function (f) {
				return [f.flow, String(f.retransmissions)];
			}));
		}
	}

	/* A plain table: the first column text, the others numbers. */
	function table(parent, heads, rows) {
		var t = el("table", "runs", null, parent);
		var tr = el("tr", null, null, el("thead", null, null, t));
		heads.forEach(function (h) { el("th", null, h, tr); });
		var tb = el("tbody", null, null, t);
		rows.forEach(function (cells) {
			var row = el("tr", null, null, tb);
			cells.forEach(function (c, j) { el("td", j ? "num" : null, c, row); });
		});
	}

	summary();
	if (!runs.length) return;
	var single = runs.length === 1;
	runTable();
	if (single) timelineFigure(); else volumeFigure();
	heatmapFigure();
	if (!single) flowsFigure();
	flowCdfFigure();
	throughputFigure();
	burstinessFigure();
	accuracyFigure();
	iterationsFigure();
	if (single) lossFigureRun(); else lossFigure();
})();
