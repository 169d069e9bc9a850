/**
 * gRPC is an optional peer dependency, loaded only by `a2a-kit/grpc`: the other entries import,
 * and an HTTP-only server runs, in a process where `@grpc/grpc-js` and `@bufbuild/protobuf`
 * cannot be resolved at all (a module resolve hook refuses them, as a missing install would).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD_TIMEOUT_MS = 60_000;

/** Resolve hook: the gRPC packages are not installed, as far as this process can tell. */
const BLOCK_HOOKS = `
export async function resolve(specifier, context, next) {
  if (/^@(grpc|bufbuild)\\//.test(specifier)) {
    throw Object.assign(new Error('not installed: ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(
  `data:text/javascript,${encodeURIComponent(BLOCK_HOOKS)}`,
)});`;

interface ChildReport {
  ok: boolean;
  error?: string;
  /** Paths of grpc-js files in the CommonJS cache after the script ran. */
  grpcFiles: number;
}

/** Runs `script` (ESM, top-level await) in a child that cannot resolve the gRPC packages. */
function runWithoutGrpc(script: string): Promise<ChildReport> {
  const body = `
    import { createRequire } from 'node:module';
    let ok = true, error;
    try { ${script} } catch (e) { ok = false; error = String(e && e.message || e); }
    const cached = Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('grpc-js'));
    process.stdout.write(JSON.stringify({ ok, error, grpcFiles: cached.length }));
    process.exit(0);
  `;
  const args = [
    '--import',
    'tsx',
    '--import',
    `data:text/javascript,${encodeURIComponent(REGISTER)}`,
    '--input-type=module',
    '-e',
    body,
  ];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: ROOT, timeout: CHILD_TIMEOUT_MS }, (err, stdout, stderr) => {
      if (err) reject(new Error(`child failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as ChildReport);
    });
  });
}

describe('gRPC, an optional peer dependency', () => {
  test('control: a2a-kit/grpc itself cannot load without it', async () => {
    const report = await runWithoutGrpc(`await import('./src/bindings/grpc/index.ts');`);
    assert.equal(report.ok, false);
    assert.match(report.error ?? '', /not installed: @(grpc|bufbuild)\//);
  });

  for (const [entry, path] of [
    ['a2a-kit', './src/index.ts'],
    ['a2a-kit/server', './src/server/index.ts'],
    ['a2a-kit/client', './src/client/index.ts'],
    ['a2a-kit/model', './src/model/index.ts'],
    ['a2a-kit/errors', './src/errors/index.ts'],
  ] as const) {
    test(`${entry} imports without it`, async () => {
      const report = await runWithoutGrpc(`await import('${path}');`);
      assert.deepEqual(report, { ok: true, grpcFiles: 0 });
    });
  }

  test('an HTTP-only server starts, answers and closes without it', async () => {
    const report = await runWithoutGrpc(`
      const { createA2AServer } = await import('./src/server/index.ts');
      const { A2AClient } = await import('./src/client/index.ts');
      const server = createA2AServer({
        agent: async (ctx, task) => task.complete('pong'),
        card: {
          name: 'no-grpc',
          description: 'HTTP only',
          version: '1.0.0',
          skills: [{ id: 'pong', name: 'Pong', description: 'Answers', tags: ['test'] }],
        },
      });
      try {
        const { url } = await server.listen(0, '127.0.0.1');
        const client = await A2AClient.connect(url);
        const reply = await client.send({ text: 'ping' });
        if (reply.kind !== 'task' || reply.task.status.state !== 'TASK_STATE_COMPLETED') {
          throw new Error('unexpected reply ' + JSON.stringify(reply));
        }
      } finally {
        await server.close();
      }
    `);
    assert.deepEqual(report, { ok: true, grpcFiles: 0 });
  });
});
