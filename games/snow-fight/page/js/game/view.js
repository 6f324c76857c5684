// The world on a canvas, seen from above: north (+y) up.
import { PLAYER_RADIUS, WORLD_HEIGHT, WORLD_WIDTH, avatars, objectRadius, things } from "./rules.js";
/** Draws `entities` on `canvas`, our player (`owner`) ringed. */
export function draw(canvas, entities, owner) {
    const g = canvas.getContext("2d");
    if (g === null)
        return;
    const scale = Math.min(canvas.width / WORLD_WIDTH, canvas.height / WORLD_HEIGHT);
    const x = (wx) => wx * scale;
    const y = (wy) => (WORLD_HEIGHT - wy) * scale;
    g.fillStyle = "#eef4f8";
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.strokeStyle = "#9ab";
    g.strokeRect(0, 0, WORLD_WIDTH * scale, WORLD_HEIGHT * scale);
    for (const { object } of things(entities)) {
        const r = objectRadius(object) * scale;
        const lifted = object.position.z > 0.25;
        g.beginPath();
        g.arc(x(object.position.x), y(object.position.y) - (lifted ? r : 0), r, 0, 2 * Math.PI);
        g.fillStyle = object.kind === "Tree" ? (object.durability === null ? "#2f6b3a" : "#4f9a5a") : "#c0443c";
        g.fill();
        if (object.durability !== null && object.position.z < 0.25) {
            g.strokeStyle = "#fff";
            g.stroke();
        }
    }
    for (const { player } of avatars(entities)) {
        const px = x(player.position.x);
        const py = y(player.position.y);
        const r = PLAYER_RADIUS * scale;
        g.beginPath();
        g.arc(px, py, r, 0, 2 * Math.PI);
        g.fillStyle = `hsl(${(player.owner * 137) % 360} 60% 50%)`;
        g.fill();
        if (player.owner === owner) {
            g.lineWidth = 3;
            g.strokeStyle = "#111";
            g.stroke();
            g.lineWidth = 1;
        }
        const health = player.max_health === 0 ? 0 : player.health / player.max_health;
        g.fillStyle = "#333";
        g.fillRect(px - r, py - r - 8, 2 * r, 4);
        g.fillStyle = "#3c3";
        g.fillRect(px - r, py - r - 8, 2 * r * health, 4);
    }
}
