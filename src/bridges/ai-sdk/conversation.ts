/**
 * The conversation an AI SDK model sees for one A2A execution: the messages of the context's
 * earlier tasks (kept by the executor, bounded), the task's own history, and the new message,
 * as AI SDK ModelMessages. Data parts become JSON text; files become file parts.
 */
import type { ModelMessage } from 'ai';
import { Role } from '../../model/enums.js';
import type { Message, Part } from '../../model/schema.js';

/** Contexts remembered at once, and messages kept per context (the latest). */
export const MAX_CONTEXTS = 500;
export const MAX_CONTEXT_MESSAGES = 40;

/** The model messages of one A2A message (none when it carries nothing a model can read). */
export function toModelMessage(message: Message): ModelMessage | undefined {
  if (message.role === Role.AGENT) {
    const text = message.parts
      .map(partText)
      .filter((t) => t !== '')
      .join('\n');
    return text ? { role: 'assistant', content: text } : undefined;
  }
  const content: Exclude<Extract<ModelMessage, { role: 'user' }>['content'], string> = [];
  for (const part of message.parts) {
    if (part.raw !== undefined) {
      content.push({ type: 'file', data: part.raw, mediaType: part.mediaType ?? 'application/octet-stream' });
    } else if (part.url !== undefined) {
      // A URL the model's provider can fetch; one that does not parse is passed on as text.
      const url = URL.canParse(part.url) ? new URL(part.url) : undefined;
      content.push(
        url
          ? { type: 'file', data: url, mediaType: part.mediaType ?? 'application/octet-stream' }
          : { type: 'text', text: part.url },
      );
    } else {
      const text = partText(part);
      if (text) content.push({ type: 'text', text });
    }
  }
  return content.length > 0 ? { role: 'user', content } : undefined;
}

function partText(part: Part): string {
  if (part.text !== undefined) return part.text;
  if (part.data !== undefined) return JSON.stringify(part.data);
  return '';
}

/** The remembered messages of recent contexts: least recently used dropped first. */
export class ContextMemory {
  readonly #contexts = new Map<string, ModelMessage[]>();

  get(contextId: string): readonly ModelMessage[] {
    return this.#contexts.get(contextId) ?? [];
  }

  add(contextId: string, messages: readonly ModelMessage[]): void {
    const kept = [...(this.#contexts.get(contextId) ?? []), ...messages].slice(-MAX_CONTEXT_MESSAGES);
    this.#contexts.delete(contextId);
    this.#contexts.set(contextId, kept);
    if (this.#contexts.size > MAX_CONTEXTS)
      this.#contexts.delete(this.#contexts.keys().next().value as string);
  }
}

/** The conversation for a task: earlier tasks of the context, the task's history, the new message. */
export function conversation(
  memory: readonly ModelMessage[],
  history: readonly Message[],
  message: Message,
): ModelMessage[] {
  const out: ModelMessage[] = [...memory];
  for (const m of history) {
    if (m.messageId === message.messageId) continue;
    const converted = toModelMessage(m);
    if (converted) out.push(converted);
  }
  const current = toModelMessage(message);
  if (current) out.push(current);
  return out;
}
