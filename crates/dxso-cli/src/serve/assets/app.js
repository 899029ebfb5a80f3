// The dxso playground page. Every result comes from the server's JSON API
// (docs/playground.md): the page only sends what is typed and shows what comes back.
"use strict";

const $ = (id) => document.getElementById(id);

const DEFAULT_SHADER = `// Parameters:
//
//   float4x4 WorldViewProj;
//   float4 Tint;
//
// Registers:
//
//   Name          Reg   Size
//   ------------- ----- ----
//   WorldViewProj c0       4
//   Tint          c4       1
//
    vs_3_0
    dcl_position v0
    dcl_color v1
    dcl_position o0
    dcl_color o1
    dp4 o0.x, v0, c0
    dp4 o0.y, v0, c1
    dp4 o0.z, v0, c2
    dp4 o0.w, v0, c3
    mul o1, v1, c4
`;

const DEFAULT_SCENE = `{
  "vertex_count": 3,
  "declaration": [
    {"stream": 0, "offset": 0, "type": "FLOAT3", "usage": "POSITION", "usage_index": 0},
    {"stream": 0, "offset": 12, "type": "FLOAT4", "usage": "COLOR", "usage_index": 0}
  ],
  "streams": [
    {"stride": 28, "f32": [0, 0.5, 0,  1, 0, 0, 1,
                           0.5, -0.5, 0,  0, 1, 0, 1,
                           -0.5, -0.5, 0,  0, 0, 1, 1]}
  ],
  "constants": {
    "WorldViewProj": [1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 0,  0, 0, 0, 1],
    "Tint": [1, 1, 1, 1]
  }
}
`;

// ---------------------------------------------------------------- the API

async function api(endpoint, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body),
  };
  let response;
  try {
    response = await fetch(`/api/${endpoint}`, init);
  } catch (e) {
    return {ok: false, status: 0, data: {error: `the server is not answering (${e.message})`}};
  }
  let data;
  try {
    data = await response.json();
  } catch (e) {
    data = {error: `HTTP ${response.status}: not JSON`};
  }
  return {ok: response.ok, status: response.status, data};
}

function setStatus(text) {
  $("status").textContent = text;
}

// ---------------------------------------------------------------- the editor

const source = $("source");
const highlight = $("highlight");
let diagnostics = [];

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
}

const TOKEN = /(\/\/.*$|;.*$)|\b((?:vs|ps)[._][0-9][._][0-9x])\b|([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\b|\b(o?[rvcibstapTCD]L?\d+|o(?:Pos|Fog|Pts)|oD\d|oT\d|oC\d|oDepth|aL|p0|vPos|vFace)\b|^(\s*)([a-z_][a-z0-9_]*)/gi;

// One line's HTML: its tokens coloured, the column range [from, to) underlined.
function lineHtml(line, marks) {
  let html = "";
  let last = 0;
  const parts = [];
  line.replace(TOKEN, (m, com, dir, num, reg, lead, op, offset) => {
    if (com) parts.push([offset, m.length, "t-com"]);
    else if (dir) parts.push([offset, m.length, "t-dir"]);
    else if (num) parts.push([offset, m.length, "t-num"]);
    else if (reg) parts.push([offset, m.length, "t-reg"]);
    else if (op) parts.push([offset + lead.length, op.length, "t-op"]);
    return m;
  });
  // Character classes, then underlines over them.
  const cls = new Array(line.length).fill("");
  for (const [at, n, c] of parts) for (let i = at; i < at + n; i++) cls[i] = c;
  const under = new Array(line.length).fill(null);
  for (const m of marks) {
    for (let i = m.from; i < Math.max(m.to, m.from + 1) && i <= line.length; i++) under[i] = m.severity;
  }
  if (marks.length && line.length === 0) return `<span class="diag error"> </span>`;
  let i = 0;
  while (i < line.length) {
    let j = i + 1;
    while (j < line.length && cls[j] === cls[i] && under[j] === under[i]) j++;
    const text = escapeHtml(line.slice(i, j));
    const classes = [cls[i], under[i] ? `diag ${under[i]}` : ""].filter(Boolean).join(" ");
    html += classes ? `<span class="${classes}">${text}</span>` : text;
    i = j;
  }
  last = line.length;
  for (const m of marks) if (m.from >= last) html += `<span class="diag ${m.severity}"> </span>`;
  return html;
}

// Where a diagnostic at line:col underlines: a validator's finding (it has a rule id) points
// at its instruction, underlined to the end of the statement; an assembler's error points at
// the word it could not read, underlined to the end of that word.
function markOf(d, line) {
  const from = Math.max(0, (d.col || 1) - 1);
  let to = from;
  if (d.rule) {
    const rest = line.slice(from).replace(/\s*(\/\/|;).*$/, "").replace(/\s+$/, "");
    to = from + rest.length;
  } else {
    while (to < line.length && !/[\s,]/.test(line[to])) to++;
  }
  return {from, to: Math.max(to, from + 1), severity: d.severity === "warning" ? "warning" : "error"};
}

function renderHighlight() {
  const lines = source.value.split("\n");
  const byLine = new Map();
  for (const d of diagnostics) {
    if (!d.line) continue;
    const list = byLine.get(d.line) || [];
    list.push(markOf(d, lines[d.line - 1] || ""));
    byLine.set(d.line, list);
  }
  highlight.innerHTML = lines
    .map((l, i) => `<span class="line" data-line="${i + 1}">${lineHtml(l, byLine.get(i + 1) || [])}</span>`)
    .join("\n") + "\n";
  syncScroll();
}

function syncScroll() {
  highlight.scrollTop = source.scrollTop;
  highlight.scrollLeft = source.scrollLeft;
}

function renderDiagnostics(list, okText) {
  diagnostics = list;
  const ul = $("diagnostics");
  ul.innerHTML = "";
  if (!list.length) {
    const li = document.createElement("li");
    li.className = "ok";
    li.textContent = okText;
    ul.appendChild(li);
  }
  for (const d of list) {
    const li = document.createElement("li");
    li.className = d.severity === "warning" ? "warning" : "error";
    const at = d.line ? `${d.line}:${d.col}` : d.word !== undefined ? `word ${d.word}` : "";
    const rule = d.rule ? `[${d.rule}]` : "";
    li.textContent = `${at}: ${d.severity}${rule}: ${d.message}`;
    if (d.line) {
      li.dataset.line = d.line;
      li.dataset.col = d.col;
      li.addEventListener("click", () => goTo(d.line, d.col));
    }
    if (d.rule) li.dataset.rule = d.rule;
    ul.appendChild(li);
  }
  renderHighlight();
}

function goTo(line, col) {
  const lines = source.value.split("\n");
  let offset = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  offset += Math.max(0, col - 1);
  source.focus();
  source.setSelectionRange(offset, offset);
}

// The diagnostic under the mouse, shown as a tooltip (the textarea lies over the colours).
function charMetrics() {
  const probe = document.createElement("span");
  probe.textContent = "0".repeat(100);
  probe.style.font = getComputedStyle(source).font;
  probe.style.position = "absolute";
  probe.style.visibility = "hidden";
  document.body.appendChild(probe);
  const w = probe.getBoundingClientRect().width / 100;
  probe.remove();
  return {w, h: parseFloat(getComputedStyle(source).lineHeight) || 18};
}

source.addEventListener("mousemove", (e) => {
  const tip = $("tooltip");
  const m = charMetrics();
  const rect = source.getBoundingClientRect();
  const pad = parseFloat(getComputedStyle(source).paddingLeft) || 8;
  const padTop = parseFloat(getComputedStyle(source).paddingTop) || 6;
  const line = Math.floor((e.clientY - rect.top - padTop + source.scrollTop) / m.h) + 1;
  const col = Math.floor((e.clientX - rect.left - pad + source.scrollLeft) / m.w) + 1;
  const lines = source.value.split("\n");
  const hit = diagnostics.find((d) => {
    if (d.line !== line) return false;
    const mk = markOf(d, lines[line - 1] || "");
    return col - 1 >= mk.from && col - 1 < mk.to + 1;
  });
  if (!hit) {
    tip.hidden = true;
    return;
  }
  tip.textContent = `${hit.severity}${hit.rule ? `[${hit.rule}]` : ""}: ${hit.message}`;
  tip.style.left = `${e.clientX + 12}px`;
  tip.style.top = `${e.clientY + 16}px`;
  tip.hidden = false;
});
source.addEventListener("mouseleave", () => { $("tooltip").hidden = true; });
source.addEventListener("scroll", syncScroll);
source.addEventListener("keydown", (e) => {
  if (e.key === "Tab" && !e.shiftKey) {
    e.preventDefault();
    source.setRangeText("    ", source.selectionStart, source.selectionEnd, "end");
    changed();
  }
});

// ---------------------------------------------------------------- the panes

let generation = 0;

async function refresh() {
  const my = ++generation;
  const text = source.value;
  setStatus("checking…");
  const [check, asm, tr, ctab] = await Promise.all([
    api("check", {source: text, caps: $("caps").value}),
    api("assemble", {source: text}),
    api("translate", {source: text, to: $("lang").value, float: $("float").value}),
    api("ctab", {source: text}),
  ]);
  if (my !== generation) return;
  // Diagnostics: the checker's (which include the assembler's errors).
  if (check.ok) {
    renderDiagnostics(check.data.diagnostics || [], `${check.data.version}: valid`);
  } else if (check.data.diagnostics) {
    renderDiagnostics(check.data.diagnostics, "");
  } else {
    renderDiagnostics([{severity: "error", message: check.data.error}], "");
  }
  renderTokens(asm);
  if (asm.ok) {
    const dis = await api("disassemble", {source: asm.data.tokens.join("\n"), style: $("style").value});
    if (my !== generation) return;
    $("disassembly").textContent = dis.ok ? dis.data.text : "";
    $("dis-error").textContent = dis.ok ? "" : dis.data.error;
  } else {
    $("disassembly").textContent = "";
    $("dis-error").textContent = "the shader does not assemble (see the diagnostics)";
  }
  $("translation").textContent = tr.ok ? tr.data.code : "";
  $("interface").textContent = tr.ok ? JSON.stringify(tr.data.interface, null, 2) : "";
  $("translate-error").textContent = tr.ok ? "" : tr.data.error;
  renderCtab(ctab);
  setStatus(check.ok && check.data.valid ? "valid" : "invalid");
  savePermalink();
}

// The tokens, each with its meaning from the server (`meanings`, dxso::binary::describe):
// shown on hover below the tokens (and as the token's title), its instruction's tokens lit.
function renderTokens(asm) {
  const box = $("tokens");
  box.innerHTML = "";
  $("token-meaning").textContent = "";
  $("tokens-error").textContent = asm.ok ? "" : "the shader does not assemble (see the diagnostics)";
  if (!asm.ok) return;
  const meanings = asm.data.meanings || [];
  const lines = asm.data.instructions || [];
  asm.data.tokens.forEach((t, i) => {
    const m = meanings[i] || {role: "", text: "", instruction: null};
    const span = document.createElement("span");
    span.className = `tok role-${m.role}`;
    span.textContent = t;
    span.dataset.word = i;
    const line = m.instruction !== null && lines[m.instruction] ? lines[m.instruction].text : "";
    const text = `word ${i}: ${m.text}${line ? `\n  in: ${line}` : ""}`;
    span.title = text;
    if (m.instruction !== null) span.dataset.inst = m.instruction;
    span.addEventListener("mouseenter", () => {
      $("token-meaning").textContent = text;
      if (m.instruction !== null) box.querySelectorAll(`[data-inst="${m.instruction}"]`).forEach((s) => s.classList.add("hot"));
      span.classList.add("here");
    });
    span.addEventListener("mouseleave", () => {
      box.querySelectorAll(".hot, .here").forEach((s) => s.classList.remove("hot", "here"));
    });
    box.appendChild(span);
  });
  $("token-meaning").textContent = "hover a token for its meaning";
}

function renderCtab(ctab) {
  const body = $("ctab").querySelector("tbody");
  body.innerHTML = "";
  const note = $("ctab-note");
  if (!ctab.ok) {
    note.textContent = "";
    return;
  }
  const table = ctab.data.table;
  if (!table) {
    note.textContent = "No constant table: give the listing a '// Parameters:' / '// Registers:' header, as Microsoft's compiler writes it.";
    return;
  }
  note.textContent = [table.creator, table.target].filter(Boolean).join(" · ");
  for (const c of table.constants) {
    const tr = document.createElement("tr");
    const type = `${c.class.toLowerCase()} ${c.type.toLowerCase()}${c.rows > 1 || c.columns > 1 ? ` ${c.rows}x${c.columns}` : ""}${c.elements > 1 ? `[${c.elements}]` : ""}`;
    const cells = [c.name, c.register, c.register_count, type, c.default_value ? c.default_value.join(", ") : ""];
    for (const v of cells) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    // The constant's value in the scene, by name (`"constants": {"Tint": [...]}`), to edit.
    const td = document.createElement("td");
    const input = document.createElement("input");
    input.className = "ctab-value";
    input.dataset.name = c.name;
    input.spellcheck = false;
    input.value = sceneConstant(c.name);
    input.addEventListener("change", () => setSceneConstant(c.name, input.value));
    td.appendChild(input);
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

// ---------------------------------------------------------------- the scene

let lastScene = null;

// The editor's shader kind: "ps" or "vs" (its version token, after any comments).
function shaderKind(text) {
  const m = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(\/\/|;).*$/gm, "").match(/^\s*(vs|ps)[._]/im);
  return m ? m[1].toLowerCase() : "vs";
}

// A draw scene (what `dxso draw` takes) names a pixel shader, draws or targets.
function isDrawScene(scene) {
  return ["pixel_shader", "pixel_shader_asm", "draws", "targets"].some((k) => k in scene);
}

// The scene with the editor's shader in place of its shader of that kind: the scene's own,
// or in a scene with "draws" the first draw that has one (else the first draw).
function sceneForRun() {
  let scene;
  try {
    scene = JSON.parse($("scene").value);
  } catch (e) {
    throw new Error(`scene JSON: ${e.message}`);
  }
  if (typeof scene !== "object" || scene === null || Array.isArray(scene)) throw new Error("scene JSON: expected an object");
  const {place, file, inline} = shaderPlace(scene);
  if (!place || typeof place !== "object") throw new Error("scene JSON: a draw is not an object");
  delete place[file];
  place[inline] = source.value;
  return scene;
}

// Where a scene keeps the editor's shader and its constants: the scene, or in a scene with
// "draws" the first draw that has a shader of the editor's kind (else the first draw); and the
// names of the shader and constants fields for that kind.
function shaderPlace(scene) {
  const ps = shaderKind(source.value) === "ps";
  const [file, inline, constants] = ps
    ? ["pixel_shader", "pixel_shader_asm", "pixel_constants"]
    : ["shader", "shader_asm", "constants"];
  let place = scene;
  if (Array.isArray(scene.draws) && scene.draws.length) {
    place = scene.draws.find((d) => d && (file in d || inline in d)) || scene.draws[0];
  }
  return {place, file, inline, constants};
}

// A scene as the scene pane shows it: indented JSON, each array of numbers on one line.
function sceneText(scene) {
  return JSON.stringify(scene, null, 2)
    .replace(/\[[\d\s,.eE+-]*\]/g, (m) => m.replace(/\s+/g, " ").replace("[ ", "[").replace(" ]", "]"));
}

// The draw the editor's shader goes into (0 for a scene without "draws").
function drawIndex(scene) {
  const {place} = shaderPlace(scene);
  return Array.isArray(scene.draws) ? Math.max(0, scene.draws.indexOf(place)) : 0;
}

function parsedScene() {
  try {
    const scene = JSON.parse($("scene").value);
    return typeof scene === "object" && scene !== null && !Array.isArray(scene) ? scene : null;
  } catch (e) {
    return null;
  }
}

// The value a scene gives constant `name`, as the form shows it ("" when it gives none).
function sceneConstant(name) {
  const scene = parsedScene();
  if (!scene) return "";
  const {place, constants} = shaderPlace(scene);
  const v = place && place[constants] && place[constants][name];
  if (v === undefined) return "";
  return Array.isArray(v) ? v.join(", ") : String(v);
}

// Set constant `name` in the scene from the form's text (numbers, or true/false; empty
// removes it).
function setSceneConstant(name, text) {
  const scene = parsedScene();
  if (!scene) {
    $("ctab-note").textContent = "the scene is not a JSON object: fix it to set constants here";
    return;
  }
  const {place, constants} = shaderPlace(scene);
  if (!place || typeof place !== "object") return;
  const items = text.split(/[\s,]+/).filter(Boolean).map((t) => {
    if (t === "true" || t === "false") return t === "true";
    const n = Number(t);
    return Number.isNaN(n) ? t : n;
  });
  place[constants] = place[constants] || {};
  if (items.length === 0) delete place[constants][name];
  else place[constants][name] = items.length === 1 ? items[0] : items;
  $("scene").value = sceneText(scene);
  savePermalink();
}

// ---------------------------------------------------------------- the scene form

let examples = [];

// The examples under examples/ (built into the server): the Example and Mesh pickers.
async function loadExamples() {
  const r = await api("examples");
  if (!r.ok) return;
  examples = r.data.examples;
  for (const e of examples) {
    const opt = new Option(`${e.name} (${e.kind} scene)`, e.name);
    $("example").appendChild(opt);
    const m = e.mesh;
    const count = m.indices ? `${m.indices.length} indices` : `${m.vertex_count} vertices`;
    $("mesh").appendChild(new Option(`${e.name}: ${(m.primitive || "TRIANGLELIST").toLowerCase()}, ${count}`, e.name));
  }
}

// Open an example: its scene in the scene pane, its shader in the editor.
async function openExample(name) {
  const e = examples.find((x) => x.name === name);
  if (!e) return;
  $("scene").value = sceneText(e.scene);
  if (typeof e.shader === "string") await setShader(e.shader);
  $("form-note").textContent = `opened the ${e.name} example`;
  savePermalink();
}

// Put an example's mesh into the scene, where the editor's shader goes (a draw scene's draw,
// or the scene): its primitive, vertex count, indices, declaration and streams replace the
// scene's ("mesh" too).
function useMesh(name) {
  const e = examples.find((x) => x.name === name);
  const scene = parsedScene();
  if (!e || !scene) {
    $("form-note").textContent = "the scene is not a JSON object: fix it to use a mesh";
    return;
  }
  const {place} = shaderPlace(scene);
  if (!place || typeof place !== "object") return;
  for (const k of ["mesh", "primitive", "vertex_count", "indices", "declaration", "streams"]) delete place[k];
  Object.assign(place, JSON.parse(JSON.stringify(e.mesh)));
  $("scene").value = sceneText(scene);
  $("form-note").textContent = `the ${e.name} example's mesh is in the scene`;
  savePermalink();
}

// The sampler slots a texture can go to: s0..s15 (a vs uses s0..s3).
function fillTextureSlots() {
  for (let n = 0; n < 16; n++) $("texture-slot").appendChild(new Option(`s${n}`, `s${n}`));
}

// A PNG from a file into the scene as an inline texture: the server reads the PNG
// (/api/texture, the library's PNG reader) and answers the texture's JSON.
async function loadTexture(file) {
  const note = $("form-note");
  if (file.size > 4 << 20) {
    note.textContent = `${file.name}: larger than the playground's 4 MiB limit`;
    return;
  }
  let response;
  try {
    response = await fetch("/api/texture", {method: "POST", headers: {"Content-Type": "image/png"}, body: await file.arrayBuffer()});
  } catch (e) {
    note.textContent = `the server is not answering (${e.message})`;
    return;
  }
  const data = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
  if (!response.ok) {
    note.textContent = `${file.name}: ${data.error}`;
    return;
  }
  const scene = parsedScene();
  if (!scene) {
    note.textContent = "the scene is not a JSON object: fix it to add a texture";
    return;
  }
  const {place} = shaderPlace(scene);
  const field = shaderKind(source.value) === "ps" ? "pixel_textures" : "textures";
  const slot = $("texture-slot").value;
  place[field] = place[field] || {};
  place[field][slot] = data;
  $("scene").value = sceneText(scene);
  note.textContent = `${file.name}: ${data.width}x${data.height} ${data.format} in ${field}.${slot}`;
  savePermalink();
}

function clearResults() {
  $("run-error").textContent = "";
  $("run-warnings").textContent = "";
  $("trace").textContent = "";
  $("outputs").querySelector("thead").innerHTML = "";
  $("outputs").querySelector("tbody").innerHTML = "";
  $("outputs-note").textContent = "";
  $("picture-box").hidden = true;
  $("picture-note").textContent = "";
}

let lastDraw = null;

async function run() {
  clearResults();
  let scene;
  try {
    scene = sceneForRun();
  } catch (e) {
    $("run-error").textContent = e.message;
    return;
  }
  savePermalink();
  setStatus("running…");
  lastScene = scene;
  // A draw scene: its picture, and the output vertices of its first draw's vertex stage.
  lastDraw = isDrawScene(scene) ? drawIndex(scene) : null;
  if (lastDraw !== null && !(await drawPicture(scene))) return;
  const r = await api("run", lastDraw === null ? {scene} : {scene, draw: lastDraw});
  if (!r.ok) {
    $("run-error").textContent = r.data.error;
    setStatus("run failed");
    return;
  }
  renderOutputs(r.data);
  setStatus(lastDraw === null ? "ran" : "drawn");
}

// The output vertices as a table (a row per vertex, a column per output register); a click
// on a row traces that vertex.
function renderOutputs(data) {
  $("run-warnings").textContent = (data.warnings || []).join("\n");
  const thead = $("outputs").querySelector("thead");
  const tbody = $("outputs").querySelector("tbody");
  const regs = Object.keys(data.outputs);
  const head = document.createElement("tr");
  head.innerHTML = "<th>#</th>" + regs.map((k) => `<th>${escapeHtml(k)} <span class="sub">${escapeHtml(data.outputs[k])}</span></th>`).join("");
  thead.appendChild(head);
  data.vertices.forEach((v, i) => {
    const tr = document.createElement("tr");
    tr.dataset.vertex = i;
    const td = document.createElement("td");
    td.textContent = i;
    tr.appendChild(td);
    for (const k of regs) {
      const cell = document.createElement("td");
      cell.textContent = (v[k] || []).map(fmt).join(", ");
      tr.appendChild(cell);
    }
    tr.addEventListener("click", () => traceVertex(i, tr));
    tbody.appendChild(tr);
  });
  const which = lastDraw === null ? "" : ` of draw ${lastDraw}'s vertex stage`;
  $("outputs-note").textContent = `${data.vertices.length} output vertices${which}; click a row for its trace.`;
}

// A draw scene: the picture of target 0; a click on a pixel debugs it.
async function drawPicture(scene) {
  let response;
  try {
    response = await fetch("/api/draw", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({scene}),
    });
  } catch (e) {
    $("run-error").textContent = `the server is not answering (${e.message})`;
    return false;
  }
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    try {
      message = (await response.json()).error;
    } catch (e) { /* not JSON */ }
    $("run-error").textContent = message;
    setStatus("draw failed");
    return false;
  }
  const img = $("picture");
  if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(await response.blob());
  await img.decode().catch(() => {});
  // Small frames shown larger, pixel for pixel.
  const scale = Math.max(1, Math.min(8, Math.floor(640 / Math.max(1, img.naturalWidth))));
  img.style.width = `${img.naturalWidth * scale}px`;
  $("picture-box").hidden = false;
  $("picture-note").textContent = `${img.naturalWidth}x${img.naturalHeight}, target 0; click a pixel to debug it.`;
  return true;
}

$("picture").addEventListener("click", async (e) => {
  const img = e.currentTarget;
  const rect = img.getBoundingClientRect();
  const x = Math.floor((e.clientX - rect.left) * img.naturalWidth / rect.width);
  const y = Math.floor((e.clientY - rect.top) * img.naturalHeight / rect.height);
  if (!lastScene || x < 0 || y < 0 || x >= img.naturalWidth || y >= img.naturalHeight) return;
  $("trace").textContent = `pixel (${x}, ${y}) …`;
  const r = await api("pixel", {scene: lastScene, x, y});
  if (!r.ok) {
    $("trace").textContent = r.data.error;
    return;
  }
  const p = r.data.pixel;
  const held = p ? `targets ${p.targets.map((t) => `(${t.map(fmt).join(", ")})`).join(" ")}, z ${p.z === null ? "-" : fmt(p.z)}, stencil ${p.stencil === null ? "-" : p.stencil}` : "";
  $("trace").textContent = `${held}\n${r.data.text}`;
});

async function traceVertex(i, row) {
  document.querySelectorAll("#outputs tr.selected").forEach((r) => r.classList.remove("selected"));
  row.classList.add("selected");
  const r = await api("trace", lastDraw === null ? {scene: lastScene, vertex: i} : {scene: lastScene, vertex: i, draw: lastDraw});
  $("trace").textContent = r.ok ? r.data.text : r.data.error;
}

function fmt(x) {
  if (typeof x !== "number") return String(x);
  return Number.isInteger(x) ? String(x) : String(Math.round(x * 1e6) / 1e6);
}


// ---------------------------------------------------------------- files and links

function bytesToHexTokens(buffer) {
  const bytes = new Uint8Array(buffer);
  const words = [];
  for (let i = 0; i + 3 < bytes.length; i += 4) {
    const w = (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24)) >>> 0;
    words.push(w.toString(16).padStart(8, "0"));
  }
  return words.join("\n");
}

function isHexTokens(text) {
  return /^\s*[0-9a-f]{8}(\s+[0-9a-f]{8})*\s*$/i.test(text);
}

// A shader that is bytecode (hex tokens) goes into the editor as its disassembly.
async function setShader(text) {
  if (isHexTokens(text)) {
    const dis = await api("disassemble", {source: text, style: $("style").value});
    if (dis.ok) text = dis.data.text;
  }
  source.value = text;
  changed(true);
}

async function openFile(file) {
  if (file.size > 4 << 20) {
    setStatus(`${file.name}: larger than the playground's 4 MiB limit`);
    return;
  }
  const buffer = await file.arrayBuffer();
  const bytes = new Uint8Array(buffer);
  const binary = bytes.length >= 4 && bytes[3] === 0xff && (bytes[2] === 0xfe || bytes[2] === 0xff);
  if (/\.json$/i.test(file.name)) {
    $("scene").value = new TextDecoder().decode(bytes);
    savePermalink();
  } else if (binary) {
    await setShader(bytesToHexTokens(buffer));
  } else {
    await setShader(new TextDecoder().decode(bytes));
  }
  setStatus(`opened ${file.name}`);
}

function toBase64(text) {
  const bytes = new TextEncoder().encode(text);
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(b64) {
  const s = atob(b64);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

function permalink() {
  return `${location.origin}${location.pathname}#${toBase64(JSON.stringify({shader: source.value, scene: $("scene").value}))}`;
}

function savePermalink() {
  history.replaceState(null, "", permalink());
}

function readPermalink() {
  const hash = location.hash.slice(1);
  if (!hash) return null;
  try {
    const v = JSON.parse(fromBase64(decodeURIComponent(hash)));
    return typeof v === "object" && v !== null ? v : null;
  } catch (e) {
    setStatus("the link's shader could not be read");
    return null;
  }
}

// ---------------------------------------------------------------- wiring

let timer = null;

function changed(now) {
  renderHighlight();
  clearTimeout(timer);
  timer = setTimeout(refresh, now === true ? 0 : 250);
}

source.addEventListener("input", () => changed());
for (const id of ["caps", "style", "lang", "float"]) $(id).addEventListener("change", () => changed(true));
$("run").addEventListener("click", run);
$("example").addEventListener("change", async (e) => {
  await openExample(e.target.value);
  e.target.value = "";
});
$("mesh").addEventListener("change", (e) => {
  useMesh(e.target.value);
  e.target.value = "";
});
$("texture-file").addEventListener("change", async (e) => {
  if (e.target.files[0]) await loadTexture(e.target.files[0]);
  e.target.value = "";
});
$("scene").addEventListener("change", () => {
  savePermalink();
  for (const input of document.querySelectorAll(".ctab-value")) input.value = sceneConstant(input.dataset.name);
});
$("file").addEventListener("change", (e) => {
  if (e.target.files[0]) openFile(e.target.files[0]);
});
$("permalink").addEventListener("click", async () => {
  const link = permalink();
  history.replaceState(null, "", link);
  try {
    await navigator.clipboard.writeText(link);
    setStatus("link copied");
  } catch (e) {
    setStatus("the link is in the address bar");
  }
});
document.addEventListener("dragover", (e) => {
  e.preventDefault();
  document.body.classList.add("dragging");
});
document.addEventListener("dragleave", () => document.body.classList.remove("dragging"));
document.addEventListener("drop", (e) => {
  e.preventDefault();
  document.body.classList.remove("dragging");
  for (const f of e.dataTransfer.files) openFile(f);
});

async function start() {
  fillTextureSlots();
  loadExamples();
  const link = readPermalink();
  if (link) {
    $("scene").value = typeof link.scene === "string" ? link.scene : DEFAULT_SCENE;
    await setShader(typeof link.shader === "string" ? link.shader : DEFAULT_SHADER);
    return;
  }
  const initial = await api("initial");
  const i = initial.ok ? initial.data : {};
  $("scene").value = i.scene || DEFAULT_SCENE;
  await setShader(i.shader || DEFAULT_SHADER);
  if (i.name) setStatus(`opened ${i.name}`);
}

start();
