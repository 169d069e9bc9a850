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
  /** SendMessage: sends a message; answers with the task, or with the agent's direct Message. */
  sendMessage(request: SendMessageRequest, ctx: ServerCallContext): Promise<SendMessageResponse>;
  /** SendStreamingMessage: sends a message and streams what follows (the task, then its updates). */
  sendStreamingMessage(
    request: SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>>;
  /** GetTask: the task as stored, its history cut to `historyLength` when given. */
  getTask(request: GetTaskRequest, ctx: ServerCallContext): Promise<Task>;
  /** ListTasks: one page of the caller's tasks, newest first. */
  listTasks(request: ListTasksRequest, ctx: ServerCallContext): Promise<ListTasksResponse>;
  /** CancelTask: cancels the task and answers with it. */
  cancelTask(request: CancelTaskRequest, ctx: ServerCallContext): Promise<Task>;
  /** SubscribeToTask: streams the task (as it is now) and its updates from then on. */
  subscribeToTask(
    request: SubscribeToTaskRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>>;
  /** CreateTaskPushNotificationConfig: stores a push config for a task. */
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig>;
  /** GetTaskPushNotificationConfig: one push config of a task. */
  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig>;
  /** ListTaskPushNotificationConfigs: a page of a task's push configs. */
  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    ctx: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  /** DeleteTaskPushNotificationConfig: deletes one push config of a task. */
  deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<Empty>;
  /** GetExtendedAgentCard: the extended card, for this caller. */
  getExtendedAgentCard(request: GetExtendedAgentCardRequest, ctx: ServerCallContext): Promise<AgentCard>;
}
