/**
 * Every message of `proto/lf/a2a/v1/a2a.proto` as a TypeBox schema in its ProtoJSON shape,
 * with the TypeScript type derived from it. REQUIRED fields (the proto's field_behavior)
 * are required here; oneofs admit exactly one member.
 */
export * from './task-schema.js';
export * from './card-schema.js';
export * from './request-schema.js';
