// The typed API as a page uses it: compiled (strict) with the generated module by the Rust test
// crates/hopnet-snow-fight/tests/typescript/, never run. A change to the generator that broke this use
// fails that test.

import {
  type ClientMessage,
  type ServerMessage,
  RabbitError,
  decode,
  decodeServerMessage,
  encode,
  encodeClientMessage,
} from "../src/messages.js";

/** The tick of an event, or null for a response. */
export function tickOf(bytes: Uint8Array): number | null {
  const message: ServerMessage = decodeServerMessage(bytes);
  return "Event" in message ? message.Event.time : null;
}

/** A move north and east. */
export function moveNorthEast(): Uint8Array {
  const message: ClientMessage = { Action: { Move: { direction: 1 | 8 } } };
  return encodeClientMessage(message);
}

/** The owners of the players in a snapshot: `decode` by name is typed by the name. */
export function owners(bytes: Uint8Array): number[] {
  const snapshot = decode("Snapshot", bytes);
  return snapshot.entities.flatMap((e) =>
    typeof e.kind === "object" && "Player" in e.kind ? [e.kind.Player.owner] : [],
  );
}

/** A ping on a channel, by name. */
export function ping(channel: number): Uint8Array {
  return encode("ClientMessage", { Request: { channel, kind: "Ping" } });
}

/** Whether an error came from the codecs (bad bytes or a bad value). */
export function isCodecError(e: unknown): boolean {
  return e instanceof RabbitError;
}
