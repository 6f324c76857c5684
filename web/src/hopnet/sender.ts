// The sending side of the data phase: one sequence id per message, reliable or not; messages
// split into 504-byte chunks behind the header; reliable chunks kept until acknowledged and
// resent on timeout, or once three later transmissions were acknowledged before them
// (PROTOCOL.md, "Retransmission"). A fixed window of reliable chunks in flight stands in for
// hopnet's congestion control: a page sends small messages.

import { HopnetError } from "./errors.js";
import { CHUNK_SIZE, FIN, MAX_PAYLOAD, REL, packet, seqDiff } from "./header.js";
import { RttEstimator } from "./rtt.js";

/** How a reliable message's oldest id may trail the next id at most (PROTOCOL.md, "Exactly
 * once across the wrap"): ids are never reused while their message may be in flight. */
const MAX_SPAN = 16_384;
/** A chunk counts as lost once a chunk sent this many transmissions after it is acknowledged. */
const REORDER_THRESHOLD = 3;

interface OutChunk {
  readonly datagram: Uint8Array;
  acked: boolean;
  /** When it was last sent; -1 before its first transmission. */
  sentAt: number;
  transmissions: number;
  /** When it is resent if still unacknowledged. */
  due: number;
  /** The number of its last transmission, counted over the connection. */
  transmission: number;
}

interface OutMessage {
  readonly chunks: OutChunk[];
  unacked: number;
}

export interface SenderLimits {
  window: number;
  maxPendingReliable: number;
}

export class Sender {
  private next = 0;
  /** Reliable messages not wholly acknowledged, by sequence, oldest first. */
  private readonly pending = new Map<number, OutMessage>();
  /** Unreliable chunks to send at once. */
  private readonly unreliable: Uint8Array[] = [];
  /** Reliable chunks not sent yet (the window was full), in order. */
  private readonly waiting: OutChunk[] = [];
  private inFlight = 0;
  private transmissions = 0;
  private backoffHold = -Infinity;
  retransmissions = 0;

  constructor(
    readonly rtt: RttEstimator,
    private readonly limits: SenderLimits,
  ) {}

  /** The id the next message will have. */
  get nextSequence(): number {
    return this.next;
  }

  /** Whether anything at all waits to be sent or acknowledged. */
  get idle(): boolean {
    return this.pending.size === 0 && this.unreliable.length === 0;
  }

  /** Splits `payload` into chunks and queues them; returns the message's sequence id. */
  send(payload: Uint8Array, reliable: boolean): number {
    if (payload.length > MAX_PAYLOAD) {
      throw new HopnetError("payload-too-large", `a message holds at most ${MAX_PAYLOAD} bytes, not ${payload.length}`);
    }
    if (reliable && this.pending.size >= this.limits.maxPendingReliable) {
      throw new HopnetError("would-block", "too many reliable messages await acknowledgement");
    }
    const oldest = this.pending.keys().next();
    if (!oldest.done && seqDiff(this.next, oldest.value) >= MAX_SPAN - 1) {
      throw new HopnetError("would-block", "the oldest reliable message is too far behind");
    }
    const sequence = this.next;
    this.next = (this.next + 1) & 0xffff;
    const count = Math.max(1, Math.ceil(payload.length / CHUNK_SIZE));
    const chunks: OutChunk[] = [];
    for (let i = 0; i < count; i++) {
      const flags = (reliable ? REL : 0) | (i === count - 1 ? FIN : 0);
      const body = payload.subarray(i * CHUNK_SIZE, Math.min((i + 1) * CHUNK_SIZE, payload.length));
      const datagram = packet(flags, i, sequence, body);
      if (reliable) {
        chunks.push({ datagram, acked: false, sentAt: -1, transmissions: 0, due: Infinity, transmission: 0 });
      } else {
        this.unreliable.push(datagram);
      }
    }
    if (reliable) {
      this.pending.set(sequence, { chunks, unacked: chunks.length });
      this.waiting.push(...chunks);
    }
    return sequence;
  }

  /** An `ACK` for `chunk` of `sequence` arrived. Anything we have no record of is ignored. */
  onAck(now: number, sequence: number, chunk: number): void {
    const message = this.pending.get(sequence);
    const out = message?.chunks[chunk];
    if (message === undefined || out === undefined || out.acked || out.sentAt < 0) {
      return;
    }
    out.acked = true;
    this.inFlight--;
    message.unacked--;
    if (out.transmissions === 1) {
      this.rtt.sample(now - out.sentAt);
    } else {
      this.rtt.promptAfterRetransmission(now - out.sentAt);
    }
    if (message.unacked === 0) {
      this.pending.delete(sequence);
    }
    // Chunks sent well before this one and still unacknowledged are lost: resend them now.
    for (const m of this.pending.values()) {
      for (const c of m.chunks) {
        if (!c.acked && c.sentAt >= 0 && c.transmission + REORDER_THRESHOLD <= out.transmission && c.due > now) {
          c.due = now;
          c.transmission = Infinity; // not declared lost again before it is resent
        }
      }
    }
  }

  /** The next datagram to send at `now`: unreliable chunks, then chunks due again, then new
   * reliable chunks the window allows. */
  poll(now: number): Uint8Array | null {
    const first = this.unreliable.shift();
    if (first !== undefined) {
      return first;
    }
    for (const m of this.pending.values()) {
      for (const c of m.chunks) {
        if (!c.acked && c.sentAt >= 0 && c.due <= now) {
          if (c.transmission !== Infinity && now >= this.backoffHold) {
            // A timer expired (not a chunk declared lost by later ones): back off, once a
            // timeout however many chunks expire together.
            this.rtt.backOff();
            this.backoffHold = now + this.rtt.rto;
          }
          this.retransmissions++;
          return this.transmit(c, now);
        }
      }
    }
    if (this.inFlight < this.limits.window) {
      const c = this.waiting.shift();
      if (c !== undefined) {
        this.inFlight++;
        return this.transmit(c, now);
      }
    }
    return null;
  }

  private transmit(c: OutChunk, now: number): Uint8Array {
    c.sentAt = now;
    c.transmissions++;
    c.transmission = ++this.transmissions;
    c.due = now + this.rtt.rto;
    return c.datagram;
  }

  /** When a chunk is next due again (Infinity if none). */
  nextDue(): number {
    let due = Infinity;
    if (this.unreliable.length > 0 || (this.waiting.length > 0 && this.inFlight < this.limits.window)) {
      return -Infinity;
    }
    for (const m of this.pending.values()) {
      for (const c of m.chunks) {
        if (!c.acked && c.sentAt >= 0 && c.due < due) {
          due = c.due;
        }
      }
    }
    return due;
  }

  /** Drops everything unsent and unacknowledged (the connection closed). */
  clear(): void {
    this.pending.clear();
    this.unreliable.length = 0;
    this.waiting.length = 0;
    this.inFlight = 0;
  }
}
