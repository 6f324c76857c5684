// The page's walk step (web/src/game/walk.ts, compiled) against the server's: the Rust test
// games/snow-fight/tests/page_sync.rs walks a player through a generated world (into trees,
// mushrooms, another player and the walls, diagonals too) and writes every tick's direction and
// the position the server's rule gave; this replays the same directions from the same start
// with the page's rule and compares each position exactly, as 32-bit floats.
//
//   node test/walk_conformance.mjs <compiled web/> <walk.json>
//
// walk.json: { start: {x, y}, blockers: [{x, y, radius}], ticks: [[direction, x, y], ...] }.
// Prints one JSON line: ticks compared, ticks that moved, ticks blocked, and the first
// mismatch (null when none); exits 1 on a mismatch.

import fs from "node:fs";
import { pathToFileURL } from "node:url";

const [build, file] = process.argv.slice(2);
const { Walking } = await import(pathToFileURL(`${build}/src/game/walk.js`).href);
const f = Math.fround;
const walk = JSON.parse(fs.readFileSync(file, "utf8"));
const rule = new Walking();
rule.blockers = walk.blockers.map((b) => ({ x: f(b.x), y: f(b.y), radius: f(b.radius) }));
let at = { x: f(walk.start.x), y: f(walk.start.y) };
let moved = 0;
let blocked = 0;
let mismatch = null;
for (const [k, [direction, x, y]] of walk.ticks.entries()) {
  const next = rule.step(k + 1, at, direction);
  if (direction !== 0 && next.x === at.x && next.y === at.y) blocked++;
  if (next.x !== at.x || next.y !== at.y) moved++;
  if (next.x !== f(x) || next.y !== f(y)) {
    mismatch = { tick: k + 1, direction, from: at, page: next, server: { x: f(x), y: f(y) } };
    break;
  }
  at = next;
}
console.log(JSON.stringify({ compared: walk.ticks.length, moved, blocked, mismatch }));
if (mismatch !== null) process.exitCode = 1;
