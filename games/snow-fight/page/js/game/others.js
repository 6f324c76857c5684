// Every entity but our own avatar, drawn from an `Interpolator` each: a few ticks behind the
// newest snapshot, and extrapolated for a bounded time when snapshots stop. An entity missing
// from a snapshot is gone, and so is its buffer.
import { DEFAULT_INTERPOLATION_CONFIG, Interpolator, } from "../sync/interpolate.js";
function lerpPoint(a, b, t) {
    return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t, z: a.z + (b.z - a.z) * t };
}
/** An entity's position, if it has one. */
export function positionOf(e) {
    if (typeof e.kind !== "object")
        return null;
    if ("Player" in e.kind)
        return e.kind.Player.position;
    if ("Object" in e.kind)
        return e.kind.Object.position;
    return null;
}
/** `e` moved to `position`. */
export function withPosition(e, position) {
    if (typeof e.kind === "object" && "Player" in e.kind)
        return { ...e, kind: { Player: { ...e.kind.Player, position } } };
    if (typeof e.kind === "object" && "Object" in e.kind)
        return { ...e, kind: { Object: { ...e.kind.Object, position } } };
    return e;
}
export class Others {
    constructor(config = DEFAULT_INTERPOLATION_CONFIG) {
        this.config = config;
        this.buffers = new Map();
        /** Samples by how they were made; refusals and convergences of entities gone. */
        this.counted = { interpolated: 0, extrapolated: 0, held: 0, refused: 0, converged: 0 };
        /** Frames drawn with an entity extrapolated past its newest snapshot. */
        this.extrapolatedFrames = 0;
    }
    /** The snapshot of `time`; `mine`, our avatar's id, is not buffered. */
    push(time, entities, mine) {
        const present = new Set();
        for (const e of entities) {
            const at = positionOf(e);
            if (at === null || e.id === mine)
                continue;
            present.add(e.id);
            let i = this.buffers.get(e.id);
            if (i === undefined) {
                i = new Interpolator(lerpPoint, this.config);
                this.buffers.set(e.id, i);
            }
            i.push(time, at);
        }
        for (const [id, i] of this.buffers) {
            if (present.has(id))
                continue;
            this.counted.refused += i.stats.refused;
            this.counted.converged += i.stats.converged;
            this.buffers.delete(id);
        }
    }
    /** `entities` as drawn at the render tick `render`: each buffered one where its buffer puts
     * it, the rest as they are. */
    draw(entities, render) {
        let extrapolated = false;
        const out = entities.map((e) => {
            const i = this.buffers.get(e.id);
            if (i === undefined)
                return e;
            const p = i.sample(render);
            const how = i.lastSampled();
            if (how !== null)
                this.counted[how]++;
            if (how === "extrapolated")
                extrapolated = true;
            return p === null ? e : withPosition(e, p);
        });
        if (extrapolated)
            this.extrapolatedFrames++;
        return out;
    }
    /** How the others were drawn, over every entity and frame. */
    stats() {
        const out = { ...this.counted };
        for (const i of this.buffers.values()) {
            out.refused += i.stats.refused;
            out.converged += i.stats.converged;
        }
        return out;
    }
}
