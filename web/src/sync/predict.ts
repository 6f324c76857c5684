// Prediction and reconciliation, as hopnet-sync's `predict` does them: the player's own
// inputs are applied the moment they are made, so a key press needs no round trip to show;
// when the server's state for a tick it already predicted disagrees beyond a tolerance, the
// predictor rewinds to the server's state and replays the inputs made since. A correction is
// blended in over a few ticks instead of snapped, so a late or lost input costs a glide, not a
// jump.

/** A game's rules as prediction needs them. `step` must give the same state for the same state,
 * tick and input here as on the server: a replay depends on it. */
export interface Simulation<State, Input> {
  /** The state after `input` is applied at `tick` to `state` (a new value; `state` unchanged). */
  step(tick: number, state: State, input: Input): State;
  /** How far apart two states are, in the world's units: compared with the tolerance, and a
   * correction's size. */
  distance(a: State, b: State): number;
  /** The state `t` of the way from `from` to `to` (`t` in 0..1). */
  blend(from: State, to: State, t: number): State;
}

/** How a `Predictor` corrects. */
export interface PredictConfig {
  /** Ticks of history kept: a server state older than this cannot be checked (counted stale). */
  readonly history: number;
  /** Distances up to this are agreement, not corrections. */
  readonly tolerance: number;
  /** Ticks over which a correction is blended in (0 snaps). */
  readonly smoothingTicks: number;
}

export const DEFAULT_PREDICT_CONFIG: PredictConfig = { history: 128, tolerance: 0.001, smoothingTicks: 6 };

/** What `Predictor.reconcile` did. */
export type Reconciled =
  /** The prediction for that tick was within the tolerance. */
  | { readonly type: "agreed" }
  /** Rewound and replayed: `size` is how far the present state moved, `replayed` the inputs
   * applied again. */
  | { readonly type: "corrected"; readonly size: number; readonly replayed: number }
  /** The server's tick is after everything predicted: its state was taken as it is. */
  | { readonly type: "reset" }
  /** Older than the history or than a state already reconciled: ignored. */
  | { readonly type: "stale" };

/** What a `Predictor` did. */
export interface PredictStats {
  predicted: number;
  agreed: number;
  corrections: number;
  /** The largest correction's size. */
  largest: number;
  replayed: number;
  resets: number;
  stale: number;
  /** Inputs for a tick not following the previous one (the clock jumped): history restarted. */
  discontinuities: number;
}

interface Entry<State, Input> {
  readonly tick: number;
  readonly input: Input;
  /** The state after `input` was applied. */
  after: State;
}

interface Smoothing<State> {
  /** The old timeline: what was shown when the correction came, stepped on with the same inputs. */
  from: State;
  done: number;
}

/** Whether tick `a` is after `b`, as 32-bit tick counts wrap. */
export function tickAfter(a: number, b: number): boolean {
  return a !== b && ((a - b) >>> 0) < 2 ** 31;
}

/** The client's predicted state, its history, and its corrections. Ticks are unsigned 32-bit
 * counts (wrapping). */
export class Predictor<State, Input> {
  private current: State;
  private shown: State;
  private currentTick: number;
  /** Oldest first; ticks consecutive. */
  private history: Entry<State, Input>[] = [];
  /** The newest server tick reconciled: older server states are stale. */
  private confirmed: number | null = null;
  private smoothing: Smoothing<State> | null = null;
  readonly stats: PredictStats = {
    predicted: 0,
    agreed: 0,
    corrections: 0,
    largest: 0,
    replayed: 0,
    resets: 0,
    stale: 0,
    discontinuities: 0,
  };

  /** A predictor whose state at `tick` is `state`. */
  constructor(
    readonly simulation: Simulation<State, Input>,
    readonly config: PredictConfig,
    tick: number,
    state: State,
  ) {
    this.current = state;
    this.shown = state;
    this.currentTick = tick >>> 0;
  }

  /** Applies the local input for `tick` now, and remembers it for replays. */
  predict(tick: number, input: Input): void {
    tick >>>= 0;
    if (tick !== ((this.currentTick + 1) >>> 0)) {
      this.stats.discontinuities++;
      this.history = [];
    }
    this.current = this.simulation.step(tick, this.current, input);
    if (this.smoothing !== null) {
      this.smoothing.from = this.simulation.step(tick, this.smoothing.from, input);
      this.smoothing.done++;
    }
    this.currentTick = tick;
    this.stats.predicted++;
    this.history.push({ tick, input, after: this.current });
    const keep = Math.max(1, this.config.history);
    if (this.history.length > keep) this.history.splice(0, this.history.length - keep);
    this.refreshShown();
  }

  /** The server's state after `tick`: compared with the prediction for that tick, and corrected
   * by a replay when they differ beyond the tolerance. */
  reconcile(tick: number, server: State): Reconciled {
    tick >>>= 0;
    if (this.confirmed !== null && !tickAfter(tick, this.confirmed)) {
      this.stats.stale++;
      return { type: "stale" };
    }
    if (tickAfter(tick, this.currentTick)) {
      this.stats.resets++;
      this.confirmed = tick;
      this.current = server;
      this.currentTick = tick;
      this.history = [];
      this.smoothing = null;
      this.refreshShown();
      return { type: "reset" };
    }
    const at = this.history.findIndex((e) => e.tick === tick);
    const entry = this.history[at];
    if (entry === undefined) {
      this.stats.stale++;
      return { type: "stale" };
    }
    this.confirmed = tick;
    if (this.simulation.distance(entry.after, server) <= this.config.tolerance) {
      this.history.splice(0, at);
      this.stats.agreed++;
      return { type: "agreed" };
    }
    const shown = this.shown;
    const before = this.current;
    let state = server;
    entry.after = state;
    for (const later of this.history.slice(at + 1)) {
      state = this.simulation.step(later.tick, state, later.input);
      later.after = state;
    }
    const replayed = this.history.length - at - 1;
    this.history.splice(0, at);
    const size = this.simulation.distance(before, state);
    this.current = state;
    this.smoothing = this.config.smoothingTicks > 0 ? { from: shown, done: 0 } : null;
    this.refreshShown();
    this.stats.corrections++;
    this.stats.replayed += replayed;
    this.stats.largest = Math.max(this.stats.largest, size);
    return { type: "corrected", size, replayed };
  }

  private refreshShown(): void {
    const total = this.config.smoothingTicks;
    const s = this.smoothing;
    if (s !== null && s.done < total) {
      this.shown = this.simulation.blend(s.from, this.current, s.done / total);
    } else {
      this.smoothing = null;
      this.shown = this.current;
    }
  }

  /** The predicted state (the newest tick's). */
  state(): State {
    return this.current;
  }

  /** What to show: the predicted state, with a recent correction blended in. */
  displayed(): State {
    return this.shown;
  }

  /** The tick of the predicted state. */
  tick(): number {
    return this.currentTick;
  }

  /** Ticks of history held (at most `config.history`). */
  historyLength(): number {
    return this.history.length;
  }
}
