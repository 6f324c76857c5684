// Which carrier a page plays over: WebTransport where the browser has it and its session
// opens, else a WebSocket to the same server, by itself.

import type { Carried } from "./carried.js";
import type { Config } from "./connection.js";
import { HopnetSession, type SessionOptions, sessionOptionsFromPage } from "./webtransport.js";
import { HopnetSocket, websocketUrlOfPage } from "./websocket.js";

/** How long a WebTransport session may take to open before the page falls back: QUIC's own
 * timeout, where UDP is blocked, is far longer than a player waits. */
const SESSION_OPEN_TIMEOUT = 5_000;

/** What the page connected with, and why it fell back if it did. */
export interface Chosen {
  readonly carried: Carried;
  /** Why WebTransport was not used, or null if it was. */
  readonly fallback: string | null;
}

/** Opens a hopnet connection to the page's server: a WebTransport session (its options from
 * `/webtransport.json`, changed by `adjust`) if the browser has WebTransport and the session
 * opens within 5 s, otherwise a WebSocket to the page's own port. */
export async function openFromPage(
  config?: Partial<Config>,
  adjust: (options: SessionOptions) => SessionOptions = (o) => o,
): Promise<Chosen> {
  let fallback: string;
  if (typeof globalThis.WebTransport === "undefined") {
    fallback = "this browser has no WebTransport";
  } else {
    try {
      const options = adjust(await sessionOptionsFromPage(config));
      return { carried: await withTimeout(HopnetSession.open(options), SESSION_OPEN_TIMEOUT), fallback: null };
    } catch (e) {
      fallback = `WebTransport failed: ${String(e)}`;
    }
  }
  return { carried: await HopnetSocket.open(websocketUrlOfPage(), config ?? {}), fallback };
}

/** `opening`, or an error after `ms`; a session that opens too late is closed. */
function withTimeout(opening: Promise<HopnetSession>, ms: number): Promise<HopnetSession> {
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new Error(`the session did not open within ${ms} ms`));
    }, ms);
    opening.then(
      (session) => {
        clearTimeout(timer);
        if (late) session.close();
        else resolve(session);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
