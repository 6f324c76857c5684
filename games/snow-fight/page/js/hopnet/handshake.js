// The client's side of the spec's handshake, as PROTOCOL.md's "The client's handshake" has it:
// `Init` (salt), `Challenge` (pepper), `ChallengeResponse` (salt XOR pepper), four bytes each,
// without a header. The client resends only its `Init`, never its `ChallengeResponse`, and each
// salt is probe-shaped (a reserved nibble, `REL | ACK`, chunk 255, a sequence with its top bit
// set): a server that already accepted us reads it as a packet and acknowledges it, which is the
// confirmation the spec never sends; a server still waiting takes it as a new `Init`.
import { ACK, END, RESERVED } from "./header.js";
/** `REL | ACK`: the flags a probe-shaped salt has, read as a header. */
const PROBE_FLAGS = 0x03;
/** The chunk of every probe: never in flight this early in a connection. */
const PROBE_CHUNK = 255;
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
    /** `nibble` (1 to 15) and `sequence` come from the caller's random source. */
    constructor(started, nibble, sequence, initial, max, timeout) {
        this.started = started;
        this.initial = initial;
        this.max = max;
        this.timeout = timeout;
        this.responded = false;
        this.armed = false;
        this.answered = [];
        this.dueNow = [];
        this.probeSequence = (sequence | 0x8000) & 0xffff;
        this.salt = probeSalt((nibble % 15) + 1, this.probeSequence);
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
            const nibble = ((this.salt >>> 28) % 15) + 1;
            this.salt = probeSalt(nibble, this.probeSequence);
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
     * `END`, no reserved bit, chunk 255, the probe's sequence. */
    isConfirmation(datagram) {
        const flags = datagram[0] ?? 0;
        return ((flags & RESERVED) === 0 &&
            (flags & ACK) !== 0 &&
            (flags & END) === 0 &&
            datagram[1] === PROBE_CHUNK &&
            (((datagram[2] ?? 0) << 8) | (datagram[3] ?? 0)) === this.probeSequence);
    }
    /** Whether a 4-byte datagram is a pepper already answered: a stray `Challenge`. */
    wasAnswered(datagram) {
        return this.answered.includes(word(datagram));
    }
}
function probeSalt(nibble, sequence) {
    return (((nibble << 4) | PROBE_FLAGS) << 24 | (PROBE_CHUNK << 16) | sequence) >>> 0;
}
