// What a hopnet connection needs from whatever carries its datagrams, written once for every
// carrier (a WebTransport session, a WebSocket): events handed up, what is due sent, the timer
// for the next deadline, and one end reported once.

import type { Connection, ConnectionEvent, Delivery } from "./connection.js";

/** What a carried connection reports: the connection's events, and the end of its carrier. */
export type SessionEvent = ConnectionEvent | { readonly type: "session-closed"; readonly reason: string };

/** A hopnet connection over some carrier. Set `onEvent`, then `send`. */
export abstract class Carried {
  /** Called with every event, in order. */
  onEvent: (event: SessionEvent) => void = () => {};
  private timer: ReturnType<typeof setTimeout> | null = null;
  private ended = false;

  protected constructor(
    /** The connection, for its state and counters. */
    readonly connection: Connection,
  ) {}

  /** Which carrier this is, as the page reports it. */
  abstract readonly kind: "webtransport" | "websocket";

  /** Hands one datagram to the carrier; one it cannot take is lost, as UDP loses it. */
  protected abstract write(datagram: Uint8Array): void;

  /** Ends the carrier itself (the connection has said what it had to). */
  protected abstract shut(): void;

  /** Queues a message (see `Connection.send`) and sends what can go. */
  send(bytes: Uint8Array, delivery: Delivery): void {
    this.connection.send(bytes, delivery);
    this.pump();
  }

  /** Closes the connection (hopnet's `END`), then the carrier. */
  close(): void {
    this.connection.close();
    this.pump();
    setTimeout(() => this.endSession("closed"), 50);
  }

  /** Takes one datagram the carrier received. */
  protected received(datagram: Uint8Array): void {
    this.connection.handle(performance.now(), datagram);
    this.pump();
  }

  /** Hands events up, sends what is due, and sets the timer for the next deadline. */
  protected pump(): void {
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
  protected endSession(reason: string): void {
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
    } catch {
      // Already closed.
    }
    this.onEvent({ type: "session-closed", reason });
  }
}
