/* bizbench play: the page of one game (docs/play.md, issue 17).
 *
 * Plain JavaScript, no library, no build step. Every request goes to this page's own origin
 * (/api/*, with the game's token from ?t=). Every text that comes from the game (observation,
 * answers, errors, tool descriptions, the guide, memory) is inserted with textContent: it is
 * untrusted, and nothing here ever writes innerHTML.
 */
"use strict";

(function () {
  // The token comes once in the URL; it is kept in this tab's session storage and taken out of the
  // address bar (and so of the browser's history), and a reload finds it there.
  const TOKEN = new URLSearchParams(location.search).get("t") || sessionStorage.getItem("bizbench-token") || "";
  if (TOKEN) sessionStorage.setItem("bizbench-token", TOKEN);
  if (location.search) history.replaceState(null, "", location.pathname);
  const UNSET = Symbol("unset"); // a form field left empty: the argument is omitted
  const BIG_TEXT_NAMES = new Set(["sql", "content", "text"]);
  const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#4d7c0f"];

  let game = null; // GET /api/game
  let state = null; // the latest GET /api/state
  let busy = 0;
  let uid = 0;
  let memoryDirty = false;
  const forms = new Map(); // tool name -> {details, form, ...}

  // ------------------------------------------------------------------ small helpers
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = String(v);
      else if (k === "class") node.className = v;
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  function svg(tag, attrs, text) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }
  function nextId(prefix) {
    uid += 1;
    return `${prefix}-${uid}`;
  }
  function byId(id) {
    return document.getElementById(id);
  }
  function isObject(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }
  function json(v) {
    return JSON.stringify(v, null, 2);
  }
  function fmtNumber(v, digits) {
    if (typeof v !== "number" || !isFinite(v)) return String(v);
    const d = digits === undefined ? (Number.isInteger(v) ? 0 : 2) : digits;
    return v.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
  }
  function fmtMoney(v) {
    if (typeof v !== "number" || !isFinite(v)) return "–";
    const sign = v < 0 ? "-" : "";
    const abs = Math.abs(v);
    return `${sign}$${fmtNumber(abs, Number.isInteger(abs) ? 0 : 2)}`;
  }
  function fmtShortMoney(v) {
    const abs = Math.abs(v);
    const sign = v < 0 ? "-" : "";
    if (abs >= 1e9) return `${sign}$${fmtNumber(abs / 1e9, 2)}B`;
    if (abs >= 1e6) return `${sign}$${fmtNumber(abs / 1e6, 2)}M`;
    if (abs >= 1e4) return `${sign}$${fmtNumber(abs / 1e3, 1)}K`;
    return fmtMoney(v);
  }
  function fmtValue(v, money) {
    return money ? fmtMoney(v) : fmtNumber(v);
  }
  function setStatus(text, kind) {
    const s = byId("status");
    s.textContent = text || "";
    s.className = `status ${kind || ""}`;
  }

  // ------------------------------------------------------------------ the API
  async function api(path, body) {
    const init = { headers: { "X-Bizbench-Token": TOKEN }, cache: "no-store" };
    if (body !== undefined) {
      init.method = "POST";
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = { ok: false, error: `the server answered ${response.status} without JSON` };
    }
    if (!response.ok && data && data.ok === undefined) data.ok = false;
    if (!response.ok && data && !data.error) data.error = `the server answered ${response.status}`;
    return data;
  }

  /** A POST, then the state again; the page is busy (data-busy) meanwhile. */
  async function act(path, body) {
    setBusy(1);
    try {
      let answer;
      try {
        answer = await api(path, body);
      } catch (e) {
        answer = { ok: false, error: `the game's server did not answer (${e.message}); is bizbench play still running?` };
      }
      await refresh();
      return answer;
    } finally {
      setBusy(-1);
    }
  }

  function setBusy(delta) {
    busy += delta;
    if (busy > 0) document.body.dataset.busy = "1";
    else delete document.body.dataset.busy;
  }

  async function refresh() {
    try {
      const s = await api("/api/state");
      if (s && s.ok === false) {
        setStatus(`Cannot read the game: ${s.error}`, "error");
        return;
      }
      state = s;
      renderState();
    } catch (e) {
      setStatus(`The game's server did not answer (${e.message}); is bizbench play still running?`, "error");
    }
  }

  // ------------------------------------------------------------------ JSON Schema -> form fields
  function resolve(schema, root) {
    let s = schema || {};
    const seen = new Set();
    while (s && typeof s.$ref === "string" && !seen.has(s.$ref)) {
      seen.add(s.$ref);
      const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(s.$ref);
      const target = m && root[m[1]] ? root[m[1]][m[2]] : null;
      const { $ref, ...rest } = s;
      s = { ...(target || {}), ...rest };
    }
    return s;
  }

  /** {schema, optional}: anyOf [X, null] is X, optional. */
  function unwrap(schema, root) {
    let s = resolve(schema, root);
    let optional = false;
    const alts = s.anyOf || s.oneOf;
    if (Array.isArray(alts)) {
      const notNull = alts.filter((a) => !(a && a.type === "null"));
      if (notNull.length < alts.length) optional = true;
      if (notNull.length === 1) {
        const { anyOf, oneOf, ...rest } = s;
        s = { ...resolve(notNull[0], root), ...rest };
      }
    }
    return { schema: s, optional };
  }

  function typeOf(s) {
    if (Array.isArray(s.enum)) return "enum";
    const t = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
    if (t === "object" || (!t && (s.properties || s.additionalProperties))) {
      if (s.properties && Object.keys(s.properties).length) return "object";
      if (isObject(s.additionalProperties)) return "map";
      if (s.properties) return "object";
      return "json";
    }
    if (t === "array") {
      return "array";
    }
    if (["string", "integer", "number", "boolean"].includes(t)) return t;
    return "json";
  }

  function constraintsText(s) {
    const parts = [];
    if (s.minimum !== undefined) parts.push(`≥ ${s.minimum}`);
    if (s.exclusiveMinimum !== undefined) parts.push(`> ${s.exclusiveMinimum}`);
    if (s.maximum !== undefined) parts.push(`≤ ${s.maximum}`);
    if (s.exclusiveMaximum !== undefined) parts.push(`< ${s.exclusiveMaximum}`);
    if (s.minLength !== undefined && s.minLength > 0) parts.push(`at least ${s.minLength} characters`);
    if (s.maxLength !== undefined) parts.push(`at most ${fmtNumber(s.maxLength)} characters`);
    if (s.minItems !== undefined && s.minItems > 0) parts.push(`at least ${s.minItems} item(s)`);
    if (s.maxItems !== undefined) parts.push(`at most ${s.maxItems} items`);
    if (s.default !== undefined && s.default !== null) parts.push(`default ${JSON.stringify(s.default)}`);
    return parts.join(", ");
  }

  /**
   * A field of a form: {el, get() -> value | UNSET, set(value), paths(prefix) -> [[path, el]],
   * focus()}. `name` labels it; `required` means empty is still sent.
   */
  function buildField(rawSchema, root, name, required, path) {
    const { schema: s, optional } = unwrap(rawSchema, root);
    const isRequired = required && !optional;
    const kind = typeOf(s);
    const builders = {
      enum: enumField,
      boolean: booleanField,
      integer: numberField,
      number: numberField,
      string: stringField,
      object: objectField,
      map: mapField,
      array: arrayField,
      json: jsonField,
    };
    return builders[kind](s, root, name, isRequired, path);
  }

  function fieldBox(name, s, required, control, id, extra) {
    const help = [s.description, constraintsText(s)].filter(Boolean).join(" · ");
    const helpId = help ? nextId("help") : null;
    if (helpId && control) control.setAttribute("aria-describedby", helpId);
    const label = el("label", { for: id, class: "field-name" }, name, required ? el("span", { class: "req", title: "required", text: " *" }) : null);
    return el(
      "div",
      { class: "field", dataset: { name } },
      label,
      extra || control,
      help ? el("div", { class: "help", id: helpId, text: help }) : null,
    );
  }

  function enumField(s, root, name, required) {
    const id = nextId("f");
    const select = el("select", { id, name });
    const blank = required ? "— choose —" : s.default !== undefined && s.default !== null ? `(default: ${s.default})` : "(omit)";
    select.append(el("option", { value: "", text: blank }));
    s.enum.forEach((v, i) => select.append(el("option", { value: String(i), text: String(v) })));
    const box = fieldBox(name, s, required, select, id);
    return {
      el: box,
      get: () => (select.value === "" ? UNSET : s.enum[Number(select.value)]),
      set: (v) => {
        const i = s.enum.findIndex((x) => x === v);
        select.value = i < 0 ? "" : String(i);
      },
      paths: (p) => [[p, box]],
      focus: () => select.focus(),
    };
  }

  function booleanField(s, root, name, required) {
    const id = nextId("f");
    const check = el("input", { id, name, type: "checkbox" });
    const initial = s.default === true;
    check.checked = initial;
    let touched = false;
    check.addEventListener("change", () => (touched = true));
    const box = fieldBox(name, s, required, check, id);
    return {
      el: box,
      get: () => (required || touched || check.checked !== initial ? check.checked : UNSET),
      set: (v) => {
        check.checked = v === true;
        touched = v === true || v === false;
      },
      paths: (p) => [[p, box]],
      focus: () => check.focus(),
    };
  }

  function numberField(s, root, name, required) {
    const id = nextId("f");
    const input = el("input", {
      id,
      name,
      type: "number",
      step: s.type === "integer" ? "1" : "any",
      min: s.minimum !== undefined ? s.minimum : s.exclusiveMinimum,
      max: s.maximum !== undefined ? s.maximum : s.exclusiveMaximum,
      placeholder: s.default !== undefined && s.default !== null ? String(s.default) : required ? "" : "(omit)",
    });
    const box = fieldBox(name, s, required, input, id);
    return {
      el: box,
      get: () => {
        if (input.validity.badInput) throw new FieldError(name, `'${name}' is not a number`);
        return input.value === "" ? UNSET : Number(input.value);
      },
      set: (v) => (input.value = typeof v === "number" ? String(v) : ""),
      paths: (p) => [[p, box]],
      focus: () => input.focus(),
    };
  }

  function stringField(s, root, name, required) {
    const id = nextId("f");
    const big = (s.maxLength !== undefined && s.maxLength > 300) || BIG_TEXT_NAMES.has(name);
    const control = big
      ? el("textarea", { id, name, rows: name === "sql" ? 5 : 4, spellcheck: name === "sql" ? "false" : null })
      : el("input", { id, name, type: "text", autocomplete: "off" });
    if (s.maxLength !== undefined) control.setAttribute("maxlength", String(s.maxLength));
    if (s.default !== undefined && s.default !== null) control.setAttribute("placeholder", String(s.default));
    else if (name === "sql") control.setAttribute("placeholder", "SELECT ...");
    if (big) control.classList.add(name === "sql" ? "code" : "text");
    const box = fieldBox(name, s, required, control, id);
    return {
      el: box,
      get: () => (control.value === "" && !required ? UNSET : control.value),
      set: (v) => (control.value = typeof v === "string" ? v : v === undefined || v === null ? "" : String(v)),
      paths: (p) => [[p, box]],
      focus: () => control.focus(),
    };
  }

  function jsonField(s, root, name, required) {
    const id = nextId("f");
    const area = el("textarea", { id, name, rows: 2, class: "code", placeholder: "JSON", spellcheck: "false" });
    const box = fieldBox(name, s, required, area, id);
    return {
      el: box,
      get: () => {
        if (area.value.trim() === "") return UNSET;
        try {
          return JSON.parse(area.value);
        } catch (e) {
          throw new FieldError(name, `'${name}' is not JSON: ${e.message}`);
        }
      },
      set: (v) => (area.value = v === undefined || v === UNSET ? "" : JSON.stringify(v)),
      paths: (p) => [[p, box]],
      focus: () => area.focus(),
    };
  }

  function groupBox(name, s, required, body, legendExtra) {
    const help = [s.description, constraintsText(s)].filter(Boolean).join(" · ");
    return el(
      "fieldset",
      { class: "group", dataset: { name } },
      el("legend", {}, name, required ? el("span", { class: "req", title: "required", text: " *" }) : null, legendExtra || null),
      help ? el("div", { class: "help", text: help }) : null,
      body,
    );
  }

  function objectField(s, root, name, required) {
    const body = el("div", { class: "sub" });
    const children = buildProperties(s, root, body);
    const box = groupBox(name, s, required, body);
    return {
      el: box,
      get: () => {
        const out = collect(children);
        return Object.keys(out).length === 0 && !required ? UNSET : out;
      },
      set: (v) => children.forEach(([k, f]) => f.set(isObject(v) ? v[k] : undefined)),
      paths: (p) => [[p, box], ...children.flatMap(([k, f]) => f.paths(p ? `${p}.${k}` : k))],
      focus: () => children.length && children[0][1].focus(),
    };
  }

  function buildProperties(s, root, container) {
    const req = new Set(s.required || []);
    const children = [];
    for (const [k, sub] of Object.entries(s.properties || {})) {
      const f = buildField(sub, root, k, req.has(k));
      children.push([k, f]);
      container.append(f.el);
    }
    return children;
  }

  function collect(children) {
    const out = {};
    for (const [k, f] of children) {
      const v = f.get();
      if (v !== UNSET) out[k] = v;
    }
    return out;
  }

  function arrayField(s, root, name, required) {
    const itemSchema = s.items || {};
    const rows = el("ol", { class: "rows" });
    const items = []; // {li, field}
    const add = el("button", { type: "button", class: "small", text: `Add ${name} item` });
    const box = groupBox(name, s, required, el("div", { class: "sub" }, rows, add));
    function addRow(value) {
      const li = el("li", { class: "row" });
      const field = buildField(itemSchema, root, `${name}[${items.length + 1}]`, true);
      const item = { li, field };
      const remove = el("button", { type: "button", class: "small remove", text: "Remove", "aria-label": `Remove this ${name} item` });
      remove.addEventListener("click", () => {
        items.splice(items.indexOf(item), 1);
        li.remove();
        add.focus();
      });
      li.append(field.el, remove);
      rows.append(li);
      items.push(item);
      if (value !== undefined) field.set(value);
      return field;
    }
    add.addEventListener("click", () => addRow().focus());
    return {
      el: box,
      get: () => {
        const out = [];
        for (const { field } of items) {
          const v = field.get();
          if (v !== UNSET) out.push(v);
        }
        return out.length === 0 && !required ? UNSET : out;
      },
      set: (v) => {
        items.splice(0).forEach(({ li }) => li.remove());
        if (Array.isArray(v)) v.forEach((x) => addRow(x));
      },
      paths: (p) => [[p, box], ...items.flatMap(({ field }, i) => field.paths(`${p}.${i}`).concat(field.paths(`${p}[${i}]`)))],
      focus: () => add.focus(),
      addRow,
    };
  }

  function mapField(s, root, name, required) {
    const valueSchema = s.additionalProperties;
    const keyEnum = s.propertyNames && Array.isArray(s.propertyNames.enum) ? s.propertyNames.enum : null;
    const rows = el("ol", { class: "rows" });
    const entries = []; // {li, key, field}
    const add = el("button", { type: "button", class: "small", text: `Add ${name} entry` });
    const box = groupBox(name, s, required, el("div", { class: "sub" }, rows, add), el("span", { class: "muted", text: " (key → value)" }));
    function addRow(key, value) {
      const li = el("li", { class: "row map-row" });
      const keyId = nextId("k");
      let keyInput;
      if (keyEnum) {
        keyInput = el("select", { id: keyId, class: "map-key" }, el("option", { value: "", text: "— key —" }));
        keyEnum.forEach((k) => keyInput.append(el("option", { value: String(k), text: String(k) })));
      } else {
        keyInput = el("input", { id: keyId, type: "text", class: "map-key", autocomplete: "off", placeholder: "key" });
      }
      if (key !== undefined) keyInput.value = key;
      const field = buildField(valueSchema, root, "value", true);
      const entry = { li, key: keyInput, field };
      const remove = el("button", { type: "button", class: "small remove", text: "Remove", "aria-label": `Remove this ${name} entry` });
      remove.addEventListener("click", () => {
        entries.splice(entries.indexOf(entry), 1);
        li.remove();
        add.focus();
      });
      li.append(el("div", { class: "field key-field" }, el("label", { for: keyId, class: "field-name", text: "key" }), keyInput), field.el, remove);
      rows.append(li);
      entries.push(entry);
      if (value !== undefined) field.set(value);
      return keyInput;
    }
    add.addEventListener("click", () => addRow().focus());
    return {
      el: box,
      get: () => {
        const out = {};
        for (const { key, field } of entries) {
          const v = field.get();
          if (key.value === "" && v === UNSET) continue;
          out[key.value] = v === UNSET ? null : v;
        }
        return Object.keys(out).length === 0 && !required ? UNSET : out;
      },
      set: (v) => {
        entries.splice(0).forEach(({ li }) => li.remove());
        if (isObject(v)) Object.entries(v).forEach(([k, x]) => addRow(k, x));
      },
      paths: (p) => [[p, box], ...entries.flatMap(({ li, key, field }) => [[`${p}.${key.value}`, li], ...field.paths(`${p}.${key.value}`).slice(1)])],
      focus: () => add.focus(),
      addRow,
    };
  }

  class FieldError extends Error {
    constructor(path, message) {
      super(message);
      this.path = path;
    }
  }

  // ------------------------------------------------------------------ answers
  /** A table of a list of objects, of {columns, rows}, or null when the data is not a table. */
  function tableOf(data) {
    let columns = null;
    let rows = null;
    if (Array.isArray(data) && data.length && data.every(isObject)) {
      columns = [];
      data.forEach((r) => Object.keys(r).forEach((k) => columns.includes(k) || columns.push(k)));
      rows = data.map((r) => columns.map((c) => r[c]));
    } else if (isObject(data) && Array.isArray(data.columns) && Array.isArray(data.rows)) {
      columns = data.columns.map(String);
      rows = data.rows.map((r) => (Array.isArray(r) ? r : isObject(r) ? columns.map((c) => r[c]) : [r]));
    }
    if (!columns) return null;
    const table = el("table", { class: "data" });
    table.append(el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { scope: "col", text: c })))));
    const body = el("tbody");
    for (const r of rows) {
      body.append(el("tr", {}, ...r.map((v, i) => el("td", { class: typeof v === "number" ? "num" : null, text: cellText(v, columns[i]) }))));
    }
    table.append(body);
    return table;
  }

  function cellText(v, column) {
    if (v === null || v === undefined) return "";
    if (typeof v === "object") return JSON.stringify(v);
    if (typeof v === "number" && /_cents$/.test(column || "")) return `${fmtNumber(v)} (${fmtMoney(v / 100)})`;
    return String(v);
  }

  /** The answer of a call: a table when it is one, tables of an object's lists of objects, else the text. */
  function renderAnswer(answer) {
    const box = el("div", { class: "answer" });
    const data = answer.data;
    const table = tableOf(data);
    if (table) {
      const count = Array.isArray(data) ? data.length : data.rows.length;
      box.append(el("p", { class: "muted", text: `${count} row${count === 1 ? "" : "s"}` }), el("div", { class: "table-wrap" }, table));
      return box;
    }
    if (isObject(data) && Object.keys(data).length) {
      const lists = Object.entries(data).filter(([, v]) => Array.isArray(v) && v.length && v.every(isObject));
      const rest = Object.fromEntries(Object.entries(data).filter(([k]) => !lists.some(([l]) => l === k)));
      box.append(...objectView(rest, false));
      for (const [k, v] of lists) {
        box.append(el("h4", { text: `${k} (${v.length})` }), el("div", { class: "table-wrap" }, tableOf(v)));
      }
      return box;
    }
    const text = answer.text || (data === null || data === undefined ? "(no answer text)" : json(data));
    box.append(el("pre", { class: "json", text }));
    return box;
  }

  // ------------------------------------------------------------------ tool forms
  function buildToolForm(tool) {
    const root = tool.schema || {};
    const formId = `tool-${tool.name}`;
    const details = el("details", { class: "tool", id: formId, dataset: { tool: tool.name } });
    const summary = el(
      "summary",
      {},
      el("code", { text: tool.name }),
      tool.ends_turn ? el("span", { class: "tag turn", text: "ends the turn" }) : null,
      tool.mutates ? null : el("span", { class: "tag read", text: "read" }),
      el("span", { class: "sum-desc", text: firstSentence(tool.description) }),
    );
    const form = el("form", { novalidate: true, "aria-label": tool.name });
    const full = String(tool.description || "");
    const desc = full.trim() === firstSentence(full).trim() ? null : el("p", { class: "help tool-desc", text: full });
    const fieldsBox = el("div", { class: "fields" });
    const schema = resolve(root, root);
    const children = buildProperties(schema, root, fieldsBox);
    if (!children.length) fieldsBox.append(el("p", { class: "muted", text: "No arguments." }));

    const rawId = nextId("raw");
    const raw = el("textarea", { id: rawId, class: "code raw", rows: 6, spellcheck: "false" });
    const rawBox = el("div", { class: "field raw-box", hidden: true }, el("label", { for: rawId, class: "field-name", text: "Arguments (JSON object)" }), raw);
    const toggle = el("button", { type: "button", class: "small json-toggle", "aria-pressed": "false", text: "JSON" });
    const submit = el("button", { type: "submit", class: tool.ends_turn ? "primary" : null, text: tool.ends_turn ? `Call ${tool.name} (ends the turn)` : `Call ${tool.name}` });
    const error = el("div", { class: "form-error", role: "alert", hidden: true });
    const answerBox = el("div", { class: "answer-box", "aria-live": "polite" });
    if (desc) form.append(desc); // (append(null) would insert the text "null")
    form.append(fieldsBox, rawBox, el("div", { class: "form-actions" }, submit, toggle), error, answerBox);
    details.append(summary, form);

    const entry = { tool, details, form, fields: children, raw, toggle, error, answerBox, submit, jsonMode: false };
    forms.set(tool.name, entry);

    function args() {
      if (entry.jsonMode) {
        const text = raw.value.trim() || "{}";
        let v;
        try {
          v = JSON.parse(text);
        } catch (e) {
          throw new FieldError("", `The arguments are not JSON: ${e.message}`);
        }
        if (!isObject(v)) throw new FieldError("", "The arguments must be a JSON object ({...}).");
        return v;
      }
      return collect(children);
    }

    toggle.addEventListener("click", () => {
      clearErrors(entry);
      if (!entry.jsonMode) {
        let v = {};
        try {
          v = collect(children);
        } catch (e) {
          v = {};
        }
        raw.value = json(v);
        entry.jsonMode = true;
      } else {
        let v;
        try {
          v = JSON.parse(raw.value.trim() || "{}");
        } catch (e) {
          showError(entry, `The arguments are not JSON: ${e.message}`);
          return;
        }
        if (!isObject(v)) {
          showError(entry, "The arguments must be a JSON object ({...}).");
          return;
        }
        children.forEach(([k, f]) => f.set(v[k]));
        entry.jsonMode = false;
      }
      toggle.setAttribute("aria-pressed", String(entry.jsonMode));
      fieldsBox.hidden = entry.jsonMode;
      rawBox.hidden = !entry.jsonMode;
      (entry.jsonMode ? raw : toggle).focus();
    });

    form.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && e.target.tagName === "TEXTAREA") {
        e.preventDefault();
        form.requestSubmit();
      }
    });

    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (busy) return;
      clearErrors(entry);
      let a;
      try {
        a = args();
      } catch (err) {
        showError(entry, err.message, err.path);
        return;
      }
      submit.disabled = true;
      try {
        const answer = await act("/api/call", { tool: tool.name, args: a });
        answerBox.replaceChildren();
        if (!answer.ok) {
          showError(entry, answer.error || answer.text || "refused");
        } else {
          answerBox.append(el("h4", { text: "Answer" }), renderAnswer(answer));
        }
      } finally {
        submit.disabled = Boolean(state && state.finished);
      }
    });
    return details;
  }

  function clearErrors(entry) {
    entry.error.hidden = true;
    entry.error.replaceChildren();
    delete entry.form.dataset.error;
    entry.form.querySelectorAll(".field-error").forEach((n) => n.remove());
    entry.form.querySelectorAll("[aria-invalid]").forEach((n) => n.removeAttribute("aria-invalid"));
    entry.form.querySelectorAll(".invalid").forEach((n) => n.classList.remove("invalid"));
  }

  /** The env's error next to the form, and beside each field whose name it quotes ('A', 'predictions.cash_1wk'). */
  function showError(entry, message, localPath) {
    entry.answerBox.replaceChildren();
    entry.error.replaceChildren(el("strong", { text: "Refused: " }), document.createTextNode(message));
    entry.error.hidden = false;
    entry.form.dataset.error = "1";
    const quoted = [...message.matchAll(/'([^']{1,200})'/g)].map((m) => m[1]);
    if (localPath) quoted.push(localPath);
    const known = [];
    for (const [k, f] of entry.fields) known.push(...f.paths(k));
    // a field in a map or list may be given by its own path; a top-level field's el holds it
    const pathNodes = new Map();
    for (const [p, node] of known) if (!pathNodes.has(p)) pathNodes.set(p, node);
    const marked = new Set();
    for (const q of quoted) {
      let node = pathNodes.get(q) || pathNodes.get(q.replace(/\[(\d+)\]/g, ".$1"));
      if (!node) {
        // the nearest enclosing field: 'targeted_spend.bogus.S1' -> 'targeted_spend.bogus' -> ...
        const parts = q.split(".");
        while (!node && parts.length > 1) {
          parts.pop();
          node = pathNodes.get(parts.join("."));
        }
      }
      if (!node || marked.has(node)) continue;
      marked.add(node);
      node.classList.add("invalid");
      const input = node.querySelector("input, select, textarea");
      if (input) input.setAttribute("aria-invalid", "true");
      const note = el("div", { class: "field-error", dataset: { path: q }, text: messageFor(message, q) });
      node.append(note);
    }
  }

  /** The part of an error about argument `path` ("argument 'A': expected ...; argument 'B': ..."). */
  function messageFor(message, path) {
    for (const part of message.split(/;\s+/)) {
      if (part.includes(`'${path}'`)) {
        const i = part.indexOf(`'${path}'`);
        const tail = part.slice(i + path.length + 2).replace(/^:\s*/, "");
        return tail ? `${path}: ${tail}` : part;
      }
    }
    return message;
  }

  function buildTools() {
    const box = byId("tools");
    const groups = new Map();
    for (const t of game.tools) {
      const c = t.category || "tools";
      if (!groups.has(c)) groups.set(c, []);
      groups.get(c).push(t);
    }
    for (const [category, tools] of groups) {
      const section = el("section", { class: "category", dataset: { category } }, el("h3", { text: category }));
      for (const t of tools) section.append(buildToolForm(t));
      box.append(section);
    }
  }

  function buildEndTurn() {
    const end = byId("end-turn");
    end.textContent = game.end_turn || "End turn";
    byId("end-help").textContent =
      `"${game.end_turn}" (at the top; Alt+N) ends the turn the env's default way. ` +
      "These tools also end the turn:";
    const list = byId("end-tools");
    for (const t of game.tools.filter((x) => x.ends_turn)) {
      const entry = forms.get(t.name);
      const hasArgs = entry.fields.length > 0;
      const button = el("button", {
        type: "button",
        class: "end-tool",
        dataset: { tool: t.name },
        text: hasArgs ? `${t.name}…` : t.name,
        title: hasArgs ? `Open the ${t.name} form` : `Call ${t.name} now (ends the turn)`,
      });
      button.addEventListener("click", () => {
        if (hasArgs) {
          entry.details.open = true;
          entry.details.scrollIntoView({ block: "start" });
          const first = entry.fields[0][1];
          first.focus();
        } else {
          entry.details.open = true;
          entry.form.requestSubmit();
        }
      });
      list.append(el("span", { class: "end-item" }, button, el("span", { class: "help", text: firstSentence(t.description) })));
    }
  }

  function firstSentence(text) {
    const t = String(text || "").split("\n")[0];
    const m = /^(.{0,160}?[.!?])(\s|$)/.exec(t);
    return m ? m[1] : t.slice(0, 160);
  }

  // ------------------------------------------------------------------ state views
  function renderState() {
    const s = state;
    const b = document.body;
    b.dataset.turn = String(s.turn);
    b.dataset.historyTotal = String(s.history_total);
    b.dataset.finished = String(Boolean(s.finished));
    renderHeader(s);
    renderObservation(s.observation || {});
    renderCharts(s.charts || []);
    renderHistory(s.history || [], s.history_total || 0);
    renderMemory(s.memory || "");
    renderResult(s);
  }

  function unitPlural(unit, n) {
    return n === 1 ? unit : `${unit}s`;
  }

  function renderHeader(s) {
    byId("turn").textContent = String(s.turn);
    byId("elapsed-label").textContent = `${s.unit[0].toUpperCase()}${s.unit.slice(1)}`;
    byId("elapsed").textContent = `${s.elapsed} / ${s.horizon} ${unitPlural(s.unit, s.horizon)}`;
    const cash = cashOf(s);
    byId("cash-box").hidden = cash === null;
    if (cash !== null) {
      byId("cash-label").textContent = cash.label;
      byId("cash").textContent = fmtMoney(cash.value);
    }
    byId("score").textContent = s.score === null || s.score === undefined ? "–" : fmtNumber(s.score, 2);
    const flags = byId("flags");
    flags.replaceChildren();
    if (s.bankrupt) flags.append(el("span", { class: "flag bad", text: "bankrupt" }));
    if (s.done && !s.bankrupt) flags.append(el("span", { class: "flag", text: "done" }));
    if (s.finished) flags.append(el("span", { class: "flag", text: "finished" }));
    else flags.append(el("span", { class: "flag live", text: "playing" }));
    const over = Boolean(s.finished);
    byId("end-turn").disabled = over;
    byId("stop").disabled = over;
    byId("memory-save").disabled = over || !game.memory.editable;
    document.querySelectorAll(".end-tool, #tools button[type=submit]").forEach((n) => (n.disabled = over));
  }

  /** The money the observation shows, as the env's play module names it (null: none). */
  function cashOf(s) {
    return s.money ? { label: s.money.label, value: s.money.value } : null;
  }

  function renderObservation(o) {
    byId("observation").replaceChildren(...objectView(o, true));
  }

  /** An object as a person reads it: multi-line strings as text blocks (ceo's dashboard), the
   * rest as a key/value table (nested values as JSON, *_cents also in dollars). */
  function objectView(o, dark) {
    const out = [];
    const body = el("tbody");
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === "string" && v.includes("\n")) {
        out.push(el("h4", { class: "block-name", text: k }), el("pre", { class: dark ? "dashboard" : "block", "aria-label": k, text: v }));
        continue;
      }
      let value;
      if (v !== null && typeof v === "object") value = el("pre", { class: "json", text: json(v) });
      else if (typeof v === "number" && /_cents$/.test(k)) value = cellText(v, k);
      else if (typeof v === "number") value = fmtNumber(v, Number.isInteger(v) ? 0 : undefined);
      else value = v === null ? "—" : String(v);
      body.append(el("tr", {}, el("th", { scope: "row", text: k }), el("td", {}, value)));
    }
    if (body.children.length) out.push(el("table", { class: "kv" }, body));
    return out;
  }

  function renderCharts(charts) {
    const box = byId("charts");
    box.replaceChildren();
    if (!charts.length) {
      box.append(el("p", { class: "muted", text: "This env has no charts." }));
      return;
    }
    for (const c of charts) box.append(chart(c));
  }

  function chart(c) {
    const W = 360;
    const H = 150;
    const M = { l: 72, r: 10, t: 10, b: 24 };
    const figure = el("figure", { class: "chart", dataset: { chart: c.id } });
    figure.append(el("figcaption", { text: c.title }));
    const series = (c.series || []).filter((s) => s.points && s.points.length);
    if (!series.length) {
      figure.append(el("p", { class: "muted empty", text: "No points yet." }));
      return figure;
    }
    const xs = series.flatMap((s) => s.points.map((p) => p[0]));
    const ys = series.flatMap((s) => s.points.map((p) => p[1]));
    let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
    let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
    if (x0 === x1) [x0, x1] = [x0 - 1, x1 + 1];
    if (y0 === y1) {
      const pad = Math.abs(y0) * 0.05 || 1;
      [y0, y1] = [y0 - pad, y1 + pad];
    }
    const sx = (x) => M.l + ((x - x0) / (x1 - x0)) * (W - M.l - M.r);
    const sy = (y) => H - M.b - ((y - y0) / (y1 - y0)) * (H - M.t - M.b);
    const label = (v) => (c.money ? fmtShortMoney(v) : fmtNumber(v, Number.isInteger(v) ? 0 : 2));
    const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": c.title, class: "plot" });
    g.append(svg("title", {}, c.title));
    g.append(svg("line", { x1: M.l, y1: H - M.b, x2: W - M.r, y2: H - M.b, class: "axis" }));
    g.append(svg("line", { x1: M.l, y1: M.t, x2: M.l, y2: H - M.b, class: "axis" }));
    g.append(svg("text", { x: M.l - 4, y: M.t + 8, class: "tick", "text-anchor": "end" }, label(Math.max(...ys))));
    g.append(svg("text", { x: M.l - 4, y: H - M.b, class: "tick", "text-anchor": "end" }, label(Math.min(...ys))));
    g.append(svg("text", { x: M.l, y: H - 6, class: "tick", "text-anchor": "start" }, `${c.x} ${Math.min(...xs)}`));
    g.append(svg("text", { x: W - M.r, y: H - 6, class: "tick", "text-anchor": "end" }, `${c.x} ${Math.max(...xs)}`));
    const legend = el("ul", { class: "legend" });
    series.forEach((s, i) => {
      const color = COLORS[i % COLORS.length];
      const d = s.points.map((p, j) => `${j ? "L" : "M"}${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(" ");
      g.append(svg("path", { d, class: "line", stroke: color, fill: "none" }));
      for (const p of s.points) {
        const dot = svg("circle", { cx: sx(p[0]).toFixed(1), cy: sy(p[1]).toFixed(1), r: 2.5, fill: color });
        dot.append(svg("title", {}, `${s.name}, ${c.x} ${p[0]}: ${fmtValue(p[1], c.money)}`));
        g.append(dot);
      }
      const last = s.points[s.points.length - 1];
      const swatch = el("span", { class: "swatch", "aria-hidden": "true" });
      swatch.dataset.color = String(i % COLORS.length);
      legend.append(el("li", {}, swatch, `${s.name}: `, el("strong", { text: fmtValue(last[1], c.money) })));
    });
    figure.append(g, legend);
    return figure;
  }

  function renderHistory(history, total) {
    byId("history-count").textContent = `(${total} call${total === 1 ? "" : "s"}${total > history.length ? `, newest ${history.length} shown` : ""})`;
    const list = byId("history");
    const open = new Set([...list.querySelectorAll("details[open]")].map((d) => d.dataset.i));
    list.replaceChildren();
    for (const h of [...history].reverse()) {
      const args = typeof h.args === "string" ? h.args : JSON.stringify(h.args);
      const details = el(
        "details",
        { dataset: { i: String(h.i) } },
        el(
          "summary",
          {},
          el("span", { class: "h-turn", text: `turn ${h.turn}` }),
          el("code", { class: "h-tool", text: h.tool }),
          el("span", { class: h.ok ? "ok" : "err", text: h.ok ? "ok" : "error" }),
          el("span", { class: "h-args", text: args === "{}" ? "" : args }),
        ),
        el("div", { class: "h-body" }, el("h4", { text: "Arguments" }), el("pre", { class: "json", text: typeof h.args === "string" ? h.args : json(h.args) }), el("h4", { text: h.ok ? "Answer" : "Error" }), el("pre", { class: "json", text: h.ok ? h.text || "(no answer text)" : h.error || h.text })),
      );
      if (open.has(String(h.i))) details.open = true;
      list.append(el("li", { class: h.ok ? "h ok" : "h err", value: String(h.i + 1) }, details));
    }
    if (!history.length) list.append(el("li", { class: "muted empty", text: "No calls yet." }));
  }

  /** The memory as it is; where saving adds to it (a note), it is shown apart from the box. */
  function renderMemory(text) {
    if (game.memory && game.memory.adds) {
      const now = byId("memory-now");
      now.hidden = false;
      now.textContent = text || "(nothing saved yet)";
      return;
    }
    const area = byId("memory");
    if (!memoryDirty && area.value !== text) area.value = text;
  }

  function renderResult(s) {
    const banner = byId("banner");
    if (!s.finished || !s.result) {
      banner.hidden = true;
      return;
    }
    banner.hidden = false;
    const r = s.result;
    const dl = byId("result");
    dl.replaceChildren();
    const row = (k, v, id) => dl.append(el("div", {}, el("dt", { text: k }), el("dd", { id, text: v })));
    const score = (v) => (v === null || v === undefined ? "–" : fmtNumber(v, 2));
    row("Score", score(r.score), "result-score");
    if (s.score !== null && s.score !== undefined && s.score !== r.score) {
      // the headline score (docs/reports.md): 0 for a game cut short or bankrupt
      row("Counted in reports", score(s.score), "result-report");
    }
    row("Final cash", typeof r.final_cash === "number" ? fmtMoney(r.final_cash) : "–", "result-cash");
    row("Ended by", String(r.ended_by || "–"), "result-ended");
    row("Bankrupt", r.bankrupt ? "yes" : "no", "result-bankrupt");
    if (r.survived !== undefined) row("Survived", `${r.survived} / ${r.horizon} ${unitPlural(r.unit || s.unit, r.horizon)}`, "result-survived");
    if (r.tool_calls !== undefined) row("Tool calls", String(r.tool_calls), "result-calls");
    const note = byId("result-note");
    note.textContent = r.incomplete_reason ? `${r.incomplete_reason}; a game that ends early counts 0 in reports.` : "";
  }

  // ------------------------------------------------------------------ controls
  async function endTurn() {
    if (busy || (state && state.finished)) return;
    const answer = await act("/api/end-turn", {});
    if (answer.ok) setStatus(`Turn ended: now turn ${state.turn}.`, "");
    else setStatus(`The turn did not end: ${answer.error || answer.text}`, "error");
  }

  async function stopGame() {
    if (busy || (state && state.finished)) return;
    if (!window.confirm("Stop the game now? The run ends here and cannot be played on. A game stopped before its end counts 0 in reports.")) return;
    const answer = await act("/api/finish", {});
    if (answer.ok) setStatus("The game is stopped.", "");
    else setStatus(`The game did not stop: ${answer.error}`, "error");
  }

  async function saveMemory(e) {
    e.preventDefault();
    if (busy) return;
    const out = byId("memory-answer");
    out.textContent = "";
    const answer = await act("/api/memory", { text: byId("memory").value });
    out.className = `answer-inline ${answer.ok ? "ok" : "err"}`;
    out.textContent = answer.ok ? answer.text || "saved" : answer.error || answer.text;
    if (answer.ok) {
      memoryDirty = false;
      if (game.memory.adds) byId("memory").value = ""; // the box holds the next addition
      renderMemory(state.memory || "");
    }
  }

  function setupMemory() {
    const m = game.memory || {};
    byId("memory-label").textContent = m.adds ? `Add to the ${m.label || "memory"}` : m.label || "memory";
    if (m.adds) byId("memory-save").textContent = "Add";
    byId("memory-h").textContent = `Memory: ${m.label || "memory"}`;
    byId("memory-help").textContent = m.help || "";
    const area = byId("memory");
    area.readOnly = !m.editable;
    area.addEventListener("input", () => (memoryDirty = true));
    area.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        byId("memory-form").requestSubmit();
      }
    });
    byId("memory-form").addEventListener("submit", saveMemory);
  }

  function renderGuide(text) {
    // minimal formatting with textContent only: headings and paragraphs, code and lists kept as text
    const box = byId("guide");
    let para = [];
    let pre = null;
    const flush = () => {
      if (para.length) box.append(el("p", { text: para.join("\n") }));
      para = [];
    };
    for (const line of String(text || "").split("\n")) {
      if (line.startsWith("```")) {
        flush();
        if (pre === null) pre = [];
        else {
          box.append(el("pre", { class: "code", text: pre.join("\n") }));
          pre = null;
        }
        continue;
      }
      if (pre !== null) {
        pre.push(line);
        continue;
      }
      const h = /^(#{1,6})\s+(.*)$/.exec(line);
      if (h) {
        flush();
        box.append(el(`h${Math.min(6, h[1].length + 2)}`, { text: h[2] }));
      } else if (line.trim() === "") flush();
      else para.push(line);
    }
    if (pre !== null) box.append(el("pre", { class: "code", text: pre.join("\n") }));
    flush();
  }

  async function start() {
    if (!TOKEN) {
      setStatus("This page needs the game's token: open the URL that bizbench play printed (it ends in ?t=...).", "error");
      return;
    }
    setBusy(1);
    try {
      const g = await api("/api/game");
      if (!g || g.ok === false) {
        setStatus(`Cannot open the game: ${(g && g.error) || "no answer"}`, "error");
        return;
      }
      game = g;
      document.title = `${game.title}: bizbench play`;
      byId("title").textContent = game.title;
      byId("agent").textContent = `${game.env} · ${game.agent}`;
      buildTools();
      buildEndTurn();
      setupMemory();
      renderGuide(game.guide);
      byId("end-turn").addEventListener("click", endTurn);
      byId("stop").addEventListener("click", stopGame);
      document.addEventListener("keydown", (e) => {
        if (e.altKey && !e.ctrlKey && !e.metaKey && (e.code === "KeyN" || e.key === "n" || e.key === "N")) {
          e.preventDefault();
          endTurn();
        }
      });
      await refresh();
      document.body.dataset.ready = "1";
    } catch (e) {
      setStatus(`Cannot open the game: ${e.message}`, "error");
    } finally {
      setBusy(-1);
    }
  }

  document.addEventListener("DOMContentLoaded", start);
})();
