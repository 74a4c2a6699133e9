// shardkey playground. Plain JavaScript, no build step, no network loads
// beyond this server's own API.
//
// The state lives in the URL query (s, k, vs, n, cap, celeb, salt, iso, e,
// seed, p), the same parameters /api/report takes, so a link reproduces
// the view. A loaded spec file travels in the URL fragment (#spec=...)
// when it is small enough, and in sessionStorage otherwise.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const CUSTOM = "\u0000custom";
  const SPEC_IN_URL_MAX = 6000; // characters of spec text kept in the link

  // ---- number formatting (as the command line's num(): thousands
  // separators from 100 up, three significant digits below) ----
  const intFmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
  function num(x) {
    if (!isFinite(x)) return String(x);
    const a = Math.abs(x);
    if (a >= 99.5) return intFmt.format(Math.round(x));
    if (x === Math.trunc(x)) return String(x);
    if (a >= 9.995) return x.toFixed(1);
    if (a >= 0.01) return x.toFixed(2);
    return x.toPrecision(3);
  }
  function ratio(x) { return x.toFixed(2) + "\u00d7"; }
  function times(x) { return x.toFixed(2) + " times"; }
  function pct(x) {
    if (x === 0) return "0%";
    if (x < 0.001) return "<0.1%";
    if (x < 0.1) return (100 * x).toFixed(1) + "%";
    return (100 * x).toFixed(0) + "%";
  }
  const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  function list(items) {
    if (items.length <= 1) return items.join("");
    return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
  }
  function q(s) { return "\u201c" + s + "\u201d"; }
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else e.setAttribute(k, v);
    }
    for (const k of kids) e.append(k);
    return e;
  }
  const SVG = "http://www.w3.org/2000/svg";
  function sv(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---- presets: the seed's scenes, with what the seed says ----
  const PRESETS = [
    { group: "Seed 001: a social app's posts" },
    { id: "user", label: "hash(user_id) on 8 shards", state: { s: "social", k: "hash(user_id)", n: 8, cap: 1000 },
      seed: "the busiest shard does 982 a second, 1.19 times the average. The seed placed users with its own hash; here they are placed by the engine's real hash, so the exact spread differs." },
    { id: "post", label: "hash(post_id): even, but asks every shard", state: { s: "social", k: "hash(post_id)", n: 8, cap: 1000 },
      seed: "the shards do 34,600 units of work for 5,200 requests, and each one is far over capacity." },
    { id: "range", label: "range(created_at): the newest shard takes all", state: { s: "social", k: "range(created_at)", n: 8, cap: 1000 },
      seed: "all 5,200 requests a second go to the shard holding the newest posts while the rest sit idle." },
    { id: "celeb", label: "A celebrity with 30% of posts and reads", state: { s: "social", k: "hash(user_id)", n: 8, cap: 1000, celeb: 30 },
      seed: "their shard does 2,247 requests a second, 2.7 times the average." },
    { id: "celeb16", label: "The celebrity on 16 shards", state: { s: "social", k: "hash(user_id)", n: 16, cap: 1000, celeb: 30 },
      seed: "adding shards changes nothing, because the celebrity's posts still live together." },
    { id: "salt", label: "Salt the celebrity over 4 shards", state: { s: "social", k: "hash(user_id)", n: 8, cap: 1000, celeb: 30, salt: 4 },
      seed: "every read of a salted user asks four shards, and the busiest shard still does 2,130 a second." },
    { id: "iso", label: "Isolate the celebrity on a shard", state: { s: "social", k: "hash(user_id)", n: 8, cap: 1000, celeb: 30, iso: 1 },
      seed: "" },
    { group: "The other seeds' scenarios" },
    { id: "orders", label: "Orders by customer vs by order id", state: { s: "orders", k: "hash(customer_id)", vs: "hash(order_id)" }, seed: "" },
    { id: "chat", label: "Chat by conversation vs by tenant", state: { s: "chat", k: "hash(conversation_id)", vs: "hash(tenant_id)" }, seed: "" },
    { id: "workspace", label: "Workspace by page vs by workspace", state: { s: "workspace", k: "hash(page_id); members:hash(user_id)", vs: "hash(workspace_id)" }, seed: "" },
  ];

  // ---- state ----
  const state = { s: "social", k: "", vs: "", n: 0, cap: -1, celeb: 0, salt: 0, iso: 0, e: "generic", seed: "", p: "" };
  let scenarios = {};     // name -> ScenarioInfo
  let specText = null;    // a loaded spec's YAML
  let specName = "";
  let inflight = null;    // AbortController of the running request
  let timer = 0;
  let lastReport = null;
  let renders = 0;      // finished updates, for tests
  let lastCelebCols = []; // columns the server set the celebrity on

  function info() { return state.s === "file" ? scenarios["\u0000file"] : scenarios[state.s]; }

  function readURL() {
    const u = new URL(location.href);
    const g = (k) => u.searchParams.get(k);
    state.s = g("s") || "social";
    state.k = g("k") || "";
    state.vs = g("vs") || "";
    state.n = parseInt(g("n") || "0", 10) || 0;
    state.cap = g("cap") === null ? -1 : Number(g("cap"));
    state.celeb = Number(g("celeb") || 0) || 0;
    state.salt = parseInt(g("salt") || "0", 10) || 0;
    state.iso = g("iso") === "1" ? 1 : 0;
    state.e = g("e") || "generic";
    state.seed = g("seed") || "";
    state.p = g("p") || "";
    if (state.s === "file") {
      const h = new URLSearchParams(location.hash.slice(1));
      if (h.get("spec")) {
        try {
          specText = decodeSpec(h.get("spec"));
          specName = h.get("name") || "spec.yaml";
        } catch (e) { specText = null; }
      }
      if (specText === null) {
        specText = sessionStorage.getItem("shardkey.spec");
        specName = sessionStorage.getItem("shardkey.specName") || "spec.yaml";
      }
    }
  }

  function query() {
    const p = new URLSearchParams();
    p.set("s", state.s);
    const i = info();
    if (state.k) p.set("k", state.k);
    if (state.vs) p.set("vs", state.vs);
    if (state.n) p.set("n", String(state.n));
    if (state.cap >= 0 && !(i && state.cap === i.capacity)) p.set("cap", String(state.cap));
    if (state.celeb) p.set("celeb", String(state.celeb));
    if (state.salt) p.set("salt", String(state.salt));
    if (state.iso) p.set("iso", "1");
    if (state.e && state.e !== "generic") p.set("e", state.e);
    if (state.seed) p.set("seed", state.seed);
    return p;
  }

  function writeURL() {
    const p = query();
    if (state.p) p.set("p", state.p);
    let hash = "";
    if (state.s === "file" && specText !== null && specText.length <= SPEC_IN_URL_MAX) {
      hash = "#" + new URLSearchParams({ name: specName, spec: encodeSpec(specText) }).toString();
    }
    history.replaceState(null, "", "?" + p.toString() + hash);
  }

  function encodeSpec(s) {
    const bytes = new TextEncoder().encode(s);
    let bin = "";
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function decodeSpec(s) {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  }

  // ---- controls <-> state ----
  function fillKeys(sel, keys, withNone) {
    sel.replaceChildren();
    if (withNone) sel.append(el("option", { value: "" }, "nothing"));
    for (const k of keys) sel.append(el("option", { value: k }, k));
    sel.append(el("option", { value: CUSTOM }, "your own key\u2026"));
  }

  function syncControls() {
    const i = info();
    $("scenario").value = state.s;
    const keys = i ? i.candidates : [];
    fillKeys($("key"), keys, false);
    fillKeys($("vs"), keys, true);
    if (!state.k && keys.length) state.k = keys[0];
    setKeySelect($("key"), $("keytext"), state.k, keys);
    setKeySelect($("vs"), $("vstext"), state.vs, keys);
    $("shards").value = state.n || (i ? i.shards : 8);
    $("capacity").value = state.cap >= 0 ? state.cap : (i ? i.capacity : 0);
    $("engine").value = state.e;
    $("celeb").value = state.celeb;
    $("celebout").textContent = state.celeb + "%";
    $("celeb").setAttribute("aria-valuetext", state.celeb + " percent");
    $("salt").value = String(state.salt);
    if ($("salt").value !== String(state.salt)) {
      $("salt").append(el("option", { value: String(state.salt) }, state.salt + " buckets"));
      $("salt").value = String(state.salt);
    }
    $("iso").checked = !!state.iso;
    for (const b of document.querySelectorAll("#presets button")) {
      b.setAttribute("aria-pressed", String(b.dataset.id === state.p));
    }
  }

  function setKeySelect(sel, text, value, keys) {
    const custom = value !== "" && !keys.includes(value);
    sel.value = custom ? CUSTOM : value;
    text.hidden = !custom;
    text.previousElementSibling.hidden = !custom;
    if (custom) text.value = value;
  }

  function readControls(changed) {
    state.s = $("scenario").value;
    const kv = $("key").value;
    state.k = kv === CUSTOM ? $("keytext").value.trim() : kv;
    const vv = $("vs").value;
    state.vs = vv === CUSTOM ? $("vstext").value.trim() : vv;
    const n = parseInt($("shards").value, 10);
    if (n >= 1 && n <= 1024) state.n = n;
    const c = Number($("capacity").value);
    if ($("capacity").value !== "" && c >= 0) state.cap = c;
    state.celeb = Number($("celeb").value) || 0;
    state.salt = parseInt($("salt").value, 10) || 0;
    state.iso = $("iso").checked ? 1 : 0;
    state.e = $("engine").value;
    if (changed) state.p = "";
  }

  function bind() {
    const rescore = (delay) => () => { readControls(true); syncCustom(); schedule(delay); };
    $("scenario").addEventListener("change", () => {
      const s = $("scenario").value;
      Object.assign(state, { s: s, k: "", vs: "", n: 0, cap: -1, p: "" });
      syncControls();
      schedule(0);
    });
    for (const id of ["key", "vs", "engine", "salt", "iso"]) $(id).addEventListener("change", rescore(0));
    for (const id of ["keytext", "vstext"]) {
      $(id).addEventListener("input", rescore(350));
      $(id).addEventListener("change", rescore(0));
    }
    for (const id of ["shards", "capacity"]) {
      $(id).addEventListener("input", rescore(120));
      $(id).addEventListener("change", rescore(0));
    }
    $("celeb").addEventListener("input", () => {
      $("celebout").textContent = $("celeb").value + "%";
      $("celeb").setAttribute("aria-valuetext", $("celeb").value + " percent");
      rescore(60)();
    });
    $("controls").addEventListener("submit", (ev) => { ev.preventDefault(); rescore(0)(); });
    $("specfile").addEventListener("change", async () => {
      const f = $("specfile").files[0];
      if (!f) return;
      if (f.size > 1 << 20) {
        showError({ error: f.name + ": the file is over 1 MiB; the playground takes smaller specs (use shardkey score --workload)" });
        return;
      }
      loadSpec(await f.text(), f.name);
    });
    $("specload").addEventListener("click", () => loadSpec($("spectext").value, "pasted.yaml"));
    const box = $("presets");
    for (const p of PRESETS) {
      if (p.group) { box.append(el("div", { class: "group" }, p.group)); continue; }
      const b = el("button", { type: "button", "data-id": p.id, "aria-pressed": "false" }, p.label);
      b.addEventListener("click", () => applyPreset(p));
      box.append(b);
    }
  }

  // syncCustom shows the free-text key boxes when "your own key" is chosen.
  function syncCustom() {
    for (const [sel, text] of [["key", "keytext"], ["vs", "vstext"]]) {
      const custom = $(sel).value === CUSTOM;
      $(text).hidden = !custom;
      $(text).previousElementSibling.hidden = !custom;
    }
  }

  function applyPreset(p) {
    Object.assign(state, { k: "", vs: "", n: 0, cap: -1, celeb: 0, salt: 0, iso: 0, e: "generic", seed: "" }, p.state, { p: p.id });
    syncControls();
    schedule(0);
  }

  // ---- loading a spec ----
  async function loadSpec(text, name) {
    hideError();
    let res;
    try {
      res = await fetch("/api/spec?file=" + encodeURIComponent(name), { method: "POST", body: text, headers: { "Content-Type": "text/yaml" } });
    } catch (e) {
      showError({ error: "the server did not answer: " + e.message });
      return;
    }
    const body = await res.json().catch(() => ({ error: "HTTP " + res.status }));
    if (!res.ok) {
      showError(body, name);
      return;
    }
    specText = text;
    specName = name;
    try {
      sessionStorage.setItem("shardkey.spec", text);
      sessionStorage.setItem("shardkey.specName", name);
    } catch (e) { /* storage full or disabled: the URL may still carry it */ }
    scenarios["\u0000file"] = body;
    const opt = $("scenario").querySelector("option[value=file]");
    opt.disabled = false;
    opt.textContent = "your spec: " + (body.name || name);
    Object.assign(state, { s: "file", k: "", vs: "", n: 0, cap: -1, celeb: 0, salt: 0, iso: 0, p: "" });
    syncControls();
    schedule(0);
  }

  // ---- scoring ----
  let pending = false; // a re-score is scheduled or running
  function schedule(delay) {
    clearTimeout(timer);
    pending = true;
    timer = setTimeout(update, delay);
  }

  async function update() {
    if (inflight) inflight.abort();
    const ctl = new AbortController();
    inflight = ctl;
    writeURL();
    const qs = query();
    let res;
    $("result").classList.add("stale");
    try {
      if (state.s === "file") {
        if (specText === null) {
          showError({ error: "This link names a spec file that is not in this browser. Load the file again." });
          return;
        }
        qs.set("file", specName);
        res = await fetch("/api/report?" + qs.toString(), { method: "POST", body: specText, signal: ctl.signal, headers: { "Content-Type": "text/yaml" } });
      } else {
        res = await fetch("/api/report?" + qs.toString(), { signal: ctl.signal });
      }
      const body = await res.json();
      if (ctl !== inflight) return;
      if (!res.ok) {
        showError(body, state.s === "file" ? specName : state.s + ".yaml");
        return;
      }
      hideError();
      const celebCols = (res.headers.get("Shardkey-Celebrity") || "").split(",").filter(Boolean);
      lastCelebCols = celebCols;
      render(body, celebCols);
      $("cli").textContent = cli();
    } catch (e) {
      if (e.name === "AbortError") return;
      showError({ error: "the server did not answer: " + e.message });
    } finally {
      if (ctl === inflight) {
        inflight = null;
        pending = false;
        renders++;
        $("result").classList.remove("stale");
      }
    }
  }

  function cli() {
    const sh = (s) => "'" + s.replace(/'/g, "'\\''") + "'";
    const parts = ["shardkey"];
    const i = info();
    if (state.s === "file") parts.push("score", "--workload", sh(specName));
    else parts.push("demo", state.s);
    let key = state.k || (i && i.candidates[0]) || "";
    if (state.iso) key = "isolate(" + key + ", top=1)";
    if (state.salt) key = "salt(" + key + ", " + state.salt + ", top=1)";
    if (key) parts.push("-k", sh(key));
    if (state.vs) parts.push("-k", sh(state.vs));
    if (state.n) parts.push("--shards", String(state.n));
    if (state.cap >= 0 && !(i && state.cap === i.capacity)) parts.push("--capacity", String(state.cap));
    if (state.e !== "generic") parts.push("--engine", state.e);
    if (state.seed) parts.push("--seed", state.seed);
    let s = parts.join(" ");
    if (state.celeb) s += "   (with celebrity: " + state.celeb / 100 + " set on " + (lastCelebCols.join(" and ") || "the key's column") + " in the spec)";
    return s;
  }

  function showError(body, file) {
    const box = $("error");
    box.replaceChildren();
    const where = [];
    if (body.line) where.push((body.file || file || "spec") + ", line " + body.line);
    else if (body.file) where.push(body.file);
    if (body.field) where.push("field " + body.field);
    if (where.length) box.append(el("span", { class: "where" }, where.join(" \u00b7 ")));
    box.append(el("span", { class: "msg" }, body.message || body.error || "error"));
    box.hidden = false;
  }
  function hideError() { $("error").hidden = true; $("error").replaceChildren(); }

  // ---- rendering ----
  function render(rep, celebCols) {
    lastReport = rep;
    const a = rep.candidates[0];
    const b = rep.candidates[1];
    $("reading").textContent = reading(rep, a, celebCols);
    $("stat-requests").textContent = num(a.requests_per_s) + "/s";
    $("stat-work").textContent = num(a.work_per_s) + "/s";
    $("stat-busiest").textContent = num(a.max_shard_work) + " units/s";
    $("stat-mean").textContent = num(a.mean_shard_work) + " units/s";
    $("stat-ratio").textContent = ratio(a.work_ratio);
    const over = (a.over_capacity || []).length; // null without a capacity
    $("stat-over").textContent = rep.capacity > 0 ? over + " of " + a.shards + " shards" : "no capacity set";
    $("stat-over").classList.toggle("words", !(rep.capacity > 0));
    $("stat-over").classList.toggle("bad", over > 0);
    $("stat-fanout").textContent = a.fanout_mean.toFixed(2) + " shards";
    $("stat-txn").textContent = a.transactions > 0 ? pct(a.cross_shard_txn_fraction) : "none in this workload";
    $("stat-txn").classList.toggle("words", !(a.transactions > 0));
    $("stat-txn").classList.toggle("bad", a.transactions > 0 && a.cross_shard_txn_fraction > 0.05);
    const capText = rep.capacity > 0 ? "; the dashed line is each shard's capacity, " + num(rep.capacity) + " units of work a second, and a red bar is a shard over it" : "";
    $("chartcap").textContent = "Units of work a second on each of the " + a.shards + " shards under " + a.key + capText + ".";
    $("shardlist").replaceChildren(shardList(a, rep.capacity));
    renderOps(a);
    renderCompare(rep, a, b);
    drawCharts();
    renderPresetNote(rep, a);
  }

  // drawCharts draws the bars at the width they are shown at, so their
  // labels keep their size on a phone; it runs again when the width changes.
  function drawCharts() {
    const rep = lastReport;
    if (!rep) return;
    const a = rep.candidates[0], b = rep.candidates[1];
    const w = Math.max(240, Math.round($("bars").clientWidth || 640));
    $("bars").replaceChildren(barChart(a, rep.capacity, a.max_shard_work, "", w, w < 500 ? 180 : 230));
    if (b) {
      const scale = Math.max(a.max_shard_work, b.max_shard_work);
      for (const [id, c, cls] of [["barsA", a, ""], ["barsB", b, "b"]]) {
        const box = $(id);
        if (!box) continue;
        const wb = Math.max(200, Math.round(box.clientWidth || 320));
        box.replaceChildren(barChart(c, rep.capacity, scale, cls, wb, 150));
      }
    }
  }
  let lastWidth = 0;
  window.addEventListener("resize", () => {
    const w = $("bars").clientWidth;
    if (w !== lastWidth) { lastWidth = w; drawCharts(); }
  });

  function barChart(c, capacity, scaleMax, cls, W, H) {
    const n = c.shard_work.length;
    const top = 18, bottom = n <= 32 ? 18 : 6, left = 2, right = 2;
    const max = Math.max(scaleMax, capacity) * 1.08 || 1;
    const y = (v) => top + (H - top - bottom) * (1 - v / max);
    const slot = (W - left - right) / n;
    const gap = n <= 64 ? Math.max(1, slot * 0.18) : 0;
    const svg = sv("svg", { viewBox: "0 0 " + W + " " + H, role: "img", preserveAspectRatio: "none",
      "aria-label": "Units of work per shard under " + c.key + ": busiest " + num(c.max_shard_work) + ", mean " + num(c.mean_shard_work) +
        (capacity > 0 ? ", capacity " + num(capacity) + ", " + c.over_capacity.length + " shards over it" : "") });
    if (n > 64) svg.setAttribute("shape-rendering", "crispEdges");
    svg.append(sv("line", { class: "axis", x1: left, x2: W - right, y1: y(0), y2: y(0) }));
    const overSet = new Set(c.over_capacity);
    c.shard_work.forEach((v, i) => {
      const x = left + i * slot + gap / 2;
      const h = Math.max(0, y(0) - y(v));
      const r = sv("rect", { class: "bar" + (cls ? " " + cls : "") + (overSet.has(i) ? " over" : ""), x: x.toFixed(2), y: y(v).toFixed(2),
        width: Math.max(0.5, slot - gap).toFixed(2), height: h.toFixed(2) });
      r.append(sv("title", {}, "shard " + i + ": " + num(v) + " units of work a second" + (overSet.has(i) ? ", over capacity" : "")));
      svg.append(r);
      if (n <= 32) {
        svg.append(sv("text", { x: (x + (slot - gap) / 2).toFixed(1), y: H - 4, "text-anchor": "middle" }, String(i)));
        if (overSet.has(i)) svg.append(sv("text", { class: "mark", x: (x + (slot - gap) / 2).toFixed(1), y: (y(v) - 4).toFixed(1), "text-anchor": "middle" }, "!"));
      }
    });
    if (capacity > 0) {
      svg.append(sv("line", { class: "cap", x1: left, x2: W - right, y1: y(capacity), y2: y(capacity) }));
      svg.append(sv("text", { class: "caplabel", x: W - right - 2, y: y(capacity) - 4, "text-anchor": "end" }, "capacity " + num(capacity)));
    }
    return svg;
  }

  function shardList(c, capacity) {
    const ul = el("ul", { class: "shardlist" });
    c.shard_work.forEach((v, i) => {
      const over = capacity > 0 && c.over_capacity.includes(i);
      ul.append(el("li", over ? { class: "over" } : {}, "shard " + i + ": " + num(v) + (over ? " (over)" : "")));
    });
    return ul;
  }

  function renderOps(c) {
    const tb = $("ops").tBodies[0];
    tb.replaceChildren();
    for (const o of c.operations) {
      const scatter = el("td", o.scatter_fraction > 0 ? { class: "bad" } : {}, pct(o.scatter_fraction));
      tb.append(el("tr", {}, el("td", {}, o.name), el("td", {}, num(o.requests_per_s) + "/s"), el("td", {}, num(o.work_per_s) + "/s"),
        el("td", {}, o.fanout_mean.toFixed(2)), el("td", { class: "p99" }, num(o.fanout_p99)), scatter));
    }
  }

  function renderCompare(rep, a, b) {
    const box = $("compare");
    if (!b) { box.hidden = true; return; }
    box.hidden = false;
    const side = (c, id) => {
      const d = document.createDocumentFragment();
      d.append(el("h4", {}, el("code", {}, c.key)));
      d.append(el("div", { class: "bars", id: id }));
      d.append(el("p", {}, "busiest " + num(c.max_shard_work) + " units/s, " + ratio(c.work_ratio) + " the mean"));
      return d;
    };
    $("sideA").replaceChildren(side(a, "barsA"));
    $("sideB").replaceChildren(side(b, "barsB"));
    const rows = [
      ["Busiest shard (units/s)", (c) => num(c.max_shard_work)],
      ["Busiest \u00f7 mean", (c) => ratio(c.work_ratio)],
      ["Units of work for " + num(a.requests_per_s) + " requests/s", (c) => num(c.work_per_s) + "/s"],
      ["Shards asked per request (mean)", (c) => c.fanout_mean.toFixed(2)],
      ["Shards over capacity", (c) => rep.capacity > 0 ? c.over_capacity.length + " of " + c.shards : "\u2013"],
      ["Cross-shard transactions", (c) => c.transactions > 0 ? pct(c.cross_shard_txn_fraction) : "\u2013"],
      ["Rows on the fullest shard \u00f7 mean", (c) => ratio(c.load_ratio)],
    ];
    for (let i = 0; i < a.operations.length; i++) {
      rows.push([q(a.operations[i].name) + ": shards asked", (c) => c.operations[i] ? c.operations[i].fanout_mean.toFixed(2) : "\u2013"]);
    }
    const t = $("comparetable");
    t.replaceChildren(el("thead", {}, el("tr", {}, el("th", { scope: "col" }, ""), el("th", { scope: "col" }, a.key), el("th", { scope: "col" }, b.key))));
    const tb = el("tbody");
    for (const [label, f] of rows) tb.append(el("tr", {}, el("th", { scope: "row" }, label), el("td", {}, f(a)), el("td", {}, f(b))));
    t.append(tb);
  }

  function renderPresetNote(rep, a) {
    const box = $("presetnote");
    const p = PRESETS.find((x) => x.id === state.p);
    if (!p || !p.seed) { box.hidden = true; return; }
    let here = "busiest shard " + num(a.max_shard_work) + " units/s, " + times(a.work_ratio) + " the average, " + num(a.work_per_s) + " units of work for " + num(a.requests_per_s) + " requests";
    box.textContent = "Seed 001 says: " + p.seed + " Here (engine " + rep.engine + "): " + here + ".";
    box.hidden = false;
  }

  // reading says what the numbers mean, in the manner of seed 001.
  function reading(rep, c, celebCols) {
    const n = c.shards;
    const out = [];
    const ops = c.operations.filter((o) => o.requests_per_s > 0);
    const rate = (o) => num(o.requests_per_s);
    out.push("Every second: " + list(ops.map((o) => rate(o) + " \u00d7 " + q(o.name))) + ", across " + n + (n === 1 ? " shard" : " shards") + " by " + c.key + ".");
    if (n === 1) {
      out.push("With one shard every request asks that shard: it does " + num(c.max_shard_work) + " units of work a second" + capSentence(rep, c, true));
      return out.join(" ");
    }
    const single = ops.filter((o) => near(o.fanout_mean, 1) && o.scatter_fraction === 0);
    const all = ops.filter((o) => o.scatter_fraction > 0.999);
    const some = ops.filter((o) => !single.includes(o) && !all.includes(o));
    const singleReads = single.filter((o) => o.kind !== "insert");
    const singleWrites = single.filter((o) => o.kind === "insert");
    const parts = [];
    if (singleReads.length) parts.push("each " + list(singleReads.map((o) => q(o.name))) + " asks a single shard, because " + (singleReads.length > 1 ? "they name" : "it names") + " the key");
    if (singleWrites.length) parts.push("each " + list(singleWrites.map((o) => q(o.name))) + " goes to one shard");
    if (parts.length) out.push(capFirst(parts.join(", and ")) + ".");
    for (const o of some) {
      out.push("Each " + q(o.name) + " asks " + o.fanout_mean.toFixed(2) + " shards on average (" + num(o.fanout_p99) + " at the 99th percentile)" +
        (o.scatter_fraction > 0 ? ", and " + pct(o.scatter_fraction) + " of them ask every shard." : "."));
    }
    if (all.length) {
      out.push("The cost is " + (all.length > 1 ? "queries" : "a query") + " that cannot use the key: " + list(all.map((o) => q(o.name))) +
        (all.length > 1 ? " have" : " has") + " to ask all " + n + " shards and merge the answers.");
    }
    const busiest = c.shard_work.indexOf(c.max_shard_work);
    const idle = c.shard_work.filter((v) => v === 0).length;
    if (c.work_ratio < 1.5) {
      out.push("The work spreads evenly: the busiest shard does " + num(c.max_shard_work) + " units of work a second, " + times(c.work_ratio) + " the average.");
    } else {
      out.push("The work is uneven: the busiest shard (shard " + busiest + ") does " + num(c.max_shard_work) + " units of work a second, " + times(c.work_ratio) + " the average" +
        (idle > 0 ? ", while " + idle + (idle === 1 ? " shard sits" : " shards sit") + " idle." : "."));
    }
    if (c.work_per_s > 1.2 * c.requests_per_s) {
      out.push("The shards do " + num(c.work_per_s) + " units of work for " + num(c.requests_per_s) + " requests, since a request costs a unit on every shard it asks.");
    }
    const keyIsRange = /^range\(/.test(c.key);
    if (keyIsRange && c.monotonic) {
      out.push("Keys that grow with time send every new row to the shard holding the newest range, and the recent reads follow them there.");
    }
    const celeb = state.celeb;
    if (celeb > 0 && celebCols.length) {
      const col = celebCols.map((x) => x.split(".").pop()).filter((v, i, arr) => arr.indexOf(v) === i).join(", ");
      const keyCols = c.tables.flatMap((t) => t.columns || []);
      const inKey = celebCols.some((x) => keyCols.includes(x.split(".").pop()));
      if (!inKey) {
        out.push("The celebrity (one " + col + " with " + celeb + "% of the rows and requests) makes no hot shard here, because the key spreads their rows, but every lookup by " + col + " asks every shard.");
      } else if (state.salt) {
        out.push("Salting splits the celebrity's rows over " + state.salt + " shards, so their writes spread, but every read of them now asks all " + state.salt + ".");
      } else if (state.iso) {
        out.push("The celebrity (one " + col + " with " + celeb + "% of the rows and requests) has shard " + (n - 1) + " to itself, which does " + num(c.shard_work[n - 1]) + " units of work a second; the other values share the remaining " + (n - 1) + " shards.");
      } else {
        out.push("The celebrity (one " + col + " with " + celeb + "% of the rows and requests) lives on one shard, and adding shards does not change that: their rows still live together. Salt them for hot writes, or cache them for hot reads.");
      }
    }
    if (c.transactions > 0) {
      const f = c.cross_shard_txn_fraction;
      out.push(f === 0 ? "Every transaction stays on one shard." : pct(f) + " of transactions touch more than one shard and need a distributed commit.");
    }
    out.push(capSentence(rep, c, false));
    return out.filter(Boolean).join(" ");
  }

  function capSentence(rep, c, cont) {
    if (!(rep.capacity > 0)) return cont ? "." : "";
    const over = c.over_capacity;
    let s;
    if (over.length === 0) s = "Every shard stays within its capacity of " + num(rep.capacity) + " a second.";
    else if (over.length === c.shards) s = (c.shards === 1 ? "It is" : "Every shard is") + " over its capacity of " + num(rep.capacity) + " a second.";
    else if (over.length === 1) s = "Shard " + over[0] + " is over its capacity of " + num(rep.capacity) + " a second.";
    else s = over.length + " of the " + c.shards + " shards are over their capacity of " + num(rep.capacity) + " a second.";
    return cont ? ". " + s : s;
  }

  function capFirst(s) { return s.charAt(0).toUpperCase() + s.slice(1); }

  // ---- start ----
  async function start() {
    bind();
    readURL();
    try {
      const res = await fetch("/api/scenarios");
      for (const si of await res.json()) scenarios[si.name] = si;
    } catch (e) {
      showError({ error: "could not read the scenarios: " + e.message });
      return;
    }
    if (state.s === "file") {
      if (specText !== null) {
        const keep = Object.assign({}, state);
        await loadSpec(specText, specName);
        Object.assign(state, keep);
      } else {
        state.s = "social";
        showError({ error: "This link names a spec file that is not in this browser. Load the file again." });
      }
    }
    if (state.s !== "file" && !scenarios[state.s]) state.s = "social";
    syncControls();
    update();
  }

  // For tests and the curious: whether the page has settled, and how many
  // updates it has finished.
  let ready = false;
  window.shardkey = { idle: () => ready && !pending && !inflight, renders: () => renders, report: () => lastReport };
  start().then(() => { ready = true; });
})();
