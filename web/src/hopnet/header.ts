// The spec's packet header, `[flags, chunk, sequence_hi, sequence_lo]`, and the sizes around it
// (PROTOCOL.md, "Transport (hopnet)").

/** Bytes of the header in front of every chunk. */
export const HEADER_LEN = 4;
/** Bytes of every chunk but a message's last. */
export const CHUNK_SIZE = 504;
/** Chunks of the largest message. */
export const MAX_CHUNKS = 256;
/** The largest message: 256 chunks of 504 bytes. */
export const MAX_PAYLOAD = CHUNK_SIZE * MAX_CHUNKS;

/** The chunk must be acknowledged. */
export const REL = 0x01;
/** This packet acknowledges the chunk it names. */
export const ACK = 0x02;
/** The last chunk of its message. */
export const FIN = 0x04;
/** The connection is closed. */
export const END = 0x08;
/** Bits a conforming peer sends as zero; ours are set only in handshake datagrams. */
export const RESERVED = 0xf0;

/** A decoded header. */
export interface Header {
  readonly flags: number;
  readonly chunk: number;
  readonly sequence: number;
}

/** A datagram: the header, then `payload` (none for acknowledgements and control packets). */
export function packet(flags: number, chunk: number, sequence: number, payload?: Uint8Array): Uint8Array {
  const datagram = new Uint8Array(HEADER_LEN + (payload?.length ?? 0));
  datagram[0] = flags;
  datagram[1] = chunk;
  datagram[2] = (sequence >>> 8) & 0xff;
  datagram[3] = sequence & 0xff;
  if (payload !== undefined) {
    datagram.set(payload, HEADER_LEN);
  }
  return datagram;
}

/** The header of a datagram; `null` if it is too short to have one. */
export function header(datagram: Uint8Array): Header | null {
  if (datagram.length < HEADER_LEN) {
    return null;
  }
  return {
    flags: datagram[0] ?? 0,
    chunk: datagram[1] ?? 0,
    sequence: ((datagram[2] ?? 0) << 8) | (datagram[3] ?? 0),
  };
}

/** Whether `flags` has every bit of `flag`. */
export function has(flags: number, flag: number): boolean {
  return (flags & flag) === flag;
}

/** Serial-number distance from `b` to `a` (RFC 1982): in -32768..32767, positive if `a` is newer. */
export function seqDiff(a: number, b: number): number {
  return (((a - b) & 0xffff) << 16) >> 16;
}

/** Whether sequence `a` is newer than `b`; the exactly opposite id counts as older. */
export function seqNewer(a: number, b: number): boolean {
  return seqDiff(a, b) > 0;
}
