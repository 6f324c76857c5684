// Remote entities shown between snapshots, and beyond them for a while, as hopnet-sync's
// `interpolate` does it. An `Interpolator` holds one entity's recent snapshots by tick and is
// sampled at a render tick a delay behind the newest, where two snapshots surround it: a lost
// snapshot costs nothing while the delay covers it. When snapshots stop and the render tick
// passes the newest, the value goes on along the line through the last two (dead reckoning)
// for at most `maxExtrapolationTicks`, then holds; when snapshots come again, what is shown
// converges back to the interpolated value over `convergeTicks` instead of jumping.

/** `t` of the way from `from` to `to`; for `t` above 1, on along the same line. */
export type Lerp<T> = (from: T, to: T, t: number) => T;

/** How an `Interpolator` buffers and guesses. */
export interface InterpolationConfig {
  /** Snapshots held at most. */
  readonly capacity: number;
  /** How far past the newest snapshot, in ticks, a value is extrapolated; beyond, it holds. */
  readonly maxExtrapolationTicks: number;
  /** Ticks over which the value shown converges back when snapshots resume. */
  readonly convergeTicks: number;
  /** A snapshot more than this many ticks after the newest is refused: a peer claiming a tick
   * far ahead cannot push the buffer past everything real. */
  readonly maxAheadTicks: number;
}

export const DEFAULT_INTERPOLATION_CONFIG: InterpolationConfig = {
  capacity: 64,
  maxExtrapolationTicks: 12,
  convergeTicks: 6,
  maxAheadTicks: 1024,
};

/** How a sample was made: between two snapshots, past the newest along the last velocity, or
 * held (past the bound, before the oldest, or with one snapshot). */
export type Sampled = "interpolated" | "extrapolated" | "held";

/** What an `Interpolator` did. */
export interface InterpolationStats {
  interpolated: number;
  extrapolated: number;
  held: number;
  /** Snapshots refused: older than the pair rendered from, a tick already held, or too far
   * ahead. */
  refused: number;
  /** Times snapshots resumed after an extrapolation and the value converged back. */
  converged: number;
}

interface Converge<T> {
  readonly from: T;
  readonly start: number;
}

/** One entity's snapshots, sampled at a render tick. */
export class Interpolator<T> {
  /** Ascending by tick. */
  private snapshots: { tick: number; value: T }[] = [];
  private last: { render: number; shown: T; how: Sampled } | null = null;
  private converge: Converge<T> | null = null;
  readonly stats: InterpolationStats = { interpolated: 0, extrapolated: 0, held: 0, refused: 0, converged: 0 };

  constructor(
    private readonly lerp: Lerp<T>,
    readonly config: InterpolationConfig = DEFAULT_INTERPOLATION_CONFIG,
  ) {}

  /** The entity's snapshot at `tick`, in any order. */
  push(tick: number, value: T): void {
    const newest = this.newestTick();
    if (newest !== null && tick > newest && tick - newest > this.config.maxAheadTicks) {
      this.stats.refused++;
      return;
    }
    let at = 0;
    while (at < this.snapshots.length && (this.snapshots[at]?.tick ?? Infinity) < tick) at++;
    if (this.snapshots[at]?.tick === tick || (at === 0 && this.last !== null && this.snapshots.length > 0)) {
      this.stats.refused++;
      return;
    }
    const last = this.last;
    if (
      (newest === null || tick > newest) &&
      last !== null &&
      last.how !== "interpolated" &&
      newest !== null &&
      last.render > newest &&
      (this.converge === null || this.converge.start !== last.render)
    ) {
      this.converge = { from: last.shown, start: last.render };
      this.stats.converged++;
    }
    this.snapshots.splice(at, 0, { tick, value });
    const keep = Math.max(2, this.config.capacity);
    if (this.snapshots.length > keep) this.snapshots.splice(0, this.snapshots.length - keep);
  }

  /** The value to show at `render` (a fractional tick), or `null` before any snapshot. */
  sample(render: number): T | null {
    const made = this.raw(render);
    if (made === null) return null;
    const [raw, how] = made;
    // Snapshots before the pair in use are no longer needed.
    while (this.snapshots.length > 2 && (this.snapshots[1]?.tick ?? Infinity) <= render) this.snapshots.shift();
    let shown = raw;
    if (this.converge !== null) {
      const t = Math.min(1, Math.max(0, (render - this.converge.start) / Math.max(1e-3, this.config.convergeTicks)));
      if (t >= 1) this.converge = null;
      else shown = this.lerp(this.converge.from, raw, t);
    }
    this.stats[how]++;
    this.last = { render, shown, how };
    return shown;
  }

  private raw(render: number): [T, Sampled] | null {
    const newest = this.snapshots[this.snapshots.length - 1];
    if (newest === undefined) return null;
    if (render <= newest.tick) {
      const after = this.snapshots.findIndex((s) => s.tick >= render);
      const b = this.snapshots[after];
      const a = this.snapshots[after - 1];
      if (a === undefined || b === undefined) return [this.snapshots[0]?.value ?? newest.value, "held"];
      return [this.lerp(a.value, b.value, (render - a.tick) / (b.tick - a.tick)), "interpolated"];
    }
    const previous = this.snapshots[this.snapshots.length - 2];
    if (previous === undefined) return [newest.value, "held"];
    const ahead = render - newest.tick;
    const bound = Math.max(0, this.config.maxExtrapolationTicks);
    const t = 1 + Math.min(ahead, bound) / (newest.tick - previous.tick);
    return [this.lerp(previous.value, newest.value, t), ahead > bound ? "held" : "extrapolated"];
  }

  /** How the last sample was made. */
  lastSampled(): Sampled | null {
    return this.last?.how ?? null;
  }

  /** The newest snapshot's tick. */
  newestTick(): number | null {
    return this.snapshots[this.snapshots.length - 1]?.tick ?? null;
  }

  /** Snapshots held (at most `capacity`). */
  get length(): number {
    return this.snapshots.length;
  }
}
