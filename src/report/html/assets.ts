/** The page's stylesheet and script, inlined so the page needs nothing but itself. */

/** The stylesheet. */
export const STYLE = `
:root{--ink:#111827;--muted:#6b7280;--line:#e5e7eb;--bg:#f5f6f8;--card:#fff;--accent:#2563eb;
--good:#15803d;--good-bg:#dcfce7;--bad:#b91c1c;--bad-bg:#fee2e2;--na:#9ca3af;
--mono:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace}
*{box-sizing:border-box}
html{scroll-behavior:smooth;scroll-padding-top:64px}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
header.top{background:#0f172a;color:#e2e8f0;padding:22px 32px 18px}
header.top h1{margin:0;font-size:22px;font-weight:650;letter-spacing:-.01em;color:#fff}
header.top h1 .suite{color:#93c5fd}
header.top .meta{margin-top:6px;font-size:13px;color:#94a3b8}
header.top .meta b{color:#cbd5e1;font-weight:500}
nav{position:sticky;top:0;z-index:5;background:rgba(255,255,255,.94);backdrop-filter:blur(6px);border-bottom:1px solid var(--line);padding:0 32px;display:flex;gap:4px;overflow-x:auto}
nav a{color:var(--muted);text-decoration:none;padding:11px 10px;font-weight:500;border-bottom:2px solid transparent;white-space:nowrap}
nav a:hover{color:var(--ink);border-bottom-color:var(--accent)}
main{max-width:1280px;margin:0 auto;padding:8px 32px 64px}
section{margin-top:28px}
h2{font-size:17px;font-weight:650;margin:0 0 12px;letter-spacing:-.005em}
h3{font-size:14px;font-weight:600;margin:20px 0 8px;color:#374151}
.note{color:var(--muted);font-size:12.5px;margin:8px 0 0;max-width:900px}
code{font-family:var(--mono);font-size:12px;background:#eef0f3;padding:1px 4px;border-radius:4px}
.table-wrap{width:fit-content;max-width:100%;overflow-x:auto;background:var(--card);border:1px solid var(--line);border-radius:10px;box-shadow:0 1px 2px rgba(16,24,40,.04);margin-top:10px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:7px 11px;text-align:left;border-bottom:1px solid #f0f1f3;white-space:nowrap;vertical-align:middle}
thead th{white-space:normal;vertical-align:bottom;min-width:56px;font-size:11.5px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);background:#fafbfc;border-bottom:1px solid var(--line)}
tbody tr:last-child td,tbody tr:last-child th{border-bottom:0}
tbody tr:hover td{background:#f9fafb}
.num{text-align:right}
.swatch{display:inline-block;width:10px;height:10px;border-radius:3px;margin-right:7px;vertical-align:baseline}
.rate{font-weight:600}
.ci{color:var(--muted);font-size:12px}
.count{color:var(--muted);font-size:12px;margin-left:4px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;box-shadow:0 1px 2px rgba(16,24,40,.04);padding:16px}
.chart-card{max-width:760px}
.chart{width:100%;height:auto;display:block}
.chart .grid{stroke:#eef0f3}
.chart .axis{stroke:#9ca3af}
.chart .tick{fill:#6b7280;font-size:11px}
.chart .label{fill:#374151;font-size:12px}
.chart .name{font-size:12px;font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
.chart .band{fill:#f3f4f6}
.chart .empty{fill:#9ca3af;font-size:13px}
.chart .value{fill:#374151;font-size:12px;font-weight:600}
.chart .verdict{font-size:12px;font-weight:600}
.chart .zero{stroke:#6b7280;stroke-dasharray:3 3}
.chart .mde{fill:#f3f4f6}
.chart-card + .chart-card,.chart-card + .table-wrap,.table-wrap + .chart-card{margin-top:12px}
.badge.complete{background:var(--good-bg);color:var(--good)}
.badge.incomplete,.badge.not_compared{background:#fef3c7;color:#92400e}
ul.notes{margin:8px 0 0;padding-left:18px;color:var(--muted);font-size:12.5px}
.legend{display:flex;flex-wrap:wrap;gap:16px;margin-top:8px;font-size:12.5px}
.legend .key{color:var(--muted)}
ul.verdicts{list-style:none;padding:0;margin:0 0 4px;display:grid;gap:8px}
li.verdict{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--na);border-radius:8px;padding:10px 14px}
li.verdict.better,li.verdict.worse{border-left-color:var(--good)}
.badge{display:inline-block;padding:1px 8px;border-radius:999px;font-size:12px;font-weight:600;background:#f3f4f6;color:#4b5563}
.badge.better{background:var(--good-bg);color:var(--good)}
.badge.worse{background:var(--bad-bg);color:var(--bad)}
.grid-legend{display:flex;flex-wrap:wrap;gap:16px;align-items:center;font-size:12.5px;color:#374151}
.grid-legend span{display:inline-flex;align-items:center;gap:6px}
.grid-legend .hint{color:var(--muted)}
.grid-wrap{max-height:78vh}
table.grid{min-width:100%}
table.grid thead th{position:sticky;top:0;z-index:2}
.grid-wrap{width:auto}
table.grid th.task{position:sticky;left:0;background:var(--card);z-index:1;font-weight:500;text-transform:none;letter-spacing:0;font-size:13px;color:var(--ink)}
table.grid .task-id{font-family:var(--mono);font-size:12px}
table.grid .repo{display:inline-block;margin-left:8px;padding:0 6px;border-radius:4px;background:#eef2ff;color:#4338ca;font-size:11px}
td.cell{min-width:120px}
td.cell.r3{background:#f0fdf4}td.cell.r2{background:#f7fee7}td.cell.r1{background:#fffbeb}td.cell.r0{background:#fef2f2}
tbody tr:hover td.cell{filter:brightness(.98)}
.trials{display:inline-flex;flex-wrap:wrap;gap:3px;vertical-align:middle;max-width:260px}
.t{display:inline-block;width:16px;height:16px;border-radius:4px;border:0;padding:0;cursor:pointer;vertical-align:middle}
i.t{cursor:default;width:12px;height:12px;border-radius:3px}
.t.resolved{background:#16a34a}
.t.unresolved{background:#ef4444}
.t.infra_error{background:repeating-linear-gradient(45deg,#9ca3af 0 3px,#d1d5db 3px 6px)}
.t.marked{box-shadow:inset 0 0 0 3px #7f1d1d}
button.t:hover{transform:scale(1.15)}
button.t:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
button.t.current{outline:2px solid #111827;outline-offset:2px}
.none{color:var(--na);font-size:12px}
aside#trial{position:fixed;top:0;right:0;bottom:0;width:min(820px,94vw);background:var(--card);box-shadow:-12px 0 32px rgba(15,23,42,.18);z-index:10;display:flex;flex-direction:column;transform:translateX(102%);visibility:hidden;transition:transform .18s ease,visibility 0s .18s}
aside#trial.open{transform:none;visibility:visible;transition:transform .18s ease}
aside#trial header{padding:16px 20px 12px;border-bottom:1px solid var(--line)}
aside#trial .head{display:flex;align-items:center;gap:12px}
aside#trial h2{margin:0;font-size:16px;display:flex;align-items:center;gap:10px;flex-wrap:wrap}
aside#trial .close{margin-left:auto;flex:none;border:1px solid var(--line);background:#fff;border-radius:6px;width:30px;height:30px;font-size:18px;line-height:1;cursor:pointer;color:var(--muted)}
aside#trial dl{display:grid;grid-template-columns:auto 1fr;gap:3px 16px;margin:10px 0 0;font-size:12.5px}
aside#trial dt{color:var(--muted)}
aside#trial dd{margin:0;word-break:break-word}
.tabs{display:flex;gap:2px;padding:0 20px;border-bottom:1px solid var(--line);background:#fafbfc;overflow-x:auto}
.tabs button{border:0;background:none;padding:9px 12px;font:inherit;font-size:13px;color:var(--muted);cursor:pointer;border-bottom:2px solid transparent;white-space:nowrap}
.tabs button[aria-selected=true]{color:var(--ink);border-bottom-color:var(--accent);font-weight:600}
.file-note{margin:10px 20px 0;padding:7px 10px;border-radius:6px;background:#fffbeb;color:#92400e;font-size:12.5px}
pre.file{flex:1;margin:10px 20px 20px;padding:12px 0;overflow:auto;background:#f8fafc;border:1px solid var(--line);border-radius:8px;font:12px/1.45 var(--mono);tab-size:4}
pre.file span{display:block;padding:0 12px;white-space:pre;min-height:1.45em}
pre.file .add{background:#e6ffec;color:#14532d}
pre.file .del{background:#ffebe9;color:#7f1d1d}
pre.file .hunk{background:#eef6ff;color:#1e40af}
pre.file .meta{color:#6b7280;font-weight:600}
.pill{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600}
.pill.resolved{background:var(--good-bg);color:var(--good)}
.pill.unresolved{background:var(--bad-bg);color:var(--bad)}
.pill.infra_error{background:#f3f4f6;color:#4b5563}
footer{color:var(--muted);font-size:12px;margin-top:40px}
@media print{nav,aside#trial{display:none}.grid-wrap{max-height:none}}
`;

/**
 * The script: opens a trial's details from the embedded data when its square is clicked.
 * Text from the store is only ever set with textContent, never parsed as HTML.
 */
export const SCRIPT = `
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("lab-trials").textContent);
  var panel = document.getElementById("trial");
  var title = document.getElementById("trial-title");
  var facts = document.getElementById("trial-facts");
  var tabs = document.getElementById("trial-tabs");
  var note = document.getElementById("trial-note");
  var body = document.getElementById("trial-file");
  var current = -1;
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function secs(ms) { return (ms / 1000).toFixed(1) + " s"; }
  function diffClass(line) {
    if (line.indexOf("diff ") === 0 || line.indexOf("index ") === 0 || line.indexOf("+++") === 0 || line.indexOf("---") === 0) return "meta";
    if (line.indexOf("@@") === 0) return "hunk";
    if (line.charAt(0) === "+") return "add";
    if (line.charAt(0) === "-") return "del";
    return "";
  }
  function showFile(d, i) {
    var file = d.files[i];
    Array.prototype.forEach.call(tabs.children, function (b, j) { b.setAttribute("aria-selected", String(i === j)); });
    note.textContent = file.note || "";
    note.hidden = !file.note;
    body.textContent = "";
    body.hidden = file.text === null;
    if (file.text === null) return;
    var lines = file.text.split("\\n");
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    var frag = document.createDocumentFragment();
    var isPatch = file.name === "patch";
    for (var k = 0; k < lines.length; k++) frag.appendChild(el("span", isPatch ? diffClass(lines[k]) : "", lines[k]));
    body.appendChild(frag);
    body.scrollTop = 0;
  }
  function fact(name, value) {
    if (value === undefined || value === null || value === "") return;
    facts.appendChild(el("dt", "", name));
    facts.appendChild(el("dd", "", String(value)));
  }
  function show(index) {
    var d = data[index];
    if (!d) return;
    current = index;
    var status = d.outcome.kind === "infra_error" ? "infra_error" : d.resolved ? "resolved" : "unresolved";
    title.textContent = "";
    title.appendChild(el("span", "", d.tool + " · " + d.taskId + " · trial " + d.trial));
    title.appendChild(el("span", "pill " + status, status === "infra_error" ? "infrastructure error" : status));
    facts.textContent = "";
    var kind = { graded: "the tool exited normally", tool_timeout: "the tool timed out", tool_crashed: "the tool crashed (exit " + d.outcome.exitCode + (d.outcome.signal ? ", " + d.outcome.signal : "") + (d.outcome.message ? ": " + d.outcome.message : "") + ")", infra_error: "infrastructure error in " + d.outcome.phase + ": " + d.outcome.message };
    fact("outcome", kind[d.outcome.kind]);
    fact("change", d.patchEmpty ? "no change (the tool left the work tree as it was)" : d.patchApplied === null ? "" : d.patchApplied ? "applied to a fresh checkout" : "did not apply to a fresh checkout");
    fact("why unresolved", d.reason);
    var phases = Object.keys(d.phaseMs).map(function (p) { return p + " " + secs(d.phaseMs[p]); }).join(" · ");
    fact("time", secs(d.durationMs) + (phases ? " (" + phases + ")" : ""));
    var t = d.telemetry;
    if (t.costUsd !== undefined) fact("cost", "$" + t.costUsd.toFixed(4));
    var tok = [["in", t.inputTokens], ["out", t.outputTokens], ["cache read", t.cacheReadTokens], ["cache write", t.cacheWriteTokens]].filter(function (p) { return p[1] !== undefined; }).map(function (p) { return p[0] + " " + p[1].toLocaleString("en-US"); }).join(" · ");
    fact("tokens", tok);
    fact("turns", t.turns);
    fact("tool calls", t.toolCalls);
    fact("model", t.model);
    tabs.textContent = "";
    d.files.forEach(function (file, i) {
      var b = el("button", "", file.name);
      b.type = "button";
      b.setAttribute("role", "tab");
      b.addEventListener("click", function () { showFile(d, i); });
      tabs.appendChild(b);
    });
    showFile(d, 0);
    Array.prototype.forEach.call(document.querySelectorAll("button.t.current"), function (b) { b.classList.remove("current"); });
    Array.prototype.forEach.call(document.querySelectorAll('button.t[data-trial="' + index + '"]'), function (b) { b.classList.add("current"); });
    panel.classList.add("open");
    if (history.replaceState) history.replaceState(null, "", "#trial-" + index);
  }
  function hide() {
    panel.classList.remove("open");
    current = -1;
    if (history.replaceState) history.replaceState(null, "", "#tasks");
  }
  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest("[data-trial]") : null;
    if (target) { show(Number(target.getAttribute("data-trial"))); return; }
    var cell = event.target.closest ? event.target.closest("td.cell") : null;
    if (cell) { var first = cell.querySelector("[data-trial]"); if (first) show(Number(first.getAttribute("data-trial"))); }
  });
  document.getElementById("trial-close").addEventListener("click", hide);
  document.addEventListener("keydown", function (event) { if (event.key === "Escape" && current !== -1) hide(); });
  var match = /^#trial-(\\d+)$/.exec(location.hash);
  if (match) show(Number(match[1]));
})();
`;
