// The page's hopnet client on hostile input, without a network: random and damaged datagrams
// in every phase never throw, never make it hand up a message twice or one that was never
// whole, and its reassembly stays within its budget. Run by
// crates/hopnet-webtransport/tests/typescript_client.rs on the compiled web/.
//
//   node test/hopnet_hostile.mjs <compiled web/> <seed>
//
// Prints one JSON line of what it checked; exits non-zero (with the reason) on the first
// failure.

import { pathToFileURL } from "node:url";

const [build, seedArg] = process.argv.slice(2);
const { Connection } = await import(pathToFileURL(`${build}/src/hopnet/connection.js`).href);

let state = Number(seedArg ?? 1) >>> 0;
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const below = (n) => Math.floor(random() * n);

function fail(message) {
  console.error(message);
  process.exit(1);
}

function bytes(len) {
  const b = new Uint8Array(len);
  for (let i = 0; i < len; i++) b[i] = below(256);
  return b;
}

/** A datagram shaped like hopnet's, more or less: a header with random flags, chunk and
 * sequence (from a small range, so that chunks of one message meet), and a body of a size
 * near the chunk rules' edges. */
function shaped(noEnd) {
  const sizes = [0, 1, 3, 4, 5, 503, 504, 505, 508, 509, 600, below(1300)];
  const body = bytes(sizes[below(sizes.length)]);
  const d = new Uint8Array(4 + body.length);
  d[0] = below(256) & (noEnd ? ~0x08 : 0xff);
  d[1] = below(4) === 0 ? below(256) : below(4);
  const seq = below(4) === 0 ? below(65536) : below(8);
  d[2] = seq >> 8;
  d[3] = seq & 0xff;
  d.set(body, 4);
  return d.subarray(0, below(8) === 0 ? below(d.length + 1) : d.length);
}

let now = 1000;
const checked = { datagrams: 0, messages: 0, transmitted: 0 };

/** Feeds `datagram`, then drains what the connection does; checks the bounds. */
function feed(conn, datagram) {
  try {
    conn.handle(now, datagram);
    const t = conn.pollTimeout();
    if (t !== null && t <= now) conn.handleTimeout(now);
    for (let out = conn.pollTransmit(now), n = 0; out !== null; out = conn.pollTransmit(now), n++) {
      checked.transmitted++;
      if (n > 300) fail("one datagram in, hundreds out");
    }
    for (let e = conn.pollEvent(); e !== null; e = conn.pollEvent()) {
      if (e.type === "message") checked.messages++;
    }
  } catch (e) {
    fail(`threw on ${Buffer.from(datagram).toString("hex")}: ${e?.stack ?? e}`);
  }
  checked.datagrams++;
  now += below(3);
  const held = conn.receiver?.held ?? 0;
  if (held > 4 * 1024 * 1024 + 129024) fail(`reassembly holds ${held} bytes`);
}

/** A connection taken through the handshake by a server simulated here. */
function connected() {
  const conn = new Connection(now, {}, (bound) => below(bound));
  const init = conn.pollTransmit(now);
  const pepper = new Uint8Array([0x5a, 0x11, 0x22, 0x33]);
  conn.handle(now, pepper);
  const response = conn.pollTransmit(now);
  const probe = conn.pollTransmit(now);
  if (init === null || response === null || probe === null) fail("no handshake");
  for (let i = 0; i < 4; i++) {
    if ((response[i] ^ pepper[i]) !== init[i]) fail("the response is not salt XOR pepper");
  }
  // The probe's acknowledgement: ACK, chunk 255, the probe's sequence.
  conn.handle(now, new Uint8Array([0x02, 255, probe[2], probe[3]]));
  if (!conn.isConnected) fail("not connected after the probe's acknowledgement");
  while (conn.pollEvent() !== null);
  return conn;
}

// 1. Before the handshake: anything at all.
for (let round = 0; round < 20; round++) {
  const conn = new Connection(now, {}, (bound) => below(bound));
  conn.pollTransmit(now);
  for (let i = 0; i < 500; i++) feed(conn, below(2) === 0 ? bytes(below(12)) : shaped(false));
}

// 2. Connected: damaged packets (no END, which would rightly close it).
const conn = connected();
for (let i = 0; i < 30_000; i++) feed(conn, shaped(true));
if (!conn.isConnected) fail("closed by packets without END");

// 3. Still works: a two-chunk reliable message arrives (each chunk twice), is acknowledged and
//    handed up exactly once.
const fresh = connected();
const seq = 40_000;
const message = bytes(504 + 10);
const chunk = (i) => {
  const last = i === 1;
  const body = message.subarray(i * 504, last ? message.length : 504);
  const d = new Uint8Array(4 + body.length);
  d.set([0x01 | (last ? 0x04 : 0), i, seq >> 8, seq & 0xff]);
  d.set(body, 4);
  return d;
};
const before = checked.messages;
for (const i of [1, 0, 1, 0]) feed(fresh, chunk(i));
if (checked.messages - before !== 1) fail(`handed up ${checked.messages - before} times, not once`);

// 4. END from the server closes it.
feed(fresh, new Uint8Array([0x08, 0, 0, 0]));
if (!fresh.isClosed) fail("END did not close");

console.log(JSON.stringify(checked));
