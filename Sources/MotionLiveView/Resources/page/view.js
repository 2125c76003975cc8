// coremotion view: draws what the server streams over /ws. Plain canvas code, no library, nothing
// fetched but this page's own three files and the WebSocket.
"use strict";
(function () {
  const COLORS = ["#d62728", "#2ca02c", "#1f77b4", "#9467bd"];
  const ACTIVITY_COLORS = { stationary: "#9ca3af", walking: "#2ca02c", running: "#d62728", cycling: "#1f77b4", automotive: "#9467bd", unknown: "#e5e7eb" };
  const MAX_WINDOW = 60;

  // What tests and people can read from the console: counters and the state of the page.
  const view = window.coremotionView = {
    connected: false, messages: 0, samples: 0, frames: 0, fps: 0, plotRevision: 0, latestTime: null,
    paused: false, frame: null, timeline: null, clock: null, errors: [], lastError: null, pong: null,
  };

  const $ = (id) => document.getElementById(id);
  const series = new Map();      // channel key -> {t: [], v: [[]...]}
  let steps = [];                // step times
  let activities = [];           // [time, label, confidence]
  let appleActivities = [];      // [time, label]
  let windowSeconds = 10;
  let arrival = 0;               // performance.now() when latestTime last moved
  let playSpeed = 1;
  let socket = null;
  let scrubbing = false;

  function channel(key, n) {
    let s = series.get(key);
    if (!s) { s = { t: [], v: [] }; for (let i = 0; i < n; i++) s.v.push([]); series.set(key, s); }
    return s;
  }
  function last(key) { const s = series.get(key); return s && s.t.length ? s.v.map((c) => c[c.length - 1]) : null; }
  function clear() { series.clear(); steps = []; activities = []; appleActivities = []; view.latestTime = null; }
  function trim(now) {
    const from = now - MAX_WINDOW;
    for (const s of series.values()) {
      let k = 0; while (k < s.t.length && s.t[k] < from) k++;
      if (k > 0) { s.t.splice(0, k); for (const c of s.v) c.splice(0, k); }
    }
    steps = steps.filter((t) => t >= from);
    if (activities.length > 1) activities = activities.filter((a, i) => i === activities.length - 1 || activities[i + 1][0] >= from);
    if (appleActivities.length > 1) appleActivities = appleActivities.filter((a, i) => i === appleActivities.length - 1 || appleActivities[i + 1][0] >= from);
  }

  // --- The stream -----------------------------------------------------------------------------
  function connect() {
    const token = new URLSearchParams(location.search).get("token");
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" + (token ? "?token=" + encodeURIComponent(token) : "");
    socket = new WebSocket(url);
    socket.onopen = () => { view.connected = true; status(); };
    socket.onclose = () => { view.connected = false; status(); setTimeout(connect, 1000); };
    socket.onmessage = (e) => { try { receive(JSON.parse(e.data)); } catch (err) { view.lastError = String(err); } };
  }
  function send(command) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(command)); }

  function receive(m) {
    view.messages++;
    switch (m.type) {
      case "hello": hello(m); break;
      case "reset": clear(); view.frame = m.frame; $("frame").value = m.frame; $("frame-name").textContent = m.frame; view.plotRevision++; break;
      case "samples": samples(m); break;
      case "error": view.errors.push(m.message); if (view.errors.length > 20) view.errors.shift(); status(m.message); break;
      case "pong": view.pong = m.id; break;
    }
  }

  function hello(m) {
    $("source").textContent = m.source;
    document.title = "coremotion view · " + m.source;
    view.frame = m.frame; view.timeline = m.timeline;
    const select = $("frame"); select.innerHTML = "";
    for (const f of m.frames) { const o = document.createElement("option"); o.value = f; o.textContent = f; select.appendChild(o); }
    select.value = m.frame; $("frame-name").textContent = m.frame;
    $("timeline-bar").hidden = !m.timeline;
    if (m.timeline) { const bar = $("timeline"); bar.min = 0; bar.max = (m.timeline[1] - m.timeline[0]).toFixed(2); }
    clear();
  }

  function samples(m) {
    view.clock = { time: m.clock[0], playing: m.clock[1] === 1, speed: m.clock[2] };
    if (view.timeline) {
      if (!scrubbing) $("timeline").value = (m.clock[0] - view.timeline[0]).toFixed(2);
      $("time").textContent = (m.clock[0] - view.timeline[0]).toFixed(1) + " s / " + (view.timeline[1] - view.timeline[0]).toFixed(1) + " s";
      view.paused = !view.clock.playing; $("pause").textContent = view.paused ? "Play" : "Pause";
    } else if (view.paused) {
      return; // a live page frozen by its own Pause
    }
    let latest = view.latestTime;
    for (const key in m.ch) {
      const flat = m.ch[key];
      const n = componentsOf(key);
      const s = channel(key, n);
      for (let i = 0; i + n < flat.length; i += n + 1) {
        s.t.push(flat[i]);
        for (let c = 0; c < n; c++) s.v[c].push(flat[i + 1 + c] === null ? NaN : flat[i + 1 + c]);
        if (latest === null || flat[i] > latest) latest = flat[i];
        view.samples++;
      }
    }
    for (const e of m.ev) {
      if (e[0] === "step") steps.push(e[1]);
      else if (e[0] === "activity") activities.push([e[1], e[2], e[3]]);
      else if (e[0] === "apple.activity") appleActivities.push([e[1], e[2]]);
    }
    if (view.timeline && m.clock[0] !== null) latest = m.clock[0];
    if (latest !== null && latest !== view.latestTime) { view.latestTime = latest; view.plotRevision++; arrival = performance.now(); trim(latest); }
    playSpeed = view.clock.playing ? view.clock.speed : 0;
    numbers();
  }

  function componentsOf(key) {
    if (key.endsWith("att")) return 4;
    if (["acc", "gyro", "mag", "grav", "user", "ped", "apple.grav"].includes(key)) return 3;
    return 1;
  }

  function fmt(x, digits, unit) { return x === undefined || x === null || !isFinite(x) ? "–" : x.toFixed(digits) + (unit || ""); }
  function numbers() {
    const ped = last("ped");
    $("steps").textContent = ped ? fmt(ped[0], 0) : "–";
    $("cadence").textContent = ped ? fmt(ped[1], 2, " steps/s") : "–";
    $("pace").textContent = ped ? fmt(ped[2], 2, " s/m") : "–";
    const apple = last("apple.steps"); $("apple-steps").textContent = apple ? fmt(apple[0], 0) + " steps" : "–";
    const alt = last("alt"); $("altitude").textContent = alt ? fmt(alt[0], 2, " m") : "–";
    const p = last("pres"); $("pressure").textContent = p ? fmt(p[0], 3, " kPa") : "–";
    const ea = last("err.apple"); $("err-apple").textContent = ea ? fmt(ea[0], 2, "°") : "–";
    const et = last("err.truth"); $("err-truth").textContent = et ? fmt(et[0], 2, "°") : "–";
    const a = activities[activities.length - 1];
    $("activity-now").textContent = a ? a[1] + " (confidence " + ["low", "medium", "high"][a[2]] + ")" + (appleActivities.length ? " · Apple: " + appleActivities[appleActivities.length - 1][1] : "") : "–";
    $("hp-note").textContent = series.has("hp.att") ? "headphones beside the device" : "no headphones";
  }

  let statusNote = "";
  function status(note) {
    if (note !== undefined) statusNote = note;
    $("status").textContent = (view.connected ? "connected" : "disconnected") + " · " + view.fps.toFixed(0) + " frames/s" + (statusNote ? " · " + statusNote : "");
  }

  // --- Drawing --------------------------------------------------------------------------------
  function prepare(canvas) {
    const ctx = canvas.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    return ctx;
  }

  // The time at the right edge: the newest sample, moved on smoothly between two batches (at most one
  // batch period ahead), so that the plots scroll at the drawing rate rather than the batch rate.
  function displayTime() {
    if (view.latestTime === null) return null;
    if (view.paused || !view.connected) return view.latestTime;
    return view.latestTime + Math.min(0.05, (performance.now() - arrival) / 1000) * playSpeed;
  }
  function firstIndex(t, from) {
    let lo = 0, hi = t.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (t[mid] < from) lo = mid + 1; else hi = mid; }
    return lo;
  }
  const ranges = new Map();      // plot id -> [revision, window, lo, hi]: the y range, computed when data change
  function range(id, keys, from, options) {
    const cached = ranges.get(id);
    if (cached && cached[0] === view.plotRevision && cached[1] === windowSeconds) return cached;
    let lo = Infinity, hi = -Infinity;
    for (const k of keys) {
      const s = series.get(k.key); if (!s) continue;
      for (let i = firstIndex(s.t, from); i < s.t.length; i++) {
        for (const c of k.components) { const v = s.v[c][i]; if (isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; } }
      }
    }
    if (isFinite(lo)) {
      const minSpan = options && options.minSpan || 1e-3;
      if (hi - lo < minSpan) { const mid = (hi + lo) / 2; lo = mid - minSpan / 2; hi = mid + minSpan / 2; }
      const pad = (hi - lo) * 0.08; lo -= pad; hi += pad;
    }
    const result = [view.plotRevision, windowSeconds, lo, hi];
    ranges.set(id, result);
    return result;
  }

  function plot(id, keys, options) {
    const canvas = $(id), ctx = prepare(canvas);
    const w = canvas.width, h = canvas.height, left = 44, right = w - 6, top = 6, bottom = h - 16;
    const now = displayTime();
    ctx.font = "11px system-ui, sans-serif"; ctx.fillStyle = "#6b7280";
    if (now === null) { ctx.fillText("waiting for samples…", left, h / 2); return; }
    const from = now - windowSeconds;
    const [, , lo, hi] = range(id, keys, from, options);
    if (!isFinite(lo)) { ctx.fillText("no data", left, h / 2); return; }
    const X = (t) => left + (t - from) / windowSeconds * (right - left);
    const Y = (v) => bottom - (v - lo) / (hi - lo) * (bottom - top);
    // Axes and grid.
    ctx.strokeStyle = "#e3e6eb"; ctx.lineWidth = 1; ctx.beginPath();
    for (let g = 0; g <= 4; g++) { const y = top + g * (bottom - top) / 4; ctx.moveTo(left, y); ctx.lineTo(right, y); }
    ctx.stroke();
    ctx.fillText(hi.toFixed(2), 2, top + 9); ctx.fillText(lo.toFixed(2), 2, bottom);
    ctx.fillText("−" + windowSeconds + " s", left, h - 3); ctx.fillText("now", right - 20, h - 3);
    if (options && options.steps) {
      ctx.strokeStyle = "rgba(234, 88, 12, 0.55)"; ctx.beginPath();
      for (const t of steps) if (t >= from) { const x = X(t); ctx.moveTo(x, top); ctx.lineTo(x, bottom); }
      ctx.stroke();
    }
    for (const k of keys) {
      const s = series.get(k.key); if (!s) continue;
      ctx.setLineDash(k.dash || []); ctx.lineWidth = k.width || 1;
      k.components.forEach((c, index) => {
        ctx.strokeStyle = k.colors ? k.colors[index] : COLORS[c];
        ctx.beginPath();
        let pen = false;
        for (let i = firstIndex(s.t, from); i < s.t.length; i++) {
          const v = s.v[c][i];
          if (!isFinite(v)) { pen = false; continue; }
          const x = X(s.t[i]), y = Y(v);
          if (pen) ctx.lineTo(x, y); else { ctx.moveTo(x, y); pen = true; }
        }
        ctx.stroke();
      });
      ctx.setLineDash([]);
    }
  }

  // The device as a box (a phone: 7.5 × 15 × 1 cm), rotated by its attitude, seen from above the
  // reference frame's south-west; the headphones as a second, smaller box beside it.
  const CAMERA = (function () {
    const yaw = -Math.PI / 4 - Math.PI / 2, pitch = 0.55;
    const cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch);
    return (v) => {
      const x = cy * v[0] - sy * v[1], y = sy * v[0] + cy * v[1], z = v[2];
      return [x, cp * y - sp * z, sp * y + cp * z]; // screen x, depth, screen up
    };
  })();
  function rotate(q, v) {
    const [w, x, y, z] = q;
    const tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
    return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
  }
  function box(ctx, q, size, center, scale, screenColor) {
    const [a, b, c] = size.map((s) => s / 2);
    const corners = [];
    for (const sx of [-1, 1]) for (const sy of [-1, 1]) for (const sz of [-1, 1]) corners.push([sx * a, sy * b, sz * c]);
    const p = corners.map((v) => CAMERA(rotate(q, v)));
    const faces = [[1, 3, 7, 5, screenColor], [0, 4, 6, 2, "#4b5563"], [0, 1, 5, 4, "#9ca3af"], [2, 6, 7, 3, "#9ca3af"], [0, 2, 3, 1, "#6b7280"], [4, 5, 7, 6, "#6b7280"]];
    faces.sort((f, g) => (f.slice(0, 4).reduce((s, i) => s + p[i][1], 0)) - (g.slice(0, 4).reduce((s, i) => s + p[i][1], 0)));
    for (const f of faces.reverse()) {
      ctx.beginPath();
      f.slice(0, 4).forEach((i, k) => { const x = center[0] + p[i][0] * scale, y = center[1] - p[i][2] * scale; if (k) ctx.lineTo(x, y); else ctx.moveTo(x, y); });
      ctx.closePath(); ctx.fillStyle = f[4]; ctx.globalAlpha = 0.92; ctx.fill(); ctx.globalAlpha = 1; ctx.strokeStyle = "#111827"; ctx.stroke();
    }
  }
  function attitude() {
    const canvas = $("attitude"), ctx = prepare(canvas);
    const w = canvas.width, h = canvas.height;
    const hp = last("hp.att");
    const center = [hp ? w * 0.38 : w / 2, h / 2 + 10], scale = 850;
    ctx.lineWidth = 2;
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]].forEach((axis, i) => {
      const p = CAMERA(axis.map((x) => x * 0.11));
      ctx.strokeStyle = COLORS[i]; ctx.beginPath(); ctx.moveTo(center[0], center[1]); ctx.lineTo(center[0] + p[0] * scale, center[1] - p[2] * scale); ctx.stroke();
    });
    ctx.lineWidth = 1;
    const q = last("att");
    ctx.font = "11px system-ui, sans-serif"; ctx.fillStyle = "#6b7280";
    if (!q) { ctx.fillText("no attitude (the device has no fusion)", 8, 16); return; }
    box(ctx, q, [0.075, 0.15, 0.01], center, scale, "#1e3a8a");
    const truth = last("truth.att"), apple = last("apple.att");
    if (truth) ctx.fillText("truth available: see running error", 8, h - 8);
    else if (apple) ctx.fillText("Apple's attitude in the file: see running error", 8, h - 8);
    if (hp) box(ctx, hp, [0.06, 0.03, 0.05], [w * 0.8, h / 2], scale, "#0f766e");
    const euler = toEuler(q);
    ctx.fillText("roll " + euler[0].toFixed(0) + "°  pitch " + euler[1].toFixed(0) + "°  yaw " + euler[2].toFixed(0) + "°", 8, 14);
  }
  function toEuler(q) {
    const [w, x, y, z] = q, d = 180 / Math.PI;
    // Apple's: roll about y, pitch about x, yaw about z.
    const pitch = Math.asin(Math.max(-1, Math.min(1, 2 * (w * x + y * z))));
    const roll = Math.atan2(2 * (w * y - x * z), 1 - 2 * (x * x + y * y));
    const yaw = Math.atan2(2 * (w * z - x * y), 1 - 2 * (x * x + z * z));
    return [roll * d, pitch * d, yaw * d];
  }
  function compass() {
    const canvas = $("compass"), ctx = prepare(canvas);
    const w = canvas.width, h = canvas.height, r = h / 2 - 12, cx = w / 2, cy = h / 2;
    ctx.strokeStyle = "#9ca3af"; ctx.beginPath(); ctx.arc(cx, cy, r, 0, 2 * Math.PI); ctx.stroke();
    ctx.font = "12px system-ui, sans-serif"; ctx.fillStyle = "#374151"; ctx.textAlign = "center";
    [["N", 0], ["E", 90], ["S", 180], ["W", 270]].forEach(([l, a]) => { const t = a * Math.PI / 180; ctx.fillText(l, cx + Math.sin(t) * (r - 10), cy - Math.cos(t) * (r - 10) + 4); });
    const head = last("head");
    ctx.textAlign = "left";
    if (!head || !(head[0] >= 0)) { ctx.fillStyle = "#6b7280"; ctx.fillText("no heading in " + (view.frame || "this frame"), 8, 14); return; }
    const t = head[0] * Math.PI / 180;
    ctx.strokeStyle = "#d62728"; ctx.lineWidth = 3; ctx.beginPath(); ctx.moveTo(cx, cy); ctx.lineTo(cx + Math.sin(t) * (r - 18), cy - Math.cos(t) * (r - 18)); ctx.stroke(); ctx.lineWidth = 1;
    ctx.fillStyle = "#111827"; ctx.fillText(head[0].toFixed(1) + "°", 8, 14);
  }
  function activityStrip() {
    const canvas = $("activity"), ctx = prepare(canvas);
    const w = canvas.width, h = canvas.height, now = displayTime();
    if (now === null) return;
    const from = now - windowSeconds, X = (t) => Math.max(0, (t - from) / windowSeconds * w);
    const row = (list, y, height, withConfidence) => {
      list.forEach((a, i) => {
        const end = i + 1 < list.length ? list[i + 1][0] : now;
        if (end < from) return;
        ctx.globalAlpha = withConfidence ? [0.35, 0.65, 1][a[2]] || 1 : 1;
        ctx.fillStyle = ACTIVITY_COLORS[a[1]] || "#e5e7eb"; ctx.fillRect(X(a[0]), y, X(end) - X(a[0]), height);
      });
      ctx.globalAlpha = 1;
    };
    row(activities, 4, 24, true);
    row(appleActivities, 36, 24, false);
    ctx.font = "11px system-ui, sans-serif"; ctx.fillStyle = "#111827";
    ctx.fillText("ours", 4, 20); if (appleActivities.length) ctx.fillText("Apple", 4, 52);
  }

  function draw() {
    plot("plot-acc", [{ key: "acc", components: [0, 1, 2] }], { steps: true, minSpan: 0.2 });
    plot("plot-gyro", [{ key: "gyro", components: [0, 1, 2] }], { minSpan: 0.2 });
    plot("plot-mag", [{ key: "mag", components: [0, 1, 2] }], { minSpan: 2 });
    plot("plot-grav", [{ key: "grav", components: [0, 1, 2] }, { key: "apple.grav", components: [0, 1, 2], dash: [4, 3] }], { minSpan: 0.2 });
    plot("plot-user", [{ key: "user", components: [0, 1, 2] }], { minSpan: 0.1 });
    plot("plot-alt", [{ key: "alt", components: [0] }, { key: "apple.alt", components: [0], dash: [4, 3], colors: ["#ea580c"] }], { minSpan: 0.5 });
    plot("plot-err", [{ key: "err.apple", components: [0], colors: ["#ea580c"] }, { key: "err.truth", components: [0], colors: ["#7c3aed"] }], { minSpan: 1 });
    // The attitude and the compass change only with new samples.
    if (drawnRevision !== view.plotRevision) { attitude(); compass(); drawnRevision = view.plotRevision; }
    activityStrip();
  }
  let drawnRevision = -1;

  // Frames per second of the drawing loop, over the last second.
  let second = performance.now(), count = 0;
  function frame(now) {
    draw();
    view.frames++; count++;
    if (now - second >= 1000) { view.fps = count * 1000 / (now - second); count = 0; second = now; status(); }
    requestAnimationFrame(frame);
  }

  // --- Controls -------------------------------------------------------------------------------
  $("pause").addEventListener("click", () => {
    if (view.timeline) {
      send({ type: view.paused ? "play" : "pause" });
      view.paused = !view.paused;
    } else {
      view.paused = !view.paused;
    }
    $("pause").textContent = view.paused ? (view.timeline ? "Play" : "Resume") : "Pause";
  });
  $("frame").addEventListener("change", (e) => send({ type: "frame", frame: e.target.value }));
  $("window").addEventListener("change", (e) => { windowSeconds = Number(e.target.value); });
  $("speed").addEventListener("change", (e) => send({ type: "speed", value: Number(e.target.value) }));
  const bar = $("timeline");
  bar.addEventListener("input", () => { scrubbing = true; $("time").textContent = Number(bar.value).toFixed(1) + " s"; });
  bar.addEventListener("change", () => { scrubbing = false; send({ type: "seek", time: Number(bar.value) }); });
  view.send = send;

  connect();
  requestAnimationFrame(frame);
})();
