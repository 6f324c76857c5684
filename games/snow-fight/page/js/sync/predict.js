// Prediction and reconciliation, as hopnet-sync's `predict` does them: the player's own
// inputs are applied the moment they are made, so a key press needs no round trip to show;
// when the server's state for a tick it already predicted disagrees beyond a tolerance, the
// predictor rewinds to the server's state and replays the inputs made since. A correction is
// blended in over a few ticks instead of snapped, so a late or lost input costs a glide, not a
// jump.
export const DEFAULT_PREDICT_CONFIG = { history: 128, tolerance: 0.001, smoothingTicks: 6 };
/** Whether tick `a` is after `b`, as 32-bit tick counts wrap. */
export function tickAfter(a, b) {
    return a !== b && ((a - b) >>> 0) < 2 ** 31;
}
/** The client's predicted state, its history, and its corrections. Ticks are unsigned 32-bit
 * counts (wrapping). */
export class Predictor {
    /** A predictor whose state at `tick` is `state`. */
    constructor(simulation, config, tick, state) {
        this.simulation = simulation;
        this.config = config;
        /** Oldest first; ticks consecutive. */
        this.history = [];
        /** The newest server tick reconciled: older server states are stale. */
        this.confirmed = null;
        this.smoothing = null;
        this.stats = {
            predicted: 0,
            agreed: 0,
            corrections: 0,
            largest: 0,
            replayed: 0,
            resets: 0,
            stale: 0,
            discontinuities: 0,
        };
        this.current = state;
        this.shown = state;
        this.currentTick = tick >>> 0;
    }
    /** Applies the local input for `tick` now, and remembers it for replays. */
    predict(tick, input) {
        tick >>>= 0;
        if (tick !== ((this.currentTick + 1) >>> 0)) {
            this.stats.discontinuities++;
            this.history = [];
        }
        this.current = this.simulation.step(tick, this.current, input);
        if (this.smoothing !== null) {
            this.smoothing.from = this.simulation.step(tick, this.smoothing.from, input);
            this.smoothing.done++;
        }
        this.currentTick = tick;
        this.stats.predicted++;
        this.history.push({ tick, input, after: this.current });
        const keep = Math.max(1, this.config.history);
        if (this.history.length > keep)
            this.history.splice(0, this.history.length - keep);
        this.refreshShown();
    }
    /** The server's state after `tick`: compared with the prediction for that tick, and corrected
     * by a replay when they differ beyond the tolerance. */
    reconcile(tick, server) {
        tick >>>= 0;
        if (this.confirmed !== null && !tickAfter(tick, this.confirmed)) {
            this.stats.stale++;
            return { type: "stale" };
        }
        if (tickAfter(tick, this.currentTick)) {
            this.stats.resets++;
            this.confirmed = tick;
            this.current = server;
            this.currentTick = tick;
            this.history = [];
            this.smoothing = null;
            this.refreshShown();
            return { type: "reset" };
        }
        const at = this.history.findIndex((e) => e.tick === tick);
        const entry = this.history[at];
        if (entry === undefined) {
            this.stats.stale++;
            return { type: "stale" };
        }
        this.confirmed = tick;
        if (this.simulation.distance(entry.after, server) <= this.config.tolerance) {
            this.history.splice(0, at);
            this.stats.agreed++;
            return { type: "agreed" };
        }
        const shown = this.shown;
        const before = this.current;
        let state = server;
        entry.after = state;
        for (const later of this.history.slice(at + 1)) {
            state = this.simulation.step(later.tick, state, later.input);
            later.after = state;
        }
        const replayed = this.history.length - at - 1;
        this.history.splice(0, at);
        const size = this.simulation.distance(before, state);
        this.current = state;
        this.smoothing = this.config.smoothingTicks > 0 ? { from: shown, done: 0 } : null;
        this.refreshShown();
        this.stats.corrections++;
        this.stats.replayed += replayed;
        this.stats.largest = Math.max(this.stats.largest, size);
        return { type: "corrected", size, replayed };
    }
    refreshShown() {
        const total = this.config.smoothingTicks;
        const s = this.smoothing;
        if (s !== null && s.done < total) {
            this.shown = this.simulation.blend(s.from, this.current, s.done / total);
        }
        else {
            this.smoothing = null;
            this.shown = this.current;
        }
    }
    /** The predicted state (the newest tick's). */
    state() {
        return this.current;
    }
    /** What to show: the predicted state, with a recent correction blended in. */
    displayed() {
        return this.shown;
    }
    /** The tick of the predicted state. */
    tick() {
        return this.currentTick;
    }
    /** Ticks of history held (at most `config.history`). */
    historyLength() {
        return this.history.length;
    }
}
