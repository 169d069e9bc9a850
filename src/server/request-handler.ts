/**
 * The eleven operations, binding-agnostic. Bindings validate and translate the wire form,
 * build a {@link ServerCallContext}, and call exactly one method here.
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
} from '../model/schema.js';
import type { ServerCallContext } from './context.js';

/**
 * What every binding calls. Requests arrive already schema-valid. Errors are thrown as
 * A2AError subclasses. The streaming operations resolve to an iterable only after every
 * check that can fail before the first event has passed (DIGEST G5): a rejected promise is
 * an ordinary error response, not a stream.
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
