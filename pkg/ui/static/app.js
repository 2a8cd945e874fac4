// The live page's logic: list and watch Deployments, ReplicaSets and Pods
// of one namespace through the ordinary Kubernetes API, draw them as
// desired against actual, and show an object's history and the journal.
// Plain JavaScript with no dependencies, so the page needs no build step
// and nothing from the network.
"use strict";

(() => {
  const body = document.body;
  const namespace = body.dataset.namespace;
  const tokenRequired = body.dataset.tokenRequired === "true";
  const tokenKey = "miniapi-token";

  // The kinds the page follows: where each is served, and how the history
  // endpoint names its group ("core" for the core group).
  const kinds = {
    Deployment: { api: "/apis/apps/v1", group: "apps", resource: "deployments" },
    ReplicaSet: { api: "/apis/apps/v1", group: "apps", resource: "replicasets" },
    Pod: { api: "/api/v1", group: "core", resource: "pods" },
  };
  // objects[kind] maps a name to the object as last seen.
  const objects = { Deployment: new Map(), ReplicaSet: new Map(), Pod: new Map() };
  // selected is the object whose history is shown: {kind, name, rv}.
  let selected = null;
  let historySeq = 0;
  // stop ends every request of the current session (a new token restarts).
  let stop = new AbortController();

  const $ = (id) => document.getElementById(id);

  // el builds an element; text goes in as text, never as HTML, so nothing
  // an object holds can inject markup.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") e.className = v;
      else e.setAttribute(k, String(v));
    }
    for (const c of children) {
      if (c === undefined || c === null) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  // ---- the API, with the token when the server asks for one ----

  class Unauthorized extends Error {}

  async function api(path, signal) {
    const headers = { Accept: "application/json" };
    const token = sessionStorage.getItem(tokenKey);
    if (token) headers.Authorization = "Bearer " + token;
    const resp = await fetch(path, { headers, signal, cache: "no-store" });
    if (resp.status === 401) throw new Unauthorized("the server refused the token");
    return resp;
  }

  // lines calls onLine with each line of a streamed response body (the
  // watch API sends one JSON event a line) until the stream ends.
  async function lines(resp, onLine) {
    const reader = resp.body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += decoder.decode(value, { stream: true });
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line && onLine(line) === false) return;
        }
      }
    } finally {
      reader.cancel().catch(() => {}); // closes the stream when onLine stops or throws
    }
  }

  const sleep = (ms, signal) =>
    new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
    });

  // ---- list and watch, as an informer does ----

  const collection = (kind) => `${kinds[kind].api}/namespaces/${encodeURIComponent(namespace)}/${kinds[kind].resource}`;

  // relist replaces what the page knows of kind with a fresh list and
  // returns the list's resourceVersion, where the watch starts.
  async function relist(kind, signal) {
    const resp = await api(collection(kind), signal);
    if (!resp.ok) throw new Error(`listing ${kinds[kind].resource}: HTTP ${resp.status}`);
    const list = await resp.json();
    objects[kind] = new Map((list.items || []).map((o) => [o.metadata.name, o]));
    changed(kind);
    return list.metadata.resourceVersion;
  }

  // watchFrom applies the events after rv until the stream ends. It
  // returns the resourceVersion to resume from, or "" when the server no
  // longer has rv (410 Gone) and the page must list again.
  async function watchFrom(kind, rv, signal) {
    const q = `?watch=true&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}`;
    const resp = await api(collection(kind) + q, signal);
    if (resp.status === 410) return "";
    if (!resp.ok) throw new Error(`watching ${kinds[kind].resource}: HTTP ${resp.status}`);
    setStatus(kind, "");
    await lines(resp, (line) => {
      const ev = JSON.parse(line);
      const o = ev.object || {};
      if (ev.type === "ERROR") {
        if (o.code === 410) { rv = ""; return false; }
        throw new Error(o.message || "watch error");
      }
      rv = o.metadata.resourceVersion;
      if (ev.type === "BOOKMARK") return true;
      if (ev.type === "DELETED") objects[kind].delete(o.metadata.name);
      else objects[kind].set(o.metadata.name, o);
      changed(kind, o);
      return true;
    });
    return rv;
  }

  // follow keeps kind up to date for as long as the session lasts: a
  // watch that ends (the server's timeout, a restart) resumes from the
  // last resourceVersion seen; one that is too old lists again.
  async function follow(kind, signal) {
    let rv = "";
    let wait = 250;
    while (!signal.aborted) {
      try {
        if (!rv) rv = await relist(kind, signal);
        const began = Date.now();
        rv = await watchFrom(kind, rv, signal);
        // A watch that the server ends at once, again and again (it is
        // shutting down, a proxy cuts it), must not become a busy loop.
        if (Date.now() - began > 1000) wait = 250;
        else {
          await sleep(wait, signal);
          wait = Math.min(wait * 2, 5000);
        }
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof Unauthorized) return askToken(err.message);
        setStatus(kind, "reconnecting: " + err.message);
        await sleep(wait, signal);
        wait = Math.min(wait * 2, 5000);
      }
    }
  }

  // problems says, for each kind, why it is not live yet ("" once its
  // watch is open); the page says "live" only when every kind is.
  const problems = Object.fromEntries(Object.keys(kinds).map((k) => [k, "connecting"]));
  function setStatus(kind, problem) {
    problems[kind] = problem;
    const list = Object.entries(problems).filter(([, p]) => p).map(([k, p]) => `${k}: ${p}`);
    $("status").textContent = list.length ? list.join("; ") : "live";
    $("status").className = list.length ? "status behind" : "status live";
  }

  // ---- drawing ----

  let drawPending = false;
  // changed redraws soon: events arriving together are drawn once.
  function changed(kind, obj) {
    if (selected && obj && selected.kind === kind && selected.name === obj.metadata.name &&
        selected.rv !== obj.metadata.resourceVersion) {
      loadHistory(selected.kind, selected.name);
    }
    if (drawPending) return;
    drawPending = true;
    setTimeout(() => { drawPending = false; draw(); }, 30);
  }

  const byName = (a, b) => a.metadata.name.localeCompare(b.metadata.name);
  const controllerUID = (o) => ((o.metadata.ownerReferences || []).find((r) => r.controller) || {}).uid;
  function ownedBy(kind, owner) {
    return [...objects[kind].values()].filter((o) => controllerUID(o) === owner.metadata.uid).sort(byName);
  }

  // count is one "desired against actual" cell: amber while behind.
  function count(label, actual, desired) {
    const a = actual || 0;
    return el("span", { class: a === desired ? "count" : "count behind", "data-field": label },
      el("b", {}, a), "/", desired, " ", label);
  }

  function generation(o) {
    const g = o.metadata.generation || 0;
    const seen = (o.status || {}).observedGeneration || 0;
    return el("span", { class: g === seen ? "gen" : "gen behind", title: "generation / observedGeneration" },
      `generation ${g}, observed ${seen}`);
  }

  const isSelected = (kind, o) => selected && selected.kind === kind && selected.name === o.metadata.name;
  const nameButton = (kind, o, label) =>
    el("button", { type: "button", class: isSelected(kind, o) ? "obj selected" : "obj",
      "data-kind": kind, "data-name": o.metadata.name }, label);

  function drawPod(p) {
    const st = p.status || {};
    const ready = (st.conditions || []).some((c) => c.type === "Ready" && c.status === "True");
    const cs = st.containerStatuses || [];
    const containers = (p.spec.containers || []).length;
    return el("li", { class: "pod", "data-name": p.metadata.name, "data-phase": st.phase || "", "data-ready": ready },
      nameButton("Pod", p, "pod/" + p.metadata.name), " ",
      el("span", { class: "phase phase-" + (st.phase || "Unknown") }, st.phase || "Unknown"), " ",
      el("span", { class: ready ? "count" : "count behind" },
        `${cs.filter((c) => c.ready).length}/${containers} ready`),
      p.metadata.deletionTimestamp ? el("span", { class: "behind" }, " terminating") : null);
  }

  function drawReplicaSet(rs) {
    const st = rs.status || {};
    const desired = rs.spec.replicas ?? 1;
    const rev = (rs.metadata.annotations || {})["deployment.kubernetes.io/revision"];
    return el("li", { class: "replicaset", "data-name": rs.metadata.name, "data-ready": st.readyReplicas || 0 },
      el("div", { class: "line" },
        nameButton("ReplicaSet", rs, "rs/" + rs.metadata.name),
        rev ? el("span", { class: "sub" }, ` revision ${rev}`) : null, " ",
        count("current", st.replicas, desired), count("ready", st.readyReplicas, desired),
        count("available", st.availableReplicas, desired), generation(rs)),
      el("ul", { class: "pods" }, ...ownedBy("Pod", rs).map(drawPod)));
  }

  function drawDeployment(d) {
    const st = d.status || {};
    const desired = d.spec.replicas ?? 1;
    return el("article", { class: "deployment", "data-name": d.metadata.name, "data-replicas": desired,
      "data-ready": st.readyReplicas || 0, "data-updated": st.updatedReplicas || 0 },
      el("h2", {}, nameButton("Deployment", d, "deploy/" + d.metadata.name),
        el("span", { class: "sub" }, ` wants ${desired}`), d.spec.paused ? el("span", { class: "behind" }, " paused") : null),
      el("div", { class: "line" },
        count("current", st.replicas, desired), count("updated", st.updatedReplicas, desired),
        count("ready", st.readyReplicas, desired), count("available", st.availableReplicas, desired), generation(d)),
      el("ul", { class: "replicasets" }, ...ownedBy("ReplicaSet", d).map(drawReplicaSet)));
  }

  function draw() {
    const deployments = [...objects.Deployment.values()].sort(byName);
    $("deployments").replaceChildren(...deployments.map(drawDeployment));
    if (!deployments.length) $("deployments").append(el("p", { class: "sub" }, `No Deployments in ${namespace}.`));
    // What no Deployment owns is still shown, so that nothing is hidden.
    const owned = new Set([...objects.Deployment.values()].map((d) => d.metadata.uid));
    const rsUIDs = new Set([...objects.ReplicaSet.values()].map((r) => r.metadata.uid));
    const loneRS = [...objects.ReplicaSet.values()].filter((r) => !owned.has(controllerUID(r))).sort(byName);
    const lonePods = [...objects.Pod.values()].filter((p) => !rsUIDs.has(controllerUID(p))).sort(byName);
    $("others").replaceChildren();
    if (loneRS.length || lonePods.length) {
      $("others").append(el("article", { class: "deployment others" },
        el("h2", {}, "Not owned by a Deployment"),
        el("ul", { class: "replicasets" }, ...loneRS.map(drawReplicaSet)),
        el("ul", { class: "pods" }, ...lonePods.map(drawPod))));
    }
  }

  // clock shows a timestamp as the time of day: every row is recent.
  const clock = (t) => (t ? new Date(t).toLocaleTimeString([], { hour12: false }) : "");

  // ---- history of the clicked object ----

  async function loadHistory(kind, name) {
    const seq = ++historySeq;
    const obj = objects[kind].get(name);
    selected = { kind, name, rv: obj ? obj.metadata.resourceVersion : "" };
    changed(); // redraw, to mark the selected name
    $("history-title").textContent = `of ${kind.toLowerCase()}/${name}`;
    const k = kinds[kind];
    const path = `/miniapi/v1/history/${k.group}/v1/${k.resource}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
    let rows;
    try {
      const resp = await api(path, stop.signal);
      if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
      const items = (await resp.json()).items || [];
      // Newest first: the change just made is the one a learner looks for.
      rows = items.reverse().map((it) => el("tr", { class: "history-row", "data-revision": it.revision },
        el("td", {}, it.revision), el("td", { class: "nowrap" }, clock(it.time)),
        el("td", {}, it.manager, el("div", { class: "sub" }, [it.operation, it.subresource].filter(Boolean).join(" "))),
        el("td", {}, (it.changes || []).join(", "))));
    } catch (err) {
      if (err instanceof Unauthorized) return askToken(err.message);
      rows = [el("tr", {}, el("td", { colspan: 4, class: "error" }, "history unavailable: " + err.message))];
    }
    if (seq === historySeq) $("history-rows").replaceChildren(...rows);
  }

  // ---- the journal: the controllers' passes (GET /miniapi/v1/journal) ----

  // journalRow is the table row of one pass.
  function journalRow(p) {
    const o = p.object || {};
    return el("tr", { class: "journal-row" },
      el("td", { class: "nowrap" }, clock(p.time)), el("td", {}, p.controller || ""),
      el("td", {}, [o.kind, o.name].filter(Boolean).join("/")), el("td", {}, p.action || ""));
  }

  // addPass shows a pass at the top of the panel, which keeps the last 200.
  function addPass(p) {
    const rows = $("journal-rows");
    rows.prepend(journalRow(p));
    while (rows.children.length > 200) rows.lastChild.remove();
  }

  // followJournal shows the passes the journal keeps for the namespace,
  // then follows new ones, resuming after the last one shown when the
  // stream ends (passes carry a sequence number, so none is shown twice).
  async function followJournal(signal) {
    const base = `/miniapi/v1/journal?namespace=${encodeURIComponent(namespace)}`;
    let since = null; // the last pass shown; null: read what is kept first
    while (!signal.aborted) {
      try {
        if (since === null) {
          const resp = await api(base, signal);
          if (resp.status === 404 || resp.status === 503) {
            $("journal-status").textContent = "The journal is not available on this server.";
            return;
          }
          if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
          const kept = await resp.json();
          $("journal-rows").replaceChildren();
          (kept.items || []).slice(-200).forEach(addPass);
          since = kept.lastSeq;
        }
        const resp = await api(`${base}&watch=true&since=${since}`, signal);
        if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
        $("journal-status").textContent = "live";
        await lines(resp, (line) => {
          const ev = JSON.parse(line);
          if (ev.type === "ADDED" && ev.object) {
            since = ev.object.seq;
            addPass(ev.object);
          }
          return true;
        });
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof Unauthorized) return askToken(err.message);
        $("journal-status").textContent = "journal: " + err.message + "; reconnecting";
      }
      await sleep(2000, signal);
    }
  }

  // ---- namespaces, token, start ----

  async function loadNamespaces(signal) {
    try {
      const resp = await api("/api/v1/namespaces", signal);
      if (!resp.ok) return;
      const names = ((await resp.json()).items || []).map((n) => n.metadata.name).sort();
      if (!names.includes(namespace)) names.unshift(namespace);
      $("namespace").replaceChildren(...names.map((n) => el("option", n === namespace ? { selected: "" } : {}, n)));
    } catch (err) {
      if (err instanceof Unauthorized) askToken(err.message);
    }
  }

  function askToken(message) {
    stop.abort();
    sessionStorage.removeItem(tokenKey);
    $("status").textContent = "needs a token";
    $("token-error").textContent = message || "";
    $("token-form").hidden = false;
    $("token").focus();
  }

  function start() {
    stop.abort();
    stop = new AbortController();
    $("token-form").hidden = true;
    for (const kind of Object.keys(kinds)) follow(kind, stop.signal);
    followJournal(stop.signal);
    loadNamespaces(stop.signal);
  }

  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(tokenKey, $("token").value.trim());
    $("token").value = "";
    start();
  });
  $("namespace").addEventListener("change", () => $("namespace-form").submit());
  document.addEventListener("click", (ev) => {
    const b = ev.target.closest("button.obj");
    if (b) loadHistory(b.dataset.kind, b.dataset.name);
  });

  if (tokenRequired && !sessionStorage.getItem(tokenKey)) askToken("");
  else start();
})();
