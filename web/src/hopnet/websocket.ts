// A hopnet connection carried by a WebSocket: the page's fallback where the browser has no
// WebTransport, or its session cannot open (a network that lets no UDP through). Each binary
// message is one hopnet datagram, both ways, to the server's `/hopnet` on the page's own port
// (hopnet-webtransport takes the upgrade there). TCP loses nothing and keeps order, so
// hopnet's retransmissions never fire for loss; a late message holds up those behind it.

import { Carried } from "./carried.js";
import { Connection, type Config } from "./connection.js";

/** The path the server takes WebSockets on. */
export const WEBSOCKET_PATH = "/hopnet";

/** Bytes the browser may hold unsent on the socket; a datagram beyond it is dropped, as a
 * full UDP buffer drops one: hopnet resends what must arrive. */
const MAX_BUFFERED = 1 << 20;

/** The WebSocket URL of the page's own server: `ws:` beside `http:`, `wss:` beside `https:`. */
export function websocketUrlOfPage(): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${WEBSOCKET_PATH}`;
}

/** A hopnet connection over a WebSocket. Set `onEvent`, then `send`. */
export class HopnetSocket extends Carried {
  readonly kind = "websocket";

  private constructor(
    private readonly socket: WebSocket,
    connection: Connection,
  ) {
    super(connection);
  }

  /** Opens the socket and starts hopnet's handshake in it; resolves once the socket is open
   * (the connection follows with a `connected` event), rejects if it cannot open. */
  static open(url: string, config: Partial<Config> = {}): Promise<HopnetSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.binaryType = "arraybuffer";
      socket.onerror = () => reject(new Error(`the WebSocket to ${url} did not open`));
      socket.onopen = () => {
        const carried = new HopnetSocket(socket, new Connection(performance.now(), config));
        carried.run();
        resolve(carried);
      };
    });
  }

  protected override write(datagram: Uint8Array): void {
    if (this.socket.readyState === WebSocket.OPEN && this.socket.bufferedAmount <= MAX_BUFFERED) {
      this.socket.send(datagram as Uint8Array<ArrayBuffer>);
    }
  }

  protected override shut(): void {
    this.socket.close(1000);
  }

  private run(): void {
    this.socket.onerror = null;
    this.socket.onmessage = (event: MessageEvent) => {
      // The server sends binary messages only; anything else is no hopnet datagram.
      if (event.data instanceof ArrayBuffer) {
        this.received(new Uint8Array(event.data));
      }
    };
    this.socket.onclose = (event: CloseEvent) => this.endSession(`closed by the server (${event.code}: ${event.reason})`);
    this.pump();
  }
}
