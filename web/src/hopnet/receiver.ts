// The receiving side of the data phase: chunks checked against the spec's rules, reassembled
// in any order, each message handed up exactly once (one "delivered" bit per sequence id, valid
// for the half of the space behind the newest id seen), incomplete messages dropped after a
// while, and their memory bounded (PROTOCOL.md, "Chunks", "Exactly once across the wrap",
// "Memory bounds").

import { CHUNK_SIZE, FIN, type Header, REL, has, seqDiff, seqNewer } from "./header.js";

interface Partial {
  readonly reliable: boolean;
  readonly chunks: (Uint8Array | undefined)[];
  /** The index of the `FIN` chunk, once it came; -1 before. */
  fin: number;
  /** The highest index received. */
  highest: number;
  count: number;
  bytes: number;
  readonly first: number;
  last: number;
}

/** What one chunk did. */
export interface Received {
  /** Whether to acknowledge it (a `REL` chunk that was taken, or repeated). */
  readonly ack: boolean;
  /** The message it completed, if any. */
  readonly message: { readonly bytes: Uint8Array; readonly reliable: boolean } | null;
  /** Whether it broke a rule (dropped, counted as malformed). */
  readonly malformed: boolean;
}

export interface ReceiverLimits {
  maxReassemblyBytes: number;
  unreliableTimeout: number;
  reliablePartialTimeout: number;
}

const DROPPED: Received = { ack: false, message: null, malformed: true };
const REFUSED: Received = { ack: false, message: null, malformed: false };

export class Receiver {
  private readonly partials = new Map<number, Partial>();
  private readonly delivered = new Uint32Array(65536 / 32);
  private newest: number | null = null;
  private held = 0;

  constructor(private readonly limits: ReceiverLimits) {}

  /** The newest sequence id seen from the peer. */
  get newestSequence(): number | null {
    return this.newest;
  }

  /** Takes one chunk (a packet without `ACK` or `END`). */
  onChunk(now: number, header: Header, data: Uint8Array): Received {
    const { chunk, sequence } = header;
    const reliable = has(header.flags, REL);
    const fin = has(header.flags, FIN);
    if (data.length > CHUNK_SIZE || (!fin && data.length !== CHUNK_SIZE)) {
      return DROPPED;
    }
    this.observe(sequence);
    if (this.isDelivered(sequence)) {
      // Its first acknowledgement may have been lost.
      return { ack: reliable, message: null, malformed: false };
    }
    let partial = this.partials.get(sequence);
    if (partial !== undefined) {
      if (
        partial.reliable !== reliable ||
        (fin && partial.fin >= 0 && partial.fin !== chunk) ||
        (partial.fin >= 0 && chunk > partial.fin) ||
        (fin && partial.highest > chunk)
      ) {
        return DROPPED;
      }
      if (partial.chunks[chunk] !== undefined) {
        return { ack: reliable, message: null, malformed: false };
      }
    }
    if (this.held + data.length > this.limits.maxReassemblyBytes && !(reliable && this.isOldestReliable(sequence))) {
      // Over budget: an unreliable chunk is lost, a reliable one is not acknowledged and
      // comes again later.
      return REFUSED;
    }
    if (partial === undefined) {
      partial = { reliable, chunks: [], fin: -1, highest: -1, count: 0, bytes: 0, first: now, last: now };
      this.partials.set(sequence, partial);
    }
    partial.chunks[chunk] = data.slice();
    partial.count++;
    partial.bytes += data.length;
    partial.last = now;
    partial.highest = Math.max(partial.highest, chunk);
    this.held += data.length;
    if (fin) {
      partial.fin = chunk;
    }
    if (partial.fin < 0 || partial.count !== partial.fin + 1) {
      return { ack: reliable, message: null, malformed: false };
    }
    this.partials.delete(sequence);
    this.held -= partial.bytes;
    this.markDelivered(sequence);
    const bytes = new Uint8Array(partial.bytes);
    let at = 0;
    for (const c of partial.chunks) {
      if (c !== undefined) {
        bytes.set(c, at);
        at += c.length;
      }
    }
    return { ack: reliable, message: { bytes, reliable }, malformed: false };
  }

  /** Drops incomplete messages that waited too long: unreliable ones from their first chunk,
   * reliable ones from their last. */
  expire(now: number): void {
    for (const [sequence, p] of this.partials) {
      if (now >= this.expiry(p)) {
        this.partials.delete(sequence);
        this.held -= p.bytes;
      }
    }
  }

  /** When the next incomplete message expires (Infinity if none). */
  nextExpiry(): number {
    let next = Infinity;
    for (const p of this.partials.values()) {
      next = Math.min(next, this.expiry(p));
    }
    return next;
  }

  private expiry(p: Partial): number {
    return p.reliable ? p.last + this.limits.reliablePartialTimeout : p.first + this.limits.unreliableTimeout;
  }

  /** Whether `sequence` is the oldest incomplete reliable message, which may grow past the
   * budget so that reassembly cannot deadlock. */
  private isOldestReliable(sequence: number): boolean {
    const newest = this.newest ?? sequence;
    let oldest: number | null = null;
    for (const [s, p] of this.partials) {
      if (p.reliable && (oldest === null || seqDiff(s, newest) < seqDiff(oldest, newest))) {
        oldest = s;
      }
    }
    return oldest === null ? true : oldest === sequence;
  }

  private observe(sequence: number): void {
    if (this.newest === null) {
      this.newest = sequence;
      return;
    }
    if (!seqNewer(sequence, this.newest)) {
      return;
    }
    // The bits passed over belonged to messages 65,536 ids ago.
    for (let s = (this.newest + 1) & 0xffff; s !== sequence; s = (s + 1) & 0xffff) {
      this.clearBit(s);
    }
    this.clearBit(sequence);
    this.newest = sequence;
  }

  private isDelivered(sequence: number): boolean {
    if (this.newest === null || seqNewer(sequence, this.newest)) {
      return false;
    }
    return ((this.delivered[sequence >>> 5] ?? 0) & (1 << (sequence & 31))) !== 0;
  }

  private markDelivered(sequence: number): void {
    const i = sequence >>> 5;
    this.delivered[i] = (this.delivered[i] ?? 0) | (1 << (sequence & 31));
  }

  private clearBit(sequence: number): void {
    const i = sequence >>> 5;
    this.delivered[i] = (this.delivered[i] ?? 0) & ~(1 << (sequence & 31));
  }
}
