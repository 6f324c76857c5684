// The game's walk step (games/snow-fight/src/rules/movement.rs) for prediction: a player walks
// `PLAYER_SPEED / TICK_RATE` a tick in the direction it holds, stays inside the world, and never
// walks into a grounded object or another player (it slides along when it can). The server
// computes in 32-bit floats; every operation here is rounded to one (`Math.fround`) so that a
// replay from the server's position lands where the server did, not a rounding error away that
// would count as a correction.

import type { Entity } from "../messages.js";
import type { Simulation } from "../sync/predict.js";
import { PLAYER_RADIUS, PLAYER_SPEED, TICK_RATE, WORLD_HEIGHT, WORLD_WIDTH, avatars, objectRadius, things, vector } from "./rules.js";

const f = Math.fround;

/** Where a player stands. */
export interface Position {
  readonly x: number;
  readonly y: number;
}

/** A circle a player cannot walk into: a grounded object or another living player. */
export interface Blocker {
  readonly x: number;
  readonly y: number;
  readonly radius: number;
}

const SPEED = f(f(PLAYER_SPEED) / f(TICK_RATE));
const RADIUS = f(PLAYER_RADIUS);

function length32(x: number, y: number): number {
  return f(Math.sqrt(f(f(x * x) + f(y * y))));
}

/** The unit vector of a direction's compass bits, rounded as the server's `Dir::vector` makes
 * it (for the eight directions, the 32-bit rounding of the exact unit vector). */
function unit(direction: number): Position {
  const v = vector(direction);
  return { x: f(v.x), y: f(v.y) };
}

function clamp(v: number, low: number, high: number): number {
  return Math.min(Math.max(v, low), high);
}

/** The walk step as a `Simulation`: the state is the player's position, the input its
 * direction bits. The blockers are the world's as the newest snapshot had them. */
export class Walking implements Simulation<Position, number> {
  blockers: readonly Blocker[] = [];

  step(_tick: number, from: Position, direction: number): Position {
    const v = unit(direction & 0x0f);
    const sx = f(v.x * SPEED);
    const sy = f(v.y * SPEED);
    if (sx === 0 && sy === 0) return from;
    const candidates: Position[] = [
      { x: f(from.x + sx), y: f(from.y + sy) },
      { x: f(from.x + sx), y: from.y },
      { x: from.x, y: f(from.y + sy) },
    ];
    for (const c of candidates) {
      if (c.x === from.x && c.y === from.y) continue;
      const to = {
        x: clamp(c.x, RADIUS, f(f(WORLD_WIDTH) - RADIUS)),
        y: clamp(c.y, RADIUS, f(f(WORLD_HEIGHT) - RADIUS)),
      };
      if (this.canStand(from, to)) return to;
    }
    return from;
  }

  /** It may not enter anything's circle, but may always move away from one it overlaps. */
  private canStand(from: Position, to: Position): boolean {
    return this.blockers.every((b) => {
      const d = length32(f(to.x - b.x), f(to.y - b.y));
      return d >= f(RADIUS + f(b.radius)) || d >= length32(f(from.x - b.x), f(from.y - b.y));
    });
  }

  distance(a: Position, b: Position): number {
    return Math.hypot(a.x - b.x, a.y - b.y);
  }

  blend(from: Position, to: Position, t: number): Position {
    return { x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t };
  }
}

/** What a walk cannot enter, as the server's `blocker` has it: grounded objects (not carried,
 * not flying) and the living players other than `mine` (an entity id). */
export function blockersOf(entities: readonly Entity[], mine: number | null): Blocker[] {
  const held = new Set(avatars(entities).flatMap((a) => (a.player.holding === null ? [] : [a.player.holding])));
  const out: Blocker[] = [];
  for (const t of things(entities)) {
    if (t.object.position.z < 0.25 && !held.has(t.id)) out.push({ x: t.object.position.x, y: t.object.position.y, radius: objectRadius(t.object) });
  }
  for (const a of avatars(entities)) {
    if (a.id !== mine) out.push({ x: a.player.position.x, y: a.player.position.y, radius: PLAYER_RADIUS });
  }
  return out;
}
