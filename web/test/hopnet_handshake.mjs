// The page's hopnet client sends only what every reading of the spec defines (PROTOCOL.md,
// "The client's handshake" and "What a spec peer is sent"), as the Rust client does: every
// `Init` and probe is `REL | FIN`, chunk 255, no payload (`05 ff ss ss`), the probes counting
// down from a first sequence just behind 0; the acknowledgement of any probe of the attempt
// confirms; and the keepalive is `ACK | FIN` of chunk 255. Without a network: the test plays
// the server. Run by crates/hopnet-webtransport/tests/typescript_client.rs on the compiled web/.
//
//   node test/hopnet_handshake.mjs <compiled web/>
//
// Prints one JSON line of what it checked; exits non-zero (with the reason) on the first failure.

import { pathToFileURL } from "node:url";

const [build] = process.argv.slice(2);
const { Connection } = await import(pathToFileURL(`${build}/src/hopnet/connection.js`).href);

function fail(message) {
  console.error(message);
  process.exit(1);
}
const hex = (bytes) => Buffer.from(bytes).toString("hex");

/** Every datagram the client sends by `now`. */
function drain(client, now) {
  const out = [];
  for (let d = client.pollTransmit(now); d !== null; d = client.pollTransmit(now)) {
    out.push(Uint8Array.from(d));
  }
  return out;
}

const low = 0x5a;
// The random source hands out `low` for the first probe's low byte.
const client = new Connection(0, {}, () => low);
let now = 0;
const inits = drain(client, now);
if (inits.length !== 1 || hex(inits[0]) !== `05ffff${low.toString(16)}`) {
  fail(`the first Init is not the probe 05 ff ff ${low.toString(16)}: ${inits.map(hex)}`);
}
// A resend before any Challenge repeats the same salt.
now = client.pollTimeout() ?? fail("no resend deadline");
client.handleTimeout(now);
const resent = drain(client, now);
if (resent.length !== 1 || hex(resent[0]) !== hex(inits[0])) {
  fail(`the resent Init differs from the first: ${resent.map(hex)}`);
}
// A Challenge: the client answers with salt XOR pepper, then the next probe, one sequence down.
const pepper = Uint8Array.from([0x91, 0x22, 0x33, 0x44]);
client.handle(now, pepper);
const answer = drain(client, now);
const expected = inits[0].map((b, i) => b ^ pepper[i]);
if (answer.length !== 2 || hex(answer[0]) !== hex(expected)) {
  fail(`no ChallengeResponse ${hex(expected)} first: ${answer.map(hex)}`);
}
const first = 0xff00 | low;
const probe = (n) => hex(Uint8Array.from([0x05, 0xff, ((first - n) >> 8) & 0xff, (first - n) & 0xff]));
if (hex(answer[1]) !== probe(1)) {
  fail(`the probe after the response is not ${probe(1)}: ${hex(answer[1])}`);
}
// More probes count down.
let probes = 1;
for (let i = 0; i < 3; i++) {
  now = client.pollTimeout() ?? fail("no probe deadline");
  client.handleTimeout(now);
  const sent = drain(client, now);
  probes += 1;
  if (sent.length !== 1 || hex(sent[0]) !== probe(probes)) {
    fail(`probe ${probes} is not ${probe(probes)}: ${sent.map(hex)}`);
  }
}
// The acknowledgement of an earlier probe (ACK | FIN, as our server sends it) confirms.
const ack = Uint8Array.from([0x06, 0xff, ((first - 1) >> 8) & 0xff, (first - 1) & 0xff]);
client.handle(now, ack);
let connected = false;
for (let e = client.pollEvent(); e !== null; e = client.pollEvent()) {
  if (e.type === "connected") connected = true;
}
if (!connected) fail("the acknowledgement of probe 1 did not confirm the connection");
// Idle until the keepalive: ACK | FIN of chunk 255.
drain(client, now);
let keepalive = null;
for (let i = 0; i < 20 && keepalive === null; i++) {
  now = client.pollTimeout() ?? fail("no keepalive deadline");
  client.handleTimeout(now);
  for (const d of drain(client, now)) {
    if (d.length === 4 && d[1] === 0xff) keepalive = d;
  }
  // Keep the connection alive from the server's side too.
  client.handle(now, Uint8Array.from([0x06, 0xff, 0x00, 0x00]));
}
if (keepalive === null || keepalive[0] !== 0x06) {
  fail(`the keepalive is not ACK | FIN of chunk 255: ${keepalive && hex(keepalive)}`);
}
console.log(JSON.stringify({ probes, keepalive: hex(keepalive) }));
