// What the page shows, as issue 39's netcode shows it: our own avatar predicted (it walks the
// tick its key is pressed, and is corrected smoothly when the server disagrees), every other
// entity interpolated a few ticks behind the newest snapshot (and extrapolated for a bounded
// time when snapshots stop).
//
// The spec's `Move` carries no tick: the server applies it when it arrives. So the page's
// clock runs at its estimate of the server tick at which an input sent now arrives, with no
// margin (an input labelled early is as wrong as one labelled late), and a key press first
// hands out the ticks that passed before it with the old direction. The server's snapshots
// say when our `movement` changed: the tick a `Move` took effect at, against the tick the page
// labelled it with, steers the clock (`TickSync.onInputLanded`).

import type { Entity, Point } from "../messages.js";
import {
  type InterpolationConfig,
  type InterpolationStats,
  DEFAULT_INTERPOLATION_CONFIG,
  Interpolator,
} from "../sync/interpolate.js";
import { type PredictConfig, type PredictStats, Predictor } from "../sync/predict.js";
import { TickSync, tickSyncConfig } from "../sync/tick_sync.js";
import { PLAYER_RADIUS, TICK_RATE, avatars, objectRadius, things } from "./rules.js";
import { type Blocker, type Position, Walking } from "./walk.js";

/** Ticks the others are drawn behind the newest snapshot: two lost snapshots in a row are
 * still interpolated over, not guessed. */
export const INTERPOLATION_DELAY_TICKS = 4;

/** Our avatar moving further than this between two snapshots is a teleport (a respawn, a new
 * round): prediction starts again from there instead of gliding across the map, counted apart. */
export const TELEPORT_DISTANCE = 2;

export const PREDICT_CONFIG: PredictConfig = {
  history: 256,
  // A tenth of a step: one tick of walking labelled wrongly is a correction.
  tolerance: 0.01,
  smoothingTicks: 6,
};

/** What prediction did, for the page's status and the tests. */
export interface DisplayStats extends PredictStats {
  /** Corrections' sizes, the newest 1,000 (the page's own list, not a copy). */
  readonly sizes: readonly number[];
  /** Times our avatar leapt (a respawn, a new round) and prediction started again. */
  teleports: number;
  /** The page's clock jumped (a stall). */
  clockJumps: number;
  /** Frames drawn with the others extrapolated past their newest snapshot. */
  extrapolatedFrames: number;
  /** How the others were drawn, summed over every entity and frame. */
  readonly remote: InterpolationStats;
  /** For each `Move` seen taking effect in a snapshot (the newest 1,000), the ticks it landed
   * after the tick the page labelled it with (negative: before). */
  readonly landings: readonly number[];
  /** Ticks the clock runs ahead of the round trip's estimate by what those taught it. */
  landingTicks: number;
}

const MAX_SIZES = 1_000;
/** Direction changes remembered until the server shows them. */
const MAX_UNLANDED = 32;

function lerpPoint(a: Point, b: Point, t: number): Point {
  return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t, z: a.z + (b.z - a.z) * t };
}

function positionOf(e: Entity): Point | null {
  if (typeof e.kind !== "object") return null;
  if ("Player" in e.kind) return e.kind.Player.position;
  if ("Object" in e.kind) return e.kind.Object.position;
  return null;
}

function withPosition(e: Entity, position: Point): Entity {
  if (typeof e.kind === "object" && "Player" in e.kind) return { ...e, kind: { Player: { ...e.kind.Player, position } } };
  if (typeof e.kind === "object" && "Object" in e.kind) return { ...e, kind: { Object: { ...e.kind.Object, position } } };
  return e;
}

/** Our avatar predicted, the others interpolated. */
export class Display {
  /** No margin: the server does not hold an early input for its tick. What the round trip
   * misjudges, where inputs are seen to land corrects. */
  readonly clock = new TickSync({ ...tickSyncConfig(1000 / TICK_RATE), safetyTicks: 0, jitterFactor: 0 });
  private readonly walking = new Walking();
  private predictor: Predictor<Position, number> | null = null;
  private readonly remote = new Map<number, Interpolator<Point>>();
  private newest: readonly Entity[] = [];
  private owner: number | null = null;
  private direction = 0;
  private readonly ended: PredictStats[] = [];
  private teleports = 0;
  private jumps = 0;
  private lastDrawn: Position | null = null;
  /** Our avatar's position in the newest snapshot: a leap from it is a teleport. */
  private lastServer: Position | null = null;
  private extrapolatedFrames = 0;
  private readonly sizes: number[] = [];
  /** Samples of the others by how they were made; refusals and convergences of entities gone. */
  private readonly remoteStats: InterpolationStats = { interpolated: 0, extrapolated: 0, held: 0, refused: 0, converged: 0 };
  /** Direction changes not yet seen in a snapshot, with the tick each was labelled with. */
  private unlanded: { tick: number; direction: number }[] = [];
  /** Our `movement` in the newest snapshot, and its tick. */
  private lastMovement: { time: number; movement: number } | null = null;
  private readonly landings: number[] = [];

  constructor(private readonly interpolation: InterpolationConfig = DEFAULT_INTERPOLATION_CONFIG) {}

  /** A round trip measured by a ping. */
  onRtt(ms: number): void {
    this.clock.onRtt(ms);
  }

  /** A snapshot of server tick `time`, arrived at `now`, for player `owner`. */
  onSnapshot(now: number, time: number, entities: readonly Entity[], owner: number): void {
    this.clock.onServerTick(now, time);
    this.newest = entities;
    this.owner = owner;
    const me = avatars(entities).find((a) => a.player.owner === owner) ?? null;
    this.walking.blockers = blockers(entities, me?.id ?? null);
    if (me === null) {
      this.endPrediction();
      this.lastServer = null;
    } else {
      const server = { x: me.player.position.x, y: me.player.position.y };
      this.landed(time, me.player.movement);
      const jumped = this.lastServer !== null && this.walking.distance(this.lastServer, server) > TELEPORT_DISTANCE;
      this.lastServer = server;
      if (jumped && this.predictor !== null) {
        this.teleports++;
        this.endPrediction();
        this.predictor = new Predictor(this.walking, PREDICT_CONFIG, this.clock.tick(), server);
      } else if (this.predictor !== null) {
        const r = this.predictor.reconcile(time, server);
        if (r.type === "corrected") {
          this.sizes.push(r.size);
          if (this.sizes.length > MAX_SIZES) this.sizes.shift();
        }
      }
    }
    const present = new Set<number>();
    for (const e of entities) {
      const at = positionOf(e);
      if (at === null || e.id === me?.id) continue;
      present.add(e.id);
      let i = this.remote.get(e.id);
      if (i === undefined) {
        i = new Interpolator(lerpPoint, this.interpolation);
        this.remote.set(e.id, i);
      }
      i.push(time, at);
    }
    for (const [id, i] of this.remote) {
      if (present.has(id)) continue;
      this.remoteStats.refused += i.stats.refused;
      this.remoteStats.converged += i.stats.converged;
      this.remote.delete(id);
    }
  }

  /** The player's direction changes at `now`: the ticks before it are walked the old way. */
  setDirection(now: number, direction: number): void {
    this.advance(now);
    const changed = (direction & 0x0f) !== (this.direction & 0x0f);
    this.direction = direction;
    if (this.predictor !== null && changed) {
      this.unlanded.push({ tick: this.predictor.tick() + 1, direction: direction & 0x0f });
      if (this.unlanded.length > MAX_UNLANDED) this.unlanded.shift();
    }
  }

  /** Our `movement` was `movement` at `time`: if it changed since the tick before, a `Move`
   * took effect at `time`, and the clock learns how far off its label was. */
  private landed(time: number, movement: number): void {
    const before = this.lastMovement;
    this.lastMovement = { time, movement };
    if (before === null || before.movement === movement || time !== before.time + 1) return;
    const at = this.unlanded.findIndex((u) => u.direction === movement);
    const change = this.unlanded[at];
    if (change === undefined) return;
    this.unlanded.splice(0, at + 1);
    this.clock.onInputLanded(change.tick, time);
    this.landings.push(time - change.tick);
    if (this.landings.length > MAX_SIZES) this.landings.shift();
  }

  /** Runs the ticks due at `now`, predicting our walk through each. */
  private advance(now: number): void {
    const { ticks, jumped } = this.clock.update(now);
    if (jumped) this.jumps++;
    const first = ticks[0];
    // Not before a round trip is known: until then the clock runs behind the server's tick,
    // and every snapshot would be ahead of what was predicted.
    if (this.predictor === null && first !== undefined && this.clock.rttMs() !== null) {
      const me = this.owner === null ? null : avatars(this.newest).find((a) => a.player.owner === this.owner);
      if (me !== undefined && me !== null) {
        this.predictor = new Predictor(this.walking, PREDICT_CONFIG, first - 1, { x: me.player.position.x, y: me.player.position.y });
      }
    }
    for (const tick of ticks) this.predictor?.predict(tick, this.direction);
  }

  /** The world to draw at `now`. */
  frame(now: number): Entity[] {
    this.advance(now);
    const render = (this.clock.arrivingTickEstimate(now) ?? 0) - INTERPOLATION_DELAY_TICKS;
    const me = this.owner === null ? null : (avatars(this.newest).find((a) => a.player.owner === this.owner) ?? null);
    const mine = this.predictor === null ? null : this.shownPosition();
    this.lastDrawn = mine;
    let extrapolated = false;
    const out = this.newest.map((e) => {
      if (mine !== null && me !== null && e.id === me.id) {
        return withPosition(e, { x: mine.x, y: mine.y, z: me.player.position.z });
      }
      const at = positionOf(e);
      if (mine !== null && me !== null && at !== null && e.id === me.player.holding) {
        return withPosition(e, { x: mine.x, y: mine.y, z: at.z });
      }
      const i = this.remote.get(e.id);
      const p = i?.sample(render) ?? null;
      const how = i?.lastSampled() ?? null;
      if (how !== null) this.remoteStats[how]++;
      if (how === "extrapolated") extrapolated = true;
      return p === null ? e : withPosition(e, p);
    });
    if (extrapolated) this.extrapolatedFrames++;
    return out;
  }

  /** Our avatar between its last tick and the next: the time since the tick walked on in the
   * held direction, so a key press shows in the next frame even when no tick has passed. */
  private shownPosition(): Position | null {
    const p = this.predictor;
    if (p === null) return null;
    const shown = p.displayed();
    const fraction = Math.min(1, Math.max(0, this.clock.fractionalTick() - this.clock.tick()));
    if (fraction === 0) return shown;
    return this.walking.blend(shown, this.walking.step(p.tick() + 1, shown, this.direction), fraction);
  }

  /** Where the newest frame drew our avatar, or null when it had none. */
  drawn(): Position | null {
    return this.lastDrawn;
  }

  private endPrediction(): void {
    if (this.predictor !== null) this.ended.push({ ...this.predictor.stats });
    this.predictor = null;
  }

  /** Prediction's counters, over every avatar this page had. */
  stats(): DisplayStats {
    const all = [...this.ended, ...(this.predictor === null ? [] : [this.predictor.stats])];
    const sum = (k: Exclude<keyof PredictStats, "largest">): number => all.reduce((n, s) => n + s[k], 0);
    return {
      predicted: sum("predicted"),
      agreed: sum("agreed"),
      corrections: sum("corrections"),
      largest: all.reduce((m, s) => Math.max(m, s.largest), 0),
      replayed: sum("replayed"),
      resets: sum("resets"),
      stale: sum("stale"),
      discontinuities: sum("discontinuities"),
      sizes: this.sizes,
      teleports: this.teleports,
      clockJumps: this.jumps,
      extrapolatedFrames: this.extrapolatedFrames,
      landings: this.landings,
      landingTicks: this.clock.landingTicks(),
      remote: this.remoteNow(),
    };
  }

  private remoteNow(): InterpolationStats {
    const out = { ...this.remoteStats };
    for (const i of this.remote.values()) {
      out.refused += i.stats.refused;
      out.converged += i.stats.converged;
    }
    return out;
  }
}

/** What our walk cannot enter: grounded objects and the other living players. */
function blockers(entities: readonly Entity[], mine: number | null): Blocker[] {
  const held = new Set(avatars(entities).flatMap((a) => (a.player.holding === null ? [] : [a.player.holding])));
  const out: Blocker[] = [];
  for (const t of things(entities)) {
    if (t.object.position.z < 0.25 && !held.has(t.id)) out.push({ x: t.object.position.x, y: t.object.position.y, radius: objectRadius(t.object) });
  }
  for (const a of avatars(entities)) {
    if (a.id !== mine) out.push({ x: a.player.position.x, y: a.player.position.y, radius: PLAYER_RADIUS });
  }
  return out;
}
