/** The extended agent card is refused to anonymous callers once authentication is on (issue 11.4). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ExtendedAgentCardNotConfiguredError, UnauthenticatedError } from '../../src/errors/index.js';
import { ANONYMOUS, createCallContext } from '../../src/core/context.js';
import { callAs, createTestHandler, testCard } from '../support/handler.js';

const agent = async () => undefined;

describe('extended card and authentication', () => {
  test('anonymous gets UnauthenticatedError (not the card, not the configuration state); a principal gets its card', async (t) => {
    const on = createTestHandler(agent, {
      capabilities: { extendedAgentCard: true },
      extendedCardRequiresAuthentication: true,
      extendedCard: (ctx) => ({ ...testCard(), name: `extended for ${ctx.principal.id}` }),
    });
    const unconfigured = createTestHandler(agent, {
      capabilities: { extendedAgentCard: true },
      extendedCardRequiresAuthentication: true,
    });
    const open = createTestHandler(agent, {
      capabilities: { extendedAgentCard: true },
      extendedCard: testCard(),
    });
    t.after(() => Promise.all([on.handler.close(), unconfigured.handler.close(), open.handler.close()]));
    const anonymous = createCallContext({ principal: ANONYMOUS });
    await assert.rejects(on.handler.getExtendedAgentCard({}, anonymous), UnauthenticatedError);
    await assert.rejects(unconfigured.handler.getExtendedAgentCard({}, anonymous), UnauthenticatedError);
    await assert.rejects(
      unconfigured.handler.getExtendedAgentCard({}, callAs('bob')),
      ExtendedAgentCardNotConfiguredError,
    );
    assert.equal((await on.handler.getExtendedAgentCard({}, callAs('alice'))).name, 'extended for alice');
    // Without the option (no authentication configured), behaviour is unchanged.
    assert.equal((await open.handler.getExtendedAgentCard({}, anonymous)).name, testCard().name);
  });
});
