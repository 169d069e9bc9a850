/**
 * The package as published: `npm pack` (which builds, through `prepare`, as `npm publish` does)
 * and the tarball installed into an empty project. The install is offline and by hand: the
 * tarball is unpacked into the project's node_modules/a2a-kit, its dependencies (and the optional
 * gRPC peers) are symlinked from this repository's node_modules, and its bin is linked into
 * node_modules/.bin, which is what `npm install <tarball>` would lay out. Then, from that
 * project: every entry imports and type-checks, `npx a2a --help` works, and `a2a serve --agent
 * echo` answers a card request and a SendMessage on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface PackageJson {
  name: string;
  exports: Record<string, unknown>;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

/** Packs the repository into `dir` (building it first, as publishing does); the tarball's path. */
function pack(dir: string): string {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  // The build's own output comes first on stdout; the JSON report is the last thing printed.
  const report = JSON.parse(out.slice(out.lastIndexOf('\n[') + 1)) as { filename: string }[];
  return join(dir, report[0]!.filename);
}

/** Lays out `tarball` in `project` as `npm install` would, with no registry and no cache. */
function install(project: string, tarball: string): PackageJson {
  const target = join(project, 'node_modules', 'a2a-kit');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  const pkg = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as PackageJson;
  // The declarations name node's, pg's and better-sqlite3's types, which a2a-kit has as
  // devDependencies only: a consumer that type-checks libraries (no skipLibCheck) installs them.
  const types = ['@types/node', '@types/pg', '@types/better-sqlite3'];
  const linked = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies), ...types];
  for (const name of linked) {
    const link = join(project, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), link, 'dir');
  }
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  for (const [name, path] of Object.entries(pkg.bin)) {
    chmodSync(join(target, path), 0o755);
    symlinkSync(join('..', 'a2a-kit', path), join(project, 'node_modules', '.bin', name));
  }
  return pkg;
}

test('the packed tarball installs into an empty project and runs there', { timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-pack-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );

  const tarball = pack(dir);
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
  assert.ok(files.includes('package/dist/cli/main.js'), 'the CLI is in the tarball');
  assert.ok(!files.some((f) => /^package\/(src|test|bench|scripts)\//.test(f)), 'no sources or tests are');
  const pkg = install(project, tarball);

  await t.test('every entry imports at run time, gRPC with its optional peers', () => {
    const specifiers = Object.keys(pkg.exports).map((entry) =>
      entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`,
    );
    const code = specifiers.map((s) => `await import(${JSON.stringify(s)});`).join('\n');
    writeFileSync(join(project, 'imports.mjs'), `${code}\nconsole.log('imported');\n`);
    const out = execFileSync(process.execPath, ['imports.mjs'], { cwd: project, encoding: 'utf8' });
    assert.equal(out.trim(), 'imported');
  });

  await t.test('a consumer type-checks against the published declarations', () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      [
        "import { createA2AServer, type AgentExecutor } from 'a2a-kit/server';",
        "import { A2AClient } from 'a2a-kit/client';",
        "import { GrpcBinding } from 'a2a-kit/grpc';",
        "import { TaskNotFoundError } from 'a2a-kit/errors';",
        "import type { Task } from 'a2a-kit/model';",
        "import { startInspector } from 'a2a-kit/inspector';",
        "import { echoExecutor } from 'a2a-kit';",
        'const agent: AgentExecutor = { execute: async (ctx, task) => task.complete(ctx.text) };',
        "const card = { name: 'c', description: 'c', version: '1', skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }] };",
        'const server = createA2AServer({ agent, card, store: "memory" });',
        'export const parts: unknown[] = [server, A2AClient.connect, GrpcBinding, TaskNotFoundError, startInspector, echoExecutor];',
        "export type Done = Task['status']['state'];",
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(tsc.status, 0, `tsc: ${tsc.stdout}${tsc.stderr}`);
  });

  await t.test('npx a2a --help', () => {
    const npx = spawnSync('npx', ['--no', '--', 'a2a', '--help'], { cwd: project, encoding: 'utf8' });
    assert.equal(npx.status, 0, `npx a2a --help: ${npx.stderr}`);
    const help = npx.stdout;
    assert.match(help, /^Usage: a2a /m);
    assert.match(help, /serve \[options\]/);
  });

  await t.test('a2a serve --agent echo answers a card request and a SendMessage', async (t) => {
    const serve = spawn(
      join(project, 'node_modules', '.bin', 'a2a'),
      ['serve', '--agent', 'echo', '--port', '0', '--host', '127.0.0.1', '--store', 'memory'],
      { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exit = once(serve, 'exit');
    t.after(async () => {
      if (serve.exitCode === null && serve.signalCode === null) serve.kill('SIGTERM');
      await exit;
    });
    let stderr = '';
    serve.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let url: string | undefined;
    for await (const line of createInterface({ input: serve.stdout! })) {
      url = / agent at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      if (url) break;
    }
    assert.ok(url, `a2a serve printed its URL (stderr: ${stderr})`);

    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { name: string };
    assert.equal(card.name, 'echo');

    const response = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: 'pack-test-1',
            role: 'ROLE_USER',
            parts: [{ text: 'hello from the tarball' }],
          },
        },
      }),
    });
    const body = (await response.json()) as { result?: { message?: { parts: { text?: string }[] } } };
    assert.equal(response.status, 200);
    assert.deepEqual(body.result?.message?.parts, [{ text: 'hello from the tarball' }]);

    serve.kill('SIGTERM');
    const [code] = (await exit) as [number | null];
    assert.equal(code, 0, `a2a serve stops cleanly on SIGTERM (stderr: ${stderr})`);
  });
});
