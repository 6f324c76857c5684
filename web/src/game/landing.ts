// Where the page's `Move`s land. The spec's `Move` carries no tick and the server applies it
// when it arrives, so the page labels each direction change with the tick it predicts it at
// and then watches the server's snapshots for our avatar's `movement` changing: the tick it
// changed at, against the label, is how far off the page's clock was (`TickSync.onInputLanded`).
// Only a change between two consecutive snapshots is a sample: across a lost one, the tick it
// took effect at is unknown.

/** Direction changes remembered until the server shows them. */
const MAX_UNLANDED = 32;
/** Samples kept for the page's counters. */
const MAX_SAMPLES = 1_000;

/** A direction change: the tick it was labelled with, and the direction's compass bits. */
interface Change {
  readonly tick: number;
  readonly direction: number;
}

export class Landings {
  private unlanded: Change[] = [];
  /** Our `movement` in the newest snapshot, and its tick. */
  private last: { time: number; movement: number } | null = null;
  /** For each change seen, the ticks it landed after its label (the newest 1,000). */
  readonly samples: number[] = [];

  /** The player changed direction; the first tick predicted with it is `tick`. */
  changed(tick: number, direction: number): void {
    this.unlanded.push({ tick, direction: direction & 0x0f });
    if (this.unlanded.length > MAX_UNLANDED) this.unlanded.shift();
  }

  /** Our avatar's `movement` in the snapshot of `time`. Returns the change that took effect at
   * `time`, with the tick it was labelled with, or null. */
  seen(time: number, movement: number): { labelled: number; landed: number } | null {
    const before = this.last;
    this.last = { time, movement };
    if (before === null || before.movement === movement || time !== before.time + 1) return null;
    const at = this.unlanded.findIndex((u) => u.direction === movement);
    const change = this.unlanded[at];
    if (change === undefined) return null;
    this.unlanded.splice(0, at + 1);
    this.samples.push(time - change.tick);
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
    return { labelled: change.tick, landed: time };
  }

  /** Direction changes not yet seen in a snapshot (at most 32). */
  get waiting(): number {
    return this.unlanded.length;
  }

  /** The avatar is gone: its `movement` no longer follows from the last one seen. */
  forget(): void {
    this.last = null;
  }
}
