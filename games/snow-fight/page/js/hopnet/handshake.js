// The client's side of the spec's handshake, as PROTOCOL.md's "The client's handshake" has it:
// `Init` (salt), `Challenge` (pepper), `ChallengeResponse` (salt XOR pepper), four bytes each,
// without a header. The client resends only its `Init`, never its `ChallengeResponse`, and each
// salt is a probe: `REL | FIN`, chunk 255, no payload, a sequence just behind 0 (a packet every
// reading of the spec defines, the empty last chunk of a 256-chunk message). A server that
// already accepted us acknowledges it like any `REL` chunk, which is the confirmation the spec
// never sends, and hands nothing up (chunks 0 to 254 never come); a server still waiting takes
// it as a new `Init`. The probes of one attempt count down from the first, whose low byte is
// random, and start over after 256, as the Rust client's do (`handshake/client.rs`).
import { ACK, END, FIN, REL, RESERVED } from "./header.js";
/** `REL | FIN`: a probe's flags. */
const PROBE_FLAGS = REL | FIN;
/** The chunk of every probe: never in flight this early in a connection. */
const PROBE_CHUNK = 255;
/** How many sequences the probes of one attempt use, counting down from the first. */
const PROBE_SEQUENCES = 256;
/** The highest sequences, where every attempt's first probe lies (its low byte is random). */
const PROBE_BASE = 0xff00;
/** Peppers remembered, so that a late copy of a `Challenge` is never answered twice. */
const MAX_ANSWERED = 32;
/** Four bytes as one unsigned 32-bit number, big-endian (for comparisons). */
function word(bytes) {
    return (((bytes[0] ?? 0) << 24) | ((bytes[1] ?? 0) << 16) | ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0)) >>> 0;
}
function bytesOf(value) {
    return new Uint8Array([(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]);
}
/** What to send when, and which answers to take. Times are milliseconds. */
export class ClientHandshake {
    /** `low` (0 to 255, the low byte of the first probe's sequence) comes from the caller's
     * random source. */
    constructor(started, low, initial, max, timeout) {
        this.started = started;
        this.initial = initial;
        this.max = max;
        this.timeout = timeout;
        /** Which of the sequences the latest salt has (0 for the first). */
        this.index = 0;
        /** The highest index used so far: the probes whose acknowledgement confirms. */
        this.highest = 0;
        this.responded = false;
        this.armed = false;
        this.answered = [];
        this.dueNow = [];
        this.first = PROBE_BASE | (low & 0xff);
        this.salt = probe(this.first);
        this.nextResend = started;
        this.interval = initial;
    }
    /** When the attempt gives up. */
    get deadline() {
        return this.started + this.timeout;
    }
    /** Whether a `ChallengeResponse` was sent. */
    get hasResponded() {
        return this.responded;
    }
    /** When `poll` next has something to send (now, if something is due at once). */
    get nextSend() {
        return this.dueNow.length > 0 ? this.started : this.nextResend;
    }
    /** The next handshake datagram due at `now`, if any. */
    poll(now) {
        if (now >= this.deadline) {
            this.dueNow.length = 0;
            return null;
        }
        const due = this.dueNow.shift();
        if (due !== undefined) {
            return due;
        }
        if (now < this.nextResend) {
            return null;
        }
        this.nextResend = now + this.interval;
        this.interval = Math.min(this.interval * 2, this.max);
        return bytesOf(this.nextInit());
    }
    /** The `Init` to send next: the same salt until we responded, a fresh probe after. */
    nextInit() {
        if (this.responded) {
            this.index = (this.index + 1) % PROBE_SEQUENCES;
            this.highest = Math.max(this.highest, this.index);
            this.salt = probe((this.first - this.index) & 0xffff);
        }
        this.armed = true;
        return this.salt;
    }
    /** A 4-byte datagram that is no confirmation: a `Challenge`, answered if an `Init` left since
     * the last answer and its pepper is new. Returns whether it was answered. */
    onChallenge(now, datagram) {
        const pepper = word(datagram);
        if (!this.armed || this.answered.includes(pepper)) {
            return false;
        }
        if (this.answered.length === MAX_ANSWERED) {
            this.answered.shift();
        }
        this.answered.push(pepper);
        this.armed = false;
        const response = (this.salt ^ pepper) >>> 0;
        this.responded = true;
        const probe = this.nextInit();
        this.dueNow.length = 0;
        this.dueNow.push(bytesOf(response), bytesOf(probe));
        this.interval = this.initial;
        this.nextResend = now + this.initial;
        return true;
    }
    /** Whether a 4-byte datagram acknowledges one of our probes: `ACK` (with `FIN` or not), no
     * `END`, no reserved bit, chunk 255, the sequence of a probe of this attempt. */
    isConfirmation(datagram) {
        const flags = datagram[0] ?? 0;
        const sequence = ((datagram[2] ?? 0) << 8) | (datagram[3] ?? 0);
        return ((flags & RESERVED) === 0 &&
            (flags & ACK) !== 0 &&
            (flags & END) === 0 &&
            datagram[1] === PROBE_CHUNK &&
            ((this.first - sequence) & 0xffff) <= this.highest);
    }
    /** Whether a 4-byte datagram is a pepper already answered: a stray `Challenge`. */
    wasAnswered(datagram) {
        return this.answered.includes(word(datagram));
    }
}
/** A probe, as the salt it is: `REL | FIN`, chunk 255, the sequence. */
function probe(sequence) {
    return ((PROBE_FLAGS << 24) | (PROBE_CHUNK << 16) | (sequence & 0xffff)) >>> 0;
}
