/** Building a SendMessageRequest from the few fields a caller usually has. */
import { createError } from '../errors/index.js';
import { Role } from '../model/enums.js';
import { newId } from '../model/ids.js';
import type {
  Message,
  Part,
  SendMessageConfiguration,
  SendMessageRequest,
  TaskPushNotificationConfig,
} from '../model/schema.js';

/** Input of {@link A2AClient.send} and {@link A2AClient.stream}. */
export interface SendInput {
  text?: string;
  /** A data part (any JSON). */
  data?: unknown;
  /** More parts, after the text and data ones. */
  parts?: Part[];
  /** Continue this task (after INPUT_REQUIRED, CLI-SEND-8). */
  taskId?: string;
  contextId?: string;
  /** @default a fresh UUID */
  messageId?: string;
  /** Answer as soon as the task exists. @default false */
  returnImmediately?: boolean;
  historyLength?: number;
  acceptedOutputModes?: string[];
  referenceTaskIds?: string[];
  metadata?: Record<string, unknown>;
  /** Message-level extension URIs. */
  extensions?: string[];
  /** A webhook for this task's updates. */
  pushNotificationConfig?: TaskPushNotificationConfig;
  signal?: AbortSignal;
}

/** The SendMessageRequest for `input`: fresh messageId, ROLE_USER, explicit returnImmediately. */
export function buildSendRequest(input: SendInput): SendMessageRequest {
  const parts: Part[] = [];
  if (input.text !== undefined) parts.push({ text: input.text });
  if (input.data !== undefined) parts.push({ data: input.data });
  parts.push(...(input.parts ?? []));
  if (parts.length === 0)
    throw createError('InvalidParams', 'a message needs at least one part (text, data or parts)');
  const message: Message = { messageId: input.messageId ?? newId(), role: Role.USER, parts };
  if (input.taskId) message.taskId = input.taskId;
  if (input.contextId) message.contextId = input.contextId;
  if (input.referenceTaskIds) message.referenceTaskIds = input.referenceTaskIds;
  if (input.extensions) message.extensions = input.extensions;
  const configuration: SendMessageConfiguration = { returnImmediately: input.returnImmediately ?? false };
  if (input.historyLength !== undefined) configuration.historyLength = input.historyLength;
  if (input.acceptedOutputModes) configuration.acceptedOutputModes = input.acceptedOutputModes;
  if (input.pushNotificationConfig) configuration.taskPushNotificationConfig = input.pushNotificationConfig;
  const request: SendMessageRequest = { message, configuration };
  if (input.metadata) request.metadata = input.metadata;
  return request;
}
