// A hopnet connection carried by a WebTransport session's datagrams: what a page uses. Each
// datagram of the session is one hopnet datagram, exactly what a UDP client would send, so the
// server (hopnet-webtransport) runs the same protocol for browsers and native clients.
import { Carried } from "./carried.js";
import { Connection } from "./connection.js";
import { HEADER_LEN, CHUNK_SIZE } from "./header.js";
/** The smallest datagram a session must carry: the spec's 508 bytes. */
const SPEC_DATAGRAM = HEADER_LEN + CHUNK_SIZE;
/** Reads the server's `/webtransport.json` (relative to the page) and makes the options for a
 * session to the page's own host. */
export async function sessionOptionsFromPage(config) {
    const response = await fetch("/webtransport.json", { cache: "no-store" });
    if (!response.ok) {
        throw new Error(`/webtransport.json: ${response.status}`);
    }
    const info = (await response.json());
    const host = location.hostname.includes(":") ? `[${location.hostname}]` : location.hostname;
    const hash = info.certificateHash === null ? null : fromHex(info.certificateHash);
    return {
        url: `https://${host}:${info.port}/`,
        certificateHash: hash,
        ...(config === undefined ? {} : { config }),
    };
}
function fromHex(hex) {
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
    constructor(transport, writer, connection) {
        super(connection);
        this.transport = transport;
        this.writer = writer;
        this.kind = "webtransport";
    }
    /** Opens the session and starts hopnet's handshake in it; resolves once the session is up
     * (the connection follows with a `connected` event). */
    static async open(options) {
        const init = options.certificateHash === null
            ? {}
            : { serverCertificateHashes: [{ algorithm: "sha-256", value: options.certificateHash }] };
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
    write(datagram) {
        this.writer.write(datagram).catch(() => { });
    }
    shut() {
        this.transport.close();
    }
    run() {
        const reader = this.transport.datagrams.readable.getReader();
        void (async () => {
            for (;;) {
                let result;
                try {
                    result = await reader.read();
                }
                catch {
                    break;
                }
                if (result.done) {
                    break;
                }
                this.received(result.value);
            }
        })();
        this.transport.closed.then((info) => this.endSession(`closed by the server (${info.closeCode ?? 0}: ${info.reason ?? ""})`), (error) => this.endSession(`lost: ${String(error)}`));
        this.pump();
    }
}
