// What the page shows, as issue 39's netcode shows it: our own avatar predicted (it walks the
// tick its key is pressed, and is corrected smoothly when the server disagrees), every other
// entity interpolated a few ticks behind the newest snapshot (others.ts).
//
// The spec's `Move` carries no tick: the server applies it when it arrives. So the page's
// clock runs at its estimate of the server tick at which an input sent now arrives, with no
// margin (an input labelled early is as wrong as one labelled late), corrected by where the
// server's snapshots show our `Move`s landed (landing.ts); and a key press first hands out
// the ticks that passed before it with the old direction.

import type { Entity } from "../messages.js";
import type { InterpolationStats } from "../sync/interpolate.js";
import { type PredictConfig, type PredictStats, Predictor } from "../sync/predict.js";
import { TickSync, tickSyncConfig } from "../sync/tick_sync.js";
import { Landings } from "./landing.js";
import { Others, withPosition } from "./others.js";
import { type Avatar, TICK_RATE, avatars } from "./rules.js";
import { type Position, Walking, blockersOf } from "./walk.js";

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

/** Corrections' sizes kept for the page's counters. */
const MAX_SIZES = 1_000;

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

/** Our avatar predicted, the others interpolated. */
export class Display {
  /** No margin: the server does not hold an early input for its tick. What the round trip
   * misjudges, where inputs are seen to land corrects. */
  readonly clock = new TickSync({ ...tickSyncConfig(1000 / TICK_RATE), safetyTicks: 0, jitterFactor: 0 });
  private readonly walking = new Walking();
  private predictor: Predictor<Position, number> | null = null;
  private readonly others = new Others();
  private readonly landings = new Landings();
  private newest: readonly Entity[] = [];
  private owner: number | null = null;
  private direction = 0;
  /** The counters of predictors ended (avatars that died or teleported). */
  private readonly ended: PredictStats[] = [];
  private readonly sizes: number[] = [];
  private teleports = 0;
  private jumps = 0;
  private lastDrawn: Position | null = null;
  /** Our avatar's position in the newest snapshot: a leap from it is a teleport. */
  private lastServer: Position | null = null;

  /** A round trip measured by a ping. */
  onRtt(ms: number): void {
    this.clock.onRtt(ms);
  }

  private me(): Avatar | null {
    return this.owner === null ? null : (avatars(this.newest).find((a) => a.player.owner === this.owner) ?? null);
  }

  /** A snapshot of server tick `time`, arrived at `now`, for player `owner`. */
  onSnapshot(now: number, time: number, entities: readonly Entity[], owner: number): void {
    this.clock.onServerTick(now, time);
    this.newest = entities;
    this.owner = owner;
    const me = this.me();
    this.walking.blockers = blockersOf(entities, me?.id ?? null);
    this.others.push(time, entities, me?.id ?? null);
    if (me === null) {
      this.endPrediction();
      this.lastServer = null;
      this.landings.forget();
      return;
    }
    const server = { x: me.player.position.x, y: me.player.position.y };
    const landed = this.landings.seen(time, me.player.movement);
    if (landed !== null) this.clock.onInputLanded(landed.labelled, landed.landed);
    const leapt = this.lastServer !== null && this.walking.distance(this.lastServer, server) > TELEPORT_DISTANCE;
    this.lastServer = server;
    if (leapt && this.predictor !== null) {
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

  /** The player's direction changes at `now`: the ticks before it are walked the old way. */
  setDirection(now: number, direction: number): void {
    this.advance(now);
    const changed = (direction & 0x0f) !== (this.direction & 0x0f);
    this.direction = direction;
    if (this.predictor !== null && changed) this.landings.changed(this.predictor.tick() + 1, direction);
  }

  /** Runs the ticks due at `now`, predicting our walk through each. */
  private advance(now: number): void {
    const { ticks, jumped } = this.clock.update(now);
    if (jumped) this.jumps++;
    const first = ticks[0];
    // Not before a round trip is known: until then the clock runs behind the server's tick,
    // and every snapshot would be ahead of what was predicted.
    const me = this.predictor === null && first !== undefined && this.clock.rttMs() !== null ? this.me() : null;
    if (me !== null && first !== undefined) {
      this.predictor = new Predictor(this.walking, PREDICT_CONFIG, first - 1, { x: me.player.position.x, y: me.player.position.y });
    }
    for (const tick of ticks) this.predictor?.predict(tick, this.direction);
  }

  /** The world to draw at `now`. */
  frame(now: number): Entity[] {
    this.advance(now);
    const render = (this.clock.arrivingTickEstimate(now) ?? 0) - INTERPOLATION_DELAY_TICKS;
    const me = this.me();
    const mine = this.predictor === null ? null : this.shownPosition();
    this.lastDrawn = mine;
    const others = this.others.draw(this.newest, render);
    if (mine === null || me === null) return others;
    // Our avatar where prediction has it, and what it carries with it.
    return others.map((e) => {
      if (e.id === me.id) return withPosition(e, { x: mine.x, y: mine.y, z: me.player.position.z });
      if (e.id === me.player.holding && typeof e.kind === "object" && "Object" in e.kind) {
        return withPosition(e, { x: mine.x, y: mine.y, z: e.kind.Object.position.z });
      }
      return e;
    });
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
      extrapolatedFrames: this.others.extrapolatedFrames,
      remote: this.others.stats(),
      landings: this.landings.samples,
      landingTicks: this.clock.landingTicks(),
    };
  }
}
