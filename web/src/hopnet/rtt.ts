// The round-trip estimate and the retransmission timeout, RFC 6298 with hopnet's bounds
// (PROTOCOL.md, "Retransmission"): samples only from chunks sent once (Karn), the timeout
// doubled on each expiry until the next sample.

/** Clock granularity in the RTO's spread, milliseconds. */
const GRANULARITY = 1;

export class RttEstimator {
  private srtt: number | null = null;
  private rttvar: number;
  private base: number;
  private backoff = 0;

  constructor(
    initialRtt: number,
    private readonly minRto: number,
    private readonly maxRto: number,
  ) {
    this.rttvar = initialRtt / 2;
    this.base = clamp(initialRtt * 3, minRto, maxRto);
  }

  /** A round trip measured, in milliseconds. */
  sample(rtt: number): void {
    if (this.srtt === null) {
      this.srtt = rtt;
      this.rttvar = rtt / 2;
    } else {
      this.rttvar = (this.rttvar * 3) / 4 + Math.abs(this.srtt - rtt) / 4;
      this.srtt = (this.srtt * 7) / 8 + rtt / 8;
    }
    this.base = clamp(this.srtt + Math.max(GRANULARITY, 4 * this.rttvar), this.minRto, this.maxRto);
    this.backoff = 0;
  }

  /** The retransmission timeout now, milliseconds. */
  get rto(): number {
    return Math.min(this.base * 2 ** this.backoff, this.maxRto);
  }

  /** The smoothed round trip, once sampled. */
  get smoothed(): number | null {
    return this.srtt;
  }

  /** A retransmission timer expired. */
  backOff(): void {
    this.backoff = Math.min(this.backoff + 1, 16);
  }

  /** A chunk resent after a timeout was acknowledged within the un-backed-off RTO: the link
   * works again, though Karn's rule gave no sample. */
  promptAfterRetransmission(elapsed: number): void {
    if (elapsed < this.base) {
      this.backoff = 0;
    }
  }
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}
