// A player that plays by itself, as the Rust bot does (games/snow-fight/src/bot.rs): walk to
// the nearest breakable object, break it, carry it toward the nearest player and throw; turn
// aside when stuck. It sends only what changed, and refreshes now and then in case an action
// was lost. The page's `?bot=1`, for tests and demos.

import type { Entity, Point } from "../messages.js";
import type { GameClient } from "./client.js";
import {
  MAX_THROW,
  PLAYER_RADIUS,
  PLAYER_SPEED,
  PROJECTILE_SPEED,
  REACH,
  avatars,
  breakables,
  distance,
  nearest,
  objectRadius,
  toward,
  vector,
} from "./rules.js";

/** Views between refreshes of an unchanged action. */
const REFRESH = 30;
/** Views with (almost) no progress before a detour. */
const STUCK = 8;
/** Views a detour lasts. */
const DETOUR = 25;
/** Views between throws. */
const THROW_COOLDOWN = 20;
/** Progress per view under which the bot counts as stuck, units. */
const STUCK_STEP = 0.02;

export class Bot {
  private sentMove: number | null = null;
  private sentBreak: number | null | undefined = undefined;
  private sinceRefresh = 0;
  private lastPosition: Point | null = null;
  private stuck = 0;
  private detour: { direction: number; left: number } | null = null;
  private cooldown = 0;

  /** Looks at the newest snapshot and sends what changed. Call it once per snapshot. */
  think(client: GameClient): void {
    const me = client.me();
    if (me === null) return;
    this.cooldown = Math.max(0, this.cooldown - 1);
    this.sinceRefresh++;
    const refresh = this.sinceRefresh >= REFRESH;
    if (refresh) this.sinceRefresh = 0;

    const plan = this.decide(me.player.owner, me.player.holding !== null, me.player.position, client.entities);
    const move = this.unstick(me.player.position, plan.move);
    if (plan.throwAt !== null) {
      client.sendThrow(plan.throwAt);
      this.cooldown = THROW_COOLDOWN;
    }
    if (plan.breakTarget !== undefined && (plan.breakTarget !== this.sentBreak || refresh)) {
      client.sendBreak(plan.breakTarget);
      this.sentBreak = plan.breakTarget;
    }
    if (move !== this.sentMove || refresh) {
      client.sendMove(move);
      this.sentMove = move;
    }
  }

  /** Forgets what was sent (a new round). */
  reset(): void {
    this.sentMove = null;
    this.sentBreak = undefined;
    this.detour = null;
  }

  private decide(
    owner: number,
    holding: boolean,
    position: Point,
    entities: readonly Entity[],
  ): { move: number; breakTarget: number | null | undefined; throwAt: Point | null } {
    if (holding) {
      const others = avatars(entities).filter((a) => a.player.owner !== owner);
      const enemy = nearest(position, others, (a) => a.player.position);
      if (enemy === null) return { move: 0, breakTarget: undefined, throwAt: null };
      const target = enemy.player.position;
      const d = distance(position, target);
      if (d <= MAX_THROW * 0.7) {
        if (this.cooldown > 0) return { move: 0, breakTarget: undefined, throwAt: null };
        // Lead the target by where it walks while the object flies.
        const v = vector(enemy.player.movement);
        const lead = (d / PROJECTILE_SPEED) * PLAYER_SPEED;
        return { move: 0, breakTarget: undefined, throwAt: { x: target.x + v.x * lead, y: target.y + v.y * lead, z: 0 } };
      }
      return { move: toward(target.x - position.x, target.y - position.y), breakTarget: undefined, throwAt: null };
    }
    const thing = nearest(position, breakables(entities), (t) => t.object.position);
    if (thing === null) return { move: 0, breakTarget: null, throwAt: null };
    const o = thing.object.position;
    const reach = PLAYER_RADIUS + objectRadius(thing.object) + REACH;
    if (distance(position, o) <= reach * 0.95) {
      return { move: 0, breakTarget: thing.id, throwAt: null };
    }
    return { move: toward(o.x - position.x, o.y - position.y), breakTarget: undefined, throwAt: null };
  }

  /** Turns aside for a while when walking makes no progress (an object in the way). */
  private unstick(position: Point, want: number): number {
    const moved = this.lastPosition === null ? Infinity : distance(this.lastPosition, position);
    this.lastPosition = position;
    if (this.detour !== null) {
      if (this.detour.left > 0 && want !== 0) {
        this.detour.left--;
        return this.detour.direction;
      }
      this.detour = null;
    }
    this.stuck = want !== 0 && moved < STUCK_STEP ? this.stuck + 1 : 0;
    if (this.stuck >= STUCK) {
      this.stuck = 0;
      const v = vector(want);
      const side = Math.random() < 0.5 ? { x: -v.y, y: v.x } : { x: v.y, y: -v.x };
      const direction = toward(side.x, side.y);
      this.detour = { direction, left: DETOUR };
      return direction;
    }
    return want;
  }
}
