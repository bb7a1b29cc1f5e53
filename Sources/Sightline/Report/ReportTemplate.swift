import SightlineFrames
import SightlineRecords

/// The report page's markup, style and script, written for this project (no libraries, fonts or
/// anything fetched). The script reads the JSON in `#report-data` and draws the page from it.
enum ReportTemplate {
    static let style = #"""
:root { --face: rgb(37,99,235); --code: rgb(234,88,12); --ink: #1f2933; --muted: #616e7c; --rule: #d9dee3; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; padding: 16px 24px 48px; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 24px 0 8px; border-bottom: 1px solid var(--rule); padding-bottom: 4px; }
.muted { color: var(--muted); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.counts { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
.count { border: 1px solid var(--rule); border-radius: 6px; padding: 4px 10px; min-width: 90px; }
.count b { display: block; font-size: 18px; }
.count span { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eef0f2; vertical-align: middle; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.controls { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin: 4px 0 8px; }
.legend { display: inline-flex; gap: 10px; align-items: center; font-size: 12px; color: var(--muted); }
.swatch { display: inline-block; width: 12px; height: 10px; border-radius: 2px; vertical-align: middle; }
#timeline-box { border: 1px solid var(--rule); border-radius: 6px; }
.axis-row { display: flex; }
.axis-row > .gutter { width: 240px; flex: none; font-size: 11px; color: var(--muted); padding: 2px 6px; }
.axis-row > canvas { flex: 1; display: block; min-width: 0; }
#lanes { position: relative; overflow-y: auto; overflow-x: hidden; max-height: 60vh; border-top: 1px solid var(--rule); }
#lanes-inner { position: relative; }
#lanes-canvas { position: sticky; top: 0; display: block; margin-left: 240px; }
.lane { position: absolute; left: 0; width: 240px; height: 18px; padding: 0 6px; font-size: 12px; line-height: 18px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer; border-right: 1px solid var(--rule); }
.lane.selected, tr.selected { background: #fde68a; }
.strip-label { height: 18px; line-height: 18px; }
#tip { position: fixed; pointer-events: none; background: rgba(31,41,51,.95); color: #fff; font-size: 12px; padding: 6px 8px; border-radius: 4px; white-space: pre; display: none; z-index: 10; max-width: 480px; overflow: hidden; }
#tracks-box { max-height: 70vh; overflow: auto; border: 1px solid var(--rule); border-radius: 6px; }
#tracks thead th { position: sticky; top: 0; background: #fff; cursor: pointer; }
#tracks tbody tr { cursor: pointer; }
#tracks tbody tr:hover { background: #f5f7fa; }
img.thumb { display: block; max-width: 72px; max-height: 56px; image-rendering: auto; }
.payload { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; overflow-wrap: anywhere; max-width: 420px; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; }
.chart { flex: 1 1 360px; min-width: 300px; }
.chart canvas { width: 100%; height: 200px; display: block; }
#audit-metrics td, #audit-metrics th { padding: 3px 12px; }
.note { font-size: 12px; color: var(--muted); }
#people-box { max-height: 70vh; overflow: auto; border: 1px solid var(--rule); border-radius: 6px; }
.appearances { position: relative; height: 14px; min-width: 320px; background: rgb(241,243,245); border-radius: 3px; }
.appearance { position: absolute; top: 2px; height: 10px; min-width: 3px; background: var(--face); border-radius: 2px; }
.person-tracks a, .appearance { cursor: pointer; }
"""#

    static let body = #"""
<header>
<h1 id="title">Sightline report</h1>
<div class="muted" id="subtitle"></div>
</header>
<section id="source-section">
<h2>Source and run</h2>
<dl class="facts" id="facts"></dl>
<div class="counts" id="counts"></div>
</section>
<section id="audit-section" hidden>
<h2>Against the truth</h2>
<div class="note" id="audit-note"></div>
<table id="audit-metrics"></table>
</section>
<section id="timeline-section">
<h2>Timeline</h2>
<div class="controls">
<label>Sort lanes by <select id="sort">
<option value="start">start</option><option value="length">length</option><option value="kind">kind</option><option value="id">track id</option>
</select></label>
<button type="button" id="zoom-in">zoom in</button><button type="button" id="zoom-out">zoom out</button><button type="button" id="zoom-reset">whole run</button>
<span class="legend" id="legend"></span>
</div>
<div class="note" id="timeline-note"></div>
<div id="timeline-box">
<div class="axis-row"><div class="gutter" id="axis-gutter">seconds<br>frames</div><canvas id="axis" height="34"></canvas></div>
<div id="strip-row" class="axis-row" hidden><div class="gutter" id="strip-labels"></div><canvas id="strip"></canvas></div>
<div id="lanes"><div id="lanes-inner"><canvas id="lanes-canvas"></canvas></div></div>
</div>
</section>
<section id="people-section" hidden>
<h2>People</h2>
<div class="note" id="people-note"></div>
<div id="people-box"><table id="people"><thead><tr>
<th>picture</th><th class="num">person</th><th class="num">on screen (s)</th><th class="num">tracks</th><th class="num">first (s)</th><th class="num">last (s)</th><th style="width:40%">appearances</th>
</tr></thead><tbody></tbody></table></div>
</section>
<section id="tracks-section">
<h2>Tracks</h2>
<div id="tracks-box"><table id="tracks"><thead><tr>
<th>picture</th><th class="num" data-key="id">id</th><th data-key="kind">kind</th><th class="num" data-key="first">first (s)</th><th class="num" data-key="last">last (s)</th>
<th class="num" data-key="length">duration (s)</th><th class="num" data-key="seen">frames seen</th><th class="num" data-key="score">mean score</th><th>payload</th>
</tr></thead><tbody></tbody></table></div>
</section>
<section id="charts-section">
<h2>Charts</h2>
<div class="charts">
<div class="chart"><div id="rate-title"></div><canvas id="rate-chart"></canvas></div>
<div class="chart"><div>Face scores (detected and refined observations)</div><canvas id="score-chart"></canvas></div>
<div class="chart"><div>Code reads by symbology (code reads carry no score)</div><canvas id="reads-chart"></canvas></div>
</div>
</section>
<section id="issues-section" hidden>
<h2>Frames where the run differs from the truth</h2>
<div class="note" id="issues-note"></div>
<div id="issues-box" style="max-height:40vh;overflow:auto"><table id="issues"><thead><tr><th class="num">frame</th><th class="num">t (s)</th><th>what</th></tr></thead><tbody></tbody></table></div>
</section>
<div id="tip"></div>

"""#

    static let script = #"""
(function () {
'use strict';
const started = performance.now();
const D = JSON.parse(document.getElementById('report-data').textContent);
const $ = (id) => document.getElementById(id);
const LANE_H = 18, LABEL_W = 240;
const COLOURS = {
  face: ['rgb(205,218,250)', 'rgb(125,160,242)', 'rgb(37,99,235)'],   // interpolated, refined, detected
  code: ['rgb(250,214,194)', 'rgb(243,157,110)', 'rgb(234,88,12)'],
};
const LANE_BG = ['rgb(241,243,245)', 'rgb(233,236,239)'];
const SELECTED_BG = 'rgb(253,230,138)';
const MARK = { missed: 'rgb(220,38,38)', fp: 'rgb(245,158,11)', 'switch': 'rgb(124,58,237)' };
const MARK_NAMES = { missed: 'missed', fp: 'false positive', 'switch': 'ID switch' };
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const fmt = (x, d) => (x === null || x === undefined || Number.isNaN(x)) ? 'n/a' : Number(x).toFixed(d);
const S = D.stream || {}, SUM = D.summary, F = D.frames, T = D.tracks;
const nb = F.t.length;
const fps = Array.isArray(S.frame_rate) && S.frame_rate[1] > 0 ? S.frame_rate[0] / S.frame_rate[1] : null;
const binSeconds = nb > 1 ? (F.t[nb - 1] - F.t[0]) / (nb - 1) : (fps ? F.bin / fps : 1);

function tOfBin(b) {
  if (nb === 0) return 0;
  const i = Math.floor(b);
  if (i < 0) return F.t[0] + b * binSeconds;
  if (i >= nb - 1) return F.t[nb - 1] + (b - (nb - 1)) * binSeconds;
  return F.t[i] + (b - i) * (F.t[i + 1] - F.t[i]);
}
const binOfFrame = (f) => (f - F.first) / F.bin;
const frameOfBin = (b) => F.first + Math.floor(b) * F.bin;
const trackText = (tr) => tr.kind === 'code' ? (tr.symbology || '?') + ' "' + (tr.text || '') + '"' : 'face';

// ---------- header ----------
(function header() {
  const name = (D.video || S.source || D.records || '').split('/').pop();
  $('title').textContent = 'Sightline report: ' + name;
  $('subtitle').textContent = 'records ' + D.records + (D.video ? ' · video ' + D.video : '') + (D.truth ? ' · truth ' + D.truth : '') + ' · ' + (S.tool || '');
  const facts = [];
  const add = (k, v) => { if (v !== undefined && v !== null && v !== '') facts.push('<dt>' + esc(k) + '</dt><dd>' + esc(v) + '</dd>'); };
  add('source', S.source);
  add('container', S.container);
  add('video', [S.codec, S.width && S.height ? S.width + '×' + S.height : null, fps ? fmt(fps, 3).replace(/\.?0+$/, '') + ' fps' : null].filter(Boolean).join(', '));
  add('rotation', S.rotation !== undefined ? S.rotation + '°' : null);
  add('duration', S.duration !== undefined ? fmt(S.duration, 3) + ' s' : null);
  if (S.start !== undefined || S.max_duration !== undefined) add('span analyzed', 'from ' + fmt(S.start || 0, 3) + ' s' + (S.max_duration !== undefined ? ', at most ' + fmt(S.max_duration, 3) + ' s' : ''));
  const an = S.analyzers || {};
  const settings = (o) => Object.keys(o || {}).map((k) => k + ' ' + (Array.isArray(o[k]) ? o[k].join(',') : (typeof o[k] === 'object' && o[k] !== null ? JSON.stringify(o[k]) : o[k]))).join(' · ');
  add('faces', settings(an.faces));
  add('codes', settings(an.codes));
  add('tracking', settings(an.tracking));
  if (S.camera) add('camera', settings(S.camera));
  if (SUM && SUM.read_error) add('read error', SUM.read_error);
  $('facts').innerHTML = facts.join('');
  const counts = [];
  const count = (id, label, v) => { if (v !== undefined && v !== null) counts.push('<div class="count" id="count-' + id + '"><b>' + esc(v) + '</b><span>' + esc(label) + '</span></div>'); };
  if (SUM) {
    count('frames', 'frames', SUM.frames);
    count('faces', 'face observations', SUM.face_observations);
    count('codes', 'code observations', SUM.code_observations);
    count('distinct-codes', 'distinct codes', SUM.distinct_codes);
    count('tracks', 'tracks', SUM.tracks);
    count('dropped', 'dropped frames', SUM.dropped_frames !== undefined ? SUM.dropped_frames : 0);
    count('damaged', 'damaged frames', SUM.corrupt_frames !== undefined ? SUM.corrupt_frames : 0);
    if (SUM.analyzer_errors) count('errors', 'analyzer errors', SUM.analyzer_errors);
    if (SUM.wall_seconds !== undefined) count('wall', 'wall time (s)', fmt(SUM.wall_seconds, 2));
    if (SUM.interrupted) count('interrupted', 'interrupted', 'yes');
  } else {
    count('frames', 'frames (no summary record: the run did not finish)', F.count);
    count('tracks', 'tracks', T.length);
  }
  $('counts').innerHTML = counts.join('');
})();

// ---------- audit ----------
const marks = { missed: [], fp: [], 'switch': [] };   // [frame, track or null, text]
const laneMarks = new Map();                           // track id -> [[frame, kind]]
(function audit() {
  const A = D.audit;
  if (!A) return;
  $('audit-section').hidden = false;
  $('audit-note').textContent = 'IoU ≥ ' + A.iou + ', frames matched by ' + A.match + ', ' + A.frames.compared + ' frames compared' +
    (A.frames.truth_outside_prediction ? ', ' + A.frames.truth_outside_prediction + ' truth frames outside the run left out' : '') + '.';
  const rows = [];
  let tp = 0, fp = 0, fn = 0, sw = 0, swKnown = false;
  const row = (name, det, tracking, payload) => {
    const tr = tracking && tracking.available ? tracking : null;
    rows.push('<tr id="audit-' + name + '"><th>' + name + '</th>' +
      '<td class="num" data-metric="precision">' + fmt(det.precision, 3) + '</td><td class="num" data-metric="recall">' + fmt(det.recall, 3) + '</td>' +
      '<td class="num" data-metric="f1">' + fmt(det.f1, 3) + '</td><td class="num" data-metric="mota">' + (tr ? fmt(tr.mota, 3) : 'n/a') + '</td>' +
      '<td class="num" data-metric="idf1">' + (tr ? fmt(tr.idf1, 3) : 'n/a') + '</td><td class="num" data-metric="hota">' + (tr ? fmt(tr.hota, 3) : 'n/a') + '</td>' +
      '<td class="num" data-metric="switches">' + (tr ? tr.id_switches : 'n/a') + '</td>' +
      '<td class="num" data-metric="payload">' + (payload !== undefined ? fmt(payload, 3) : '') + '</td></tr>');
  };
  for (const kind of ['faces', 'codes']) {
    const k = A[kind];
    if (!k) continue;
    if (k.skipped) { rows.push('<tr><th>' + kind + '</th><td colspan="8" class="note">skipped: ' + esc(k.skipped) + '</td></tr>'); continue; }
    const d = k.detection;
    tp += d.true_positives; fp += d.false_positives; fn += d.false_negatives;
    if (k.tracking && k.tracking.available) { sw += k.tracking.id_switches; swKnown = true; }
    row(kind, d, k.tracking, k.payloads ? k.payloads.accuracy : undefined);
  }
  const ratio = (a, b) => b > 0 ? a / b : null;
  rows.push('<tr id="audit-all"><th>all</th><td class="num" data-metric="precision">' + fmt(ratio(tp, tp + fp), 3) + '</td><td class="num" data-metric="recall">' + fmt(ratio(tp, tp + fn), 3) +
    '</td><td class="num" data-metric="f1">' + fmt(ratio(2 * tp, 2 * tp + fp + fn), 3) + '</td><td></td><td></td><td></td><td class="num" data-metric="switches">' + (swKnown ? sw : 'n/a') + '</td><td></td></tr>');
  $('audit-metrics').innerHTML = '<thead><tr><th></th><th class="num">precision</th><th class="num">recall</th><th class="num">F1</th><th class="num">MOTA</th><th class="num">IDF1</th><th class="num">HOTA</th><th class="num">ID switches</th><th class="num">payload accuracy</th></tr></thead><tbody>' + rows.join('') + '</tbody>';
  const issues = [];
  const box = (o) => o && o.box ? 'x ' + o.box.x + ' y ' + o.box.y + ' w ' + o.box.w + ' h ' + o.box.h : '';
  for (const f of A.per_frame || []) {
    const add = (kind, track, text) => {
      marks[kind].push([f.index, track, text]);
      issues.push([f.index, f.t, text, kind]);
      if (track !== null && track !== undefined) {
        if (!laneMarks.has(track)) laneMarks.set(track, []);
        laneMarks.get(track).push([f.index, kind]);
      }
    };
    for (const kind of ['faces', 'codes']) {
      const g = f[kind];
      if (!g) continue;
      const one = kind === 'faces' ? 'face' : 'code';
      const label = (o) => kind === 'codes' ? o.symbology + ' "' + o.text + '" ' : '';
      for (const o of g.missed || []) add('missed', null, one + ' missed: ' + label(o) + box(o));
      for (const o of g.extra || []) add('fp', o.track, one + ' false positive (track ' + o.track + '): ' + label(o) + box(o));
      for (const w of g.wrong_payload || []) add('fp', w.read.track, 'code read wrong: ' + label(w.truth) + 'read as ' + label(w.read));
    }
    for (const s of f.id_switches || []) add('switch', s.to, (s.kind === 'faces' ? 'face' : 'code') + ' ID switch: truth track ' + s.truth_track + ' from track ' + s.from + ' to track ' + s.to);
  }
  $('issues-section').hidden = false;
  const shown = issues.slice(0, 5000);
  $('issues-note').textContent = issues.length === 0 ? 'None: every truth object was found, nothing extra, no ID switch.' :
    issues.length + ' items in ' + (A.per_frame || []).length + ' frames' + (issues.length > shown.length ? ' (the first ' + shown.length + ' listed)' : '') + '.';
  $('issues').hidden = issues.length === 0;
  $('issues').tBodies[0].innerHTML = shown.map((i) => '<tr class="issue" data-kind="' + i[3] + '" data-frame="' + i[0] + '"><td class="num">' + i[0] + '</td><td class="num">' + fmt(i[1], 3) + '</td><td>' + esc(i[2]) + '</td></tr>').join('');
})();
const hasAudit = !!D.audit;

// ---------- timeline ----------
const lanesBox = $('lanes'), inner = $('lanes-inner'), canvas = $('lanes-canvas'), axis = $('axis'), strip = $('strip');
const byId = new Map(T.map((tr) => [tr.id, tr]));
let order = T.map((tr, i) => i);
const rowOf = new Map();
let selected = null;
let v0 = 0, v1 = Math.max(1, nb);
let W = 600;
const labels = [];
inner.style.height = (T.length * LANE_H) + 'px';
$('timeline-note').textContent = (T.length ? T.length + ' tracks, ' : 'No tracks. ') + F.count + ' frames' +
  (F.bin > 1 ? '; each bar step is ' + F.bin + ' frames (a bin shows its best state; hover shows the first observation of the track in that bin)' : '') +
  '. Wheel: zoom, drag: pan, double-click: whole run.';
$('legend').innerHTML = ['face', 'code'].map((k) => COLOURS[k].slice().reverse().map((c, i) => '<span><span class="swatch" style="background:' + c + '"></span> ' + k + ' ' + ['detected', 'refined', 'interpolated'][i] + '</span>').join(' ')).join(' ') +
  (hasAudit ? ' ' + Object.keys(MARK).map((k) => '<span><span class="swatch" style="background:' + MARK[k] + '"></span> ' + MARK_NAMES[k] + '</span>').join(' ') : '');
if (hasAudit) {
  $('strip-row').hidden = false;
  $('strip-labels').innerHTML = Object.keys(MARK).map((k) => '<div class="strip-label">' + MARK_NAMES[k] + ' (' + marks[k].length + ')</div>').join('');
  $('axis-gutter').innerHTML = 'seconds<br>frames';
}
(function buildLabels() {
  const html = [];
  for (const tr of T) {
    const what = tr.kind === 'code' ? (tr.symbology || '?') + ' ' + JSON.stringify(tr.text || '') : 'face';
    html.push('<div class="lane" data-track="' + tr.id + '" data-kind="' + tr.kind + '" data-first-t="' + fmt(tr.first_t, 3) + '" data-last-t="' + fmt(tr.last_t, 3) +
      '" data-first-frame="' + tr.first_frame + '" data-last-frame="' + tr.last_frame + '"' + (tr.text !== null ? ' data-payload="' + esc(tr.text) + '"' : '') +
      ' title="' + esc('track ' + tr.id + ': ' + what + ', ' + fmt(tr.first_t, 3) + '–' + fmt(tr.last_t, 3) + ' s') + '">' +
      '<span class="swatch" style="background:' + COLOURS[tr.kind][2] + '"></span> ' + tr.id + ' · ' + esc(what) + ' · ' + fmt(tr.first_t, 1) + '–' + fmt(tr.last_t, 1) + ' s</div>');
  }
  inner.insertAdjacentHTML('beforeend', html.join(''));
  for (const div of inner.querySelectorAll('.lane')) labels.push(div);
})();

function sortLanes(key) {
  const k = {
    start: (a, b) => a.first_frame - b.first_frame || a.id - b.id,
    length: (a, b) => (b.last_frame - b.first_frame) - (a.last_frame - a.first_frame) || a.first_frame - b.first_frame || a.id - b.id,
    kind: (a, b) => (a.kind === b.kind ? 0 : a.kind === 'face' ? -1 : 1) || a.first_frame - b.first_frame || a.id - b.id,
    id: (a, b) => a.id - b.id,
  }[key];
  order = T.map((tr, i) => i).sort((i, j) => k(T[i], T[j]));
  order.forEach((i, row) => { rowOf.set(T[i].id, row); labels[i].style.top = (row * LANE_H) + 'px'; });
  drawLanes();
}

function sizeCanvas(c, cssW, cssH) {
  const dpr = window.devicePixelRatio || 1;
  c.style.width = cssW + 'px'; c.style.height = cssH + 'px';
  c.width = Math.max(1, Math.round(cssW * dpr)); c.height = Math.max(1, Math.round(cssH * dpr));
  const ctx = c.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}
const xOfBin = (b) => (b - v0) / (v1 - v0) * W;
const binOfX = (x) => v0 + x / W * (v1 - v0);

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function drawAxis() {
  const ctx = sizeCanvas(axis, W, 34);
  ctx.clearRect(0, 0, W, 34);
  ctx.font = '11px system-ui, sans-serif'; ctx.fillStyle = '#616e7c'; ctx.strokeStyle = '#c5ccd3';
  const ta = tOfBin(v0), tb = tOfBin(v1);
  if (!(tb > ta)) return;
  const step = niceStep((tb - ta) / Math.max(2, W / 90));
  // Seconds: ticks at round times; frames: the frame shown at each tick.
  let lastX = -1e9;
  for (let t = Math.ceil(ta / step) * step; t <= tb + 1e-9; t += step) {
    // bin at time t (search)
    let lo = 0, hi = nb - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (F.t[mid] < t - 1e-9) lo = mid + 1; else hi = mid; }
    const b = nb ? lo + (t - F.t[lo]) / (binSeconds || 1) : 0;
    const x = xOfBin(b);
    if (x < 0 || x > W || x - lastX < 40) continue;
    lastX = x;
    ctx.beginPath(); ctx.moveTo(x + 0.5, 0); ctx.lineTo(x + 0.5, 6); ctx.stroke();
    const label = (step < 1 ? t.toFixed(Math.min(3, Math.ceil(-Math.log10(step)))) : String(Math.round(t))) + ' s';
    ctx.fillText(label, Math.min(x + 2, W - ctx.measureText(label).width - 2), 15);
    ctx.fillText(String(Math.round(F.first + b * F.bin)), Math.min(x + 2, W - 40), 29);
  }
}

function drawStrip() {
  if (!hasAudit) return;
  const keys = Object.keys(MARK);
  const h = keys.length * LANE_H;
  const ctx = sizeCanvas(strip, W, h);
  ctx.clearRect(0, 0, W, h);
  const bw = Math.max(1, xOfBin(1) - xOfBin(0));
  keys.forEach((k, r) => {
    ctx.fillStyle = LANE_BG[r % 2]; ctx.fillRect(0, r * LANE_H, W, LANE_H);
    ctx.fillStyle = MARK[k];
    for (const m of marks[k]) {
      const x = xOfBin(Math.floor(binOfFrame(m[0])));
      if (x + bw < 0 || x > W) continue;
      ctx.fillRect(Math.floor(x), r * LANE_H + 3, Math.ceil(bw), LANE_H - 6);
    }
  });
}

function drawLanes() {
  const viewH = Math.min(lanesBox.clientHeight || T.length * LANE_H, T.length * LANE_H);
  const ctx = sizeCanvas(canvas, W, Math.max(1, viewH));
  ctx.clearRect(0, 0, W, viewH);
  const top = lanesBox.scrollTop;
  const firstRow = Math.max(0, Math.floor(top / LANE_H)), lastRow = Math.min(order.length - 1, Math.floor((top + viewH) / LANE_H));
  const bw = xOfBin(1) - xOfBin(0);
  for (let row = firstRow; row <= lastRow; row++) {
    const tr = T[order[row]];
    const y = row * LANE_H - top;
    ctx.fillStyle = tr.id === selected ? SELECTED_BG : LANE_BG[row % 2];
    ctx.fillRect(0, y, W, LANE_H);
    const runs = tr.runs, cols = COLOURS[tr.kind];
    for (let i = 0; i < runs.length; i += 3) {
      const x0 = xOfBin(runs[i]), x1 = xOfBin(runs[i + 1] + 1);
      if (x1 < 0 || x0 > W) continue;
      ctx.fillStyle = cols[runs[i + 2] - 1];
      ctx.fillRect(Math.floor(x0), y + 3, Math.max(1, Math.ceil(x1) - Math.floor(x0)), LANE_H - 6);
    }
    const lm = laneMarks.get(tr.id);
    if (lm) for (const m of lm) {
      const x = xOfBin(Math.floor(binOfFrame(m[0])));
      if (x < -2 || x > W) continue;
      ctx.fillStyle = MARK[m[1]];
      ctx.fillRect(Math.floor(x), y, Math.max(2, Math.ceil(bw)), 3);
      ctx.fillRect(Math.floor(x), y + LANE_H - 3, Math.max(2, Math.ceil(bw)), 3);
    }
  }
}

function drawAll() {
  W = Math.max(200, Math.floor(lanesBox.clientWidth - LABEL_W));
  drawAxis(); drawStrip(); drawLanes();
}

function zoom(factor, atX) {
  const c = binOfX(atX === undefined ? W / 2 : atX);
  let span = Math.min(Math.max(1, nb), Math.max(4, (v1 - v0) * factor));
  v0 = c - (c - v0) * span / (v1 - v0);
  v1 = v0 + span;
  clampView(); drawAll();
}
function clampView() {
  const span = v1 - v0, total = Math.max(1, nb);
  if (v0 < 0) { v0 = 0; v1 = span; }
  if (v1 > total) { v1 = total; v0 = Math.max(0, total - span); }
}
$('zoom-in').onclick = () => zoom(0.5);
$('zoom-out').onclick = () => zoom(2);
$('zoom-reset').onclick = () => { v0 = 0; v1 = Math.max(1, nb); drawAll(); };
$('sort').onchange = (e) => sortLanes(e.target.value);
lanesBox.addEventListener('scroll', drawLanes, { passive: true });
window.addEventListener('resize', drawAll);
canvas.addEventListener('wheel', (e) => { if (!e.deltaY) return; e.preventDefault(); zoom(e.deltaY > 0 ? 1.25 : 0.8, e.offsetX); }, { passive: false });
let drag = null;
canvas.addEventListener('mousedown', (e) => { drag = { x: e.clientX, v0, v1, moved: false }; });
window.addEventListener('mouseup', (e) => {
  if (drag && !drag.moved) {
    const row = Math.floor((e.offsetY + lanesBox.scrollTop) / LANE_H);
    if (e.target === canvas && row >= 0 && row < order.length) select(T[order[row]].id, false);
  }
  drag = null;
});
window.addEventListener('mousemove', (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x;
  if (Math.abs(dx) > 2) drag.moved = true;
  const shift = dx / W * (drag.v1 - drag.v0);
  v0 = drag.v0 - shift; v1 = drag.v1 - shift; clampView(); drawAll();
});
canvas.addEventListener('dblclick', () => { v0 = 0; v1 = Math.max(1, nb); drawAll(); });
for (const div of labels) div.addEventListener('click', () => select(Number(div.dataset.track), false));

// Hover: the lane and frame under the pointer.
const tip = $('tip');
function showTip(e, text) {
  tip.textContent = text; tip.style.display = 'block';
  const x = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
  const y = e.clientY + 16 + tip.offsetHeight > window.innerHeight ? e.clientY - tip.offsetHeight - 8 : e.clientY + 16;
  tip.style.left = x + 'px'; tip.style.top = y + 'px';
}
canvas.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
canvas.addEventListener('mousemove', (e) => {
  const row = Math.floor((e.offsetY + lanesBox.scrollTop) / LANE_H);
  if (row < 0 || row >= order.length) { tip.style.display = 'none'; return; }
  const tr = T[order[row]];
  const bin = Math.floor(binOfX(e.offsetX));
  const frame = frameOfBin(bin);
  let text = 'track ' + tr.id + ' · ' + trackText(tr) + '\n';
  let covered = 0;
  for (let i = 0; i < tr.runs.length; i += 3) if (bin >= tr.runs[i] && bin <= tr.runs[i + 1]) covered = tr.runs[i + 2];
  const s = tr.samples;
  let k = -1;
  if (covered) {
    let lo = 0, hi = s.length / 8 - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (Math.floor(binOfFrame(s[mid * 8])) <= bin) lo = mid; else hi = mid - 1; }
    if (s.length && Math.floor(binOfFrame(s[lo * 8])) === bin) k = lo;
  }
  if (k >= 0) {
    const o = k * 8;
    text += 'frame ' + s[o] + ' · ' + fmt(s[o + 1], 3) + ' s' + (F.bin > 1 ? ' (first seen in frames ' + frame + '–' + (frame + F.bin - 1) + ')' : '') + '\n' +
      'box x ' + fmt(s[o + 2], 1) + ' y ' + fmt(s[o + 3], 1) + ' w ' + fmt(s[o + 4], 1) + ' h ' + fmt(s[o + 5], 1) + '\n' +
      (tr.kind === 'face' ? 'score ' + fmt(s[o + 6], 3) + ' · ' : '') + ['', 'interpolated', 'refined', 'detected'][s[o + 7]];
  } else {
    text += 'frame ' + frame + ' · ' + fmt(tOfBin(bin), 3) + ' s\n' + (frame < tr.first_frame || frame > tr.last_frame ? 'outside the track' : 'not seen (gap)');
  }
  const lm = laneMarks.get(tr.id);
  if (lm) for (const m of lm) if (Math.floor(binOfFrame(m[0])) === bin) text += '\n' + MARK_NAMES[m[1]] + ' at frame ' + m[0];
  showTip(e, text);
});
strip.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
strip.addEventListener('mousemove', (e) => {
  const kind = Object.keys(MARK)[Math.floor(e.offsetY / LANE_H)];
  const bin = Math.floor(binOfX(e.offsetX));
  const hits = (marks[kind] || []).filter((m) => Math.floor(binOfFrame(m[0])) === bin);
  if (!hits.length) { tip.style.display = 'none'; return; }
  showTip(e, hits.slice(0, 8).map((m) => 'frame ' + m[0] + ': ' + m[2]).join('\n') + (hits.length > 8 ? '\n… ' + (hits.length - 8) + ' more' : ''));
});

// ---------- tracks table ----------
const tbody = $('tracks').tBodies[0];
(function buildTable() {
  const rows = T.map((tr) => {
    const thumb = D.thumbnails[String(tr.id)];
    const seen = tr.observed !== null ? tr.observed : '';
    return '<tr data-track="' + tr.id + '"><td>' + (thumb ? '<img class="thumb" alt="track ' + tr.id + '" src="' + thumb + '">' : '<span class="muted">—</span>') +
      '</td><td class="num">' + tr.id + '</td><td><span class="swatch" style="background:' + COLOURS[tr.kind][2] + '"></span> ' + tr.kind +
      '</td><td class="num">' + fmt(tr.first_t, 3) + '</td><td class="num">' + fmt(tr.last_t, 3) + '</td><td class="num">' + fmt(tr.last_t - tr.first_t, 3) +
      '</td><td class="num">' + seen + '</td><td class="num">' + (tr.mean_score !== null ? fmt(tr.mean_score, 3) : '') +
      '</td><td class="payload">' + (tr.kind === 'code' ? esc((tr.symbology || '') + ' ' + (tr.text || '')) : '') + '</td></tr>';
  });
  tbody.innerHTML = rows.join('');
})();
const rowsById = new Map();
for (const tr of tbody.rows) rowsById.set(Number(tr.dataset.track), tr);
tbody.addEventListener('click', (e) => {
  const tr = e.target.closest('tr');
  if (tr) select(Number(tr.dataset.track), true);
});
let tableKey = 'id', tableUp = true;
for (const th of $('tracks').tHead.rows[0].cells) {
  if (!th.dataset.key) continue;
  th.addEventListener('click', () => {
    const key = th.dataset.key;
    tableUp = key === tableKey ? !tableUp : true; tableKey = key;
    const val = { id: (t) => t.id, kind: (t) => t.kind, first: (t) => t.first_t, last: (t) => t.last_t, length: (t) => t.last_t - t.first_t,
      seen: (t) => t.observed || 0, score: (t) => t.mean_score === null ? -1 : t.mean_score }[key];
    const sorted = T.slice().sort((a, b) => { const x = val(a), y = val(b); return (x < y ? -1 : x > y ? 1 : a.id - b.id) * (tableUp ? 1 : -1); });
    const frag = document.createDocumentFragment();
    for (const t of sorted) frag.appendChild(rowsById.get(t.id));
    tbody.appendChild(frag);
  });
}

// ---------- people ----------
(function buildPeople() {
  const P = D.people || [];
  if (!P.length) return;
  $('people-section').hidden = false;
  $('people-note').textContent = P.length + (P.length === 1 ? ' person' : ' people') + ': face tracks linked by their face embeddings. ' +
    'Each bar is one track on the run\'s time axis; click it, or a track id, to show the track.';
  const t0 = nb ? F.t[0] : 0, t1 = nb ? F.t[nb - 1] + binSeconds : 1, span = Math.max(1e-9, t1 - t0);
  const frameSeconds = fps ? 1 / fps : 0;
  const rows = P.map((p) => {
    const thumb = p.picture !== null ? D.thumbnails[String(p.picture)] : undefined;
    const bars = p.tracks.map((id) => {
      const tr = byId.get(id);
      if (!tr) return '';
      const left = (tr.first_t - t0) / span * 100, width = (tr.last_t - tr.first_t + frameSeconds) / span * 100;
      return '<a class="appearance" data-track="' + id + '" title="track ' + id + ': ' + fmt(tr.first_t, 3) + '–' + fmt(tr.last_t, 3) + ' s" style="left:' +
        left.toFixed(3) + '%;width:' + width.toFixed(3) + '%"></a>';
    }).join('');
    return '<tr data-person="' + p.id + '"><td>' + (thumb ? '<img class="thumb" alt="person ' + p.id + '" src="' + thumb + '">' : '<span class="muted">—</span>') +
      '</td><td class="num">' + p.id + '</td><td class="num">' + fmt(p.seconds, 3) + '</td><td class="num">' + p.tracks.length +
      '</td><td class="num">' + fmt(p.first_t, 3) + '</td><td class="num">' + fmt(p.last_t, 3) +
      '</td><td><div class="appearances">' + bars + '</div><div class="person-tracks note">tracks ' +
      p.tracks.map((id) => '<a data-track="' + id + '">' + id + '</a>').join(', ') + '</div></td></tr>';
  });
  $('people').tBodies[0].innerHTML = rows.join('');
  $('people').addEventListener('click', (e) => {
    const a = e.target.closest('[data-track]');
    if (a) { e.preventDefault(); select(Number(a.dataset.track), true); }
  });
})();

function select(id, fromTable) {
  if (selected !== null) {
    const old = byId.get(selected);
    if (old) labels[T.indexOf(old)].classList.remove('selected');
    const r = rowsById.get(selected); if (r) r.classList.remove('selected');
  }
  selected = id;
  const tr = byId.get(id);
  if (!tr) { drawLanes(); return; }
  labels[T.indexOf(tr)].classList.add('selected');
  const r = rowsById.get(id);
  if (r) { r.classList.add('selected'); if (!fromTable) r.scrollIntoView({ block: 'nearest' }); }
  const row = rowOf.get(id);
  const want = row * LANE_H - (lanesBox.clientHeight - LANE_H) / 2;
  if (row * LANE_H < lanesBox.scrollTop || (row + 1) * LANE_H > lanesBox.scrollTop + lanesBox.clientHeight) lanesBox.scrollTop = Math.max(0, want);
  if (fromTable) $('timeline-section').scrollIntoView({ block: 'start' });
  drawLanes();
}

// ---------- charts ----------
function axes(ctx, w, h, pad, yMax, yLabel, xLabel) {
  ctx.strokeStyle = '#c5ccd3'; ctx.fillStyle = '#616e7c'; ctx.font = '11px system-ui, sans-serif';
  ctx.beginPath(); ctx.moveTo(pad.l, pad.t); ctx.lineTo(pad.l, h - pad.b); ctx.lineTo(w - pad.r, h - pad.b); ctx.stroke();
  ctx.fillText(fmt(yMax, yMax < 10 ? 1 : 0), 2, pad.t + 8);
  ctx.fillText('0', pad.l - 12, h - pad.b);
  if (yLabel) ctx.fillText(yLabel, pad.l + 4, pad.t + 8);
  if (xLabel) ctx.fillText(xLabel, w - pad.r - ctx.measureText(xLabel).width, h - 4);
}
function drawRateChart() {
  const c = $('rate-chart'); const w = c.clientWidth || 420, h = 200;
  const ctx = sizeCanvas(c, w, h);
  const t0 = nb ? F.t[0] : 0, t1 = nb ? F.t[nb - 1] + binSeconds : 1;
  const bucket = Math.max(1, niceStep((t1 - t0) / 600));
  $('rate-title').textContent = 'Faces and codes on screen over time (mean per frame in each ' + (bucket === 1 ? 'second' : bucket + ' s') + ')';
  const n = Math.max(1, Math.ceil((t1 - t0) / bucket));
  const frames = new Float64Array(n), faces = new Float64Array(n), codes = new Float64Array(n);
  for (let b = 0; b < nb; b++) {
    const k = Math.min(n - 1, Math.floor((F.t[b] - t0) / bucket));
    frames[k] += F.n[b]; faces[k] += F.faces[b]; codes[k] += F.codes[b];
  }
  let yMax = 1;
  for (let k = 0; k < n; k++) if (frames[k]) yMax = Math.max(yMax, faces[k] / frames[k], codes[k] / frames[k]);
  yMax = Math.ceil(yMax);
  const pad = { l: 28, r: 8, t: 8, b: 20 };
  axes(ctx, w, h, pad, yMax, '', fmt(t1, 0) + ' s');
  ctx.fillText(fmt(t0, 0) + ' s', pad.l, h - 4);
  const X = (k) => pad.l + (k + 0.5) / n * (w - pad.l - pad.r), Y = (v) => h - pad.b - v / yMax * (h - pad.t - pad.b);
  // Faces wide and solid, codes narrow and dashed on top: equal counts stay visible.
  for (const [series, colour, width, dash] of [[faces, COLOURS.face[2], 3, []], [codes, COLOURS.code[2], 2, [6, 4]]]) {
    ctx.strokeStyle = colour; ctx.lineWidth = width; ctx.setLineDash(dash); ctx.beginPath();
    let started = false;
    for (let k = 0; k < n; k++) {
      if (!frames[k]) { started = false; continue; }
      const v = series[k] / frames[k];
      if (started) ctx.lineTo(X(k), Y(v)); else { ctx.moveTo(X(k), Y(v)); started = true; }
    }
    ctx.stroke(); ctx.lineWidth = 1; ctx.setLineDash([]);
  }
  ctx.fillStyle = COLOURS.face[2]; ctx.fillText('faces', w - 90, pad.t + 8);
  ctx.fillStyle = COLOURS.code[2]; ctx.fillText('codes', w - 50, pad.t + 8);
}
function drawBars(id, labels, values, colour, note) {
  const c = $(id); const w = c.clientWidth || 420, h = 200;
  const ctx = sizeCanvas(c, w, h);
  const pad = { l: 40, r: 8, t: 8, b: 30 };
  if (!values.length) { ctx.fillStyle = '#616e7c'; ctx.font = '12px system-ui, sans-serif'; ctx.fillText(note, pad.l, h / 2); return; }
  const yMax = Math.max(...values);
  axes(ctx, w, h, pad, yMax, '', '');
  const bw = Math.min(80, (w - pad.l - pad.r) / values.length);
  ctx.fillStyle = colour;
  values.forEach((v, i) => { const bh = v / yMax * (h - pad.t - pad.b); ctx.fillRect(pad.l + i * bw + 1, h - pad.b - bh, Math.max(1, bw - 2), bh); });
  ctx.fillStyle = '#616e7c';
  const every = Math.ceil(labels.length / Math.max(1, (w - pad.l) / 60));
  labels.forEach((l, i) => { if (i % every === 0) ctx.fillText(l, pad.l + i * bw + 1, h - pad.b + 14); });
}
function drawCharts() {
  drawRateChart();
  const sc = D.face_scores;
  if (sc.length) {
    const lo = sc[0][0], hi = sc[sc.length - 1][0];
    const bins = hi > lo ? 20 : 1, width = (hi - lo) / bins || 1;
    const counts = new Array(bins).fill(0);
    for (const [v, n] of sc) counts[Math.min(bins - 1, Math.floor((v - lo) / width))] += n;
    drawBars('score-chart', counts.map((_, i) => fmt(lo + i * width, width < 1 ? 2 : 0)), counts, COLOURS.face[2], '');
  } else drawBars('score-chart', [], [], '', 'no face observations');
  const sy = Object.keys(D.code_reads);
  drawBars('reads-chart', sy, sy.map((k) => D.code_reads[k]), COLOURS.code[2], 'no code reads');
}

// ---------- start ----------
sortLanes('start');
drawAll();
drawCharts();
window.addEventListener('resize', drawCharts);
const loadMs = performance.now();
window.sightlineReport = {
  ready: true, loadMs, buildMs: loadMs - started,
  // Page coordinates of the middle of a track's lane at a frame (the lane is scrolled into view).
  lanePoint(id, frame) {
    const row = rowOf.get(id);
    if (row === undefined) return null;
    if (row * LANE_H < lanesBox.scrollTop || (row + 1) * LANE_H > lanesBox.scrollTop + lanesBox.clientHeight) { lanesBox.scrollTop = row * LANE_H; drawLanes(); }
    const r = canvas.getBoundingClientRect();
    const b = Math.floor(binOfFrame(frame));
    return { x: r.left + (xOfBin(b) + xOfBin(b + 1)) / 2, y: r.top + row * LANE_H - lanesBox.scrollTop + LANE_H / 2 };
  },
  stripPoint(kind, frame) {
    const r = strip.getBoundingClientRect(), k = Object.keys(MARK).indexOf(kind), b = Math.floor(binOfFrame(frame));
    return { x: r.left + (xOfBin(b) + xOfBin(b + 1)) / 2, y: r.top + k * LANE_H + LANE_H / 2 };
  },
  marks, select, sortLanes,
};
performance.mark('sightline-report-ready');
})();
"""#
}
