/** GetExtendedAgentCard: the card for authenticated callers, when the agent has one. */
import {
  ExtendedAgentCardNotConfiguredError,
  UnauthenticatedError,
  UnsupportedOperationError,
} from '../../errors/a2a-error.js';
import type { AgentCard } from '../../model/schema.js';
import { ANONYMOUS, type ServerCallContext } from '../context.js';
import type { DefaultRequestHandlerOptions } from './options.js';

export async function getExtendedAgentCard(
  card: () => AgentCard,
  extended: DefaultRequestHandlerOptions['extendedCard'],
  requiresAuthentication: boolean,
  ctx: ServerCallContext,
): Promise<AgentCard> {
  if (card().capabilities.extendedAgentCard !== true) {
    throw new UnsupportedOperationError(
      'this agent has no extended agent card (capabilities.extendedAgentCard is not true)',
    );
  }
  // Before the configuration check, so that anonymous callers learn nothing about it.
  if (requiresAuthentication && ctx.principal.id === ANONYMOUS.id) {
    throw new UnauthenticatedError('the extended agent card is served to authenticated callers only');
  }
  if (extended === undefined) throw new ExtendedAgentCardNotConfiguredError();
  return typeof extended === 'function' ? extended(ctx) : extended;
}
