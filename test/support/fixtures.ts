/**
 * Realistic ProtoJSON fixtures: one valid object for every message of a2a.proto (all
 * REQUIRED fields present, N18), keyed by message name, plus invalid requests with
 * the violations our validator must report. Use {@link fixture} to get a private copy.
 */
import type { A2AMethod } from '../../src/model/operations.js';
import type * as M from '../../src/model/schema.js';

const TASK_ID = '3f1c9a2e-8d4b-4a51-9f0e-6c2b7d8e1a40';
const CONTEXT_ID = 'b7e4d2c1-5a6f-4e3d-8c9b-0a1f2e3d4c5b';
const CONFIG_ID = 'c0ffee00-1234-4abc-9def-001122334455';
const AT = '2026-03-14T09:26:53.589Z';

const textPart: M.Part = {
  text: 'Run the unit tests of acme/api at commit 9f2c1e7',
  mediaType: 'text/plain',
};
const dataPart: M.Part = {
  data: { repo: 'acme/api', commit: '9f2c1e7', suites: ['unit', 'lint'] },
  mediaType: 'application/json',
};
const rawPart: M.Part = { raw: 'UEFTUyAxNDIvMTQyCg==', mediaType: 'text/plain', filename: 'summary.txt' };
const urlPart: M.Part = {
  url: 'https://ci.example.com/artifacts/9f2c1e7/junit.xml',
  mediaType: 'application/xml',
  filename: 'junit.xml',
  metadata: { sizeBytes: 48213 },
};

const userMessage: M.Message = {
  messageId: '6a0e5c4b-1d2f-4e8a-b3c7-9d0e1f2a3b4c',
  contextId: CONTEXT_ID,
  role: 'ROLE_USER',
  parts: [textPart, dataPart],
  metadata: { requestedBy: 'release-bot' },
  extensions: ['https://a2a.example.com/ext/priority/v1'],
  referenceTaskIds: ['0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a'],
};

const agentMessage: M.Message = {
  messageId: '7b1f6d5c-2e3a-4f9b-c4d8-0e1f2a3b4c5d',
  contextId: CONTEXT_ID,
  taskId: TASK_ID,
  role: 'ROLE_AGENT',
  parts: [{ text: 'Checking out 9f2c1e7 and installing dependencies' }],
};

const artifact: M.Artifact = {
  artifactId: 'summary.json',
  name: 'summary.json',
  description: 'Test results per suite',
  parts: [{ data: { passed: 142, failed: 0, skipped: 3 }, mediaType: 'application/json' }, rawPart, urlPart],
  metadata: { durationMs: 81234 },
  extensions: ['https://a2a.example.com/ext/junit/v1'],
};

const taskStatus: M.TaskStatus = {
  state: 'TASK_STATE_COMPLETED',
  message: {
    ...agentMessage,
    messageId: '8c2a7e6d-3f4b-4a0c-d5e9-1f2a3b4c5d6e',
    parts: [{ text: 'All 142 tests passed' }],
  },
  timestamp: AT,
};

const task: M.Task = {
  id: TASK_ID,
  contextId: CONTEXT_ID,
  status: taskStatus,
  artifacts: [artifact],
  history: [{ ...userMessage, taskId: TASK_ID }, agentMessage],
  metadata: { queue: 'ci-fast' },
};

const statusUpdate: M.TaskStatusUpdateEvent = {
  taskId: TASK_ID,
  contextId: CONTEXT_ID,
  status: { state: 'TASK_STATE_WORKING', message: agentMessage, timestamp: '2026-03-14T09:25:01.002Z' },
  metadata: { step: 'install' },
};

const artifactUpdate: M.TaskArtifactUpdateEvent = {
  taskId: TASK_ID,
  contextId: CONTEXT_ID,
  artifact: { artifactId: 'log.txt', name: 'log.txt', parts: [{ text: 'PASS src/routes/users.test.ts\n' }] },
  append: true,
  lastChunk: false,
  metadata: { chunk: 4 },
};

const authenticationInfo: M.AuthenticationInfo = {
  scheme: 'Bearer',
  credentials: 'eyJhbGciOiJFUzI1NiJ9.e30.sig',
};

const pushConfig: M.TaskPushNotificationConfig = {
  tenant: 'acme',
  id: CONFIG_ID,
  taskId: TASK_ID,
  url: 'https://hooks.example.com/a2a/ci-events',
  token: 'pnt-4f9d2a7c',
  authentication: authenticationInfo,
};

const agentInterface: M.AgentInterface = {
  url: 'https://agents.example.com/test-runner/a2a/jsonrpc',
  protocolBinding: 'JSONRPC',
  protocolVersion: '1.0',
};
const agentProvider: M.AgentProvider = { url: 'https://example.com', organization: 'Example Corp' };
const agentExtension: M.AgentExtension = {
  uri: 'https://a2a.example.com/ext/priority/v1',
  description: 'Lets a caller ask for a faster queue',
  required: false,
  params: { levels: ['low', 'normal', 'high'] },
};
const capabilities: M.AgentCapabilities = {
  streaming: true,
  pushNotifications: true,
  extensions: [agentExtension],
  extendedAgentCard: true,
};
const stringList: M.StringList = { list: ['tasks:read', 'tasks:write'] };
const securityRequirement: M.SecurityRequirement = { schemes: { oauth: stringList } };
const skill: M.AgentSkill = {
  id: 'run-tests',
  name: 'Run tests',
  description: "Runs a repository's unit tests at a commit and reports the results",
  tags: ['ci', 'testing'],
  examples: ['run the tests of acme/api at 9f2c1e7'],
  inputModes: ['text/plain', 'application/json'],
  outputModes: ['application/json'],
  securityRequirements: [securityRequirement],
};
const signature: M.AgentCardSignature = {
  protected: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImNhcmQta2V5LTEiLCJ0eXAiOiJKT1NFIn0',
  signature:
    'MEUCIQDx3b6mN2yq8c0sQ3kF7zJvR1pT4wA9eL5hX2uY6nB8gIgW1cV0dE3fG4hI5jK6lM7nO8pQ9rS0tU1vW2xY3zA4bC5',
  header: { kid: 'card-key-1' },
};
const apiKeyScheme: M.APIKeySecurityScheme = {
  description: 'Static key',
  location: 'header',
  name: 'X-API-Key',
};
const httpScheme: M.HTTPAuthSecurityScheme = {
  description: 'JWT bearer',
  scheme: 'Bearer',
  bearerFormat: 'JWT',
};
const authCodeFlow = {
  authorizationUrl: 'https://auth.example.com/authorize',
  tokenUrl: 'https://auth.example.com/token',
  refreshUrl: 'https://auth.example.com/token',
  scopes: { 'tasks:read': 'Read tasks', 'tasks:write': 'Create tasks' },
  pkceRequired: true,
};
const clientCredentialsFlow = {
  tokenUrl: 'https://auth.example.com/token',
  scopes: { 'tasks:write': 'Create tasks' },
};
const implicitFlow = {
  authorizationUrl: 'https://auth.example.com/authorize',
  scopes: { 'tasks:read': 'Read tasks' },
};
const passwordFlow = { tokenUrl: 'https://auth.example.com/token', scopes: { 'tasks:read': 'Read tasks' } };
const deviceCodeFlow = {
  deviceAuthorizationUrl: 'https://auth.example.com/device',
  tokenUrl: 'https://auth.example.com/token',
  scopes: { 'tasks:read': 'Read tasks' },
};
const oauthFlows: M.OAuthFlows = { authorizationCode: authCodeFlow };
const oauth2Scheme: M.OAuth2SecurityScheme = {
  description: 'OAuth 2.0 with PKCE',
  flows: oauthFlows,
  oauth2MetadataUrl: 'https://auth.example.com/.well-known/oauth-authorization-server',
};
const oidcScheme: M.OpenIdConnectSecurityScheme = {
  openIdConnectUrl: 'https://auth.example.com/.well-known/openid-configuration',
};
const mtlsScheme: M.MutualTlsSecurityScheme = { description: 'Client certificate issued by the CI CA' };
const securityScheme: M.SecurityScheme = { oauth2SecurityScheme: oauth2Scheme };

const agentCard: M.AgentCard = {
  name: 'test-runner',
  description: "Runs a repository's unit tests at a commit",
  supportedInterfaces: [
    agentInterface,
    {
      url: 'https://agents.example.com/test-runner/a2a/rest',
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
    },
    { url: 'agents.example.com:50051', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 'acme' },
  ],
  provider: agentProvider,
  version: '1.4.2',
  documentationUrl: 'https://docs.example.com/agents/test-runner',
  capabilities,
  securitySchemes: {
    oauth: securityScheme,
    apiKey: { apiKeySecurityScheme: apiKeyScheme },
    bearer: { httpAuthSecurityScheme: httpScheme },
    oidc: { openIdConnectSecurityScheme: oidcScheme },
    mtls: { mtlsSecurityScheme: mtlsScheme },
  },
  securityRequirements: [securityRequirement, { schemes: { apiKey: { list: [] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [skill],
  signatures: [signature],
  iconUrl: 'https://agents.example.com/test-runner/icon.png',
};

const sendConfiguration: M.SendMessageConfiguration = {
  acceptedOutputModes: ['text/plain', 'application/json'],
  taskPushNotificationConfig: {
    url: 'https://hooks.example.com/a2a/ci-events',
    token: 'pnt-4f9d2a7c',
    authentication: { scheme: 'Bearer', credentials: 'hook-secret' },
  },
  historyLength: 10,
  returnImmediately: true,
};

const sendRequest: M.SendMessageRequest = {
  tenant: 'acme',
  message: userMessage,
  configuration: sendConfiguration,
  metadata: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736' },
};

const listTasksRequest: M.ListTasksRequest = {
  tenant: 'acme',
  contextId: CONTEXT_ID,
  status: 'TASK_STATE_WORKING',
  pageSize: 20,
  pageToken: 'eyJvZmZzZXQiOjIwfQ',
  historyLength: 2,
  statusTimestampAfter: '2026-03-01T00:00:00.000Z',
  includeArtifacts: true,
};

const listTasksResponse: M.ListTasksResponse = {
  tasks: [task],
  nextPageToken: 'eyJvZmZzZXQiOjQwfQ',
  pageSize: 20,
  totalSize: 41,
};

/** One valid object per message of a2a.proto, plus `google.protobuf.Empty`. */
export const fixtures = {
  Part: textPart,
  Message: userMessage,
  Artifact: artifact,
  TaskStatus: taskStatus,
  Task: task,
  TaskStatusUpdateEvent: statusUpdate,
  TaskArtifactUpdateEvent: artifactUpdate,
  StreamResponse: { statusUpdate } as M.StreamResponse,
  AuthenticationInfo: authenticationInfo,
  TaskPushNotificationConfig: pushConfig,
  AgentInterface: agentInterface,
  AgentProvider: agentProvider,
  AgentExtension: agentExtension,
  AgentCapabilities: capabilities,
  StringList: stringList,
  SecurityRequirement: securityRequirement,
  AgentSkill: skill,
  AgentCardSignature: signature,
  APIKeySecurityScheme: apiKeyScheme,
  HTTPAuthSecurityScheme: httpScheme,
  AuthorizationCodeOAuthFlow: authCodeFlow,
  ClientCredentialsOAuthFlow: clientCredentialsFlow,
  ImplicitOAuthFlow: implicitFlow,
  PasswordOAuthFlow: passwordFlow,
  DeviceCodeOAuthFlow: deviceCodeFlow,
  OAuthFlows: oauthFlows,
  OAuth2SecurityScheme: oauth2Scheme,
  OpenIdConnectSecurityScheme: oidcScheme,
  MutualTlsSecurityScheme: mtlsScheme,
  SecurityScheme: securityScheme,
  AgentCard: agentCard,
  SendMessageConfiguration: sendConfiguration,
  SendMessageRequest: sendRequest,
  SendMessageResponse: { task } as M.SendMessageResponse,
  GetTaskRequest: { tenant: 'acme', id: TASK_ID, historyLength: 5 } as M.GetTaskRequest,
  ListTasksRequest: listTasksRequest,
  ListTasksResponse: listTasksResponse,
  CancelTaskRequest: {
    tenant: 'acme',
    id: TASK_ID,
    metadata: { reason: 'superseded by 1a2b3c4' },
  } as M.CancelTaskRequest,
  SubscribeToTaskRequest: { tenant: 'acme', id: TASK_ID } as M.SubscribeToTaskRequest,
  GetTaskPushNotificationConfigRequest: {
    tenant: 'acme',
    taskId: TASK_ID,
    id: CONFIG_ID,
  } as M.GetTaskPushNotificationConfigRequest,
  DeleteTaskPushNotificationConfigRequest: {
    tenant: 'acme',
    taskId: TASK_ID,
    id: CONFIG_ID,
  } as M.DeleteTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest: {
    tenant: 'acme',
    taskId: TASK_ID,
    pageSize: 10,
    pageToken: 'eyJvZmZzZXQiOjEwfQ',
  } as M.ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse: {
    configs: [pushConfig],
    nextPageToken: '',
  } as M.ListTaskPushNotificationConfigsResponse,
  GetExtendedAgentCardRequest: { tenant: 'acme' } as M.GetExtendedAgentCardRequest,
  Empty: {} as M.Empty,
};

/** A message name that has a fixture. */
export type FixtureName = keyof typeof fixtures;

/** A private deep copy of the fixture for `name` (safe to modify). */
export function fixture<K extends FixtureName>(name: K): (typeof fixtures)[K] {
  return structuredClone(fixtures[name]);
}

/** Further valid variants: every oneof member and each StreamResponse payload. */
export const variants: { name: FixtureName; label: string; value: unknown }[] = [
  { name: 'Part', label: 'data part', value: dataPart },
  { name: 'Part', label: 'raw part', value: rawPart },
  { name: 'Part', label: 'url part', value: urlPart },
  { name: 'Part', label: 'data part holding a string', value: { data: 'plain string value' } },
  { name: 'StreamResponse', label: 'task', value: { task } },
  { name: 'StreamResponse', label: 'message', value: { message: agentMessage } },
  { name: 'StreamResponse', label: 'artifactUpdate', value: { artifactUpdate } },
  { name: 'SendMessageResponse', label: 'message', value: { message: agentMessage } },
  { name: 'OAuthFlows', label: 'clientCredentials', value: { clientCredentials: clientCredentialsFlow } },
  { name: 'OAuthFlows', label: 'deviceCode', value: { deviceCode: deviceCodeFlow } },
  { name: 'OAuthFlows', label: 'implicit (deprecated, readable)', value: { implicit: implicitFlow } },
  { name: 'OAuthFlows', label: 'password (deprecated, readable)', value: { password: passwordFlow } },
  {
    name: 'ListTasksResponse',
    label: 'empty last page (N4/N5)',
    value: { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 },
  },
  {
    name: 'Task',
    label: 'minimal submitted task',
    value: { id: TASK_ID, contextId: CONTEXT_ID, status: { state: 'TASK_STATE_SUBMITTED', timestamp: AT } },
  },
];

/** An invalid request and the violations {@link parseRequest} must report for it. */
export interface InvalidFixture {
  readonly label: string;
  readonly method: A2AMethod;
  readonly params: unknown;
  readonly violations: readonly { path: string; description: string }[];
}

const minimalMessage = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };
const withMessage = (patch: Record<string, unknown>) => ({ message: { ...minimalMessage, ...patch } });
const ONEOF_PART = 'exactly one of text, raw, url, data';

/** Invalid requests, each with the exact violations expected. */
export const invalidFixtures: InvalidFixture[] = [
  {
    label: 'part with two members',
    method: 'SendMessage',
    params: withMessage({
      parts: [{ text: 'a' }, { data: {} }, { text: 'b', url: 'https://x.example.com/f' }],
    }),
    violations: [{ path: 'message.parts[2]', description: ONEOF_PART }],
  },
  {
    label: 'part with no member',
    method: 'SendMessage',
    params: withMessage({ parts: [{ mediaType: 'text/plain' }] }),
    violations: [{ path: 'message.parts[0]', description: ONEOF_PART }],
  },
  {
    label: 'empty parts (N4)',
    method: 'SendMessage',
    params: withMessage({ parts: [] }),
    violations: [{ path: 'message.parts', description: 'needs at least 1 item(s)' }],
  },
  {
    label: 'missing messageId',
    method: 'SendMessage',
    params: { message: { role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    violations: [{ path: 'message.messageId', description: 'required' }],
  },
  {
    label: 'empty messageId',
    method: 'SendMessage',
    params: withMessage({ messageId: '' }),
    violations: [{ path: 'message.messageId', description: 'must not be empty' }],
  },
  {
    label: 'missing message',
    method: 'SendStreamingMessage',
    params: { configuration: { returnImmediately: true } },
    violations: [{ path: 'message', description: 'required' }],
  },
  {
    label: 'unknown role',
    method: 'SendMessage',
    params: withMessage({ role: 'ROLE_ROBOT' }),
    violations: [
      { path: 'message.role', description: 'expected one of ROLE_UNSPECIFIED, ROLE_USER, ROLE_AGENT' },
    ],
  },
  {
    label: 'unknown task state filter (G9)',
    method: 'ListTasks',
    params: { status: 'TASK_STATE_PAUSED' },
    violations: [
      {
        path: 'status',
        description:
          'expected one of TASK_STATE_UNSPECIFIED, TASK_STATE_SUBMITTED, TASK_STATE_WORKING, TASK_STATE_COMPLETED, TASK_STATE_FAILED, TASK_STATE_CANCELED, TASK_STATE_INPUT_REQUIRED, TASK_STATE_REJECTED, TASK_STATE_AUTH_REQUIRED',
      },
    ],
  },
  {
    label: 'timestamp without zone (G14)',
    method: 'ListTasks',
    params: { statusTimestampAfter: '2026-03-01T00:00:00' },
    violations: [
      {
        path: 'statusTimestampAfter',
        description: 'expected an RFC 3339 timestamp with a zone, such as 2026-01-01T00:00:00.000Z',
      },
    ],
  },
  {
    label: 'pageSize out of range (G9)',
    method: 'ListTasks',
    params: { pageSize: 500 },
    violations: [{ path: 'pageSize', description: 'expected integer to be less or equal to 100' }],
  },
  {
    label: 'negative historyLength (G9)',
    method: 'GetTask',
    params: { id: TASK_ID, historyLength: -1 },
    violations: [{ path: 'historyLength', description: 'expected integer to be greater or equal to 0' }],
  },
  {
    label: 'wrong types',
    method: 'SendMessage',
    params: {
      message: { ...minimalMessage, parts: [{ text: 42 }], extensions: 'x' },
      configuration: { returnImmediately: 'yes' },
    },
    violations: [
      { path: 'message.parts[0].text', description: 'expected string' },
      { path: 'message.extensions', description: 'expected array' },
      { path: 'configuration.returnImmediately', description: 'expected boolean' },
    ],
  },
  {
    label: 'bad base64 in raw part',
    method: 'SendMessage',
    params: withMessage({ parts: [{ raw: 'not base64!' }] }),
    violations: [{ path: 'message.parts[0].raw', description: 'expected base64' }],
  },
  {
    label: 'metadata not an object',
    method: 'CancelTask',
    params: { id: TASK_ID, metadata: ['a'] },
    violations: [{ path: 'metadata', description: 'expected object' }],
  },
  {
    label: 'push config without url',
    method: 'CreateTaskPushNotificationConfig',
    params: { taskId: TASK_ID, token: 't' },
    violations: [{ path: 'url', description: 'required' }],
  },
  {
    label: 'get push config without ids',
    method: 'GetTaskPushNotificationConfig',
    params: {},
    violations: [
      { path: 'taskId', description: 'required' },
      { path: 'id', description: 'required' },
    ],
  },
  {
    label: 'params not an object',
    method: 'GetTask',
    params: ['id'],
    violations: [{ path: '', description: 'expected a JSON object' }],
  },
];
