// The receiving side of the data phase: chunks checked against the spec's rules, reassembled
// in any order, each message handed up exactly once (one "delivered" bit per sequence id, valid
// for the half of the space behind the newest id seen), incomplete messages dropped after a
// while, and their memory bounded (PROTOCOL.md, "Chunks", "Exactly once across the wrap",
// "Memory bounds").
import { CHUNK_SIZE, FIN, REL, has, seqDiff, seqNewer } from "./header.js";
const DROPPED = { ack: false, message: null, malformed: true };
const REFUSED = { ack: false, message: null, malformed: false };
export class Receiver {
    constructor(limits) {
        this.limits = limits;
        this.partials = new Map();
        this.delivered = new Uint32Array(65536 / 32);
        this.newest = null;
        this.held = 0;
    }
    /** The newest sequence id seen from the peer. */
    get newestSequence() {
        return this.newest;
    }
    /** Takes one chunk (a packet without `ACK` or `END`). */
    onChunk(now, header, data) {
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
            if (partial.reliable !== reliable ||
                (fin && partial.fin >= 0 && partial.fin !== chunk) ||
                (partial.fin >= 0 && chunk > partial.fin) ||
                (fin && partial.highest > chunk)) {
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
    expire(now) {
        for (const [sequence, p] of this.partials) {
            if (now >= this.expiry(p)) {
                this.partials.delete(sequence);
                this.held -= p.bytes;
            }
        }
    }
    /** When the next incomplete message expires (Infinity if none). */
    nextExpiry() {
        let next = Infinity;
        for (const p of this.partials.values()) {
            next = Math.min(next, this.expiry(p));
        }
        return next;
    }
    expiry(p) {
        return p.reliable ? p.last + this.limits.reliablePartialTimeout : p.first + this.limits.unreliableTimeout;
    }
    /** Whether `sequence` is the oldest incomplete reliable message, which may grow past the
     * budget so that reassembly cannot deadlock. */
    isOldestReliable(sequence) {
        const newest = this.newest ?? sequence;
        let oldest = null;
        for (const [s, p] of this.partials) {
            if (p.reliable && (oldest === null || seqDiff(s, newest) < seqDiff(oldest, newest))) {
                oldest = s;
            }
        }
        return oldest === null ? true : oldest === sequence;
    }
    observe(sequence) {
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
    isDelivered(sequence) {
        if (this.newest === null || seqNewer(sequence, this.newest)) {
            return false;
        }
        return ((this.delivered[sequence >>> 5] ?? 0) & (1 << (sequence & 31))) !== 0;
    }
    markDelivered(sequence) {
        const i = sequence >>> 5;
        this.delivered[i] = (this.delivered[i] ?? 0) | (1 << (sequence & 31));
    }
    clearBit(sequence) {
        const i = sequence >>> 5;
        this.delivered[i] = (this.delivered[i] ?? 0) & ~(1 << (sequence & 31));
    }
}
