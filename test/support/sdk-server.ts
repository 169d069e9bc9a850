/**
 * A test A2A server built on the official `@a2a-js/sdk` (JSON-RPC at /a2a/jsonrpc, REST at
 * /a2a/rest, card at /.well-known/agent-card.json) so our client is tested against code
 * nobody here wrote. The agent's behaviour is chosen by the first text part:
 *
 * - `task`: a task that completes at once with one artifact.
 * - `stream:N`: a task with N WORKING updates, each with an artifact chunk, then COMPLETED.
 * - `ask`: a task that stops at INPUT_REQUIRED; any follow-up on it completes it.
 * - `wait`: a task that stays WORKING until canceled.
 * - `fail`: a task that ends FAILED.
 * - anything else: a direct Message `echo: <text>`.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import express from 'express';
import {
  AgentCard as SdkAgentCard,
  Message as SdkMessage,
  Task as SdkTask,
  TaskArtifactUpdateEvent as SdkArtifactEvent,
  TaskStatusUpdateEvent as SdkStatusEvent,
} from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';

/** Options of {@link startSdkServer}. */
export interface SdkServerOptions {
  /** Delay between streamed events of `stream:N` (ms). @default 30 */
  stepMs?: number;
  /** Order of interfaces on the card. @default ['JSONRPC', 'HTTP+JSON'] */
  bindings?: ('JSONRPC' | 'HTTP+JSON')[];
  /** Also serve the SDK's gRPC service on its own port, listed last on the card. @default false */
  grpc?: boolean;
}

/** A running SDK server. */
export interface SdkServer {
  url: string;
  cardUrl: string;
  /** Open sockets, so tests can drop streams. */
  sockets: Set<Socket>;
  /** Count of executions started, by first text. */
  executions: string[];
  /** Ids of tasks the agent saw a cancel for. */
  canceled: string[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function firstText(ctx: RequestContext): string {
  for (const part of ctx.userMessage.parts) {
    if (part.content?.$case === 'text') return part.content.value;
  }
  return '';
}

class ScriptedExecutor implements AgentExecutor {
  private readonly cancels = new Map<string, () => void>();
  constructor(
    private readonly stepMs: number,
    private readonly server: { executions: string[]; canceled: string[] },
  ) {}

  private status(ctx: RequestContext, state: string, text?: string) {
    return AgentEvent.statusUpdate(
      SdkStatusEvent.fromJSON({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        status: {
          state,
          timestamp: new Date().toISOString(),
          ...(text
            ? {
                message: {
                  messageId: `m-${Math.random().toString(36).slice(2)}`,
                  role: 'ROLE_AGENT',
                  taskId: ctx.taskId,
                  contextId: ctx.contextId,
                  parts: [{ text }],
                },
              }
            : {}),
        },
      }),
    );
  }

  private artifact(ctx: RequestContext, id: string, text: string, append: boolean, lastChunk: boolean) {
    return AgentEvent.artifactUpdate(
      SdkArtifactEvent.fromJSON({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        artifact: { artifactId: id, name: `${id}.txt`, parts: [{ text }] },
        append,
        lastChunk,
      }),
    );
  }

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = firstText(ctx);
    this.server.executions.push(text);
    if (ctx.task) {
      // A follow-up on an existing (input-required) task completes it.
      bus.publish(this.status(ctx, 'TASK_STATE_WORKING'));
      bus.publish(this.artifact(ctx, 'answer', `got: ${text}`, false, true));
      bus.publish(this.status(ctx, 'TASK_STATE_COMPLETED', 'done'));
      bus.finished();
      return;
    }
    const isTask = /^(task|ask|wait|fail|stream:\d+)$/.test(text);
    if (!isTask) {
      bus.publish(
        AgentEvent.message(
          SdkMessage.fromJSON({
            messageId: `m-${Math.random().toString(36).slice(2)}`,
            role: 'ROLE_AGENT',
            contextId: ctx.contextId,
            parts: [{ text: `echo: ${text}` }],
          }),
        ),
      );
      bus.finished();
      return;
    }
    bus.publish(
      AgentEvent.task(
        SdkTask.fromJSON({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() },
          history: [SdkMessage.toJSON(ctx.userMessage)],
        }),
      ),
    );
    if (text === 'task') {
      bus.publish(this.artifact(ctx, 'result', 'the result', false, true));
      bus.publish(this.status(ctx, 'TASK_STATE_COMPLETED', 'done'));
    } else if (text === 'ask') {
      bus.publish(this.status(ctx, 'TASK_STATE_INPUT_REQUIRED', 'which one?'));
    } else if (text === 'fail') {
      bus.publish(this.status(ctx, 'TASK_STATE_FAILED', 'it broke'));
    } else if (text === 'wait') {
      bus.publish(this.status(ctx, 'TASK_STATE_WORKING', 'waiting'));
      await new Promise<void>((resolve) => {
        this.cancels.set(ctx.taskId, resolve);
        setTimeout(resolve, 20_000).unref();
      });
      this.cancels.delete(ctx.taskId);
      bus.publish(this.status(ctx, 'TASK_STATE_CANCELED', 'canceled'));
    } else {
      const n = Number(text.slice('stream:'.length));
      for (let i = 1; i <= n; i++) {
        await sleep(this.stepMs);
        bus.publish(this.status(ctx, 'TASK_STATE_WORKING', `step ${i}`));
        bus.publish(this.artifact(ctx, 'log', `line ${i}\n`, i > 1, i === n));
      }
      await sleep(this.stepMs);
      bus.publish(this.status(ctx, 'TASK_STATE_COMPLETED', 'done'));
    }
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.server.canceled.push(taskId);
    const resolve = this.cancels.get(taskId);
    if (resolve) {
      resolve();
      return;
    }
    void bus;
  }
}

/** Starts the SDK server on 127.0.0.1:0. */
export async function startSdkServer(options: SdkServerOptions = {}): Promise<SdkServer> {
  const app = express();
  const sockets = new Set<Socket>();
  const state = { executions: [] as string[], canceled: [] as string[] };
  const httpServer: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  httpServer.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const bindings = options.bindings ?? ['JSONRPC', 'HTTP+JSON'];
  const grpcServer = options.grpc ? new GrpcServer() : undefined;
  const grpcPort = grpcServer
    ? await new Promise<number>((resolve, reject) =>
        grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) =>
          e ? reject(e) : resolve(p),
        ),
      )
    : undefined;
  const card = SdkAgentCard.fromJSON({
    name: 'sdk-test-agent',
    description: 'A scripted agent on @a2a-js/sdk',
    version: '1.0.0',
    supportedInterfaces: [
      ...bindings.map((b) => ({
        url: b === 'JSONRPC' ? `${url}/a2a/jsonrpc` : `${url}/a2a/rest`,
        protocolBinding: b,
        protocolVersion: '1.0',
      })),
      ...(grpcPort
        ? [{ url: `127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }]
        : []),
    ],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['test'] }],
  });
  const pushStore = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new ScriptedExecutor(options.stepMs ?? 30, state),
    undefined,
    pushStore,
    new DefaultPushNotificationSender(pushStore),
  );
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  grpcServer?.addService(
    A2AService,
    grpcService({ requestHandler: handler, userBuilder: GrpcUserBuilder.noAuthentication }),
  );
  return {
    url,
    cardUrl: `${url}/.well-known/agent-card.json`,
    sockets,
    ...state,
    async close() {
      grpcServer?.forceShutdown();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
