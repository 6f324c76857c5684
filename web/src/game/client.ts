// The spec's game client in the page: `Init`, the world from `Connect` and every newer
// `Snapshot`, pings, actions; messages through the codecs generated from the Rust schema.

import type { Delivery } from "../hopnet/connection.js";
import { type ClientMessage, type Entity, type Point, RabbitError, decodeServerMessage, encodeClientMessage } from "../messages.js";
import { type Avatar, avatars } from "./rules.js";

/** What one message from the server meant. */
export type GameEvent =
  | { readonly type: "joined"; readonly player: number }
  | { readonly type: "snapshot"; readonly time: number }
  | { readonly type: "game-over"; readonly won: boolean }
  | { readonly type: "pong"; readonly rtt: number }
  | { readonly type: "error"; readonly text: string };

/** Counters, for the page's status line and the tests. */
export interface GameStats {
  snapshots: number;
  stale: number;
  undecodable: number;
  won: number;
  lost: number;
  /** Round trips of the pings answered, milliseconds (the newest 10,000). */
  rtts: number[];
}

/** Round trips kept, the newest. */
const MAX_RTTS = 10_000;

/** Whether tick `a` is newer than `b`, as the server's time wraps. */
function tickNewer(a: number, b: number): boolean {
  return a !== b && ((a - b) >>> 0) < 2 ** 31;
}

export class GameClient {
  player: number | null = null;
  entities: Entity[] = [];
  latest: number | null = null;
  readonly stats: GameStats = { snapshots: 0, stale: 0, undecodable: 0, won: 0, lost: 0, rtts: [] };
  /** Called with every `Move` as it is sent, before it is sent: prediction walks at once. */
  onMove: (direction: number) => void = () => {};
  private channel = 0;
  private readonly pings = new Map<number, number>();

  constructor(private readonly send: (bytes: Uint8Array, delivery: Delivery) => void) {}

  private nextChannel(): number {
    this.channel = (this.channel + 1) >>> 0;
    return this.channel;
  }

  private sendMessage(message: ClientMessage, delivery: Delivery): void {
    this.send(encodeClientMessage(message), delivery);
  }

  /** Asks to join (reliable). */
  sendInit(): void {
    this.sendMessage({ Request: { channel: this.nextChannel(), kind: "Init" } }, "reliable");
  }

  /** Pings (unreliable: a lost one is a missing sample). */
  sendPing(now: number): void {
    const channel = this.nextChannel();
    for (const [c, at] of this.pings) {
      if (now - at > 10_000) this.pings.delete(c);
    }
    this.pings.set(channel, now);
    this.sendMessage({ Request: { channel, kind: "Ping" } }, "unreliable");
  }

  /** Walks in `direction` (bits; 0 stops). Actions are reliable: a lost `Move` would leave
   * the player walking. */
  sendMove(direction: number): void {
    this.onMove(direction);
    this.sendMessage({ Action: { Move: { direction } } }, "reliable");
  }

  /** Starts breaking `entity`, or stops (`null`). */
  sendBreak(entity: number | null): void {
    this.sendMessage({ Action: { Break: { entity } } }, "reliable");
  }

  /** Throws what the player holds toward `target`. */
  sendThrow(target: Point): void {
    this.sendMessage({ Action: { Throw: { target } } }, "reliable");
  }

  /** Our avatar, if alive. */
  me(): Avatar | null {
    return avatars(this.entities).find((a) => a.player.owner === this.player) ?? null;
  }

  /** Takes one message from the server. */
  handle(bytes: Uint8Array, now: number): GameEvent | null {
    let message;
    try {
      message = decodeServerMessage(bytes);
    } catch (e) {
      if (e instanceof RabbitError) {
        this.stats.undecodable++;
        return null;
      }
      throw e;
    }
    if ("Event" in message) {
      const { time, kind } = message.Event;
      if (typeof kind === "object" && "Snapshot" in kind) {
        if (this.player === null || (this.latest !== null && !tickNewer(time, this.latest))) {
          this.stats.stale++;
          return null;
        }
        this.latest = time;
        this.entities = kind.Snapshot.entities;
        this.stats.snapshots++;
        return { type: "snapshot", time };
      }
      const won = kind.GameOver === "Won";
      if (won) this.stats.won++;
      else this.stats.lost++;
      return { type: "game-over", won };
    }
    const { channel, kind } = message.Response;
    if (kind === "Pong") {
      const sent = this.pings.get(channel);
      if (sent === undefined) return null;
      this.pings.delete(channel);
      const rtt = now - sent;
      this.stats.rtts.push(rtt);
      if (this.stats.rtts.length > MAX_RTTS) this.stats.rtts.shift();
      return { type: "pong", rtt };
    }
    if ("Connect" in kind) {
      this.player = kind.Connect.player;
      this.entities = kind.Connect.snapshot.entities;
      return { type: "joined", player: this.player };
    }
    return { type: "error", text: kind.Error };
  }
}
