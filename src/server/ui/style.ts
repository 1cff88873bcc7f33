/**
 * The Workbench's one stylesheet, served at `/ui/style.css`. Plain CSS: system fonts, a readable
 * measure, tables that fold into stacked rows under 640 px (a phone is 375–390 px wide) without
 * breaking a label or a state inside a word, and a visible focus ring on everything the keyboard
 * reaches. Colours come from custom properties so a dark scheme is one media query.
 */
export const STYLE = `
:root {
  --fg: #1b1f24; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa; --line: #d1d9e0;
  --accent: #0969da; --bad: #cf222e; --good: #1a7f37; --warn: #9a6700; --switch: #8250df; --gate: #bc4c00;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg);
}
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23; --line: #3d444d; --accent: #4493f8;
    --bad: #f85149; --good: #3fb950; --warn: #d29922; --switch: #ab7df8; --gate: #f0883e; }
}
* { box-sizing: border-box; }
body { margin: 0; line-height: 1.45; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
header.top { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; padding: .6rem 1rem; border-bottom: 1px solid var(--line); background: var(--panel); }
header.top .brand { font-weight: 700; margin-right: auto; }
header.top nav a { margin-right: .8rem; text-decoration: none; }
header.top nav a[aria-current="page"] { font-weight: 700; text-decoration: underline; }
main { padding: 1rem; max-width: 1200px; margin: 0 auto; }
h1 { font-size: 1.3rem; margin: .2rem 0 1rem; }
.muted { color: var(--muted); }
.filters { display: flex; gap: .5rem; flex-wrap: wrap; margin-bottom: .8rem; }
.filters input, .filters select, textarea, input[type=password] { font: inherit; padding: .35rem .5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
button { font: inherit; padding: .35rem .8rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); cursor: pointer; }
table.rows { width: 100%; border-collapse: collapse; }
table.rows th, table.rows td { text-align: left; padding: .45rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
table.rows tbody tr[aria-selected="true"] { background: var(--panel); outline: 2px solid var(--accent); outline-offset: -2px; }
table.rows tbody tr { cursor: pointer; }
.state { font-weight: 600; }
.state-running, .state-succeeded { color: var(--good); }
.state-failed, .state-timed_out { color: var(--bad); }
.state-queued, .state-waiting, .state-canceled, .state-interrupted, .state-crashed { color: var(--warn); }
.empty { padding: 1rem; color: var(--muted); }
[role="tablist"] { display: flex; gap: .25rem; border-bottom: 1px solid var(--line); margin-bottom: .8rem; overflow-x: auto; }
[role="tab"] { white-space: nowrap; overflow-wrap: normal; border: 1px solid transparent; border-bottom: none; border-radius: 6px 6px 0 0; background: none; padding: .4rem .8rem; }
[role="tab"][aria-selected="true"] { border-color: var(--line); background: var(--panel); font-weight: 700; }
div.timeline { list-style: none; margin: 0; padding: 0; border: 1px solid var(--line); border-radius: 6px; max-height: 70vh; overflow-y: auto; }
/* Every row has the same 4px left edge, coloured only on the rows that stand out, so their columns line up with the rest. */
div.timeline [role="option"] { display: grid; grid-template-columns: 6.5rem 2.5rem 7.5rem 10rem 1fr; gap: .5rem; padding: .3rem .5rem; border-bottom: 1px solid var(--line); border-left: 4px solid transparent; font-size: .92rem; scroll-margin-top: 2.2rem; }
div.timeline .group-head { position: sticky; top: 0; z-index: 1; padding: .3rem .5rem; font-weight: 700; background: var(--panel); border-bottom: 1px solid var(--line); }
.badge-live { color: var(--good); }
div.timeline [role="option"][aria-selected="true"] { background: var(--panel); outline: 2px solid var(--accent); outline-offset: -2px; }
div.timeline [role="option"].switch { border-left-color: var(--switch); }
div.timeline [role="option"].switch .type { color: var(--switch); font-weight: 700; }
div.timeline [role="option"].gate { border-left-color: var(--gate); }
div.timeline [role="option"].gate .type { color: var(--gate); font-weight: 600; }
div.timeline [role="option"][data-type="workspace.warning"] { border-left-color: var(--warn); font-weight: 600; }
div.timeline [role="option"][data-type="workspace.warning"] .type { color: var(--warn); font-weight: 700; }
div.timeline [role="option"][data-type="gate.allowed"] { border-left-color: var(--line); color: var(--muted); }
div.timeline [role="option"][data-type="gate.allowed"] .type { color: var(--muted); font-weight: 400; }
div.timeline [role="option"] .detail { grid-column: 1 / -1; white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: .85rem; background: var(--panel); padding: .4rem; border-radius: 4px; }
.transcript .turn { margin: .6rem 0; padding: .5rem .7rem; border-radius: 8px; border: 1px solid var(--line); }
.transcript .user { background: var(--panel); }
.transcript .redelivered::before { content: "delivered again · "; color: var(--warn); font-weight: 600; }
.transcript .handoff::before { content: "handed over · "; color: var(--switch); font-weight: 600; }
.transcript details { margin: .3rem 0; font-family: ui-monospace, monospace; font-size: .85rem; }
.badge.tool-ok { color: var(--good); }
.badge.tool-failed { color: var(--bad); }
.pull-request { margin: -.6rem 0 .8rem; }
.transcript .switch-note { color: var(--switch); font-weight: 600; margin: .6rem 0; }
form.send { display: flex; gap: .5rem; margin-top: .8rem; }
.send-note { margin: .8rem 0 0; color: var(--warn); font-weight: 600; }
form.send textarea { flex: 1; min-height: 3rem; }
pre.diff { overflow-x: auto; font-size: .85rem; background: var(--panel); padding: .6rem; border-radius: 6px; }
pre.diff .add { color: var(--good); } pre.diff .del { color: var(--bad); }
.nowrap { white-space: nowrap; overflow-wrap: normal; }
table.rows th { white-space: nowrap; }
td.run-id { font-family: ui-monospace, monospace; font-size: .85rem; white-space: nowrap; }
.review-items { border: 1px solid var(--line); border-radius: 6px; max-height: 60vh; overflow-y: auto; }
.review-items [role="option"] { padding: .4rem .7rem; border-bottom: 1px solid var(--line); }
.review-items [role="option"][aria-selected="true"] { background: var(--panel); outline: 2px solid var(--accent); outline-offset: -2px; }
.review-items h3 { font-size: 1rem; margin: .2rem 0; }
.review-items .because { margin: .2rem 0; font-family: ui-monospace, monospace; font-size: .85rem; color: var(--switch); }
.review-items pre.diff { white-space: pre-wrap; overflow-wrap: anywhere; margin: .3rem 0; }
ul.decisions { padding-left: 1.2rem; }
ul.decisions .rejected strong { color: var(--bad); }
details.approved summary { color: var(--good); font-weight: 600; cursor: pointer; }
#note-dialog textarea { width: 100%; min-height: 5rem; font: inherit; }
h2 { font-size: 1.1rem; margin: 1.2rem 0 .5rem; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem 1rem; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
main { overflow-wrap: anywhere; }
.transcript pre, div.timeline .detail { white-space: pre-wrap; overflow-wrap: anywhere; }
dl.facts dt { color: var(--muted); }
.warnings .warning { margin: 0 0 .8rem; padding: .5rem .7rem; border-left: 4px solid var(--warn); border-radius: 4px; background: var(--panel); }
.warnings .warning strong { color: var(--warn); }
.last-message .label { color: var(--muted); }
ul.work-items { list-style: none; margin: .4rem 0 1rem; padding: 0; }
li.work-item { margin: .4rem 0; padding: .3rem .7rem; border-left: 4px solid var(--line); }
li.work-item.unconfirmed { border-left-color: var(--warn); }
li.work-item .item-head { margin: 0; }
li.work-item .item-text { font-weight: 600; }
.badge { display: inline-block; margin-left: .4rem; padding: 0 .45rem; border: 1px solid currentColor; border-radius: 999px; font-size: .8rem; font-weight: 700; white-space: nowrap; }
.badge-unconfirmed { color: var(--warn); }
dl.item-parts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .1rem .8rem; margin: .3rem 0 0; font-size: .92rem; }
dl.item-parts dt { color: var(--muted); }
dl.item-parts dd { margin: 0; overflow-wrap: anywhere; }
dl.item-parts dd ul { margin: 0; padding-left: 1rem; }
dl.item-parts dt.unconfirmed, dl.item-parts dd.unconfirmed { color: var(--warn); font-weight: 600; }
dl.item-parts dd.tried { color: var(--bad); }
dialog { border: 1px solid var(--line); border-radius: 8px; max-width: min(36rem, 94vw); color: var(--fg); background: var(--bg); }
dialog table td { padding: .2rem .6rem; }
kbd { font-family: ui-monospace, monospace; border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 4px; padding: 0 .3rem; }
.error { color: var(--bad); }
.actions { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; margin: 0 0 .8rem; }
.actions .wait { margin: 0; flex-basis: 100%; color: var(--warn); font-weight: 600; }
.state .wait-for { display: block; font-weight: 400; color: var(--muted); }
dialog .actions { justify-content: flex-end; margin: 1rem 0 0; }
#switch-dialog label { display: grid; grid-template-columns: 6rem 1fr; align-items: center; gap: .5rem; margin: .5rem 0; }
#switch-dialog select, #switch-dialog input { font: inherit; padding: .2rem .3rem; min-width: 0; }
dialog.new-task { max-width: min(72rem, 96vw); width: 100%; }
.new-task-body { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; }
.new-task .field { display: grid; gap: .15rem; margin: .45rem 0; }
.new-task .field.check label { font-weight: 400; }
.new-task label { font-weight: 600; }
.new-task small { color: var(--muted); }
.new-task input:not([type=checkbox]), .new-task select, .new-task textarea { font: inherit; padding: .3rem .4rem; min-width: 0; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
.new-task [aria-invalid="true"] { border-color: var(--bad); }
.new-task fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .45rem 0; }
.new-task fieldset label { font-weight: 400; margin-right: .6rem; }
#task-chain { margin: 0 0 .4rem; padding-left: 1.4rem; }
#task-chain li { margin: .3rem 0; }
#task-chain .link { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; }
#task-chain .link input { flex: 1 1 8rem; }
.problem { color: var(--bad); margin: 0; }
.problem:empty { display: none; }
.task-yaml { display: flex; flex-direction: column; gap: .3rem; }
#task-yaml { font-family: ui-monospace, monospace; font-size: .9rem; min-height: 24rem; flex: 1; }
.problems { color: var(--bad); margin: 0; padding-left: 1.2rem; }
@media (max-width: 640px) {
  main { padding: .6rem; }
  .new-task-body { grid-template-columns: minmax(0, 1fr); }
  dl.facts { grid-template-columns: minmax(0, 1fr); }
  [role="tab"] { padding: .4rem .45rem; }
  dl.facts dt { margin-top: .3rem; }
  dl.item-parts { grid-template-columns: minmax(0, 1fr); }
  table.rows thead { display: none; }
  table.rows tr { display: block; border-bottom: 1px solid var(--line); padding: .3rem 0; }
  /* A cell is its label, then its value at the right; a value too long for the rest of the line goes under
     its label. break-word, not main's anywhere: a flex item may then shrink no narrower than its longest
     word, so "waiting" never becomes "waiti/ng" (anywhere lets it shrink to one letter a line). */
  table.rows td { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0 1rem; border: none; padding: .15rem .3rem; overflow-wrap: break-word; }
  table.rows td::before { content: attr(data-label); color: var(--muted); font-weight: 400; white-space: nowrap; }
  table.rows td .wait-for { flex-basis: 100%; text-align: right; }
  div.timeline [role="option"] { display: flex; flex-wrap: wrap; gap: .2rem .6rem; }
  div.timeline [role="option"] .summary { flex-basis: 100%; }
}
`;
