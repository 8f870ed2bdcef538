// Ordinal's rollout dashboard: a list of sets and one page per set, kept
// current by server-sent events. Plain DOM, no dependencies. Text from the
// cluster is only ever set with textContent.
"use strict";

const csrf = document.querySelector('meta[name="ordinal-csrf"]').content;
const readOnly = document.querySelector('meta[name="ordinal-read-only"]').content === "true";
const main = document.getElementById("main");
let source = null;   // the open EventSource
let page = null;     // the current page's update function

// el builds an element: el("td", {class: "x"}, "text", child…).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v; // CSSOM, allowed by the page's CSP
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function setConn(state, text) {
  const c = document.getElementById("conn");
  c.dataset.state = state;
  c.textContent = text;
}

// watch opens the event stream of a page; each message replaces its state.
function watch(url, onState) {
  if (source) source.close();
  setConn("connecting", "connecting…");
  source = new EventSource(url);
  source.onopen = () => setConn("live", "live");
  source.onerror = () => setConn("lost", "reconnecting…");
  source.onmessage = (m) => {
    const t0 = performance.now();
    onState(JSON.parse(m.data));
    // Each update's cost, and its send time (the event id), for DevTools and measurements.
    performance.measure("ordinal-apply", {start: t0, detail: Number(m.lastEventId) || 0});
    if (performance.getEntriesByName("ordinal-apply").length > 5000) performance.clearMeasures("ordinal-apply");
  };
}

function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if (parts[0] === "set" && parts.length === 4) {
    setPage(parts[1], parts[2], parts[3]);
  } else {
    listPage();
  }
}

// ---- the list of sets ----

function listPage() {
  document.getElementById("crumbs").textContent = "";
  const body = el("tbody");
  const empty = el("p", {class: "muted"}, "No StatefulSets yet.");
  main.replaceChildren(el("h1", {}, "StatefulSets"),
    el("section", {class: "card"}, el("table", {id: "sets"},
      el("thead", {}, el("tr", {}, ...["namespace", "name", "health", "progress", "updated", "ready", "revision", "status"].map((h) => el("th", {}, h)))),
      body), empty));
  watch("/api/watch/sets", (sets) => {
    empty.hidden = sets.length > 0;
    body.replaceChildren(...sets.map(listRow));
  });
}

function setHref(s) {
  return "#/set/" + [s.kind, s.namespace, s.name].map(encodeURIComponent).join("/");
}

function listRow(s) {
  const rev = s.currentRevision === s.updateRevision ? s.updateRevision : s.currentRevision + " → " + s.updateRevision;
  return el("tr", {class: "row", "data-set": s.namespace + "/" + s.name, onclick: () => { location.hash = setHref(s); }},
    el("td", {}, s.namespace),
    el("td", {}, el("a", {href: setHref(s)}, s.name), " ", el("span", {class: "muted"}, s.kind === "statefulsets.apps" ? "" : s.kind)),
    el("td", {}, el("span", {class: "badge " + s.health}, s.health)),
    el("td", {}, bar(s)),
    el("td", {}, s.updated + "/" + s.replicas),
    el("td", {}, s.ready + "/" + s.replicas),
    el("td", {class: "mono"}, rev || "–"),
    el("td", {}, s.failure || s.message));
}

// bar draws the share of cells in each state.
function bar(s) {
  const total = Math.max(s.replicas, 1);
  const b = el("div", {class: "bar", title: Object.entries(s.states).map(([k, v]) => v + " " + k).join(", ")});
  for (const [state, cls] of [["Ready", "ready"], ["starting", "starting"], ["failing", "failing"], ["terminating", "terminating"]]) {
    const n = s.states[state] || 0;
    if (n) b.append(el("span", {class: cls, style: "width:" + (100 * n / total) + "%"}));
  }
  return b;
}

// ---- one set ----

function setPage(kind, ns, name) {
  document.getElementById("crumbs").textContent = "/ " + ns + " / " + name;
  const v = {
    title: el("h1", {}, name),
    summary: el("div", {class: "summary"}),
    actions: el("div", {class: "actions"}),
    error: el("div", {class: "error-box", hidden: ""}),
    partition: el("div", {class: "partition"}),
    legend: el("div", {class: "legend"}),
    grid: el("div", {class: "grid", id: "grid"}),
    moreMissing: el("p", {class: "muted", id: "more-missing", hidden: ""}),
    failures: el("ul", {class: "failures"}),
    extended: el("section", {class: "card", id: "extended", hidden: ""}),
    plan: el("pre", {id: "plan"}),
    history: el("tbody"),
    diff: el("pre", {class: "diff", id: "diff"}),
    claims: el("tbody"),
    claimsCount: el("span", {class: "muted"}),
    events: el("ul", {class: "timeline", id: "events"}),
    ref: {kind, ns, name},
    deletePod: false, // whether a click on a pod's cell offers to delete it
    cells: new Map(),
    keys: {},
    eventsAt: 0,
    last: null,
  };
  const diffButton = el("button", {id: "diff-button", onclick: () => showDiff(kind, ns, name, v)}, "Diff selected revisions");
  main.replaceChildren(v.title, v.summary, v.actions, v.error,
    el("section", {class: "card"}, el("h2", {}, "Pods by ordinal"), v.partition, v.legend, v.grid, v.moreMissing, v.failures),
    v.extended,
    el("div", {class: "cols"},
      el("section", {class: "card"}, el("h2", {}, "What happens next"), v.plan),
      el("section", {class: "card"}, el("h2", {}, "Revisions"),
        el("table", {}, el("thead", {}, el("tr", {}, ...["A", "B", "#", "name", "ordinals", "role", "change-cause"].map((h) => el("th", {}, h)))), v.history),
        el("p", {}, diffButton), v.diff)),
    el("section", {class: "card"}, el("details", {id: "claims"}, el("summary", {}, el("strong", {}, "Claims "), v.claimsCount),
      el("table", {}, el("thead", {}, el("tr", {}, ...["ordinal", "claim", "phase", "requested", "capacity", "class", "storage"].map((h) => el("th", {}, h)))), v.claims))),
    el("section", {class: "card"}, el("h2", {}, "Events"), v.events));
  watch("/api/watch/sets/" + [kind, ns, name].map(encodeURIComponent).join("/"), (d) => renderSet(kind, ns, name, v, d));
}

function renderSet(kind, ns, name, v, d) {
  if (d.error) {
    v.error.hidden = false;
    v.error.textContent = d.error;
    return;
  }
  v.error.hidden = true;
  const s = d.summary, st = d.status;
  const colours = new Map(d.revisions.map((r) => [r.name, r.colour]));
  if (changed(v, "summary", [s, st.strategy, st.podManagementPolicy])) {
    v.summary.replaceChildren(
      el("span", {class: "badge " + s.health, id: "health"}, s.health),
      el("span", {}, st.strategy + ", " + (st.podManagementPolicy || "OrderedReady")),
      el("span", {id: "counts"}, s.updated + "/" + s.replicas + " updated, " + s.ready + "/" + s.replicas + " ready"),
      el("span", {class: "muted", id: "message"}, s.failure || s.message));
  }
  renderActions(kind, ns, name, v, d);
  if (changed(v, "partition", d.partitionLine)) v.partition.textContent = d.partitionLine || "";
  if (changed(v, "legend", d.revisions)) v.legend.replaceChildren(...legend(d, st));
  renderGrid(v, st, colours);
  // The status lists at most a hundred ordinals without a pod and counts
  // the rest, so a set of a million replicas is not a million cells.
  v.moreMissing.hidden = !st.moreMissing;
  v.moreMissing.textContent = st.moreMissing ? "… and " + st.moreMissing + " more ordinals without a pod" : "";
  const failing = st.pods.filter((c) => c.state === "failing").slice(0, 20);
  if (changed(v, "failures", failing)) v.failures.replaceChildren(...failing.map((c) => el("li", {}, c.pod + ": " + c.reason)));
  if (changed(v, "extended", st.extended)) renderExtended(v, st.extended);
  if (changed(v, "plan", [d.plan, d.planError])) v.plan.textContent = d.planError ? "cannot plan: " + d.planError : d.plan;
  if (changed(v, "history", d.revisions)) renderHistory(v, d);
  if (changed(v, "claims", d.claims)) renderClaims(v, d.claims);
  // Events are redrawn when they change, and every few seconds for their ages.
  if (changed(v, "events", d.events) || Date.now() - v.eventsAt > 5000) {
    v.eventsAt = Date.now();
    v.events.replaceChildren(...d.events.map(eventRow));
  }
}

// renderExtended shows what an extended set adds: its rollout settings,
// the controller's conditions and the pods the rollout is blocked by.
function renderExtended(v, x) {
  v.extended.hidden = !x;
  if (!x) return;
  const settings = [x.paused ? "paused" : "not paused", "self-healing " + x.selfHealing,
    "on failure " + x.onFailure, "progress deadline " + x.progressDeadlineSeconds + "s"];
  if (x.lastCompletedRevision) settings.push("last completed " + x.lastCompletedRevision);
  const rows = x.conditions.map((c) => el("tr", {"data-type": c.type},
    el("td", {}, c.type), el("td", {class: "cond " + c.status}, c.status), el("td", {}, c.reason), el("td", {}, c.message || "")));
  const blocked = x.blockedBy.map((b) => el("li", {"data-pod": b.pod},
    b.pod + (b.revision ? " (revision " + b.revision + ")" : "") + ": " + b.reason + (b.permanent ? ", permanent" : "") + (b.message ? ": " + b.message : "")));
  const parts = [el("h2", {}, "Conditions"), el("p", {class: "muted", id: "rollout-settings"}, settings.join(" · ")),
    el("table", {id: "conditions"}, el("thead", {}, el("tr", {}, ...["type", "status", "reason", "message"].map((h) => el("th", {}, h)))), el("tbody", {}, ...rows))];
  if (blocked.length) parts.push(el("h3", {}, "Blocked by"), el("ul", {class: "failures", id: "blocked"}, ...blocked));
  if (x.hold) {
    const what = x.hold.action === "RolledBack"
      ? "revision " + x.hold.failedRevision + " failed and is held: the set runs " + x.hold.revision + " again, the spec is unchanged"
      : "revision " + x.hold.failedRevision + " failed and is held where it is, at " + x.hold.revision + "; the spec is unchanged";
    parts.push(el("p", {id: "hold"}, "Held (" + x.hold.action + "): " + what + (x.hold.reason ? " — " + x.hold.reason : "") + ". To go on: " + x.hold.next + "."));
  }
  if (x.rollback) parts.push(el("p", {id: "rollback"}, "last rollback from " + x.rollback.from + " to " + x.rollback.to + (x.rollback.reason ? ": " + x.rollback.reason : "")));
  v.extended.replaceChildren(...parts);
}

// changed remembers a part's last data and says whether it differs, so
// an update touches only the parts of the page that changed.
function changed(v, part, data) {
  const key = JSON.stringify(data);
  if (v.keys[part] === key) return false;
  v.keys[part] = key;
  return true;
}

function legend(d, st) {
  const out = d.revisions.filter((r) => r.ordinals.length || r.current || r.update || r.held).map((r) =>
    el("span", {}, el("span", {class: "sw", style: "background:var(--r" + r.colour + ")"}),
      "#" + r.revision + " " + r.name + (r.update ? " (update)" : r.current ? " (current)" : r.held ? " (held)" : "")));
  for (const [state, title] of [["starting", "starting"], ["failing", "failing"], ["terminating", "terminating"], ["missing", "missing"], ["reserved", "reserved"]]) {
    out.push(el("span", {}, el("span", {class: "sw cell r0 " + state, style: "width:12px;height:12px;display:inline-block"}), title));
  }
  return out;
}

// renderGrid updates only the cells whose revision or state changed, so
// a 1000-pod set costs one comparison per cell per update.
function renderGrid(v, st, colours) {
  const small = st.pods.length > 120;
  v.grid.classList.toggle("small", small);
  const edge = st.partition !== undefined && st.partition > 0 && st.partition < st.replicas ? st.startOrdinal + st.partition : -1;
  const want = st.pods.map((c) => c.ordinal).join(",");
  if (v.last !== want) {
    v.cells.clear();
    v.grid.replaceChildren(...st.pods.map((c) => {
      const e = el("div", {class: "cell", "data-ordinal": c.ordinal, onclick: () => cellClicked(v, e)}, String(c.ordinal));
      v.cells.set(c.ordinal, e);
      return e;
    }));
    v.last = want;
  }
  for (const c of st.pods) {
    const e = v.cells.get(c.ordinal);
    const colour = colours.has(c.revision) ? "r" + colours.get(c.revision) : "rn";
    const held = edge >= 0 && c.ordinal < edge;
    const deletable = v.deletePod && hasPod(c);
    const key = colour + " " + c.state + (c.ordinal === edge ? " edge" : "") + (held ? " held" : "") + (deletable ? " deletable" : "") + (c.group ? " override" : "") + (c.roleProbe ? " probe-failing" : "");
    if (e._key === key && e._reason === c.reason && e._rev === c.revision && e._role === c.role && e._group === c.group && e._probe === c.roleProbe) continue;
    e._key = key; e._reason = c.reason; e._rev = c.revision; e._pod = c.pod; e._role = c.role; e._group = c.group; e._probe = c.roleProbe;
    // A pod's role (spec.roles) is written under its ordinal, cut to what
    // a cell holds; the title has it whole.
    e.textContent = String(c.ordinal) + (c.role ? "\n" + c.role.slice(0, 4) : "");
    e.dataset.role = c.role || "";
    e.className = "cell " + key;
    e.dataset.revision = c.revision || "";
    e.dataset.state = c.state;
    e.dataset.group = c.group || "";
    e.title = c.pod + (c.role ? "\nrole " + c.role : "") + "\nrevision " + (c.revision || "none") + "\n" + c.state + (c.reason ? ": " + c.reason : "") + (held ? "\nheld by the partition" : "") +
      (c.group ? "\noverride " + c.group : "") + (c.roleProbe ? "\n" + c.roleProbe : "") +
      (deletable ? "\nclick to delete this pod" : "");
  }
}

// hasPod says whether a cell stands for a pod that can still be deleted.
function hasPod(c) {
  return c.state !== "missing" && c.state !== "reserved" && c.state !== "terminating";
}

// cellClicked offers to delete the cell's pod, on sets whose kind has it.
function cellClicked(v, e) {
  if (!e.classList.contains("deletable")) return;
  const {kind, ns, name} = v.ref;
  const details = el("span", {class: "mono"}, e._pod + ", revision " + (e._rev || "none") + ", " + e.dataset.state + (e._reason ? ": " + e._reason : ""));
  confirmAction(kind, ns, name, "pods/" + e.dataset.ordinal + "/delete", "Delete pod " + ns + "/" + e._pod + "?",
    "The pod is labelled apps.ordinal.dev/delete-requested=true; the controller deletes it and creates it again, with the same name and claims, " +
    "within rollingUpdate.maxUnavailable: if other pods are unavailable it waits for them. No other pod is touched.", details);
}

function renderHistory(v, d) {
  const picked = [...v.history.querySelectorAll("input:checked")].map((i) => i.name + i.value);
  v.history.replaceChildren(...d.revisions.slice().reverse().map((r) => el("tr", {},
    el("td", {}, radio("a", r.revision, picked)),
    el("td", {}, radio("b", r.revision, picked)),
    el("td", {}, r.revision),
    el("td", {class: "mono"}, el("span", {class: "sw", style: "background:var(--r" + r.colour + ")"}), r.name),
    el("td", {}, compact(r.ordinals) || "–"),
    el("td", {}, [r.current ? "current" : "", r.update ? "update" : ""].filter(Boolean).join(", ") || "–"),
    el("td", {}, r.changeCause || ""))));
  const revs = d.revisions;
  if (!picked.length && revs.length > 1) {
    check(v.history, "a", revs[revs.length - 2].revision);
    check(v.history, "b", revs[revs.length - 1].revision);
  }
}

function radio(group, revision, picked) {
  const r = el("input", {type: "radio", name: group, value: String(revision)});
  r.checked = picked.includes(group + revision);
  return r;
}

function check(root, group, revision) {
  const r = root.querySelector('input[name="' + group + '"][value="' + revision + '"]');
  if (r) r.checked = true;
}

// compact writes sorted ordinals as 0-2,5.
function compact(ords) {
  const parts = [];
  for (let i = 0; i < ords.length;) {
    let j = i;
    while (j + 1 < ords.length && ords[j + 1] === ords[j] + 1) j++;
    parts.push(i === j ? String(ords[i]) : ords[i] + "-" + ords[j]);
    i = j + 1;
  }
  return parts.join(",");
}

async function showDiff(kind, ns, name, v) {
  const a = v.history.querySelector('input[name="a"]:checked');
  const b = v.history.querySelector('input[name="b"]:checked');
  if (!a || !b) {
    toast("Pick two revisions: one in column A, one in column B.", true);
    return;
  }
  const url = "/api/sets/" + [kind, ns, name].map(encodeURIComponent).join("/") + "/diff?a=" + a.value + "&b=" + b.value;
  const resp = await fetch(url);
  const body = await resp.json();
  if (!resp.ok) {
    toast(body.error, true);
    return;
  }
  if (body.same) {
    v.diff.textContent = "revisions " + a.value + " and " + b.value + " have the same pod template";
    return;
  }
  v.diff.replaceChildren(...body.text.split("\n").map((line) => {
    const cls = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
    return el("span", {class: cls}, line + "\n");
  }));
}

function renderClaims(v, claims) {
  v.claimsCount.textContent = claims.length ? "(" + claims.length + ")" : "(the set has no volume claim templates)";
  v.claims.replaceChildren(...claims.map((c) => el("tr", {},
    el("td", {}, c.ordinal), el("td", {class: "mono"}, c.name), el("td", {}, c.phase),
    el("td", {}, c.requested || "–"), el("td", {}, c.capacity || "–"), el("td", {}, c.storageClass || "–"),
    el("td", {}, c.progress))));
}

function eventRow(e) {
  const t = new Date(e.time);
  return el("li", {},
    el("span", {class: "muted", title: t.toISOString()}, ago(t)),
    el("span", {class: e.type}, e.type),
    el("span", {}, e.reason + (e.count > 1 ? " ×" + e.count : "")),
    el("span", {}, el("span", {class: "mono"}, e.object), " " + e.message));
}

function ago(t) {
  const s = Math.max(0, Math.round((Date.now() - t.getTime()) / 1000));
  if (s < 120) return s + "s ago";
  if (s < 7200) return Math.round(s / 60) + "m ago";
  return Math.round(s / 3600) + "h ago";
}

// ---- actions ----

function renderActions(kind, ns, name, v, d) {
  if (readOnly) {
    v.actions.hidden = true;
    return;
  }
  const a = d.actions, ref = ns + "/" + name;
  v.deletePod = !!a.deletePod;
  // An extended set has a field for the pause; apps/v1 needs the partition.
  const field = !!d.status.extended;
  const buttons = [];
  if (a.pause) buttons.push(el("button", {id: "pause", onclick: () => confirmAction(kind, ns, name, "pause",
    "Pause " + ref + "?", field
      ? "spec.updateStrategy.rollingUpdate.paused is set: no further pod is updated until Resume; pods already updated stay updated, scaling still works."
      : "The partition is raised so that no further pod is replaced; pods already updated stay updated. Resume restores the partition.")}, "Pause"));
  const hold = field && d.status.extended.hold;
  if (a.resume) buttons.push(el("button", {id: "resume", onclick: () => confirmAction(kind, ns, name, "resume",
    "Resume " + ref + "?", hold
      ? "The hold of revision " + hold.failedRevision + " is released (annotation apps.ordinal.dev/release-hold): it rolls out again, and a new failure makes a new hold. The spec is not changed."
      : field
      ? "spec.updateStrategy.rollingUpdate.paused is cleared and the rollout continues."
      : "The partition saved by pause is restored and the rollout continues.")}, "Resume"));
  if (a.undo) buttons.push(el("button", {id: "undo", onclick: () => confirmUndo(kind, ns, name, d)}, "Undo…"));
  if (a.restart) buttons.push(el("button", {id: "restart", class: "danger", onclick: () => confirmAction(kind, ns, name, "restart",
    "Restart " + ref + "?", "The pod template is stamped with the time, a new revision: every pod is replaced under the set's strategy.")}, "Restart"));
  const sig = buttons.map((b) => b.id).join(",");
  if (v.actionsKey === sig) return;
  v.actionsKey = sig;
  v.actions.replaceChildren(...buttons);
}

function confirmUndo(kind, ns, name, d) {
  const choices = d.revisions.filter((r) => r.name !== d.status.updateRevision).reverse();
  const select = el("select", {id: "undo-revision"}, ...choices.map((r) =>
    el("option", {value: String(r.revision)}, "#" + r.revision + " " + r.name + (r.changeCause ? " — " + r.changeCause : ""))));
  confirmAction(kind, ns, name, "undo", "Roll back " + ns + "/" + name + "?",
    "The pod template goes back to the chosen revision, as kubectl rollout undo does.",
    el("label", {}, "Revision: ", select), () => ({revision: Number(select.value)}));
}

function confirmAction(kind, ns, name, action, title, text, extra, body) {
  const dlg = document.getElementById("confirm");
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm-extra").replaceChildren(...(extra ? [extra] : []));
  dlg.onclose = () => {
    if (dlg.returnValue === "ok") post(kind, ns, name, action, body ? body() : {});
  };
  dlg.returnValue = "";
  dlg.showModal();
}

async function post(kind, ns, name, action, body) {
  const url = "/api/sets/" + [kind, ns, name].map(encodeURIComponent).join("/") + "/" + action;
  try {
    const resp = await fetch(url, {
      method: "POST",
      headers: {"Content-Type": "application/json", "X-Ordinal-CSRF": csrf},
      body: JSON.stringify(body),
    });
    const out = await resp.json();
    toast(resp.ok ? out.message : out.error, !resp.ok);
  } catch (err) {
    toast(String(err), true);
  }
}

let toastTimer = null;
function toast(text, error) {
  const t = document.getElementById("toast");
  t.textContent = text;
  t.className = "show" + (error ? " error" : "");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = ""; }, 6000);
}

window.addEventListener("hashchange", route);
route();
