// The generated TypeScript decoder on the 1000-entity snapshot, against JSON.parse of the same
// message's JSON (rabbit-msg's form), in Node. A benchmark, run by hand (BENCHMARKS.md):
//
//   cargo run -q --release -p hopnet-msg --example sample_message -- /tmp/sample
//   node web/bench/decode.mjs games/snow-fight/page/js/messages.js /tmp/sample.bin /tmp/sample.json
//
// Each case runs in rounds of a fixed number of calls after a warm-up; it prints the median
// time per call over the rounds, and the p10 and p90.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modulePath, binPath, jsonPath] = process.argv.slice(2);
const { decodeServerMessage, encodeServerMessage } = await import(pathToFileURL(path.resolve(modulePath)).href);
const bytes = new Uint8Array(fs.readFileSync(binPath));
const json = fs.readFileSync(jsonPath, "utf8");

const ROUNDS = 60;
const CALLS = 200;
const WARMUP = 2_000;

function measure(name, f) {
  let sink = 0;
  for (let i = 0; i < WARMUP; i++) sink += f() === null ? 0 : 1;
  const perCall = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) sink += f() === null ? 0 : 1;
    perCall.push(Number(process.hrtime.bigint() - start) / CALLS / 1000);
  }
  perCall.sort((a, b) => a - b);
  const q = (p) => perCall[Math.round((perCall.length - 1) * p)];
  return { name, median_us: q(0.5), p10_us: q(0.1), p90_us: q(0.9), sink };
}

// The two decode the same message.
const decoded = decodeServerMessage(bytes);
const parsed = JSON.parse(json);
const entities = (m) => m.Event.kind.Snapshot.entities.length;
if (entities(decoded) !== entities(parsed)) throw new Error("not the same message");
if (Buffer.compare(Buffer.from(encodeServerMessage(decoded)), Buffer.from(bytes)) !== 0) {
  throw new Error("the decoded message does not encode to the same bytes");
}

const results = [
  measure("typescript decodeServerMessage", () => decodeServerMessage(bytes)),
  measure("JSON.parse", () => JSON.parse(json)),
];
console.log(
  JSON.stringify({
    node: process.version,
    entities: entities(decoded),
    rabbit_bytes: bytes.length,
    json_bytes: Buffer.byteLength(json),
    results,
  }),
);
