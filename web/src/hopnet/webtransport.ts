// A hopnet connection carried by a WebTransport session's datagrams: what a page uses. Each
// datagram of the session is one hopnet datagram, exactly what a UDP client would send, so the
// server (hopnet-webtransport) runs the same protocol for browsers and native clients.

import { Carried } from "./carried.js";
import { Connection, type Config } from "./connection.js";
import { HEADER_LEN, CHUNK_SIZE } from "./header.js";

export type { SessionEvent } from "./carried.js";

/** The smallest datagram a session must carry: the spec's 508 bytes. */
const SPEC_DATAGRAM = HEADER_LEN + CHUNK_SIZE;

/** Where to connect. */
export interface SessionOptions {
  /** The server's WebTransport URL, `https://host:port/`. */
  readonly url: string;
  /** The SHA-256 hash of the server's self-signed certificate to pin, or `null` to trust the
   * browser's roots. */
  readonly certificateHash: Uint8Array | null;
  /** hopnet's numbers, if not its defaults. */
  readonly config?: Partial<Config>;
}

/** What `/webtransport.json` of the server's site says. */
export interface SessionParameters {
  readonly port: number;
  readonly certificateHash: string | null;
}

/** Reads the server's `/webtransport.json` (relative to the page) and makes the options for a
 * session to the page's own host. */
export async function sessionOptionsFromPage(config?: Partial<Config>): Promise<SessionOptions> {
  const response = await fetch("/webtransport.json", { cache: "no-store" });
  if (!response.ok) {
    throw new Error(`/webtransport.json: ${response.status}`);
  }
  const info = (await response.json()) as SessionParameters;
  const host = location.hostname.includes(":") ? `[${location.hostname}]` : location.hostname;
  const hash = info.certificateHash === null ? null : fromHex(info.certificateHash);
  return {
    url: `https://${host}:${info.port}/`,
    certificateHash: hash,
    ...(config === undefined ? {} : { config }),
  };
}

function fromHex(hex: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/i.test(hex)) {
    throw new Error(`not a SHA-256 hash: ${hex}`);
  }
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return bytes;
}

/** A hopnet connection over a WebTransport session. Set `onEvent`, then `send`. */
export class HopnetSession extends Carried {
  readonly kind = "webtransport";

  private constructor(
    private readonly transport: WebTransport,
    private readonly writer: WritableStreamDefaultWriter<Uint8Array>,
    connection: Connection,
  ) {
    super(connection);
  }

  /** Opens the session and starts hopnet's handshake in it; resolves once the session is up
   * (the connection follows with a `connected` event). */
  static async open(options: SessionOptions): Promise<HopnetSession> {
    const init: WebTransportOptions =
      options.certificateHash === null
        ? {}
        : { serverCertificateHashes: [{ algorithm: "sha-256", value: options.certificateHash as Uint8Array<ArrayBuffer> }] };
    const transport = new WebTransport(options.url, init);
    await transport.ready;
    const size = transport.datagrams.maxDatagramSize;
    if (size < SPEC_DATAGRAM) {
      transport.close({ closeCode: 1, reason: "datagrams too small" });
      throw new Error(`the session carries datagrams of ${size} bytes, hopnet needs ${SPEC_DATAGRAM}`);
    }
    const writer = transport.datagrams.writable.getWriter();
    const session = new HopnetSession(transport, writer, new Connection(performance.now(), options.config ?? {}));
    session.run();
    return session;
  }

  protected override write(datagram: Uint8Array): void {
    this.writer.write(datagram).catch(() => {});
  }

  protected override shut(): void {
    this.transport.close();
  }

  private run(): void {
    const reader = this.transport.datagrams.readable.getReader();
    void (async () => {
      for (;;) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch {
          break;
        }
        if (result.done) {
          break;
        }
        this.received(result.value);
      }
    })();
    this.transport.closed.then(
      (info) => this.endSession(`closed by the server (${info.closeCode ?? 0}: ${info.reason ?? ""})`),
      (error: unknown) => this.endSession(`lost: ${String(error)}`),
    );
    this.pump();
  }
}
