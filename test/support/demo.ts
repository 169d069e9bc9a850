/** Helpers for the demo agents' tests: a sample repository in a temp dir, a hosted agent. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { AgentExecutor } from '../../src/core/executor.js';
import type { AgentCardConfig } from '../../src/server/card/build.js';
import { createA2AServer, type A2AServer, type A2AServerOptions } from '../../src/server/http.js';
import type { DemoAgent } from '../../src/agents/demo.js';
import { A2AClient } from '../../src/client/client.js';
import { ensureSampleRepo, type SampleRepo } from '../../src/cli/demo/sample-repo.js';

/** A fresh temp dir holding the sample `payments-api`; removed after the test. */
export async function sampleRepo(t: TestContext): Promise<SampleRepo & { root: string }> {
  const root = await mkdtemp(join(tmpdir(), 'a2a-demo-test-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  return { root, ...(await ensureSampleRepo(join(root, 'payments-api'))) };
}

/** How {@link hosted} hosts an agent beyond the defaults (a memory store, nothing else). */
export interface HostedOptions extends Partial<Pick<A2AServerOptions, 'store' | 'recovery'>> {
  /** The demo agent's own server options and listening hook (see DemoAgent). */
  agent?: Pick<DemoAgent, 'server' | 'listening'>;
  /** Port to listen on. @default 0 */
  port?: number;
}

/** A hosted agent: its URL, a connected client, and its server (closed after the test). */
export interface Hosted {
  url: string;
  client: A2AClient;
  server: A2AServer;
}

/** Hosts `agent` on 127.0.0.1 (port 0) and connects a client; both closed after the test. */
export async function hosted(
  t: TestContext,
  agent: AgentExecutor,
  card: AgentCardConfig,
  options: HostedOptions = {},
): Promise<Hosted> {
  const server = createA2AServer({
    agent,
    card,
    store: options.store ?? 'memory',
    ...(options.recovery !== undefined ? { recovery: options.recovery } : {}),
    ...options.agent?.server,
  });
  const { url } = await server.listen(options.port ?? 0, '127.0.0.1');
  options.agent?.listening?.(url);
  const client = await A2AClient.connect(url);
  t.after(async () => {
    await client.close();
    await server.close();
  });
  return { url, client, server };
}

/** True while process `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every 50 ms, at most `tries` times; resolves with whether it became true. */
export async function eventually(check: () => boolean | Promise<boolean>, tries = 200): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
