/**
 * The first step of `A2AClient.connect`: the agent's card (fetched and verified from a URL, or
 * given), and the client options adjusted to what the card offers.
 */
import type { AgentCard } from '../model/schema.js';
import { GENERATION_EXTENSION } from '../model/draft.js';
import { AgentCardResolver } from './card-resolver.js';
import { cardFetchHeaders } from './auth-interceptor.js';
import type { A2AClientOptions } from './options.js';

/** What {@link discoverAgent} found. */
export interface DiscoveredAgent {
  readonly card: AgentCard;
  /** The card's signature was verified. */
  readonly verified: boolean;
  /** The resolver that fetched the card (for re-reading it later); none for a given card. */
  readonly resolver: AgentCardResolver | undefined;
  /** `options`, with the A2A 1.1 draft's generation extension asked for when the card offers it. */
  readonly options: A2AClientOptions;
}

/** Finds the card of the agent at `urlOrCard` (a base URL, a card URL, or a card object). */
export async function discoverAgent(
  urlOrCard: string | AgentCard,
  options: A2AClientOptions,
): Promise<DiscoveredAgent> {
  let card: AgentCard;
  let resolver: AgentCardResolver | undefined;
  let verified = false;
  if (typeof urlOrCard === 'string') {
    resolver =
      options.resolver ??
      new AgentCardResolver({
        fetch: options.fetch,
        ...options.card,
        headers: await cardFetchHeaders(options),
      });
    ({ card, verified } = await resolver.resolve(urlOrCard));
  } else card = urlOrCard;
  if (
    options.generation !== false &&
    offersGeneration(card) &&
    !options.extensions?.includes(GENERATION_EXTENSION)
  ) {
    options = { ...options, extensions: [...(options.extensions ?? []), GENERATION_EXTENSION] };
  }
  return { card, verified, resolver, options };
}

/** True when `card` declares the a2a-kit generation extension (A2A 1.1 draft support). */
function offersGeneration(card: AgentCard): boolean {
  return card.capabilities?.extensions?.some((ext) => ext.uri === GENERATION_EXTENSION) === true;
}
