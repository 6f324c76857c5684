// The spec's game client in the page: `Init`, the world from `Connect` and every newer
// `Snapshot`, pings, actions; messages through the codecs generated from the Rust schema.
import { RabbitError, decodeServerMessage, encodeClientMessage } from "../messages.js";
import { avatars } from "./rules.js";
/** Round trips kept, the newest. */
const MAX_RTTS = 10000;
/** Whether tick `a` is newer than `b`, as the server's time wraps. */
function tickNewer(a, b) {
    return a !== b && ((a - b) >>> 0) < 2 ** 31;
}
export class GameClient {
    constructor(send) {
        this.send = send;
        this.player = null;
        this.entities = [];
        this.latest = null;
        this.stats = { snapshots: 0, stale: 0, undecodable: 0, won: 0, lost: 0, rtts: [] };
        /** Called with every `Move` as it is sent, before it is sent: prediction walks at once. */
        this.onMove = () => { };
        this.channel = 0;
        this.pings = new Map();
    }
    nextChannel() {
        this.channel = (this.channel + 1) >>> 0;
        return this.channel;
    }
    sendMessage(message, delivery) {
        this.send(encodeClientMessage(message), delivery);
    }
    /** Asks to join (reliable). */
    sendInit() {
        this.sendMessage({ Request: { channel: this.nextChannel(), kind: "Init" } }, "reliable");
    }
    /** Pings (unreliable: a lost one is a missing sample). */
    sendPing(now) {
        const channel = this.nextChannel();
        for (const [c, at] of this.pings) {
            if (now - at > 10000)
                this.pings.delete(c);
        }
        this.pings.set(channel, now);
        this.sendMessage({ Request: { channel, kind: "Ping" } }, "unreliable");
    }
    /** Walks in `direction` (bits; 0 stops). Actions are reliable: a lost `Move` would leave
     * the player walking. */
    sendMove(direction) {
        this.onMove(direction);
        this.sendMessage({ Action: { Move: { direction } } }, "reliable");
    }
    /** Starts breaking `entity`, or stops (`null`). */
    sendBreak(entity) {
        this.sendMessage({ Action: { Break: { entity } } }, "reliable");
    }
    /** Throws what the player holds toward `target`. */
    sendThrow(target) {
        this.sendMessage({ Action: { Throw: { target } } }, "reliable");
    }
    /** Our avatar, if alive. */
    me() {
        return avatars(this.entities).find((a) => a.player.owner === this.player) ?? null;
    }
    /** Takes one message from the server. */
    handle(bytes, now) {
        let message;
        try {
            message = decodeServerMessage(bytes);
        }
        catch (e) {
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
            if (won)
                this.stats.won++;
            else
                this.stats.lost++;
            return { type: "game-over", won };
        }
        const { channel, kind } = message.Response;
        if (kind === "Pong") {
            const sent = this.pings.get(channel);
            if (sent === undefined)
                return null;
            this.pings.delete(channel);
            const rtt = now - sent;
            this.stats.rtts.push(rtt);
            if (this.stats.rtts.length > MAX_RTTS)
                this.stats.rtts.shift();
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
