// A client's connection to a hopnet server, without I/O: datagrams and the time (milliseconds,
// any monotonic clock) go in, datagrams, events and the next deadline come out, as in hopnet's
// own `Connection`. A carrier (a WebTransport session in the page, a UDP socket in Node) moves
// the datagrams.
//
// The wire is the spec's (PROTOCOL.md, "Transport (hopnet)"): the handshake of
// `handshake.ts`, then chunks behind the 4-byte header, an `ACK` for every `REL` chunk at once,
// a keepalive after 2 s of silence, `END` to close, 15 s without a datagram to time out. It
// offers no extensions, so a hopnet server speaks the spec's wire to it.
import { HopnetError } from "./errors.js";
import { ClientHandshake } from "./handshake.js";
import { ACK, END, HEADER_LEN, RESERVED, has, header, packet } from "./header.js";
import { Receiver } from "./receiver.js";
import { RttEstimator } from "./rtt.js";
import { Sender } from "./sender.js";
export const DEFAULT_CONFIG = {
    connectTimeout: 10000,
    handshakeInitialResend: 250,
    handshakeMaxResend: 1000,
    idleTimeout: 15000,
    keepalive: 2000,
    initialRtt: 100,
    minRto: 30,
    maxRto: 5000,
    window: 64,
    maxPendingReliable: 1024,
    maxQueued: 4096,
    maxReassemblyBytes: 4 * 1024 * 1024,
    unreliableTimeout: 1000,
    reliablePartialTimeout: 30000,
};
/** A random integer in `0..bound`, from the platform's cryptographic source. */
function cryptoRandom(bound) {
    const word = new Uint32Array(1);
    globalThis.crypto.getRandomValues(word);
    return (word[0] ?? 0) % bound;
}
/** A client's connection. Drive it: `handle` every datagram from the server, send whatever
 * `pollTransmit` returns until `null`, call `handleTimeout` once `pollTimeout` has passed, read
 * `pollEvent` after each. */
export class Connection {
    /** A connection whose first `Init` is due at `now`. */
    constructor(now, config = {}, random = cryptoRandom) {
        this.phase = "awaiting-challenge";
        this.control = [];
        this.events = [];
        this.counters = {
            datagramsSent: 0,
            datagramsReceived: 0,
            bytesSent: 0,
            bytesReceived: 0,
            messagesSent: 0,
            messagesReceived: 0,
            malformed: 0,
            queueDrops: 0,
        };
        this.config = { ...DEFAULT_CONFIG, ...config };
        const c = this.config;
        this.handshake = new ClientHandshake(now, random(15), random(65536), c.handshakeInitialResend, c.handshakeMaxResend, c.connectTimeout);
        this.sender = new Sender(new RttEstimator(c.initialRtt, c.minRto, c.maxRto), c);
        this.receiver = new Receiver(c);
        this.lastReceived = now;
        this.lastSent = now;
    }
    get isConnected() {
        return this.phase === "established";
    }
    get isClosed() {
        return this.phase === "closed";
    }
    get stats() {
        return { ...this.counters, retransmissions: this.sender.retransmissions, srtt: this.sender.rtt.smoothed };
    }
    /** Queues a message. Reliable messages queued before the connection is up wait for it;
     * unreliable ones are dropped (PROTOCOL.md, "The client's handshake"). Throws a
     * `HopnetError` when the message is refused. */
    send(bytes, delivery) {
        if (this.phase === "closed") {
            throw new HopnetError("closed", "the connection is closed");
        }
        if (delivery === "unreliable" && this.phase !== "established") {
            return;
        }
        this.sender.send(bytes, delivery === "reliable");
        this.counters.messagesSent++;
    }
    /** Closes the connection: one `END` to send, then nothing more. */
    close() {
        if (this.phase === "closed") {
            return;
        }
        const established = this.phase === "established";
        this.end("local-close");
        if (established) {
            this.control.length = 0;
            this.control.push(packet(END, 0, this.sender.nextSequence));
        }
    }
    /** Takes a datagram from the server. */
    handle(now, datagram) {
        if (this.phase === "closed") {
            return;
        }
        this.counters.datagramsReceived++;
        this.counters.bytesReceived += datagram.length;
        const four = datagram.length === 4;
        switch (this.phase) {
            case "awaiting-challenge":
            case "awaiting-confirmation":
                if (four && this.handshake.hasResponded && this.handshake.isConfirmation(datagram)) {
                    this.confirm(now);
                    this.onPacket(now, datagram);
                }
                else if (four) {
                    if (this.handshake.onChallenge(now, datagram)) {
                        this.phase = "awaiting-confirmation";
                    }
                }
                else if (this.phase === "awaiting-confirmation" && datagram.length > HEADER_LEN) {
                    // Only a server that accepted us sends more than four bytes.
                    this.confirm(now);
                    this.onPacket(now, datagram);
                }
                else {
                    this.counters.malformed++;
                }
                return;
            case "established":
                if (four && (((datagram[0] ?? 0) & RESERVED) !== 0 || this.handshake.wasAnswered(datagram))) {
                    // A stray handshake datagram, never a header from a conforming peer.
                    return;
                }
                if (datagram.length < HEADER_LEN) {
                    this.counters.malformed++;
                    return;
                }
                this.onPacket(now, datagram);
                return;
        }
    }
    /** A datagram with a header, in the data phase. */
    onPacket(now, datagram) {
        const h = header(datagram);
        if (h === null) {
            this.counters.malformed++;
            return;
        }
        this.lastReceived = now;
        if (has(h.flags, END)) {
            this.sender.clear();
            this.end("peer-closed");
            return;
        }
        if (has(h.flags, ACK)) {
            this.sender.onAck(now, h.sequence, h.chunk);
            return;
        }
        const received = this.receiver.onChunk(now, h, datagram.subarray(HEADER_LEN));
        if (received.malformed) {
            this.counters.malformed++;
        }
        if (received.ack) {
            this.queueControl(packet(ACK, h.chunk, h.sequence));
        }
        if (received.message !== null) {
            this.counters.messagesReceived++;
            this.events.push({ type: "message", bytes: received.message.bytes, reliable: received.message.reliable });
        }
    }
    confirm(now) {
        this.phase = "established";
        this.lastReceived = now;
        this.events.push({ type: "connected" });
    }
    end(reason) {
        this.phase = "closed";
        this.sender.clear();
        this.events.push({ type: "disconnected", reason });
    }
    queueControl(datagram) {
        if (this.control.length >= this.config.maxQueued) {
            this.counters.queueDrops++;
            return;
        }
        this.control.push(datagram);
    }
    /** The next datagram to send at `now`, or `null`. */
    pollTransmit(now) {
        const datagram = this.nextDatagram(now);
        if (datagram !== null) {
            this.counters.datagramsSent++;
            this.counters.bytesSent += datagram.length;
            this.lastSent = now;
        }
        return datagram;
    }
    nextDatagram(now) {
        const control = this.control.shift();
        if (control !== undefined) {
            return control;
        }
        switch (this.phase) {
            case "awaiting-challenge":
            case "awaiting-confirmation":
                return this.handshake.poll(now);
            case "established":
                return this.sender.poll(now);
            case "closed":
                return null;
        }
    }
    /** When `handleTimeout` should next be called, or `null` if never. */
    pollTimeout() {
        switch (this.phase) {
            case "awaiting-challenge":
            case "awaiting-confirmation":
                return Math.min(this.handshake.nextSend, this.handshake.deadline);
            case "established":
                return Math.min(this.lastReceived + this.config.idleTimeout, this.lastSent + this.config.keepalive, this.sender.nextDue(), this.receiver.nextExpiry());
            case "closed":
                return this.control.length > 0 ? -Infinity : null;
        }
    }
    /** Runs the timers due at `now`. Retransmissions due are sent by the next `pollTransmit`. */
    handleTimeout(now) {
        switch (this.phase) {
            case "awaiting-challenge":
            case "awaiting-confirmation":
                if (now >= this.handshake.deadline) {
                    this.end("connect-timeout");
                }
                return;
            case "established":
                if (now >= this.lastReceived + this.config.idleTimeout) {
                    this.end("timed-out");
                    return;
                }
                this.receiver.expire(now);
                if (now >= this.lastSent + this.config.keepalive && this.control.length === 0) {
                    // An ACK of a chunk the server never has in flight: ignored, but a sign of life.
                    const newest = this.receiver.newestSequence;
                    const away = ((newest ?? 0) + 32768) & 0xffff;
                    this.queueControl(packet(ACK, 255, away));
                }
                return;
            case "closed":
                return;
        }
    }
    /** The next event, or `null`. */
    pollEvent() {
        return this.events.shift() ?? null;
    }
}
