/** `a2a-kit/errors`: every A2A error as a class, with its codes on every binding. */
export * from './table.js';
export * from './a2a-error.js';
export * from './codec.js';
export * from './validation.js';
export * from './config-errors.js';
