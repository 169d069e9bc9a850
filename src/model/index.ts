/** `a2a-kit/model`: the A2A v1.0 data model in its ProtoJSON shape, with validators. */
export * from './enums.js';
export * from './schema.js';
export * from './timestamp.js';
export * from './ids.js';
export * from './state-machine.js';
export * from './operations.js';
export { compile, describe, formatViolations } from './validate.js';
export type { SchemaViolation, Checked, Validator } from './validate.js';
export { isBase64 } from './validate.js';
export * from './validators.js';
export * from './draft.js';
