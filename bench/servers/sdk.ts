/**
 * The same `bench` agent written on the official SDK (@a2a-js/sdk 1.3.0 with its Express
 * handlers and its gRPC service), mounted on the same paths as a2a-kit. It implements the commands the benchmark
 * drives: `echo:<s>`, `task:<s>`, `stream:<n>`.
 */
import type { AddressInfo } from 'node:net';
import { Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import express from 'express';
import { runChild } from './child.js';

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' };
}

function firstText(message: Message): string {
  for (const part of message.parts) if (part.content?.$case === 'text') return part.content.value;
  return '';
}

function status(taskId: string, contextId: string, state: TaskState) {
  return AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: { state, message: undefined, timestamp: new Date().toISOString() },
    metadata: undefined,
  });
}

class SdkBenchExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = firstText(ctx.userMessage);
    const colon = text.indexOf(':');
    const verb = colon < 0 ? '' : text.slice(0, colon);
    const arg = colon < 0 ? text : text.slice(colon + 1);
    const { taskId, contextId } = ctx;
    if (verb !== 'task' && verb !== 'stream') {
      bus.publish(
        AgentEvent.message({
          messageId: crypto.randomUUID(),
          contextId,
          taskId: '',
          role: Role.ROLE_AGENT,
          parts: [textPart(arg)],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        }),
      );
      bus.finished();
      return;
    }
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_SUBMITTED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING));
    const chunks = verb === 'stream' ? Math.max(1, Number(arg) || 1) : 1;
    for (let i = 0; i < chunks; i++) {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'out',
            name: '',
            description: '',
            parts: [textPart(verb === 'stream' ? `chunk-${i + 1}` : arg)],
            metadata: undefined,
            extensions: [],
          },
          append: i > 0,
          lastChunk: i === chunks - 1,
          metadata: undefined,
        }),
      );
    }
    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(status(taskId, '', TaskState.TASK_STATE_CANCELED));
    bus.finished();
  }
}

runChild(async () => {
  const app = express();
  // Filled in once the port is known; the handlers read the card per request.
  const card: AgentCard = {
    name: 'bench',
    description: 'bench agent on @a2a-js/sdk',
    supportedInterfaces: [],
    provider: undefined,
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'bench',
        name: 'bench',
        description: 'echo:, task:, stream:',
        tags: ['bench'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new SdkBenchExecutor());
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const grpc = new GrpcServer();
  grpc.addService(
    A2AService,
    grpcService({ requestHandler: handler, userBuilder: GrpcUserBuilder.noAuthentication }),
  );
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const base = `http://127.0.0.1:${port}`;
  card.supportedInterfaces.push(
    { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    { url: `127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' },
  );
  return {
    port,
    grpcPort,
    close: () =>
      new Promise<void>((resolve) => {
        grpc.forceShutdown();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
});
