/**
 * Names of the A2A 1.1 draft support (dev-1.1, PR 1810; docs/protocol-decisions.md GEN-1), in
 * the model so every layer may name them.
 */

/** The a2a-kit extension a v1.0 client names in `A2A-Extensions` to get the draft's fields. */
export const GENERATION_EXTENSION = 'https://a2a-kit.dev/extensions/generation/v1';

/** The draft protocol version a client may send as `A2A-Version` once the feature is on. */
export const DRAFT_PROTOCOL_VERSION = '1.1';
