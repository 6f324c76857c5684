// What a hopnet connection needs from whatever carries its datagrams, written once for every
// carrier (a WebTransport session, a WebSocket): events handed up, what is due sent, the timer
// for the next deadline, and one end reported once.
/** A hopnet connection over some carrier. Set `onEvent`, then `send`. */
export class Carried {
    constructor(
    /** The connection, for its state and counters. */
    connection) {
        this.connection = connection;
        /** Called with every event, in order. */
        this.onEvent = () => { };
        this.timer = null;
        this.ended = false;
    }
    /** Queues a message (see `Connection.send`) and sends what can go. */
    send(bytes, delivery) {
        this.connection.send(bytes, delivery);
        this.pump();
    }
    /** Closes the connection (hopnet's `END`), then the carrier. */
    close() {
        this.connection.close();
        this.pump();
        setTimeout(() => this.endSession("closed"), 50);
    }
    /** Takes one datagram the carrier received. */
    received(datagram) {
        this.connection.handle(performance.now(), datagram);
        this.pump();
    }
    /** Hands events up, sends what is due, and sets the timer for the next deadline. */
    pump() {
        const now = performance.now();
        for (let datagram = this.connection.pollTransmit(now); datagram !== null; datagram = this.connection.pollTransmit(now)) {
            this.write(datagram);
        }
        for (let event = this.connection.pollEvent(); event !== null; event = this.connection.pollEvent()) {
            this.onEvent(event);
        }
        if (this.timer !== null) {
            clearTimeout(this.timer);
            this.timer = null;
        }
        const deadline = this.connection.pollTimeout();
        if (deadline !== null && !this.ended) {
            this.timer = setTimeout(() => {
                this.timer = null;
                this.connection.handleTimeout(performance.now());
                this.pump();
            }, Math.max(0, deadline - performance.now()));
        }
    }
    /** Reports the carrier's end, once, and lets it go. */
    endSession(reason) {
        if (this.ended) {
            return;
        }
        this.ended = true;
        if (this.timer !== null) {
            clearTimeout(this.timer);
            this.timer = null;
        }
        try {
            this.shut();
        }
        catch {
            // Already closed.
        }
        this.onEvent({ type: "session-closed", reason });
    }
}
