/**
 * The agent author's contract: an {@link AgentExecutor} reads a {@link RequestContext} and
 * emits events through a {@link TaskEventSink}. It never touches stores, ids or wire formats;
 * the TaskManager validates every event against the state machine and persists it.
 */
import type { TaskState } from '../model/enums.js';
import type { Message, Part, SendMessageConfiguration, Task } from '../model/schema.js';
import type { Principal } from './context.js';

/** What an agent receives for one incoming message. */
export interface RequestContext {
  /** The message the client sent (with `taskId` and `contextId` filled in by the server). */
  readonly message: Message;
  /** The task being continued, when the message addresses an existing task. */
  readonly task: Task | undefined;
  /** The id of the task this message belongs to (minted by the server for a new task). */
  readonly taskId: string;
  /** The conversation this message belongs to (minted when the client sent none). */
  readonly contextId: string;
  /** The authenticated caller. */
  readonly principal: Principal;
  /** The tenant the request was made for (`""` for none). */
  readonly tenant: string;
  /** Extensions the client requested. */
  readonly requestedExtensions: readonly string[];
  /** The client's SendMessage configuration (accepted output modes, ...). */
  readonly configuration: SendMessageConfiguration | undefined;
  /** Request metadata. */
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  /** Aborted when the task is canceled or the server shuts down; not when a client disconnects. */
  readonly signal: AbortSignal;
  /** The message's text parts joined with newlines (`""` when there are none). */
  readonly text: string;
  /** The value of the message's first data part, if any. */
  readonly data: unknown;
  /**
   * True when this execution resumes a task whose previous execution was cut off (its process
   * died, or the server closed while it ran): only for an executor that declares
   * {@link AgentExecutor.resumable}. `task` is the stored task, `message` its latest user
   * message, `principal` carries only the owner's id (no scopes or claims), and no request
   * `configuration` or `metadata` is given.
   */
  readonly resumed?: boolean;
  /**
   * Activates an extension of `requestedExtensions` that the agent card declares, so the
   * response echoes it (A2A-Extensions header; gRPC response metadata). Returns whether it is
   * active; a URI the client did not request or the card does not declare is refused (false).
   * A unary reply echoes every activation made before it is sent; a stream's head goes out
   * as soon as the request is accepted, so on streams only activations made synchronously at the
   * start of `execute` (before its first `await`) are echoed.
   */
  activateExtension(uri: string): boolean;
}

/** A message an agent writes: plain text, or parts with optional metadata. */
export type MessageInput =
  string | { parts: Part[]; metadata?: Record<string, unknown>; extensions?: string[] };

/** An artifact an agent writes. `artifactId` defaults to a fresh UUID. */
export interface ArtifactInput {
  artifactId?: string;
  name?: string;
  description?: string;
  /** The parts; or use `text` / `data` for a single part. */
  parts?: Part[];
  text?: string;
  data?: unknown;
  metadata?: Record<string, unknown>;
  extensions?: string[];
}

/** Options for streaming an artifact in chunks (proto TaskArtifactUpdateEvent). */
export interface ArtifactChunkOptions {
  /** Append these parts to the artifact with the same id sent earlier. */
  append?: boolean;
  /** This is the artifact's final chunk. */
  lastChunk?: boolean;
}

/**
 * Where an agent sends its output, bound to one task. Each method resolves once the event is
 * accepted: checked, applied in order, and saved, or (on a store that writes in batches:
 * SQLite) queued for the next write, so that the events an agent sends one after another are
 * written together. Either way an event is published (streams, push, a waiting SendMessage)
 * only once it is durable, after the events before it. Call {@link TaskEventSink.written}
 * before anything outside the task relies on an event being stored. Illegal events (anything
 * after a terminal state, a direct reply after the task started, ...) reject with
 * InvalidAgentResponseError and change nothing.
 */
export interface TaskEventSink {
  /** The task's id. */
  readonly taskId: string;
  /** The task's context id. */
  readonly contextId: string;
  /** Answers with a direct Message instead of a task. Only valid as the agent's first and only event. */
  reply(message: MessageInput): Promise<void>;
  /** Moves the task to WORKING, with an optional progress message. */
  working(message?: MessageInput): Promise<void>;
  /** Sets any state with an optional status message. */
  status(state: TaskState, message?: MessageInput, metadata?: Record<string, unknown>): Promise<void>;
  /** Adds or extends an artifact. */
  artifact(artifact: ArtifactInput, options?: ArtifactChunkOptions): Promise<void>;
  /** Completes the task, optionally adding a final artifact (a string becomes a text artifact). */
  complete(artifact?: ArtifactInput | string, message?: MessageInput): Promise<void>;
  /** Pauses in INPUT_REQUIRED, with the question for the client when there is one (a bare INPUT_REQUIRED is legal). */
  requireInput(question?: MessageInput): Promise<void>;
  /** Pauses in AUTH_REQUIRED with an explanation of the credential needed. */
  requireAuth(explanation: MessageInput): Promise<void>;
  /** Ends the task as FAILED with a reason. */
  fail(reason: MessageInput | Error): Promise<void>;
  /** Ends the task as REJECTED (the agent will not do it). */
  reject(reason: MessageInput): Promise<void>;
  /** Ends the task as CANCELED. */
  cancel(reason?: MessageInput): Promise<void>;
  /**
   * Resolves once every event accepted so far is durable in the store and published; rejects
   * (UnavailableError) when one could not be written: then later events are refused and the
   * task ends FAILED. For an agent about to act on the strength of an event (a sub-task id
   * recorded before the sub-task is followed, work acknowledged elsewhere).
   */
  written(): Promise<void>;
}

/** The one thing an agent author writes. */
export interface AgentExecutor {
  /**
   * Handles a message. The task stays active while this runs: a blocking SendMessage waits
   * and streams stay open. When it returns:
   * - a task still SUBMITTED or WORKING is COMPLETED (returning means the agent is done);
   *   an agent that returns without emitting anything completes a task with no output;
   * - a task left in INPUT_REQUIRED or AUTH_REQUIRED waits for the client's next message,
   *   which runs `execute` again with `context.task` set;
   * - later calls on `events` reject with InvalidAgentResponseError.
   *
   * Throwing fails the task with the error's message as status (never a stack). An
   * A2AError thrown before any event (e.g. ContentTypeNotSupportedError) is
   * returned to the client as that error instead (on a stream: its one error event), and no
   * task is created. One execution of a task runs at a time: a message to the task meanwhile
   * waits until this one has returned.
   */
  execute(context: RequestContext, events: TaskEventSink): Promise<void>;
  /**
   * Called by CancelTask while the task is active. Emit `events.cancel()` to accept, or throw
   * TaskNotCancelableError to refuse. Without this hook the task is canceled and `signal` aborted.
   */
  cancel?(context: RequestContext, events: TaskEventSink): Promise<void>;
  /**
   * Declares that `execute` can pick a task up where a cut-off execution left it (its state is
   * in the task: artifacts, metadata, history). On a store with leases (SQLite, PostgreSQL), a
   * task left SUBMITTED or WORKING by a process that died, or by a server that closed while
   * the agent ran, is then handed back: the next start (or another replica) calls `execute`
   * again with `context.resumed` true, instead of failing the task. Without it such tasks are
   * failed ("worker lost", "server stopped"). @default false
   */
  readonly resumable?: boolean;
}

/** The text parts of `message` joined with newlines (`""` when there are none). */
export function messageText(message: Message): string {
  let text: string | undefined;
  for (const part of message.parts) {
    if (part.text === undefined) continue;
    text = text === undefined ? part.text : `${text}\n${part.text}`;
  }
  return text ?? '';
}

/** The value of the first data part of `message`, or undefined. */
export function messageData(message: Message): unknown {
  for (const part of message.parts) if (part.data !== undefined) return part.data;
  return undefined;
}
