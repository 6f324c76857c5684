// What `send` refuses.
/** A message `send` refused, and why. */
export class HopnetError extends Error {
    constructor(kind, message) {
        super(message);
        this.kind = kind;
        this.name = "HopnetError";
    }
}
