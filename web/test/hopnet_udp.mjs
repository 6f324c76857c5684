// The page's hopnet client (web/src/hopnet/, compiled) against a real hopnet server, over a
// UDP socket of Node's: the same wire a WebTransport session carries. Run by the Rust test
// crates/hopnet-webtransport/tests/typescript_client.rs, which starts an echo server (every
// message sent back as it came; `bye` closes the connection) and checks what this prints.
// Without loss it ends with `bye` and the server's END; with loss, which may take the END, it
// closes the connection itself.
//
//   node test/hopnet_udp.mjs <compiled web/> <server host:port> <loss 0..1> <seed>
//
// It connects, sends reliable messages of sizes that cross the chunk boundaries (and, without
// loss, an unreliable one), checks every echo byte for byte, then says `bye` and waits for the
// server's END. Loss is drawn per datagram, both ways, from a seeded generator. Prints one JSON
// line: what happened, and the connection's counters.

import dgram from "node:dgram";
import { pathToFileURL } from "node:url";

const [build, server, lossArg, seedArg] = process.argv.slice(2);
const { Connection } = await import(pathToFileURL(`${build}/src/hopnet/connection.js`).href);
const [host, portText] = server.split(/:(?=\d+$)/);
const port = Number(portText);
const loss = Number(lossArg ?? 0);

// mulberry32: a small seeded generator, for the loss and the handshake's random numbers.
let state = Number(seedArg ?? 1) >>> 0;
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const SIZES = [0, 1, 504, 505, 1008, 20000, 129024];
function message(size, seed) {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}
function key(bytes) {
  return Buffer.from(bytes).toString("base64");
}

const expected = new Map();
SIZES.forEach((size, i) => expected.set(key(message(size, i)), `reliable ${size}`));
// Sent once: without loss it must come back, with loss it may.
const UNRELIABLE = new TextEncoder().encode("unreliable hello");
if (loss === 0) expected.set(key(UNRELIABLE), "unreliable");
const optional = key(UNRELIABLE);

const result = { connected: false, echoed: [], unexpected: 0, disconnected: null, stats: null };
const socket = dgram.createSocket(host.includes(":") ? "udp6" : "udp4");
const connection = new Connection(performance.now(), {}, (bound) => Math.floor(random() * bound));
let timer = null;
let done = false;

function finish(code) {
  if (done) return;
  done = true;
  result.stats = connection.stats;
  console.log(JSON.stringify(result));
  clearTimeout(timer);
  socket.close();
  process.exitCode = code;
}

function pump() {
  const now = performance.now();
  for (let d = connection.pollTransmit(now); d !== null; d = connection.pollTransmit(now)) {
    if (random() >= loss) socket.send(d, port, host);
  }
  for (let e = connection.pollEvent(); e !== null; e = connection.pollEvent()) onEvent(e);
  clearTimeout(timer);
  const deadline = connection.pollTimeout();
  if (deadline !== null && !done) {
    timer = setTimeout(() => {
      connection.handleTimeout(performance.now());
      pump();
    }, Math.max(0, deadline - performance.now()));
  }
}

function onEvent(event) {
  switch (event.type) {
    case "connected":
      result.connected = true;
      SIZES.forEach((size, i) => connection.send(message(size, i), "reliable"));
      connection.send(UNRELIABLE, "unreliable");
      break;
    case "message": {
      const what = expected.get(key(event.bytes));
      if (what === undefined) {
        if (key(event.bytes) !== optional) result.unexpected++;
      } else if (!result.echoed.includes(what)) {
        result.echoed.push(what);
      }
      if (result.echoed.length === expected.size) {
        if (loss === 0) {
          connection.send(new TextEncoder().encode("bye"), "reliable");
        } else {
          // The server's END is sent once and may be lost: close from here instead.
          connection.close();
          pump();
        }
      }
      break;
    }
    case "disconnected":
      result.disconnected = event.reason;
      finish(0);
      break;
  }
}

socket.on("message", (datagram) => {
  if (random() < loss) return;
  connection.handle(performance.now(), new Uint8Array(datagram.buffer, datagram.byteOffset, datagram.length));
  pump();
});
socket.bind(0, () => pump());
setTimeout(() => finish(1), 60_000).unref();
