/**
 * Reading an agent card off the wire: defaults ProtoJSON may drop are filled, a v0.3 card is
 * translated, and the result is checked against the model. Shared by the card resolver and the
 * transports that fetch a card themselves (GetExtendedAgentCard, v0.3 `agent/getAuthenticatedExtendedCard`).
 */
import { AgentCard } from '../model/schema.js';
import { PROTOCOL_VERSION } from '../model/operations.js';
import { expectShape } from './http/decode.js';
import { A2AInvalidResponseError } from '../errors/client-errors.js';
import { cardFromV03, isV03Card } from './compat-v03/card.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates a card. Defaults ProtoJSON may drop (N5) are filled; a v0.3 card is translated
 * with its interfaces marked `protocolVersion` 0.3 so that binding selection can say so.
 */
export function parseAgentCard(raw: unknown, source = 'agent card', notes: string[] = []): AgentCard {
  if (!isObject(raw)) {
    throw new A2AInvalidResponseError('invalid-card', `the agent card at ${source} is not a JSON object`);
  }
  let value: Json = raw;
  if (isV03Card(value)) {
    // v0.3 compatibility: interfaces, security shapes and flags in their v1.0 form.
    value = cardFromV03(value);
    notes.push(
      `the card at ${source} is an A2A v0.3 card (protocolVersion ${String(raw.protocolVersion ?? '?')})`,
    );
  }
  const filled: Json = {
    capabilities: {},
    defaultInputModes: [],
    defaultOutputModes: [],
    ...value,
    skills: Array.isArray(value.skills)
      ? value.skills.map((s) => (isObject(s) ? { description: '', tags: [], ...s } : s))
      : (value.skills ?? []),
  };
  if (Array.isArray(filled.supportedInterfaces)) {
    // A spec-conformant server always sends protocolVersion; a missing one is our own version.
    filled.supportedInterfaces = filled.supportedInterfaces.map((i) =>
      isObject(i) && i.protocolVersion === undefined ? { ...i, protocolVersion: PROTOCOL_VERSION } : i,
    );
  }
  try {
    return expectShape(AgentCard, filled, `agent card at ${source}`);
  } catch (error) {
    if (error instanceof A2AInvalidResponseError) {
      throw new A2AInvalidResponseError('invalid-card', error.message, { cause: error });
    }
    throw error;
  }
}
