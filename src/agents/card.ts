/** Shared facts of the built-in agents' cards. */
import type { AgentCardConfig } from '../server/card/build.js';

/**
 * The author-written part of a built-in agent's card (what `createA2AServer` takes as
 * `card`); interfaces and capability flags are derived by the server.
 */
export type BuiltInCard = AgentCardConfig;

/** The package version the built-in agents report. */
export const KIT_VERSION = '0.1.0';
