// Remote entities shown between snapshots, and beyond them for a while, as hopnet-sync's
// `interpolate` does it. An `Interpolator` holds one entity's recent snapshots by tick and is
// sampled at a render tick a delay behind the newest, where two snapshots surround it: a lost
// snapshot costs nothing while the delay covers it. When snapshots stop and the render tick
// passes the newest, the value goes on along the line through the last two (dead reckoning)
// for at most `maxExtrapolationTicks`, then holds; when snapshots come again, what is shown
// converges back to the interpolated value over `convergeTicks` instead of jumping.
export const DEFAULT_INTERPOLATION_CONFIG = {
    capacity: 64,
    maxExtrapolationTicks: 12,
    convergeTicks: 6,
    maxAheadTicks: 1024,
};
/** One entity's snapshots, sampled at a render tick. */
export class Interpolator {
    constructor(lerp, config = DEFAULT_INTERPOLATION_CONFIG) {
        this.lerp = lerp;
        this.config = config;
        /** Ascending by tick. */
        this.snapshots = [];
        this.last = null;
        this.converge = null;
        this.stats = { interpolated: 0, extrapolated: 0, held: 0, refused: 0, converged: 0 };
    }
    /** The entity's snapshot at `tick`, in any order. */
    push(tick, value) {
        const newest = this.newestTick();
        if (newest !== null && tick > newest && tick - newest > this.config.maxAheadTicks) {
            this.stats.refused++;
            return;
        }
        let at = 0;
        while (at < this.snapshots.length && (this.snapshots[at]?.tick ?? Infinity) < tick)
            at++;
        if (this.snapshots[at]?.tick === tick || (at === 0 && this.last !== null && this.snapshots.length > 0)) {
            this.stats.refused++;
            return;
        }
        const last = this.last;
        if ((newest === null || tick > newest) &&
            last !== null &&
            last.how !== "interpolated" &&
            newest !== null &&
            last.render > newest &&
            (this.converge === null || this.converge.start !== last.render)) {
            this.converge = { from: last.shown, start: last.render };
            this.stats.converged++;
        }
        this.snapshots.splice(at, 0, { tick, value });
        const keep = Math.max(2, this.config.capacity);
        if (this.snapshots.length > keep)
            this.snapshots.splice(0, this.snapshots.length - keep);
    }
    /** The value to show at `render` (a fractional tick), or `null` before any snapshot. */
    sample(render) {
        const made = this.raw(render);
        if (made === null)
            return null;
        const [raw, how] = made;
        // Snapshots before the pair in use are no longer needed.
        while (this.snapshots.length > 2 && (this.snapshots[1]?.tick ?? Infinity) <= render)
            this.snapshots.shift();
        let shown = raw;
        if (this.converge !== null) {
            const t = Math.min(1, Math.max(0, (render - this.converge.start) / Math.max(1e-3, this.config.convergeTicks)));
            if (t >= 1)
                this.converge = null;
            else
                shown = this.lerp(this.converge.from, raw, t);
        }
        this.stats[how]++;
        this.last = { render, shown, how };
        return shown;
    }
    raw(render) {
        const newest = this.snapshots[this.snapshots.length - 1];
        if (newest === undefined)
            return null;
        if (render <= newest.tick) {
            const after = this.snapshots.findIndex((s) => s.tick >= render);
            const b = this.snapshots[after];
            const a = this.snapshots[after - 1];
            if (a === undefined || b === undefined)
                return [this.snapshots[0]?.value ?? newest.value, "held"];
            return [this.lerp(a.value, b.value, (render - a.tick) / (b.tick - a.tick)), "interpolated"];
        }
        const previous = this.snapshots[this.snapshots.length - 2];
        if (previous === undefined)
            return [newest.value, "held"];
        const ahead = render - newest.tick;
        const bound = Math.max(0, this.config.maxExtrapolationTicks);
        const t = 1 + Math.min(ahead, bound) / (newest.tick - previous.tick);
        return [this.lerp(previous.value, newest.value, t), ahead > bound ? "held" : "extrapolated"];
    }
    /** How the last sample was made. */
    lastSampled() {
        return this.last?.how ?? null;
    }
    /** The newest snapshot's tick. */
    newestTick() {
        return this.snapshots[this.snapshots.length - 1]?.tick ?? null;
    }
    /** Snapshots held (at most `capacity`). */
    get length() {
        return this.snapshots.length;
    }
}
