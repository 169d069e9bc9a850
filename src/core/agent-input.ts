/**
 * What an agent hands its event sink (a string, or a message or artifact input) built into
 * model Messages and Artifacts, checked before anything is stored.
 */
import { InvalidAgentResponseError } from '../errors/a2a-error.js';
import { Role } from '../model/enums.js';
import { newId } from '../model/ids.js';
import { Part as PartSchema, type Artifact, type Message, type Part } from '../model/schema.js';
import { compile } from '../model/validate.js';
import { checkAgentArtifact, checkAgentMessage } from './agent-output.js';
import type { ArtifactInput, MessageInput } from './executor.js';

const partValidator = compile(PartSchema);

/** An agent message in `contextId` (and in task `taskId` when given). */
export function agentMessage(input: MessageInput, contextId: string, taskId: string | undefined): Message {
  const message: Message =
    typeof input === 'string'
      ? { messageId: newId(), role: Role.AGENT, parts: [{ text: input }] }
      : { messageId: newId(), role: Role.AGENT, parts: checkParts(input?.parts, 'message') };
  if (typeof input !== 'string') {
    if (input.metadata) message.metadata = input.metadata;
    if (input.extensions) message.extensions = input.extensions;
  }
  message.contextId = contextId;
  if (taskId !== undefined) message.taskId = taskId;
  // A plain string builds a valid message; anything else is checked before it can be stored.
  return typeof input === 'string' ? message : checkAgentMessage(message, 'message');
}

/** An artifact, with a generated id when the agent gave none. */
export function agentArtifact(input: ArtifactInput): Artifact & { artifactId: string } {
  if (input === null || typeof input !== 'object') {
    throw new InvalidAgentResponseError('an artifact must be an object');
  }
  let parts: Part[];
  if (input.parts !== undefined) parts = checkParts(input.parts, 'artifact');
  else if (input.text !== undefined) parts = [{ text: String(input.text) }];
  else if (input.data !== undefined) parts = [{ data: input.data }];
  else throw new InvalidAgentResponseError('an artifact needs parts, text or data');
  const artifactId = input.artifactId ?? newId();
  if (typeof artifactId !== 'string' || artifactId.length === 0) {
    throw new InvalidAgentResponseError('artifactId must be a non-empty string');
  }
  const artifact: Artifact & { artifactId: string } = { artifactId, parts };
  if (input.name !== undefined) artifact.name = input.name;
  if (input.description !== undefined) artifact.description = input.description;
  if (input.metadata) artifact.metadata = input.metadata;
  if (input.extensions) artifact.extensions = input.extensions;
  checkAgentArtifact(artifact);
  return artifact;
}

function checkParts(parts: unknown, what: string): Part[] {
  if (!Array.isArray(parts) || parts.length === 0) {
    throw new InvalidAgentResponseError(`an agent ${what} needs at least one part`);
  }
  for (let i = 0; i < parts.length; i++) {
    if (!partValidator.is(parts[i])) {
      throw new InvalidAgentResponseError(
        `${what} part ${i} is not a valid Part (exactly one of text, raw, url, data)`,
      );
    }
  }
  return parts as Part[];
}
