// The keyboard: arrows (or WASD) walk while held, B breaks the nearest breakable object within
// reach, space throws what the player holds at the nearest other player.

import type { GameClient } from "./client.js";
import { EAST, NORTH, PLAYER_RADIUS, REACH, SOUTH, WEST, avatars, breakables, distance, nearest, objectRadius } from "./rules.js";

const DIRECTIONS: Readonly<Record<string, number>> = {
  ArrowUp: NORTH,
  KeyW: NORTH,
  ArrowDown: SOUTH,
  KeyS: SOUTH,
  ArrowLeft: WEST,
  KeyA: WEST,
  ArrowRight: EAST,
  KeyD: EAST,
};

/** Listens on `target` and sends the player's actions through `client`. */
export function bindKeys(target: EventTarget, client: GameClient): void {
  const held = new Set<string>();
  let sent = 0;
  const update = (): void => {
    let direction = 0;
    for (const code of held) direction |= DIRECTIONS[code] ?? 0;
    // Opposite keys cancel out.
    if ((direction & (NORTH | SOUTH)) === (NORTH | SOUTH)) direction &= ~(NORTH | SOUTH);
    if ((direction & (EAST | WEST)) === (EAST | WEST)) direction &= ~(EAST | WEST);
    if (direction !== sent) {
      client.sendMove(direction);
      sent = direction;
    }
  };
  target.addEventListener("keydown", (e) => {
    const key = e as KeyboardEvent;
    if (key.code in DIRECTIONS) {
      held.add(key.code);
      update();
      key.preventDefault();
    } else if (key.code === "KeyB" && !key.repeat) {
      breakNearest(client);
    } else if (key.code === "Space" && !key.repeat) {
      throwAtNearest(client);
      key.preventDefault();
    }
  });
  target.addEventListener("keyup", (e) => {
    held.delete((e as KeyboardEvent).code);
    update();
  });
  // Keys released while the page had no focus never send keyup.
  target.addEventListener("blur", () => {
    held.clear();
    update();
  });
}

function breakNearest(client: GameClient): void {
  const me = client.me();
  if (me === null) return;
  const thing = nearest(me.player.position, breakables(client.entities), (t) => t.object.position);
  const inReach =
    thing !== null && distance(me.player.position, thing.object.position) <= PLAYER_RADIUS + objectRadius(thing.object) + REACH;
  client.sendBreak(inReach ? thing.id : null);
}

function throwAtNearest(client: GameClient): void {
  const me = client.me();
  if (me === null || me.player.holding === null) return;
  const others = avatars(client.entities).filter((a) => a.player.owner !== client.player);
  const enemy = nearest(me.player.position, others, (a) => a.player.position);
  if (enemy !== null) client.sendThrow(enemy.player.position);
}
