// The page's netcode (web/src/sync/, and the page's use of it in web/src/game/display.ts),
// compiled, as unit tests: prediction agrees when the server agrees and replays and smooths a
// correction when it does not; interpolation between snapshots, extrapolation bounded, and
// converging back; the tick clock ahead of the server by the round trip, steering at a bounded
// rate; the page's avatar moving in the frame after a key press while the round trip is
// 100 ms. Run by games/snow-fight/tests/page_sync.rs.
//
//   node test/sync.mjs <compiled web/>
//
// Prints one JSON line: the tests that passed; exits 1 on the first failure.

import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";

const [build] = process.argv.slice(2);
const load = (m) => import(pathToFileURL(`${build}/src/${m}`).href);
const { Predictor, DEFAULT_PREDICT_CONFIG } = await load("sync/predict.js");
const { Interpolator, DEFAULT_INTERPOLATION_CONFIG } = await load("sync/interpolate.js");
const { TickSync, tickSyncConfig } = await load("sync/tick_sync.js");
const { Walking } = await load("game/walk.js");
const { Display } = await load("game/display.js");
const { Landings } = await load("game/landing.js");
const { EAST, NORTH } = await load("game/rules.js");

const passed = [];
function test(name, body) {
  try {
    body();
    passed.push(name);
  } catch (e) {
    console.log(JSON.stringify({ passed, failed: name, error: String(e?.stack ?? e) }));
    process.exit(1);
  }
}

/** A dot on a line, moved by its input each tick. */
const line = {
  step: (_tick, x, dx) => x + dx,
  distance: (a, b) => Math.abs(a - b),
  blend: (a, b, t) => a + (b - a) * t,
};

test("prediction: the server agreeing is no correction", () => {
  const p = new Predictor(line, DEFAULT_PREDICT_CONFIG, 0, 0);
  for (let t = 1; t <= 10; t++) p.predict(t, 1);
  assert.equal(p.state(), 10, "applied at once, no round trip");
  for (let t = 1; t <= 6; t++) assert.deepEqual(p.reconcile(t, t), { type: "agreed" });
  assert.deepEqual(p.reconcile(3, 0), { type: "stale" }, "older than one reconciled");
  assert.equal(p.displayed(), 10);
  assert.equal(p.stats.corrections, 0);
  assert.equal(p.stats.agreed, 6);
});

test("prediction: the real walk, replayed by the server's rule, agrees", () => {
  const walk = new Walking();
  walk.blockers = [{ x: 8, y: 5, radius: 0.5 }];
  const p = new Predictor(walk, { ...DEFAULT_PREDICT_CONFIG, tolerance: 0 }, 0, { x: 5, y: 5 });
  const server = new Walking();
  server.blockers = walk.blockers;
  let s = { x: 5, y: 5 };
  const dirs = [];
  for (let t = 1; t <= 120; t++) {
    const d = t < 60 ? EAST : EAST | NORTH;
    dirs.push(d);
    p.predict(t, d);
  }
  for (let t = 1; t <= 120; t++) {
    s = server.step(t, s, dirs[t - 1]);
    if (t % 7 === 0) assert.equal(p.reconcile(t, s).type, "agreed", `tick ${t}`);
  }
  assert.equal(p.stats.corrections, 0);
  assert.ok(p.state().x > 8, "walked past the tree by sliding along it");
});

test("prediction: a disagreement is replayed and smoothed, not snapped", () => {
  const p = new Predictor(line, { ...DEFAULT_PREDICT_CONFIG, smoothingTicks: 4 }, 0, 0);
  for (let t = 1; t <= 10; t++) p.predict(t, 1);
  // The server missed two inputs: the dot was at 3 after tick 5.
  const r = p.reconcile(5, 3);
  assert.deepEqual(r, { type: "corrected", size: 2, replayed: 5 });
  assert.equal(p.state(), 8, "replayed 6..=10 from the server's state");
  assert.equal(p.displayed(), 10, "nothing snaps");
  let last = p.displayed();
  for (let t = 11; t <= 14; t++) {
    p.predict(t, 1);
    // On by the input, and a quarter of the gap of 2 closed each tick.
    assert.ok(Math.abs(p.displayed() - last - 0.5) < 1e-9, `${p.displayed()} after ${last}`);
    last = p.displayed();
  }
  assert.equal(p.displayed(), p.state());
  assert.equal(p.stats.corrections, 1);
  assert.equal(p.stats.largest, 2);
  assert.equal(p.stats.replayed, 5);
});

test("prediction: history bounded, a jump restarts it, a future state resets", () => {
  const p = new Predictor(line, { ...DEFAULT_PREDICT_CONFIG, history: 16 }, 0, 0);
  for (let t = 1; t <= 1000; t++) p.predict(t, 1);
  assert.equal(p.historyLength(), 16);
  assert.deepEqual(p.reconcile(10, 0), { type: "stale" });
  p.predict(5000, 1);
  assert.equal(p.stats.discontinuities, 1);
  assert.equal(p.historyLength(), 1);
  assert.deepEqual(p.reconcile(6000, 7), { type: "reset" });
  assert.equal(p.state(), 7);
});

const lerp = (a, b, t) => a + (b - a) * t;

test("interpolation: between two snapshots, over a lost one", () => {
  const i = new Interpolator(lerp);
  assert.equal(i.sample(3), null, "nothing before a snapshot");
  i.push(10, 0);
  i.push(12, 2); // tick 11's was lost
  assert.equal(i.sample(10.5), 0.5);
  assert.equal(i.sample(11.5), 1.5);
  assert.equal(i.lastSampled(), "interpolated");
  assert.equal(i.stats.interpolated, 2);
});

function walker() {
  const i = new Interpolator(lerp, { ...DEFAULT_INTERPOLATION_CONFIG, maxExtrapolationTicks: 4, convergeTicks: 4 });
  for (let t = 0; t <= 10; t++) i.push(t, t);
  return i;
}

test("interpolation: extrapolated along the last velocity, at most the bound", () => {
  const i = walker();
  assert.equal(i.sample(12), 12);
  assert.equal(i.sample(14), 14);
  assert.equal(i.lastSampled(), "extrapolated");
  assert.equal(i.sample(20), 14, "held beyond 4 ticks");
  assert.equal(i.lastSampled(), "held");
  assert.equal(i.stats.extrapolated, 2);
  assert.equal(i.stats.held, 1);
});

test("interpolation: snapshots resuming converge back without a jump", () => {
  const i = walker();
  let r = 8;
  let shown = 0;
  for (; r < 16; r += 0.5) shown = i.sample(r);
  assert.equal(shown, 14, "held at the bound");
  // It had in fact turned back at 10 and stood at 8 from tick 12.
  i.push(12, 8);
  i.push(16, 8);
  i.push(20, 8);
  let last = shown;
  for (; r < 22; r += 0.5) {
    const now = i.sample(r);
    assert.ok(Math.abs(now - last) <= (6 * 0.5) / 4 + 1e-9, `${last} -> ${now}`);
    last = now;
  }
  assert.equal(last, 8);
  assert.equal(i.stats.converged, 1);
});

test("interpolation: refused snapshots are counted, memory bounded", () => {
  const i = walker();
  i.sample(9);
  i.push(5, 0); // older than what is rendered
  i.push(10, 0); // a tick already held
  i.push(2 ** 32 - 1, 0); // far ahead
  assert.equal(i.stats.refused, 3);
  for (let t = 11; t < 10_000; t++) i.push(t, t);
  assert.equal(i.length, 64);
});

test("tick clock: ahead of the server by the round trip, steered at a bounded rate", () => {
  const config = { ...tickSyncConfig(1000 / 60), safetyTicks: 0, jitterFactor: 0 };
  const c = new TickSync(config);
  assert.deepEqual(c.update(0).ticks, [], "no tick before the server's");
  c.onRtt(100);
  c.onServerTick(0, 1000);
  const first = c.update(0);
  assert.deepEqual(first.ticks, [1006], "100 ms is 6 ticks ahead of the tick that arrived");
  // A second at 60 Hz: 60 ticks, each once, in order.
  const seen = [];
  for (let ms = 1000 / 60; ms <= 1000 + 1e-9; ms += 1000 / 60) {
    c.onServerTick(ms, 1000 + Math.round((ms * 60) / 1000));
    seen.push(...c.update(ms).ticks);
  }
  assert.equal(seen.length, 60);
  seen.forEach((t, k) => assert.equal(t, 1007 + k));
  // The round trip grows to 200 ms: the clock speeds up by at most 5 %, never jumps.
  for (let k = 0; k < 20; k++) c.onRtt(200);
  let before = c.tick();
  const ms = 1000;
  let jumped = false;
  for (let step = 1; step <= 30; step++) {
    const now = ms + (step * 1000) / 60;
    c.onServerTick(now, 1060 + step);
    const u = c.update(now);
    jumped ||= u.jumped;
    assert.ok(u.ticks.length <= 2, `${u.ticks}`);
  }
  assert.equal(jumped, false);
  assert.ok(c.tick() - before > 30 && c.tick() - before <= 32, `${c.tick() - before}`);
  assert.ok(c.rate() > 1 && c.rate() <= 1.05 + 1e-12);
  // A clock that runs backwards is ignored and counted; a gap beyond the bound jumps.
  before = c.tick();
  assert.deepEqual(c.update(10).ticks, []);
  assert.equal(c.stats.clockBackwards, 1);
  c.onServerTick(1600, 5000);
  const leap = c.update(1600);
  assert.ok(leap.jumped && c.tick() > 5000, `${c.tick()}`);
  assert.equal(c.stats.jumps, 1);
  c.onRtt(1e9);
  assert.equal(c.stats.rejectedRtt, 1);
});

test("tick clock: inputs landing off their label move it, boundedly", () => {
  const c = new TickSync({ ...tickSyncConfig(1000 / 60), safetyTicks: 0, jitterFactor: 0 });
  c.onRtt(100);
  c.onServerTick(0, 1000);
  c.update(0);
  assert.equal(c.landingTicks(), 0);
  // The first input took effect 3 ticks after its label: the clock should run 3 further ahead.
  c.onInputLanded(1010, 1013);
  assert.equal(c.landingTicks(), 3);
  // One lost and resent lands 40 ticks late: past the gap, refused.
  c.onInputLanded(1020, 1060);
  assert.equal(c.stats.rejectedLandings, 1);
  assert.equal(c.landingTicks(), 3);
  // 15 ticks late counts as 2, at a quarter.
  c.onInputLanded(1030, 1045);
  assert.equal(c.landingTicks(), 3.5);
  // Never more than 4 ticks either way.
  for (let k = 0; k < 100; k++) c.onInputLanded(2000, 1990);
  assert.equal(c.landingTicks(), -4);
  // The clock follows: 4 ticks behind the round trip's estimate, reached by steering.
  let now = 0;
  for (let k = 1; k <= 600; k++) {
    now = (k * 1000) / 60;
    c.onServerTick(now, 1000 + k);
    c.update(now);
  }
  assert.ok(Math.abs(c.fractionalTick() - (1000 + 600 + 6 - 4)) < 0.5, `${c.fractionalTick()}`);
});

test("landings: a Move seen taking effect between two consecutive snapshots", () => {
  const l = new Landings();
  l.changed(100, EAST);
  assert.equal(l.seen(99, 0), null);
  assert.equal(l.seen(100, 0), null, "not yet");
  assert.deepEqual(l.seen(101, EAST), { labelled: 100, landed: 101 });
  assert.deepEqual(l.samples, [1]);
  // Across a lost snapshot the tick is unknown: no sample, and the change is kept.
  l.changed(110, NORTH);
  assert.equal(l.seen(115, NORTH), null);
  // A movement nobody asked for (another input's bits) is no sample either.
  l.changed(120, 0);
  assert.equal(l.seen(116, 2), null);
  assert.deepEqual(l.seen(117, 0), { labelled: 120, landed: 117 }, "landed early");
  assert.deepEqual(l.samples, [1, -3]);
  // Changes never seen are bounded.
  for (let k = 0; k < 1000; k++) l.changed(200 + k, k % 2 === 0 ? EAST : NORTH);
  assert.equal(l.waiting, 32);
});

// The page's display: a player standing at (5, 5) in snapshots every tick that reach it 50 ms
// after the server made them, a round trip of 100 ms.
function page() {
  const d = new Display();
  const me = (x, y) => ({ id: 7, kind: { Player: { position: { x, y, z: 0 }, movement: 0, holding: null, breaking: null, owner: 3, health: 100, max_health: 100 } } });
  const other = (x) => ({ id: 8, kind: { Player: { position: { x, y: 12, z: 0 }, movement: 0, holding: null, breaking: null, owner: 4, health: 100, max_health: 100 } } });
  d.onRtt(100);
  let now = 0;
  for (let t = 1; t <= 30; t++) {
    now = t * (1000 / 60) + 50;
    d.onSnapshot(now, t, [me(5, 5), other(2 + t * 0.1)], 3);
    d.frame(now);
  }
  return { d, me, other, now };
}

test("the page: our avatar moves in the frame after the key press, before any answer", () => {
  const { d, now } = page();
  const before = d.drawn();
  assert.deepEqual(before, { x: 5, y: 5 });
  d.setDirection(now + 1, EAST);
  // A frame half a millisecond later, before the next tick: already on its way (a part of the
  // tick's step).
  d.frame(now + 1.5);
  const early = d.drawn();
  assert.ok(early.x > 5 && early.x < 5.1 && early.y === 5, JSON.stringify(early));
  d.frame(now + 1 + 1000 / 60);
  const after = d.drawn();
  assert.ok(after.x > 5.05 && after.y === 5, JSON.stringify(after));
  assert.equal(d.stats().corrections, 0);
});

test("the page: others interpolated behind the newest snapshot, the server's disagreement counted", () => {
  const { d, me, other, now } = page();
  const drawn = d.frame(now + 1);
  const x = drawn.find((e) => e.id === 8).kind.Player.position.x;
  // The newest snapshot had it at 5.0 (tick 30); the page draws about 4 ticks behind.
  assert.ok(x > 4.5 && x < 4.8, `${x}`);
  assert.ok(d.stats().remote.interpolated >= 1);
  // We walk east for 20 ticks; the server never saw the key: it keeps us at (5, 5).
  d.setDirection(now + 2, EAST);
  let t = 30;
  let at = now + 2;
  for (let k = 0; k < 20; k++) {
    at += 1000 / 60;
    t += 1;
    d.onSnapshot(at, t, [me(5, 5), other(2 + t * 0.1)], 3);
    d.frame(at);
  }
  const s = d.stats();
  assert.ok(s.corrections >= 1, JSON.stringify(s));
  assert.ok(s.sizes.length === s.corrections && s.sizes.every((z) => z > 0.01));
  assert.ok(s.largest > 0.01 && s.largest < 2);
});

console.log(JSON.stringify({ passed }));
