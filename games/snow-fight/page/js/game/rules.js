// The game's numbers a client needs (games/snow-fight/src/world/config.rs, the defaults), and
// the geometry the bot and the keys use.
export const WORLD_WIDTH = 24;
export const WORLD_HEIGHT = 16;
export const PLAYER_RADIUS = 0.4;
/** Ticks the server simulates per second (the game server's default). */
export const TICK_RATE = 60;
/** Units a player walks per second. */
export const PLAYER_SPEED = 6;
/** Gap between a player's edge and an object's edge within which it can break it. */
export const REACH = 0.6;
/** Units a thrown object flies per second. */
export const PROJECTILE_SPEED = 30;
export const MAX_THROW = 14;
/** Direction bits: north is +y. */
export const NORTH = 1;
export const WEST = 2;
export const SOUTH = 4;
export const EAST = 8;
export function objectRadius(o) {
    return o.kind === "Tree" ? 0.5 : 0.3;
}
export function distance(a, b) {
    return Math.hypot(a.x - b.x, a.y - b.y);
}
/** The 8-way direction nearest `(dx, dy)`, components under `deadzone` ignored and one less than
 * half the other dropped (as the Rust bot's `Dir::toward`). */
export function toward(dx, dy, deadzone = 0.05) {
    const ax = Math.abs(dx);
    const ay = Math.abs(dy);
    let d = 0;
    if (ax > deadzone && ax * 2 >= ay)
        d |= dx > 0 ? EAST : WEST;
    if (ay > deadzone && ay * 2 >= ax)
        d |= dy > 0 ? NORTH : SOUTH;
    return d;
}
/** A unit vector for a direction (zero for none). */
export function vector(direction) {
    let x = 0;
    let y = 0;
    if (direction & EAST)
        x += 1;
    if (direction & WEST)
        x -= 1;
    if (direction & NORTH)
        y += 1;
    if (direction & SOUTH)
        y -= 1;
    const length = Math.hypot(x, y);
    return length === 0 ? { x: 0, y: 0 } : { x: x / length, y: y / length };
}
export function avatars(entities) {
    return entities.flatMap((e) => (typeof e.kind === "object" && "Player" in e.kind ? [{ id: e.id, player: e.kind.Player }] : []));
}
export function things(entities) {
    return entities.flatMap((e) => (typeof e.kind === "object" && "Object" in e.kind ? [{ id: e.id, object: e.kind.Object }] : []));
}
/** Objects lying on the ground that can be broken (and then carried). */
export function breakables(entities) {
    const held = new Set(avatars(entities).flatMap((a) => (a.player.holding === null ? [] : [a.player.holding])));
    return things(entities).filter((t) => t.object.durability !== null && t.object.position.z < 0.25 && !held.has(t.id));
}
/** The nearest of `items` to `from`, by `at`. */
export function nearest(from, items, at) {
    let best = null;
    let bestDistance = Infinity;
    for (const item of items) {
        const d = distance(from, at(item));
        if (d < bestDistance) {
            best = item;
            bestDistance = d;
        }
    }
    return best;
}
