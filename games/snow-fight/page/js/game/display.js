// What the page shows, as issue 39's netcode shows it: our own avatar predicted (it walks the
// tick its key is pressed, and is corrected smoothly when the server disagrees), every other
// entity interpolated a few ticks behind the newest snapshot (and extrapolated for a bounded
// time when snapshots stop).
//
// The spec's `Move` carries no tick: the server applies it when it arrives. So the page's
// clock runs at its estimate of the server tick at which an input sent now arrives, with no
// margin (an input labelled early is as wrong as one labelled late), and a key press first
// hands out the ticks that passed before it with the old direction. The server's snapshots
// say when our `movement` changed: the tick a `Move` took effect at, against the tick the page
// labelled it with, steers the clock (`TickSync.onInputLanded`).
import { DEFAULT_INTERPOLATION_CONFIG, Interpolator, } from "../sync/interpolate.js";
import { Predictor } from "../sync/predict.js";
import { TickSync, tickSyncConfig } from "../sync/tick_sync.js";
import { PLAYER_RADIUS, TICK_RATE, avatars, objectRadius, things } from "./rules.js";
import { Walking } from "./walk.js";
/** Ticks the others are drawn behind the newest snapshot: two lost snapshots in a row are
 * still interpolated over, not guessed. */
export const INTERPOLATION_DELAY_TICKS = 4;
/** Our avatar moving further than this between two snapshots is a teleport (a respawn, a new
 * round): prediction starts again from there instead of gliding across the map, counted apart. */
export const TELEPORT_DISTANCE = 2;
export const PREDICT_CONFIG = {
    history: 256,
    // A tenth of a step: one tick of walking labelled wrongly is a correction.
    tolerance: 0.01,
    smoothingTicks: 6,
};
const MAX_SIZES = 1000;
/** Direction changes remembered until the server shows them. */
const MAX_UNLANDED = 32;
function lerpPoint(a, b, t) {
    return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t, z: a.z + (b.z - a.z) * t };
}
function positionOf(e) {
    if (typeof e.kind !== "object")
        return null;
    if ("Player" in e.kind)
        return e.kind.Player.position;
    if ("Object" in e.kind)
        return e.kind.Object.position;
    return null;
}
function withPosition(e, position) {
    if (typeof e.kind === "object" && "Player" in e.kind)
        return { ...e, kind: { Player: { ...e.kind.Player, position } } };
    if (typeof e.kind === "object" && "Object" in e.kind)
        return { ...e, kind: { Object: { ...e.kind.Object, position } } };
    return e;
}
/** Our avatar predicted, the others interpolated. */
export class Display {
    constructor(interpolation = DEFAULT_INTERPOLATION_CONFIG) {
        this.interpolation = interpolation;
        /** No margin: the server does not hold an early input for its tick. What the round trip
         * misjudges, where inputs are seen to land corrects. */
        this.clock = new TickSync({ ...tickSyncConfig(1000 / TICK_RATE), safetyTicks: 0, jitterFactor: 0 });
        this.walking = new Walking();
        this.predictor = null;
        this.remote = new Map();
        this.newest = [];
        this.owner = null;
        this.direction = 0;
        this.ended = [];
        this.teleports = 0;
        this.jumps = 0;
        this.lastDrawn = null;
        /** Our avatar's position in the newest snapshot: a leap from it is a teleport. */
        this.lastServer = null;
        this.extrapolatedFrames = 0;
        this.sizes = [];
        /** Samples of the others by how they were made; refusals and convergences of entities gone. */
        this.remoteStats = { interpolated: 0, extrapolated: 0, held: 0, refused: 0, converged: 0 };
        /** Direction changes not yet seen in a snapshot, with the tick each was labelled with. */
        this.unlanded = [];
        /** Our `movement` in the newest snapshot, and its tick. */
        this.lastMovement = null;
        this.landings = [];
    }
    /** A round trip measured by a ping. */
    onRtt(ms) {
        this.clock.onRtt(ms);
    }
    /** A snapshot of server tick `time`, arrived at `now`, for player `owner`. */
    onSnapshot(now, time, entities, owner) {
        this.clock.onServerTick(now, time);
        this.newest = entities;
        this.owner = owner;
        const me = avatars(entities).find((a) => a.player.owner === owner) ?? null;
        this.walking.blockers = blockers(entities, me?.id ?? null);
        if (me === null) {
            this.endPrediction();
            this.lastServer = null;
        }
        else {
            const server = { x: me.player.position.x, y: me.player.position.y };
            this.landed(time, me.player.movement);
            const jumped = this.lastServer !== null && this.walking.distance(this.lastServer, server) > TELEPORT_DISTANCE;
            this.lastServer = server;
            if (jumped && this.predictor !== null) {
                this.teleports++;
                this.endPrediction();
                this.predictor = new Predictor(this.walking, PREDICT_CONFIG, this.clock.tick(), server);
            }
            else if (this.predictor !== null) {
                const r = this.predictor.reconcile(time, server);
                if (r.type === "corrected") {
                    this.sizes.push(r.size);
                    if (this.sizes.length > MAX_SIZES)
                        this.sizes.shift();
                }
            }
        }
        const present = new Set();
        for (const e of entities) {
            const at = positionOf(e);
            if (at === null || e.id === me?.id)
                continue;
            present.add(e.id);
            let i = this.remote.get(e.id);
            if (i === undefined) {
                i = new Interpolator(lerpPoint, this.interpolation);
                this.remote.set(e.id, i);
            }
            i.push(time, at);
        }
        for (const [id, i] of this.remote) {
            if (present.has(id))
                continue;
            this.remoteStats.refused += i.stats.refused;
            this.remoteStats.converged += i.stats.converged;
            this.remote.delete(id);
        }
    }
    /** The player's direction changes at `now`: the ticks before it are walked the old way. */
    setDirection(now, direction) {
        this.advance(now);
        const changed = (direction & 0x0f) !== (this.direction & 0x0f);
        this.direction = direction;
        if (this.predictor !== null && changed) {
            this.unlanded.push({ tick: this.predictor.tick() + 1, direction: direction & 0x0f });
            if (this.unlanded.length > MAX_UNLANDED)
                this.unlanded.shift();
        }
    }
    /** Our `movement` was `movement` at `time`: if it changed since the tick before, a `Move`
     * took effect at `time`, and the clock learns how far off its label was. */
    landed(time, movement) {
        const before = this.lastMovement;
        this.lastMovement = { time, movement };
        if (before === null || before.movement === movement || time !== before.time + 1)
            return;
        const at = this.unlanded.findIndex((u) => u.direction === movement);
        const change = this.unlanded[at];
        if (change === undefined)
            return;
        this.unlanded.splice(0, at + 1);
        this.clock.onInputLanded(change.tick, time);
        this.landings.push(time - change.tick);
        if (this.landings.length > MAX_SIZES)
            this.landings.shift();
    }
    /** Runs the ticks due at `now`, predicting our walk through each. */
    advance(now) {
        const { ticks, jumped } = this.clock.update(now);
        if (jumped)
            this.jumps++;
        const first = ticks[0];
        // Not before a round trip is known: until then the clock runs behind the server's tick,
        // and every snapshot would be ahead of what was predicted.
        if (this.predictor === null && first !== undefined && this.clock.rttMs() !== null) {
            const me = this.owner === null ? null : avatars(this.newest).find((a) => a.player.owner === this.owner);
            if (me !== undefined && me !== null) {
                this.predictor = new Predictor(this.walking, PREDICT_CONFIG, first - 1, { x: me.player.position.x, y: me.player.position.y });
            }
        }
        for (const tick of ticks)
            this.predictor?.predict(tick, this.direction);
    }
    /** The world to draw at `now`. */
    frame(now) {
        this.advance(now);
        const render = (this.clock.arrivingTickEstimate(now) ?? 0) - INTERPOLATION_DELAY_TICKS;
        const me = this.owner === null ? null : (avatars(this.newest).find((a) => a.player.owner === this.owner) ?? null);
        const mine = this.predictor === null ? null : this.shownPosition();
        this.lastDrawn = mine;
        let extrapolated = false;
        const out = this.newest.map((e) => {
            if (mine !== null && me !== null && e.id === me.id) {
                return withPosition(e, { x: mine.x, y: mine.y, z: me.player.position.z });
            }
            const at = positionOf(e);
            if (mine !== null && me !== null && at !== null && e.id === me.player.holding) {
                return withPosition(e, { x: mine.x, y: mine.y, z: at.z });
            }
            const i = this.remote.get(e.id);
            const p = i?.sample(render) ?? null;
            const how = i?.lastSampled() ?? null;
            if (how !== null)
                this.remoteStats[how]++;
            if (how === "extrapolated")
                extrapolated = true;
            return p === null ? e : withPosition(e, p);
        });
        if (extrapolated)
            this.extrapolatedFrames++;
        return out;
    }
    /** Our avatar between its last tick and the next: the time since the tick walked on in the
     * held direction, so a key press shows in the next frame even when no tick has passed. */
    shownPosition() {
        const p = this.predictor;
        if (p === null)
            return null;
        const shown = p.displayed();
        const fraction = Math.min(1, Math.max(0, this.clock.fractionalTick() - this.clock.tick()));
        if (fraction === 0)
            return shown;
        return this.walking.blend(shown, this.walking.step(p.tick() + 1, shown, this.direction), fraction);
    }
    /** Where the newest frame drew our avatar, or null when it had none. */
    drawn() {
        return this.lastDrawn;
    }
    endPrediction() {
        if (this.predictor !== null)
            this.ended.push({ ...this.predictor.stats });
        this.predictor = null;
    }
    /** Prediction's counters, over every avatar this page had. */
    stats() {
        const all = [...this.ended, ...(this.predictor === null ? [] : [this.predictor.stats])];
        const sum = (k) => all.reduce((n, s) => n + s[k], 0);
        return {
            predicted: sum("predicted"),
            agreed: sum("agreed"),
            corrections: sum("corrections"),
            largest: all.reduce((m, s) => Math.max(m, s.largest), 0),
            replayed: sum("replayed"),
            resets: sum("resets"),
            stale: sum("stale"),
            discontinuities: sum("discontinuities"),
            sizes: this.sizes,
            teleports: this.teleports,
            clockJumps: this.jumps,
            extrapolatedFrames: this.extrapolatedFrames,
            landings: this.landings,
            landingTicks: this.clock.landingTicks(),
            remote: this.remoteNow(),
        };
    }
    remoteNow() {
        const out = { ...this.remoteStats };
        for (const i of this.remote.values()) {
            out.refused += i.stats.refused;
            out.converged += i.stats.converged;
        }
        return out;
    }
}
/** What our walk cannot enter: grounded objects and the other living players. */
function blockers(entities, mine) {
    const held = new Set(avatars(entities).flatMap((a) => (a.player.holding === null ? [] : [a.player.holding])));
    const out = [];
    for (const t of things(entities)) {
        if (t.object.position.z < 0.25 && !held.has(t.id))
            out.push({ x: t.object.position.x, y: t.object.position.y, radius: objectRadius(t.object) });
    }
    for (const a of avatars(entities)) {
        if (a.id !== mine)
            out.push({ x: a.player.position.x, y: a.player.position.y, radius: PLAYER_RADIUS });
    }
    return out;
}
