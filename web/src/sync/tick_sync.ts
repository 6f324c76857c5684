// The client's tick, kept ahead of the server's, as hopnet-sync's `tick_sync` keeps it. An
// input for tick T is useful only if it reaches the server by T, so the client runs ahead of
// its estimate of the server's tick by half the round trip (the server moved on while the
// snapshot travelled) plus half again (while the input travels) plus a margin. Two kinds of
// samples feed the estimate: a server tick seen at a local instant (every snapshot) and a
// round trip (every pong), each smoothed as RFC 6298 smooths a round trip. The tick never
// jumps to fix a small error: it runs at most `maxRateChange` faster or slower; only an error
// beyond `maxGapTicks` (a stall, a clock that leapt) makes it jump, and that is counted.
// Times are milliseconds of one monotonic clock (`performance.now()` in a page).
//
// One addition for a server that applies an input when it arrives rather than at a tick the
// input names (the spec's game: its `Move` carries no tick): such a server cannot say "late",
// but the client can see in the server's state the tick an input took effect at, and
// `onInputLanded` moves the clock by what it learns, so that inputs are labelled with the tick
// they land on (the counterpart of hopnet-sync's late-input margin).

/** How a `TickSync` steers. */
export interface TickSyncConfig {
  /** Milliseconds of one tick. */
  readonly tickMs: number;
  /** Ticks of margin beyond the round trip and the jitter. */
  readonly safetyTicks: number;
  /** How many mean deviations of the samples the margin holds. */
  readonly jitterFactor: number;
  /** The largest change of the tick's rate: 0.05 runs between 95 % and 105 % of real time. */
  readonly maxRateChange: number;
  /** The rate change per tick of error, before the bound above. */
  readonly gain: number;
  /** An error larger than this many ticks is jumped over, not steered away. */
  readonly maxGapTicks: number;
  /** The most ticks one `update` hands out: a clock that leapt does not flood the game. */
  readonly maxTicksPerUpdate: number;
  /** Round-trip samples longer than this (ms) are refused as absurd. */
  readonly maxRttMs: number;
  /** How much of each `onInputLanded` sample moves the clock. */
  readonly landingGain: number;
  /** The most ticks `onInputLanded` moves the clock by, either way. */
  readonly maxLandingTicks: number;
  /** After the first, an `onInputLanded` sample counts for at most this many ticks. */
  readonly maxLandingStep: number;
}

/** The defaults for a tick of `tickMs` milliseconds: the gap that jumps is at least 300 ms, the
 * most ticks at once at least 100 ms' worth. */
export function tickSyncConfig(tickMs: number): TickSyncConfig {
  const tick = Math.max(0.1, tickMs);
  return {
    tickMs: tick,
    safetyTicks: 1.5,
    jitterFactor: 2,
    maxRateChange: 0.05,
    gain: 0.05,
    maxGapTicks: Math.max(20, 300 / tick),
    maxTicksPerUpdate: Math.max(8, Math.floor(100 / tick)),
    maxRttMs: 5_000,
    landingGain: 0.25,
    maxLandingTicks: 4,
    maxLandingStep: 2,
  };
}

/** What a `TickSync` did besides steering. */
export interface TickSyncStats {
  jumps: number;
  clockBackwards: number;
  clockLeaps: number;
  rejectedRtt: number;
  /** `onInputLanded` samples refused (further off than `maxGapTicks`). */
  rejectedLandings: number;
}

interface Smoothed {
  mean: number;
  dev: number;
}

function addSample(s: Smoothed | null, sample: number): Smoothed {
  if (s === null) return { mean: sample, dev: 0 };
  s.dev += (Math.abs(sample - s.mean) - s.dev) / 4;
  s.mean += (sample - s.mean) / 8;
  return s;
}

/** The ticks one `update` hands to the game, in order, and whether the clock jumped. */
export interface Ticks {
  readonly ticks: number[];
  readonly jumped: boolean;
}

/** The client's tick clock: how many ticks to simulate now, kept ahead of the server. */
export class TickSync {
  private origin: number | null = null;
  private last: number | null = null;
  /** The client's tick as a continuous count; whole ticks are simulated as it crosses them. */
  private clock = 0;
  /** The server's tick minus our local clock in ticks, when a snapshot arrives. */
  private offset: Smoothed | null = null;
  /** The round trip, in ticks. */
  private roundTrip: Smoothed | null = null;
  private currentRate = 1;
  /** Ticks added to the target by where inputs landed. */
  private landing = 0;
  private landed = false;
  private synced = false;
  /** Started before any round trip was known: the first one moves the tick at once. */
  private provisional = false;
  readonly stats: TickSyncStats = { jumps: 0, clockBackwards: 0, clockLeaps: 0, rejectedRtt: 0, rejectedLandings: 0 };

  constructor(readonly config: TickSyncConfig) {}

  private local(now: number): number {
    if (this.origin === null) this.origin = now;
    return Math.max(0, now - this.origin) / this.config.tickMs;
  }

  /** A round-trip sample, milliseconds (refused, and counted, when absurd). */
  onRtt(rttMs: number): void {
    if (!(rttMs >= 0 && rttMs <= this.config.maxRttMs)) {
      this.stats.rejectedRtt++;
      return;
    }
    this.roundTrip = addSample(this.roundTrip, rttMs / this.config.tickMs);
  }

  /** A message stamped with the server's tick `serverTick` arrived at `now`. */
  onServerTick(now: number, serverTick: number): void {
    const sample = serverTick - this.local(now);
    // A restarted server or a long stall: start the estimate again rather than average it in.
    if (this.offset !== null && Math.abs(sample - this.offset.mean) > this.config.maxGapTicks) this.offset = null;
    this.offset = addSample(this.offset, sample);
  }

  /** An input labelled with tick `labelled` took effect at the server's tick `landed`: the
   * clock moves by the first difference, then by a part (`landingGain`) of each (at most
   * `maxLandingStep`), within `maxLandingTicks` in all. Samples further off than
   * `maxGapTicks` are refused and counted. */
  onInputLanded(labelled: number, landed: number): void {
    const late = landed - labelled;
    if (!(Math.abs(late) <= this.config.maxGapTicks)) {
      this.stats.rejectedLandings++;
      return;
    }
    const bound = this.config.maxLandingTicks;
    // The first sample is taken whole: before it the round trip alone placed the clock, and a
    // slow first ping can put it ticks off. Later ones count for at most `maxLandingStep`: an
    // input lost and sent again lands late by its retransmission, not by the clock.
    const step = this.landed
      ? Math.min(this.config.maxLandingStep, Math.max(-this.config.maxLandingStep, late)) * this.config.landingGain
      : late;
    this.landed = true;
    this.landing = Math.min(bound, Math.max(-bound, this.landing + step));
  }

  /** Ticks the clock runs further ahead (or, negative, behind) by where inputs landed. */
  landingTicks(): number {
    return this.landing;
  }

  /** The jitter margin now, in ticks. */
  jitterTicks(): number {
    return ((this.offset?.dev ?? 0) + (this.roundTrip?.dev ?? 0)) * this.config.jitterFactor;
  }

  /** The smoothed round trip in milliseconds, once there is a sample. */
  rttMs(): number | null {
    return this.roundTrip === null ? null : Math.max(0, this.roundTrip.mean * this.config.tickMs);
  }

  private halfRtt(): number {
    return (this.roundTrip?.mean ?? 0) / 2;
  }

  /** The server tick whose messages arrive about `now` (fractional): the newest state the
   * client can have, from which interpolation counts its delay back. */
  arrivingTickEstimate(now: number): number | null {
    const local = this.local(now);
    return this.offset === null ? null : local + this.offset.mean;
  }

  /** Our estimate of the tick the server is at `now` (fractional). */
  serverTickEstimate(now: number): number | null {
    const arriving = this.arrivingTickEstimate(now);
    return arriving === null ? null : arriving + this.halfRtt();
  }

  private target(now: number): number | null {
    const server = this.serverTickEstimate(now);
    if (server === null) return null;
    return server + this.halfRtt() + this.config.safetyTicks + this.jitterTicks() + this.landing;
  }

  /** Moves the clock to `now` and returns the ticks to simulate, in order (none before the
   * first server tick). */
  update(now: number): Ticks {
    const none: Ticks = { ticks: [], jumped: false };
    const before = Math.floor(this.clock);
    let elapsed = 0;
    if (this.last !== null) {
      if (now < this.last) {
        this.stats.clockBackwards++;
        return none;
      }
      elapsed = (now - this.last) / this.config.tickMs;
    }
    this.last = now;
    const target = this.target(now);
    if (target === null) return none;
    const restart = this.provisional && this.roundTrip !== null && target > this.clock;
    if (this.roundTrip !== null) this.provisional = false;
    if (!this.synced || restart) {
      const jumped = this.synced;
      this.provisional = this.roundTrip === null;
      this.synced = true;
      this.clock = target;
      return { ticks: [Math.floor(this.clock)], jumped };
    }
    if (elapsed > this.config.maxTicksPerUpdate) {
      this.stats.clockLeaps++;
      elapsed = this.config.maxTicksPerUpdate;
    }
    // The error once this update's time has passed at the plain rate: measured before it,
    // the clock would settle a whole update's time ahead of its target.
    const error = target - (this.clock + elapsed);
    if (Math.abs(error) > this.config.maxGapTicks) {
      this.stats.jumps++;
      this.clock = target;
      this.currentRate = 1;
      return { ticks: [Math.floor(this.clock)], jumped: true };
    }
    const bound = this.config.maxRateChange;
    this.currentRate = 1 + Math.min(bound, Math.max(-bound, error * this.config.gain));
    this.clock += elapsed * this.currentRate;
    const ticks: number[] = [];
    for (let t = before + 1; t <= Math.floor(this.clock); t++) ticks.push(t);
    return { ticks, jumped: false };
  }

  /** The client's current whole tick (the last one handed out). */
  tick(): number {
    return Math.floor(this.clock);
  }

  /** The tick as a continuous count, for drawing between ticks. */
  fractionalTick(): number {
    return this.clock;
  }

  /** The rate the tick runs at, relative to real time. */
  rate(): number {
    return this.currentRate;
  }

  /** Whether the clock has its first samples and hands out ticks. */
  isSynced(): boolean {
    return this.synced;
  }
}
