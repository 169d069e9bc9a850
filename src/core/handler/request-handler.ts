/**
 * The contract between the bindings and the protocol semantics: the eleven operations,
 * binding-agnostic. Bindings validate and translate the wire form, build a
 * {@link ServerCallContext}, and call exactly one method here. They import only this file.
 */
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  Empty,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';

/**
 * What every binding calls. Requests arrive already schema-valid. Errors are thrown as
 * A2AError subclasses. The streaming operations resolve to an iterable once every check that
 * can fail before the agent runs has passed (G5): a rejected promise is an ordinary
 * error response, not a stream. They resolve without waiting for the agent's first event, so
 * a binding starts its response at once; anything failing later is the iterable's error.
 */
export interface RequestHandler {
  /** The public agent card, as served at `/.well-known/agent-card.json`. */
  agentCard(): AgentCard;
  sendMessage(request: SendMessageRequest, ctx: ServerCallContext): Promise<SendMessageResponse>;
  sendStreamingMessage(
    request: SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>>;
  getTask(request: GetTaskRequest, ctx: ServerCallContext): Promise<Task>;
  listTasks(request: ListTasksRequest, ctx: ServerCallContext): Promise<ListTasksResponse>;
  cancelTask(request: CancelTaskRequest, ctx: ServerCallContext): Promise<Task>;
  subscribeToTask(
    request: SubscribeToTaskRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>>;
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    ctx: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<Empty>;
  getExtendedAgentCard(request: GetExtendedAgentCardRequest, ctx: ServerCallContext): Promise<AgentCard>;
}
