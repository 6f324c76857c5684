// ---------------------------------------------------------------------------------------------
// The Rabbit bit stream, shared by every message of this module.
// ---------------------------------------------------------------------------------------------

/** Why bytes did not decode, or a value did not encode. */
export class RabbitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RabbitError";
  }
}

/** The most items a list of items that take no bits may claim, as in the Rust decoder. */
const MAX_EMPTY_ITEMS = 65536;
/** The most items a `u32` count can say. */
const MAX_COUNT = 4294967295;
/** Integers beyond this are bigints in decoded values. */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Scratch space for moving floats to and from their IEEE-754 bits. */
const floatBits = new DataView(new ArrayBuffer(8));

/** Bits of the length prefix of a `bytes`-byte integer: log2(bytes). */
function prefixBits(bytes: number): number {
  return 31 - Math.clz32(bytes);
}

/** The fewest bytes that hold `value` (below 2^53), one for zero. */
function bytesNeeded(value: number): number {
  let m = 1;
  while (m < 7 && value >= 2 ** (8 * m)) m++;
  return m;
}

/** The fewest bytes that hold `value`, one for zero. */
function bigBytesNeeded(value: bigint): number {
  let m = 1;
  while (value >> BigInt(8 * m) !== 0n) m++;
  return m;
}

/** A decoded integer as the JSON form has it: a number when it is a safe integer, else a bigint. */
function narrow(value: bigint): number | bigint {
  return value >= -MAX_SAFE && value <= MAX_SAFE ? Number(value) : value;
}

/** A value in an error message. */
function show(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "..." : value);
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}

/**
 * Reads a Rabbit bit stream: bits least significant first, every read checked against the
 * end, every value checked as the Rust decoder checks it.
 */
class BitReader {
  private readonly bytes: Uint8Array;
  /** The input's length in bits. */
  private readonly end: number;
  /** Bit offset of the next read. */
  private pos = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.end = bytes.length * 8;
  }

  /** Reads `n` bits (0 to 53) as an unsigned integer, the first bit read the least significant. */
  bits(n: number): number {
    if (n > this.end - this.pos) throw this.ended(n);
    if (n > 32) {
      const low = this.bits(32);
      return low + this.bits(n - 32) * 4294967296;
    }
    let value = 0;
    let done = 0;
    let pos = this.pos;
    while (done < n) {
      const shift = pos & 7;
      const take = Math.min(8 - shift, n - done);
      value |= ((this.bytes[pos >>> 3]! >>> shift) & ((1 << take) - 1)) << done;
      done += take;
      pos += take;
    }
    this.pos = pos;
    return value >>> 0;
  }

  /** Reads `n` bits (1 to 53) as a two's complement integer. */
  signedBits(n: number): number {
    const raw = this.bits(n);
    return raw >= 2 ** (n - 1) ? raw - 2 ** n : raw;
  }

  /** Reads `n` bits (up to 128) as an unsigned bigint. */
  private bigBits(n: number): bigint {
    if (n > this.end - this.pos) throw this.ended(n);
    let value = 0n;
    for (let done = 0; done < n; done += 32) {
      value |= BigInt(this.bits(Math.min(32, n - done))) << BigInt(done);
    }
    return value;
  }

  /** Reads `n` bits (54 to 128): a number when it is a safe integer, else a bigint. */
  wideBits(n: number): number | bigint {
    return narrow(this.bigBits(n));
  }

  /** Reads `n` bits (54 to 128) as two's complement: a number when safe, else a bigint. */
  wideSignedBits(n: number): number | bigint {
    return narrow(BigInt.asIntN(n, this.bigBits(n)));
  }

  /** Reads one bit. */
  bool(): boolean {
    return this.bits(1) === 1;
  }

  /** The spec's variable-length integer of a 1-, 2- or 4-byte type, only in its shortest form. */
  varint(bytes: number): number {
    const m = this.bits(prefixBits(bytes)) + 1;
    const value = this.bits(8 * m);
    if (m > 1 && bytesNeeded(value) !== m) throw this.nonCanonical(String(value), m);
    return value;
  }

  /** A zig-zag varint of a 1-, 2- or 4-byte signed type. */
  zigzag(bytes: number): number {
    const value = this.varint(bytes);
    return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
  }

  /** The variable-length integer of an 8- or 16-byte type as a bigint, shortest form only. */
  private bigVarint(bytes: number): bigint {
    const m = this.bits(prefixBits(bytes)) + 1;
    const value = this.bigBits(8 * m);
    if (m > 1 && bigBytesNeeded(value) !== m) throw this.nonCanonical(String(value), m);
    return value;
  }

  /** A varint of an 8- or 16-byte type: a number when it is a safe integer, else a bigint. */
  wideVarint(bytes: number): number | bigint {
    return narrow(this.bigVarint(bytes));
  }

  /** A zig-zag varint of an 8- or 16-byte signed type: a number when safe, else a bigint. */
  wideZigzag(bytes: number): number | bigint {
    const value = this.bigVarint(bytes);
    return narrow((value & 1n) === 0n ? value >> 1n : -((value + 1n) >> 1n));
  }

  /** `value - min` in `bits` bits; more than `max` is an error. */
  range(min: number, max: number, bits: number): number {
    const value = min + this.bits(bits);
    if (value > max) throw new RabbitError(`value ${value} does not fit ${min}..=${max} (bit ${this.pos})`);
    return value;
  }

  /** `value - min` in `bits` bits, for ranges beyond the safe integers. */
  wideRange(min: bigint, max: bigint, bits: number): number | bigint {
    const value = min + this.bigBits(bits);
    if (value > max) throw new RabbitError(`value ${value} does not fit ${min}..=${max} (bit ${this.pos})`);
    return narrow(value);
  }

  /** A 32-bit IEEE-754 float. */
  f32(): number {
    floatBits.setUint32(0, this.bits(32), true);
    return floatBits.getFloat32(0, true);
  }

  /** A 64-bit IEEE-754 float. */
  f64(): number {
    floatBits.setUint32(0, this.bits(32), true);
    floatBits.setUint32(4, this.bits(32), true);
    return floatBits.getFloat64(0, true);
  }

  /**
   * A list's `u32` count, refused before anything is allocated when it is longer than
   * `maxLen` or than the rest of the input can hold at `minItemBits` an item.
   */
  private count(minItemBits: number, maxLen: number | null): number {
    const count = this.varint(4);
    if (maxLen !== null && count > maxLen) {
      throw new RabbitError(`length ${count} exceeds the maximum of ${maxLen} (bit ${this.pos})`);
    }
    const left = this.end - this.pos;
    if (minItemBits === 0 ? count > MAX_EMPTY_ITEMS : count * minItemBits > left) {
      throw new RabbitError(
        `a count of ${count} at bit ${this.pos} needs at least ${count * minItemBits} bits, only ${left} left`,
      );
    }
    return count;
  }

  /** A `u32` count, then that many items. */
  list<T>(minItemBits: number, maxLen: number | null, readItem: (r: BitReader) => T): T[] {
    const count = this.count(minItemBits, maxLen);
    const items: T[] = [];
    for (let i = 0; i < count; i++) items.push(readItem(this));
    return items;
  }

  /** Exactly `len` items. */
  array<T>(len: number, readItem: (r: BitReader) => T): T[] {
    const items: T[] = [];
    for (let i = 0; i < len; i++) items.push(readItem(this));
    return items;
  }

  /** A `u32` byte count, then UTF-8 text: only well-formed UTF-8, as Rust's `str` holds. */
  string(maxLen: number | null): string {
    const len = this.count(8, maxLen);
    let bytes: Uint8Array;
    if ((this.pos & 7) === 0) {
      // The count check made sure that the bytes are there.
      bytes = this.bytes.subarray(this.pos >>> 3, (this.pos >>> 3) + len);
      this.pos += 8 * len;
    } else {
      bytes = new Uint8Array(len);
      for (let i = 0; i < len; i++) bytes[i] = this.bits(8);
    }
    const units: number[] = [];
    let text = "";
    let i = 0;
    while (i < len) {
      const first = bytes[i]!;
      let point = first;
      let more = 0;
      // The second byte's range rules out overlong forms, surrogates and points past U+10FFFF.
      let low = 0x80;
      let high = 0xbf;
      if (first >= 0xc2 && first <= 0xdf) {
        more = 1;
        point = first & 0x1f;
      } else if (first >= 0xe0 && first <= 0xef) {
        more = 2;
        point = first & 0x0f;
        if (first === 0xe0) low = 0xa0;
        if (first === 0xed) high = 0x9f;
      } else if (first >= 0xf0 && first <= 0xf4) {
        more = 3;
        point = first & 0x07;
        if (first === 0xf0) low = 0x90;
        if (first === 0xf4) high = 0x8f;
      } else if (first >= 0x80) {
        throw this.invalidUtf8(i);
      }
      for (let k = 1; k <= more; k++) {
        const next = i + k < len ? bytes[i + k]! : -1;
        if (next < low || next > high) throw this.invalidUtf8(i);
        point = (point << 6) | (next & 0x3f);
        low = 0x80;
        high = 0xbf;
      }
      i += more + 1;
      if (point >= 0x10000) {
        point -= 0x10000;
        units.push(0xd800 + (point >> 10), 0xdc00 + (point & 0x3ff));
      } else {
        units.push(point);
      }
      if (units.length >= 4096) {
        text += String.fromCharCode(...units);
        units.length = 0;
      }
    }
    return text + String.fromCharCode(...units);
  }

  /** Ends the read: only the zero padding of the final byte may be left. */
  finish(): void {
    const left = this.end - this.pos;
    if (left >= 8) throw new RabbitError(`${left >>> 3} trailing bytes after the message`);
    if (left > 0 && this.bits(left) !== 0) throw new RabbitError("non-zero padding bits in the final byte");
  }

  /** The error for an enum tag that names no variant. */
  unknownVariant(typeName: string, index: number): RabbitError {
    return new RabbitError(`unknown variant index ${index} for \`${typeName}\` at bit ${this.pos}`);
  }

  private ended(needed: number): RabbitError {
    const left = this.end - this.pos;
    return new RabbitError(`input ended at bit ${this.pos}: ${needed} more bits needed, ${left} left`);
  }

  private nonCanonical(value: string, bytes: number): RabbitError {
    return new RabbitError(
      `non-canonical variable-length integer at bit ${this.pos}: ${bytes} bytes for value ${value}`,
    );
  }

  private invalidUtf8(at: number): RabbitError {
    return new RabbitError(`invalid UTF-8 in a string ending at bit ${this.pos}: at its byte ${at}`);
  }
}

/**
 * Writes a Rabbit bit stream: bits least significant first, into a buffer that grows; the
 * final byte is padded with zeros.
 */
class BitWriter {
  private bytes = new Uint8Array(64);
  /** Bits written. */
  private pos = 0;

  /** Writes the low `n` bits (0 to 53) of the non-negative integer `value`, least significant first. */
  bits(value: number, n: number): void {
    if (n > 32) {
      this.bits(value % 4294967296, 32);
      this.bits(Math.floor(value / 4294967296), n - 32);
      return;
    }
    this.reserve(n);
    let pos = this.pos;
    let done = 0;
    while (done < n) {
      const shift = pos & 7;
      const take = Math.min(8 - shift, n - done);
      const at = pos >>> 3;
      this.bytes[at] = this.bytes[at]! | (((value >>> done) & ((1 << take) - 1)) << shift);
      done += take;
      pos += take;
    }
    this.pos = pos;
  }

  /** Writes `value` (which fits) as `n`-bit two's complement (`n` up to 53). */
  signedBits(value: number, n: number): void {
    this.bits(value < 0 ? value + 2 ** n : value, n);
  }

  /** Writes the low `n` bits (up to 128) of `value`. */
  bigBits(value: bigint, n: number): void {
    const bits = BigInt.asUintN(n, value);
    for (let done = 0; done < n; done += 32) {
      this.bits(Number((bits >> BigInt(done)) & 0xffffffffn), Math.min(32, n - done));
    }
  }

  /** Writes one bit. */
  bool(value: boolean): void {
    this.bits(value ? 1 : 0, 1);
  }

  /** The spec's variable-length integer of a 1-, 2- or 4-byte type, in its shortest form. */
  varint(value: number, bytes: number): void {
    const m = bytesNeeded(value);
    this.bits(m - 1, prefixBits(bytes));
    this.bits(value, 8 * m);
  }

  /** A signed value zig-zag interleaved, as a varint of a 1-, 2- or 4-byte type. */
  zigzag(value: number, bytes: number): void {
    this.varint(value >= 0 ? value * 2 : -value * 2 - 1, bytes);
  }

  /** The variable-length integer of an 8- or 16-byte type. */
  wideVarint(value: bigint, bytes: number): void {
    const m = bigBytesNeeded(value);
    this.bits(m - 1, prefixBits(bytes));
    this.bigBits(value, 8 * m);
  }

  /** A signed value zig-zag interleaved, as a varint of an 8- or 16-byte type. */
  wideZigzag(value: bigint, bytes: number): void {
    this.wideVarint(value >= 0n ? value * 2n : -value * 2n - 1n, bytes);
  }

  /** `value - min` in `bits` bits. */
  range(value: number, min: number, bits: number): void {
    this.bits(value - min, bits);
  }

  /** `value - min` in `bits` bits, for ranges beyond the safe integers. */
  wideRange(value: bigint, min: bigint, bits: number): void {
    this.bigBits(value - min, bits);
  }

  /** A 32-bit IEEE-754 float (the number rounded to the nearest). */
  f32(value: number): void {
    floatBits.setFloat32(0, value, true);
    this.bits(floatBits.getUint32(0, true), 32);
  }

  /** A 64-bit IEEE-754 float. */
  f64(value: number): void {
    floatBits.setFloat64(0, value, true);
    this.bits(floatBits.getUint32(0, true), 32);
    this.bits(floatBits.getUint32(4, true), 32);
  }

  /** A list's `u32` count: refused when longer than `maxLen`, a `u32`, or what a decoder accepts. */
  private count(len: number, minItemBits: number, maxLen: number | null, path: string): void {
    const max = Math.min(maxLen ?? MAX_COUNT, minItemBits === 0 ? MAX_EMPTY_ITEMS : MAX_COUNT);
    if (len > max) throw new RabbitError(`${path}: length ${len} exceeds the maximum of ${max}`);
    this.varint(len, 4);
  }

  /** A `u32` count, then the items. */
  list(value: unknown, minItemBits: number, maxLen: number | null, path: string,
       writeItem: (w: BitWriter, item: unknown) => void): void {
    const items = Expect.array(value, path);
    this.count(items.length, minItemBits, maxLen, path);
    for (const item of items) writeItem(this, item);
  }

  /** Exactly `len` items. */
  array(value: unknown, len: number, path: string, writeItem: (w: BitWriter, item: unknown) => void): void {
    const items = Expect.array(value, path);
    if (items.length !== len) throw new RabbitError(`${path}: expected ${len} items, got ${items.length}`);
    for (const item of items) writeItem(this, item);
  }

  /** A `u32` byte count, then the text as UTF-8. */
  string(value: unknown, maxLen: number | null, path: string): void {
    const text = Expect.string(value, path);
    const bytes: number[] = [];
    for (let i = 0; i < text.length; i++) {
      let point = text.charCodeAt(i);
      if (point >= 0xd800 && point <= 0xdfff) {
        const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
        if (point > 0xdbff || next < 0xdc00 || next > 0xdfff) {
          throw new RabbitError(`${path}: a lone surrogate at ${i}, which UTF-8 cannot hold`);
        }
        point = 0x10000 + ((point - 0xd800) << 10) + (next - 0xdc00);
        i++;
      }
      if (point < 0x80) {
        bytes.push(point);
      } else if (point < 0x800) {
        bytes.push(0xc0 | (point >> 6), 0x80 | (point & 0x3f));
      } else if (point < 0x10000) {
        bytes.push(0xe0 | (point >> 12), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
      } else {
        bytes.push(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 0x3f), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
      }
    }
    this.count(bytes.length, 8, maxLen, path);
    for (const byte of bytes) this.bits(byte, 8);
  }

  /** The bytes written, the last one padded with zeros. */
  finish(): Uint8Array {
    return this.bytes.slice(0, (this.pos + 7) >>> 3);
  }

  /** Makes room for `n` more bits. */
  private reserve(n: number): void {
    const needed = (this.pos + n + 7) >>> 3;
    if (needed > this.bytes.length) {
      const grown = new Uint8Array(Math.max(needed, this.bytes.length * 2));
      grown.set(this.bytes);
      this.bytes = grown;
    }
  }
}

/** The checks of a value against its schema before it is written, each naming the field. */
class Expect {
  /** An integer in `min..=max` (a bigint in range is taken too). */
  static integer(value: unknown, min: number, max: number, path: string): number {
    if (typeof value === "bigint" && value >= min && value <= max) return Number(value);
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      throw new RabbitError(`${path}: expected an integer in ${min}..=${max}, got ${show(value)}`);
    }
    return value;
  }

  /** An integer in `min..=max`, as a number or a bigint, returned as a bigint. */
  static wide(value: unknown, min: bigint, max: bigint, path: string): bigint {
    const big = typeof value === "bigint" ? value
      : typeof value === "number" && Number.isInteger(value) ? BigInt(value) : null;
    if (big === null || big < min || big > max) {
      throw new RabbitError(`${path}: expected an integer in ${min}..=${max}, got ${show(value)}`);
    }
    return big;
  }

  static float(value: unknown, path: string): number {
    if (typeof value !== "number") throw new RabbitError(`${path}: expected a number, got ${show(value)}`);
    return value;
  }

  static bool(value: unknown, path: string): boolean {
    if (typeof value !== "boolean") throw new RabbitError(`${path}: expected true or false, got ${show(value)}`);
    return value;
  }

  static string(value: unknown, path: string): string {
    if (typeof value !== "string") throw new RabbitError(`${path}: expected a string, got ${show(value)}`);
    return value;
  }

  static null(value: unknown, path: string): void {
    if (value !== null) throw new RabbitError(`${path}: expected null, got ${show(value)}`);
  }

  static array(value: unknown, path: string): readonly unknown[] {
    if (!Array.isArray(value)) throw new RabbitError(`${path}: expected an array, got ${show(value)}`);
    return value;
  }

  /** An array of exactly `len` items: a tuple. */
  static tuple(value: unknown, len: number, path: string): readonly unknown[] {
    const items = Expect.array(value, path);
    if (items.length !== len) throw new RabbitError(`${path}: expected ${len} items, got ${items.length}`);
    return items;
  }

  /** An object with no other fields than `fields` (a missing one reads as undefined). */
  static record(value: unknown, path: string, fields: readonly string[]): { readonly [field: string]: unknown } {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new RabbitError(`${path}: expected an object, got ${show(value)}`);
    }
    for (const key in value) {
      if (!fields.includes(key)) throw new RabbitError(`${path}: unknown field \`${key}\``);
    }
    return value as { readonly [field: string]: unknown };
  }

  /**
   * An enum's value: its variant's name as a string, or an object of one field, the
   * variant's name, holding its body. Returns the name, the body, and whether it was bare.
   */
  static variant(value: unknown, path: string): [string, unknown, boolean] {
    if (typeof value === "string") return [value, undefined, true];
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1) {
        const name = keys[0]!;
        return [name, (value as { readonly [variant: string]: unknown })[name], false];
      }
    }
    throw new RabbitError(`${path}: expected a variant name or {"Variant": body}, got ${show(value)}`);
  }

  /** The body of a variant that has one. */
  static body(body: unknown, bare: boolean, path: string): unknown {
    if (bare) throw new RabbitError(`${path}: the variant has a body, so it is written {"Variant": body}`);
    return body;
  }

  /** A variant without a body: its bare name (or a body of `null`). */
  static noBody(body: unknown, bare: boolean, path: string): void {
    if (!bare && body !== null) throw new RabbitError(`${path}: the variant has no body, got ${show(body)}`);
  }

  /** The error for a variant name the enum does not have. */
  static unknownVariant(name: string, path: string): RabbitError {
    return new RabbitError(`${path}: unknown variant \`${name}\``);
  }

  /** Whether an optional value is absent: `null`, or missing. */
  static absent(value: unknown): value is null | undefined {
    return value === null || value === undefined;
  }

  /** The error for a conditional field whose presence disagrees with its condition. */
  static conditionMismatch(path: string, condition: boolean): RabbitError {
    return new RabbitError(
      `field \`${path}\`: its condition is ${condition} but the value is ${condition ? "absent" : "present"}`,
    );
  }
}
