/**
 * Errors in how a server is set up (its card, its options), raised when it is created, never
 * sent to a client. `code` is stable, for programs that react to a kind of mistake.
 */

/** The kinds of configuration error. */
export type A2AConfigErrorCode =
  /** The agent card is invalid or would lie about the server (see `InvalidAgentCardError`). */
  | 'A2A_CONFIG_INVALID_CARD'
  /** An option of `createA2AServer` has a value it cannot use (`store`, `publicUrl`...). */
  | 'A2A_CONFIG_INVALID_OPTION';

/** A server cannot be created as configured; `code` says why, the message says what to fix. */
export class A2AConfigError extends Error {
  readonly code: A2AConfigErrorCode;
  constructor(code: A2AConfigErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}
