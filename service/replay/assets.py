"""The replay page's stylesheet and script, inlined into every page (no file, no network).

The script reads the page's JSON (``#replay-data``: one entry per step with the view,
its generic table and the event line) and draws the table of the current step; the
slider, the previous/next buttons, the arrow keys and a click on an event move between
steps, and ``#step=N`` in the address opens the page at step N.
"""

from __future__ import annotations

CSS = """
:root { --felt: #1f6b45; --felt-dark: #17553a; --ink: #1d232a; --muted: #66707a; --accent: #f0b429; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
  background: #eef1f4; }
header { position: sticky; top: 0; z-index: 2; background: #fff; border-bottom: 1px solid #d6dbe0;
  padding: 10px 16px; }
h1 { font-size: 18px; margin: 0; }
h2 { font-size: 14px; margin: 0 0 6px; color: var(--muted); text-transform: uppercase; letter-spacing: .05em; }
.sub { color: var(--muted); font-size: 12px; }
.controls { display: flex; align-items: center; gap: 8px; margin-top: 8px; }
.controls button { font: inherit; padding: 4px 12px; border: 1px solid #b8c0c8; border-radius: 6px;
  background: #f7f9fa; cursor: pointer; }
.controls button:hover { background: #e8edf1; }
.controls button:disabled { opacity: .45; cursor: default; }
#slider { flex: 1; accent-color: var(--felt); }
#position { min-width: 9em; text-align: right; font-variant-numeric: tabular-nums; }
#current-event { margin-top: 6px; font-weight: 600; min-height: 1.4em; }
#current-event .actor, #events .actor { color: #9a6700; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 360px; gap: 14px; padding: 14px 16px; }
.felt { background: radial-gradient(circle at 50% 40%, var(--felt), var(--felt-dark)); border-radius: 14px;
  padding: 12px; color: #f3f6f4; box-shadow: inset 0 0 0 3px #0f3d29; }
.seats { display: flex; flex-wrap: wrap; gap: 10px; justify-content: center; }
.seat { background: rgba(0, 0, 0, .22); border-radius: 10px; padding: 6px 10px; min-width: 150px;
  border: 2px solid transparent; }
.others .seat { flex: 1 1 0; min-width: 170px; max-width: 340px; }
.seat.to-act { border-color: var(--accent); box-shadow: 0 0 10px rgba(240, 180, 41, .6); }
.seat.you { background: rgba(255, 255, 255, .14); }
.seat-name { font-weight: 700; margin-right: 6px; }
.badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; background: #0c2f20;
  margin-right: 4px; }
.badge.to-act { background: var(--accent); color: #222; }
.badge.you { background: #fff; color: var(--felt-dark); }
.seat-facts, .note { font-size: 12px; opacity: .85; }
.areas { display: flex; flex-wrap: wrap; gap: 10px; justify-content: center; margin: 14px 0; }
.area { background: rgba(0, 0, 0, .16); border-radius: 10px; padding: 6px 10px; max-width: 100%; }
.label { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; opacity: .8; }
.group { display: inline-block; vertical-align: top; margin: 2px 10px 2px 0; }
.caption { font-size: 11px; opacity: .85; }
.cards { display: flex; flex-wrap: wrap; gap: 3px; align-items: center; min-height: 2.9em; }
.part { width: 6px; }
.empty { font-size: 12px; opacity: .6; font-style: italic; }
.card { display: inline-flex; flex-direction: column; align-items: center; justify-content: center;
  width: 2.2em; height: 3em; border-radius: 5px; background: #fff; border: 1px solid #9aa3ab;
  box-shadow: 0 1px 2px rgba(0, 0, 0, .35); font-weight: 700; line-height: 1.05; }
.card .suit { font-size: 1.15em; }
.card.red { color: #c8102e; }
.card.black { color: #111; }
.card.joker { color: #6b2fa3; font-size: 12px; }
.card.joker .as { font-size: 10px; }
.card.back { background: repeating-linear-gradient(45deg, #2b4c9a 0 4px, #3b62c0 4px 8px); border-color: #e8ecf5; }
.cards.hidden { gap: 0; }
.cards.hidden .card.back + .card.back { margin-left: -1.65em; }
.extra { margin-top: 2px; }
.extra .label { display: inline-block; margin-right: 6px; }
.extra .group { display: inline-block; margin: 0; }
.extra .cards { min-height: 0; }
.extra .cards .card { width: 1.75em; height: 2.4em; font-size: 11px; }
.more { font-size: 12px; margin-left: 4px; }
.count { font-size: 12px; opacity: .85; margin-left: 6px; }
.facts { display: flex; flex-wrap: wrap; gap: 6px 14px; margin: 12px 2px 0; padding: 0; }
.facts div { background: #fff; border: 1px solid #d6dbe0; border-radius: 6px; padding: 2px 8px; }
.facts dt { display: inline; color: var(--muted); margin-right: 4px; }
.facts dd { display: inline; margin: 0; font-weight: 600; }
#table-text { background: #fff; border: 1px solid #d6dbe0; border-radius: 8px; padding: 8px 10px;
  white-space: pre-wrap; font: 12px/1.45 ui-monospace, Menlo, Consolas, monospace; }
details { margin-top: 10px; }
details pre { max-height: 300px; overflow: auto; background: #fff; border: 1px solid #d6dbe0; padding: 8px;
  font-size: 11px; }
aside { background: #fff; border: 1px solid #d6dbe0; border-radius: 10px; padding: 10px; }
#events { list-style: none; margin: 0; padding: 0; max-height: calc(100vh - 190px); overflow-y: auto; }
#events li { padding: 3px 6px; border-radius: 5px; cursor: pointer; display: flex; gap: 6px; }
#events li:hover { background: #eef3f7; }
#events li.quiet { color: var(--muted); }
#events li.current { background: #fff3cd; outline: 1px solid var(--accent); }
#events .actor { min-width: .8em; }
#current-event .actor { margin-right: 6px; }
#events .seq { color: var(--muted); min-width: 2.8em; text-align: right; font-variant-numeric: tabular-nums; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } #events { max-height: 320px; } }
"""

JS = r"""
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const steps = data.steps;
  const last = steps.length - 1;
  const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  const QUIET = new Set(["match_seeded", "shuffled", "header"]);
  const MAX_BACKS = 13;
  const byId = (id) => document.getElementById(id);
  const slider = byId("slider");
  const list = byId("events");
  let current = -1;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function face(code) {
    return code.slice(0, -1) + (SUITS[code.slice(-1)] || code.slice(-1));
  }

  function card(code) {
    const box = el("span", "card");
    box.title = code;
    if (code.startsWith("JK")) {
      box.classList.add("joker");
      box.append(el("span", "rank", "JK"));
      if (code.length > 3) box.append(el("span", "as", "=" + face(code.slice(3))));
      return box;
    }
    const suit = code.slice(-1);
    box.classList.add(suit === "H" || suit === "D" ? "red" : "black");
    box.append(el("span", "rank", code.slice(0, -1)), el("span", "suit", SUITS[suit] || suit));
    return box;
  }

  function backs(count) {
    const row = el("div", "cards hidden");
    for (let i = 0; i < Math.min(count, MAX_BACKS); i++) row.append(el("span", "card back"));
    if (count > MAX_BACKS) row.append(el("span", "more", "+" + (count - MAX_BACKS)));
    row.append(el("span", "count", count + (count === 1 ? " card" : " cards")));
    return row;
  }

  function cardRow(cards, parts) {
    const row = el("div", "cards");
    if (!cards.length) {
      row.append(el("span", "empty", "empty"));
      return row;
    }
    const ends = new Set();
    let total = 0;
    (parts || []).slice(0, -1).forEach((length) => { total += length; ends.add(total); });
    cards.forEach((code, index) => {
      if (ends.has(index)) row.append(el("span", "part"));
      row.append(card(code));
    });
    return row;
  }

  function area(item, cls) {
    const box = el("div", cls || "area");
    box.append(el("div", "label", item.label));
    if (!item.groups.length) box.append(el("div", "empty", "none"));
    item.groups.forEach((group) => {
      const node = el("div", "group");
      if (group.caption) node.append(el("div", "caption", group.caption));
      node.append(cardRow(group.cards, group.parts));
      box.append(node);
    });
    return box;
  }

  function seatBox(seat) {
    const toAct = seat.badges.includes("to act");
    const box = el("div", "seat" + (seat.you ? " you" : "") + (toAct ? " to-act" : ""));
    box.dataset.seat = seat.seat;
    const head = el("div");
    head.append(el("span", "seat-name", "Seat " + seat.seat));
    if (seat.you) head.append(el("span", "badge you", "you"));
    seat.badges.forEach((badge) => head.append(el("span", "badge" + (badge === "to act" ? " to-act" : ""), badge)));
    box.append(head);
    let hand;
    if (seat.cards) hand = cardRow(seat.cards, []);
    else if (seat.note) hand = el("div", "note", seat.note);
    else hand = backs(seat.count);
    hand.classList.add("hand");
    box.append(hand);
    seat.extras.forEach((extra) => box.append(area(extra, "extra")));
    if (seat.facts.length) {
      box.append(el("div", "seat-facts", seat.facts.map(([label, value]) => label + " " + value).join(" \u00b7 ")));
    }
    return box;
  }

  function drawTable(step) {
    const table = step.table;
    const felt = el("div", "felt");
    const others = el("div", "seats others");
    const mine = el("div", "seats mine");
    table.seats.forEach((seat) => (seat.you ? mine : others).append(seatBox(seat)));
    const areas = el("div", "areas");
    table.areas.forEach((item) => areas.append(area(item)));
    felt.append(others, areas);
    if (mine.childElementCount) felt.append(mine);
    const facts = el("dl", "facts");
    table.facts.forEach(([label, value]) => {
      const pair = el("div");
      pair.append(el("dt", "", label), el("dd", "", value));
      facts.append(pair);
    });
    byId("table").replaceChildren(felt, facts);
    const text = byId("table-text");
    text.hidden = step.text === null;
    text.textContent = step.text || "";
    byId("view-json").textContent = JSON.stringify(step.view, null, 1);
  }

  function eventLine(step, node) {
    const mark = el("span", "actor", step.actor !== null ? "\u25b8" : "");
    if (step.actor !== null) mark.title = "a command of seat " + step.actor;
    node.append(mark);
    node.append(el("span", "line", step.line));
    return node;
  }

  function buildList() {
    steps.forEach((step, index) => {
      const item = el("li", QUIET.has(step.kind) ? "quiet" : "");
      item.dataset.step = index;
      item.append(el("span", "seq", String(step.seq)));
      eventLine(step, item);
      list.append(item);
    });
    list.addEventListener("click", (event) => {
      const item = event.target.closest("li");
      if (item) show(Number(item.dataset.step));
    });
  }

  function show(index) {
    index = Math.max(0, Math.min(last, Number.isFinite(index) ? Math.trunc(index) : 0));
    if (index === current) return;
    const previous = list.children[current];
    if (previous) { previous.classList.remove("current"); previous.removeAttribute("aria-current"); }
    current = index;
    const step = steps[index];
    slider.value = String(index);
    byId("step-no").textContent = String(step.seq);
    byId("prev").disabled = index === 0;
    byId("next").disabled = index === last;
    const now = byId("current-event");
    now.replaceChildren();
    eventLine(step, now);
    drawTable(step);
    const item = list.children[index];
    item.classList.add("current");
    item.setAttribute("aria-current", "step");
    item.scrollIntoView({ block: "nearest" });
    try { history.replaceState(null, "", "#step=" + step.seq); } catch (error) { /* a page without history */ }
    document.body.dataset.step = String(index);
  }

  function fromHash() {
    const match = /step=(\d+)/.exec(location.hash);
    return match ? Number(match[1]) : null;
  }

  byId("prev").addEventListener("click", () => show(current - 1));
  byId("next").addEventListener("click", () => show(current + 1));
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.target === slider || event.altKey || event.ctrlKey || event.metaKey) return;
    const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, PageDown: 10, PageUp: -10 };
    if (event.key in moves) show(current + moves[event.key]);
    else if (event.key === "Home") show(0);
    else if (event.key === "End") show(last);
    else return;
    event.preventDefault();
  });
  window.addEventListener("hashchange", () => {
    const wanted = fromHash();
    if (wanted !== null) show(wanted);
  });
  slider.max = String(last);
  buildList();
  const wanted = fromHash();
  show(wanted !== null ? wanted : data.start);
  document.body.dataset.ready = "true";
})();
"""
