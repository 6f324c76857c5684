// What `send` refuses.

/** Why a message was refused. */
export type HopnetErrorKind =
  /** Larger than 129,024 bytes. */
  | "payload-too-large"
  /** Too many reliable messages await acknowledgement: try again after some are. */
  | "would-block"
  /** The connection is closed. */
  | "closed";

/** A message `send` refused, and why. */
export class HopnetError extends Error {
  constructor(
    readonly kind: HopnetErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "HopnetError";
  }
}
