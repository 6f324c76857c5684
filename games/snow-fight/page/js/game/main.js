// The page: joins the game over WebTransport (or, where the browser has none or its session
// fails, over a WebSocket to the same server), draws the world, plays with the keyboard, or by
// itself with `?bot=1`. `?ping=MS` pings every MS milliseconds (default 1000, at least 10), for
// round-trip measurements. `?port=N` opens the session to port N of the page's host instead of
// the server's own (a relay in between). Its own avatar is predicted and the others are
// interpolated (display.ts). Its state is on `window.snowFight` for tests to read.
import { openFromPage } from "../hopnet/choose.js";
import { Bot } from "./bot.js";
import { GameClient } from "./client.js";
import { Display } from "./display.js";
import { bindKeys } from "./keys.js";
import { draw } from "./view.js";
const PING_EVERY = 1000;
const MIN_PING_EVERY = 10;
const KEPT_POSITIONS = 100;
async function start() {
    const params = new URLSearchParams(location.search);
    const botMode = params.has("bot") && params.get("bot") !== "0";
    const pingEvery = Math.max(MIN_PING_EVERY, Number(params.get("ping") ?? PING_EVERY) || PING_EVERY);
    const state = {
        status: "connecting",
        detail: "",
        transport: null,
        fallback: null,
        bot: botMode,
        player: null,
        snapshots: 0,
        positions: [],
        rtts: [],
        won: 0,
        lost: 0,
        connection: null,
        frames: 0,
        shown: null,
        sync: null,
        keyResponses: [],
    };
    window.snowFight = state;
    const canvas = document.querySelector("canvas");
    const status = document.getElementById("status");
    const show = () => {
        if (status !== null) {
            const rtt = state.rtts.length > 0 ? ` · RTT ${Math.round(state.rtts[state.rtts.length - 1] ?? 0)} ms` : "";
            status.textContent = `${state.status}${state.detail === "" ? "" : ` (${state.detail})`}${state.player === null ? "" : ` · player ${state.player}`} · won ${state.won} lost ${state.lost}${rtt}${state.sync === null ? "" : ` · corrections ${state.sync.corrections}`}${state.bot ? " · bot" : ""}${state.transport === "websocket" ? " · WebSocket" : ""}`;
        }
    };
    let session;
    try {
        const port = Number(params.get("port"));
        const chosen = await openFromPage(undefined, (options) => {
            const url = Number.isInteger(port) && port > 0 && port < 65536 ? new URL(options.url) : null;
            if (url !== null)
                url.port = String(port);
            return url === null ? options : { ...options, url: url.toString() };
        });
        session = chosen.carried;
        state.transport = session.kind;
        state.fallback = chosen.fallback;
    }
    catch (e) {
        state.status = "failed";
        state.detail = String(e);
        show();
        return;
    }
    state.status = "joining";
    const game = new GameClient((bytes, delivery) => session.send(bytes, delivery));
    const display = new Display();
    let pending = null;
    game.onMove = (direction) => {
        const now = performance.now();
        display.setDirection(now, direction);
        pending = direction === 0 ? null : { at: now, frame: state.frames, from: state.shown };
    };
    const bot = botMode ? new Bot() : null;
    if (bot === null)
        bindKeys(window, game);
    let pinger = null;
    session.onEvent = (event) => {
        switch (event.type) {
            case "connected":
                game.sendInit();
                break;
            case "message": {
                const happened = game.handle(event.bytes, performance.now());
                if (happened?.type === "joined") {
                    state.status = "playing";
                    state.player = happened.player;
                    game.sendPing(performance.now());
                    pinger = setInterval(() => game.sendPing(performance.now()), pingEvery);
                }
                else if (happened?.type === "pong") {
                    display.onRtt(happened.rtt);
                }
                else if (happened?.type === "snapshot") {
                    state.snapshots = game.stats.snapshots;
                    if (game.player !== null)
                        display.onSnapshot(performance.now(), happened.time, game.entities, game.player);
                    const me = game.me();
                    if (me !== null) {
                        state.positions.push({ x: me.player.position.x, y: me.player.position.y, time: happened.time });
                        if (state.positions.length > KEPT_POSITIONS)
                            state.positions.shift();
                    }
                    bot?.think(game);
                }
                else if (happened?.type === "game-over") {
                    state.won = game.stats.won;
                    state.lost = game.stats.lost;
                    bot?.reset();
                }
                else if (happened?.type === "error") {
                    state.detail = happened.text;
                }
                break;
            }
            case "disconnected":
            case "session-closed":
                if (state.status !== "closed") {
                    state.status = "closed";
                    state.detail = event.type === "disconnected" ? event.reason : event.reason;
                }
                if (pinger !== null)
                    clearInterval(pinger);
                break;
        }
        state.rtts = game.stats.rtts;
        state.connection = session.connection.stats;
    };
    const frame = () => {
        const now = performance.now();
        const entities = display.frame(now);
        if (canvas !== null)
            draw(canvas, entities, game.player);
        state.frames++;
        state.shown = display.drawn();
        state.sync = display.stats();
        if (pending !== null && state.shown !== null) {
            const from = pending.from;
            if (from === null || Math.hypot(state.shown.x - from.x, state.shown.y - from.y) > 1e-6) {
                state.keyResponses.push({ frames: state.frames - pending.frame, ms: now - pending.at });
                if (state.keyResponses.length > KEPT_POSITIONS)
                    state.keyResponses.shift();
                pending = null;
            }
        }
        show();
        requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    addEventListener("pagehide", () => session.close());
}
void start();
