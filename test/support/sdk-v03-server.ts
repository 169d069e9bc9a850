/**
 * A v0.3 agent built on the official SDK's v0.3 line (@a2a-js/sdk 0.3.14, aliased
 * `@a2a-js/sdk-v03`): JSON-RPC at /a2a/jsonrpc, REST at /a2a/rest (`/v1/...` below it), a v0.3
 * card (`url`, `preferredTransport`, `additionalInterfaces`, no `supportedInterfaces`) at
 * /.well-known/agent-card.json, and its gRPC service (`a2a.v1`) on a second port. So our client's v0.3 path is tested against code nobody here
 * wrote. The agent's behaviour is chosen by the first text part, like test/support/sdk-server.ts:
 *
 * - `task`: a task that completes at once with one artifact `result`.
 * - `stream:N`: N WORKING updates with an artifact chunk each, then COMPLETED.
 * - `ask`: a task that stops at INPUT_REQUIRED; any follow-up on it completes it.
 * - `wait`: a task that stays WORKING until canceled.
 * - anything else: a direct Message `echo: <text>`.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import express from 'express';
import type { AgentCard, Message, Task, TaskState, TaskStatusUpdateEvent } from '@a2a-js/sdk-v03';
import {
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk-v03/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk-v03/server/express';
import {
  A2AService as SdkGrpcService,
  grpcService,
  UserBuilder as GrpcUserBuilder,
} from '@a2a-js/sdk-v03/server/grpc';
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';

/** A running v0.3 SDK server. */
export interface SdkV03Server {
  url: string;
  /** `127.0.0.1:port` of the gRPC service. */
  grpcTarget: string;
  /** Texts of the messages the agent executed, in order. */
  executions: string[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function firstText(ctx: RequestContext): string {
  for (const part of ctx.userMessage.parts) if (part.kind === 'text') return part.text;
  return '';
}

class ScriptedV03Executor implements AgentExecutor {
  private readonly cancels = new Map<string, () => void>();
  constructor(private readonly executions: string[]) {}

  private status(
    ctx: RequestContext,
    state: TaskState,
    final: boolean,
    text?: string,
  ): TaskStatusUpdateEvent {
    return {
      kind: 'status-update',
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      final,
      status: {
        state,
        timestamp: new Date().toISOString(),
        ...(text
          ? {
              message: {
                kind: 'message',
                messageId: `m-${Math.random().toString(36).slice(2)}`,
                role: 'agent',
                taskId: ctx.taskId,
                contextId: ctx.contextId,
                parts: [{ kind: 'text', text }],
              },
            }
          : {}),
      },
    };
  }

  private artifact(ctx: RequestContext, id: string, text: string, append: boolean, lastChunk: boolean) {
    return {
      kind: 'artifact-update' as const,
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      artifact: { artifactId: id, parts: [{ kind: 'text' as const, text }] },
      append,
      lastChunk,
    };
  }

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = firstText(ctx);
    this.executions.push(text);
    if (ctx.task) {
      bus.publish(this.status(ctx, 'working', false));
      bus.publish(this.artifact(ctx, 'answer', `got: ${text}`, false, true));
      bus.publish(this.status(ctx, 'completed', true, 'done'));
      bus.finished();
      return;
    }
    if (!/^(task|ask|wait|stream:\d+)$/.test(text)) {
      const reply: Message = {
        kind: 'message',
        messageId: `m-${Math.random().toString(36).slice(2)}`,
        role: 'agent',
        contextId: ctx.contextId,
        parts: [{ kind: 'text', text: `echo: ${text}` }],
      };
      bus.publish(reply);
      bus.finished();
      return;
    }
    const task: Task = {
      kind: 'task',
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: 'submitted', timestamp: new Date().toISOString() },
      history: [ctx.userMessage],
    };
    bus.publish(task);
    if (text === 'task') {
      bus.publish(this.artifact(ctx, 'result', 'the result', false, true));
      bus.publish(this.status(ctx, 'completed', true, 'done'));
    } else if (text === 'ask') {
      bus.publish(this.status(ctx, 'input-required', true, 'which one?'));
    } else if (text === 'wait') {
      bus.publish(this.status(ctx, 'working', false, 'waiting'));
      await new Promise<void>((resolve) => {
        this.cancels.set(ctx.taskId, resolve);
        setTimeout(resolve, 20_000).unref();
      });
      this.cancels.delete(ctx.taskId);
      bus.publish(this.status(ctx, 'canceled', true, 'canceled'));
    } else {
      const n = Number(text.slice('stream:'.length));
      for (let i = 1; i <= n; i++) {
        await sleep(10);
        bus.publish(this.status(ctx, 'working', false, `step ${i}`));
        bus.publish(this.artifact(ctx, 'log', `line ${i}\n`, i > 1, i === n));
      }
      bus.publish(this.status(ctx, 'completed', true, 'done'));
    }
    bus.finished();
  }

  async cancelTask(taskId: string, _bus: ExecutionEventBus): Promise<void> {
    this.cancels.get(taskId)?.();
  }
}

/** Starts the v0.3 SDK server on 127.0.0.1:0; `preferred` is the card's `preferredTransport`. */
export async function startSdkV03Server(
  preferred: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC',
): Promise<SdkV03Server> {
  const app = express();
  const sockets = new Set<Socket>();
  const executions: string[] = [];
  const httpServer: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  httpServer.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const grpc = new GrpcServer();
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, port) =>
      e ? reject(e) : resolve(port),
    ),
  );
  const jsonrpc = { url: `${url}/a2a/jsonrpc`, transport: 'JSONRPC' };
  const rest = { url: `${url}/a2a/rest`, transport: 'HTTP+JSON' };
  const grpcIface = { url: `127.0.0.1:${grpcPort}`, transport: 'GRPC' };
  const main = preferred === 'JSONRPC' ? jsonrpc : rest;
  const card: AgentCard = {
    protocolVersion: '0.3.0',
    name: 'sdk-v03-agent',
    description: 'A scripted agent on @a2a-js/sdk 0.3',
    version: '1.0.0',
    url: main.url,
    preferredTransport: main.transport,
    additionalInterfaces: [jsonrpc, rest, grpcIface],
    capabilities: { streaming: true, pushNotifications: true },
    securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    security: [{ key: [] }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['test'] }],
    supportsAuthenticatedExtendedCard: true,
  };
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new ScriptedV03Executor(executions),
    undefined,
    new InMemoryPushNotificationStore(),
    undefined,
    async () => ({ ...card, description: 'the extended v0.3 card' }),
  );
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  grpc.addService(
    SdkGrpcService,
    grpcService({ requestHandler: handler, userBuilder: GrpcUserBuilder.noAuthentication }),
  );
  return {
    url,
    grpcTarget: grpcIface.url,
    executions,
    async close() {
      grpc.forceShutdown();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
