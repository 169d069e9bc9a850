/**
 * v0.3 JSON-RPC operation params ↔ v1.0 requests (SRV-COMPAT-2, SRV-COMPAT-3): method names, `blocking`
 * vs `returnImmediately`, the nested push-config shape and its old names.
 */
import type { A2AMethod } from '../../model/operations.js';
import type {
  SendMessageConfiguration,
  SendMessageRequest,
  TaskPushNotificationConfig,
} from '../../model/schema.js';
import { invalidV03, isJson, messageFromV03, messageToV03, type Json } from './content.js';
import type {
  V03MessageSendConfiguration,
  V03MessageSendParams,
  V03PushNotificationConfig,
  V03TaskPushNotificationConfig,
} from './types.js';

/** A v0.3 JSON-RPC method name. */
export type V03Method =
  | 'message/send'
  | 'message/stream'
  | 'tasks/get'
  | 'tasks/cancel'
  | 'tasks/resubscribe'
  | 'tasks/pushNotificationConfig/set'
  | 'tasks/pushNotificationConfig/get'
  | 'tasks/pushNotificationConfig/list'
  | 'tasks/pushNotificationConfig/delete'
  | 'agent/getAuthenticatedExtendedCard';

/** Each v0.3 method and the v1.0 operation whose request schema validates it. */
export const V03_METHODS: Readonly<Record<V03Method, A2AMethod>> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
};

/** True for the ten v0.3 method names. */
export function isV03Method(name: string): name is V03Method {
  return Object.prototype.hasOwnProperty.call(V03_METHODS, name);
}

/**
 * `blocking` as a boolean: absent means blocking (SRV-COMPAT-3 REC, as a2a-python and the v1.0
 * default); `"true"`/`"false"` strings are read as ProtoJSON readers do.
 */
export function readBlocking(value: unknown, path = 'configuration.blocking'): boolean {
  if (value === undefined || value === null || value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw invalidV03(path, 'must be a boolean');
}

/** A nested v0.3 push config as the flat v1.0 one (`schemes[0]` becomes `scheme`). */
export function pushConfigFromV03(config: unknown): unknown {
  if (!isJson(config)) return config;
  const { authentication, ...rest } = config;
  const out: Json = { ...rest };
  if (isJson(authentication)) {
    const { schemes, ...auth } = authentication;
    out.authentication =
      auth.scheme === undefined && Array.isArray(schemes) ? { ...auth, scheme: schemes[0] } : auth;
  } else if (authentication !== undefined) {
    out.authentication = authentication;
  }
  return out;
}

function configurationFromV03(configuration: unknown): unknown {
  if (!isJson(configuration)) return configuration;
  const { blocking, pushNotificationConfig, ...rest } = configuration;
  const out: Json = { ...rest, returnImmediately: !readBlocking(blocking) };
  if (pushNotificationConfig !== undefined && pushNotificationConfig !== null) {
    out.taskPushNotificationConfig = pushConfigFromV03(pushNotificationConfig);
  }
  return out;
}

/**
 * The v1.0 request JSON for a v0.3 method's params (validated afterwards with the v1.0 schema
 * of {@link V03_METHODS}). get/list/delete of push configs keep the v0.3 ids in `taskId`/`id`.
 */
export function paramsFromV03(method: V03Method, params: Json): Json {
  switch (method) {
    case 'message/send':
    case 'message/stream': {
      const out: Json = { ...params, message: messageFromV03(params.message) };
      if (params.configuration !== undefined) out.configuration = configurationFromV03(params.configuration);
      return out;
    }
    case 'tasks/get':
    case 'tasks/cancel':
      return params;
    case 'tasks/resubscribe':
      return { id: params.id };
    case 'tasks/pushNotificationConfig/set': {
      const nested = params.pushNotificationConfig;
      if (nested === undefined || nested === null) throw invalidV03('pushNotificationConfig', 'is required');
      const flat = pushConfigFromV03(nested);
      return isJson(flat) ? { ...flat, taskId: params.taskId } : { taskId: params.taskId, url: flat };
    }
    case 'tasks/pushNotificationConfig/get':
    case 'tasks/pushNotificationConfig/delete':
      return { taskId: params.id, id: params.pushNotificationConfigId };
    case 'tasks/pushNotificationConfig/list':
      return { taskId: params.id };
    case 'agent/getAuthenticatedExtendedCard':
      return {};
  }
}

/** A flat v1.0 push config as the nested v0.3 one. */
export function pushConfigToV03(config: TaskPushNotificationConfig): V03TaskPushNotificationConfig {
  const nested: V03PushNotificationConfig = {
    ...(config.id ? { id: config.id } : {}),
    url: config.url,
    ...(config.token !== undefined ? { token: config.token } : {}),
    ...(config.authentication
      ? {
          authentication: {
            schemes: [config.authentication.scheme],
            ...(config.authentication.credentials !== undefined
              ? { credentials: config.authentication.credentials }
              : {}),
          },
        }
      : {}),
  };
  return { taskId: config.taskId ?? '', pushNotificationConfig: nested };
}

/** A nested v0.3 push config (a server's answer) as the flat v1.0 one. */
export function taskPushConfigFromV03(value: unknown): unknown {
  if (!isJson(value)) return value;
  const flat = pushConfigFromV03(value.pushNotificationConfig);
  return isJson(flat) ? { ...flat, taskId: value.taskId } : value;
}

function configurationToV03(c: SendMessageConfiguration): V03MessageSendConfiguration {
  const push = c.taskPushNotificationConfig;
  return {
    ...(c.acceptedOutputModes ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
    ...(c.historyLength !== undefined ? { historyLength: c.historyLength } : {}),
    ...(push ? { pushNotificationConfig: pushConfigToV03(push).pushNotificationConfig } : {}),
    blocking: c.returnImmediately !== true,
  };
}

/** A v1.0 SendMessageRequest as v0.3 `MessageSendParams` (`blocking` always explicit). */
export function sendParamsToV03(request: SendMessageRequest): V03MessageSendParams {
  return {
    message: messageToV03(request.message),
    configuration: configurationToV03(request.configuration ?? {}),
    ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
  };
}
