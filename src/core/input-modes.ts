/**
 * SRV-SEND-7: a part whose declared media type the agent does not accept is refused with
 * ContentTypeNotSupportedError before anything runs. Only an explicit `mediaType` is judged:
 * a part without one says nothing about its type, and refusing it would be a guess.
 */
import { ContentTypeNotSupportedError } from '../errors/a2a-error.js';
import type { AgentCard, Message } from '../model/schema.js';

/** The media types an agent accepts: its default input modes and every skill's. */
interface AcceptedModes {
  readonly any: boolean;
  readonly exact: ReadonlySet<string>;
  /** `image` for `image/*`. */
  readonly families: ReadonlySet<string>;
}

const cache = new WeakMap<AgentCard, AcceptedModes>();

function acceptedModes(card: AgentCard): AcceptedModes {
  let modes = cache.get(card);
  if (modes) return modes;
  const all = [...card.defaultInputModes, ...card.skills.flatMap((s) => s.inputModes ?? [])].map(essence);
  modes = {
    // An agent that declares no input modes has not restricted them.
    any: all.length === 0 || all.includes('*/*') || all.includes('*'),
    exact: new Set(all),
    families: new Set(all.filter((m) => m.endsWith('/*')).map((m) => m.slice(0, -2))),
  };
  cache.set(card, modes);
  return modes;
}

/** `Text/Plain; charset=utf-8` → `text/plain`. */
function essence(mediaType: string): string {
  const semi = mediaType.indexOf(';');
  return (semi === -1 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
}

/** Throws ContentTypeNotSupportedError for the first part the agent cannot accept. */
export function checkInputModes(card: AgentCard, message: Message): void {
  let modes: AcceptedModes | undefined;
  for (let i = 0; i < message.parts.length; i++) {
    const declared = message.parts[i]!.mediaType;
    if (!declared) continue;
    modes ??= acceptedModes(card);
    if (modes.any) return;
    const type = essence(declared);
    if (modes.exact.has(type) || modes.families.has(type.slice(0, type.indexOf('/')))) continue;
    throw new ContentTypeNotSupportedError(
      `message.parts[${i}]: media type ${declared} is not accepted; this agent accepts ${[...modes.exact].join(', ')}`,
      { metadata: { mediaType: declared } },
    );
  }
}
