/**
 * Validation speed: our TypeBox compiled validator vs an equivalent zod 4 schema of
 * SendMessageRequest, on a realistic valid request and on an invalid one.
 * Run: node --import tsx bench/validation.ts
 */
import { z } from 'zod';
import { REQUEST_VALIDATORS } from '../src/model/validators.js';
import { parseRequest } from '../src/errors/validation.js';
import { fixture } from '../test/support/fixtures.js';

// ---- the zod 4 equivalent of src/model/schema.ts SendMessageRequest ----------------------
const MAX_ID = 256;
const zId = z.string().min(1).max(MAX_ID);
const zOptId = z.string().max(MAX_ID).optional();
const zStruct = z.record(z.string(), z.unknown());
const zTimestamp = z.iso.datetime({ offset: true });
const zPart = z
  .object({
    text: z.string().optional(),
    raw: z.base64().optional(),
    url: z.string().min(1).optional(),
    data: z.unknown().optional(),
    metadata: zStruct.optional(),
    filename: z.string().optional(),
    mediaType: z.string().optional(),
  })
  .refine(
    (p) => [p.text, p.raw, p.url, p.data].filter((v) => v !== undefined).length === 1,
    'exactly one of text, raw, url, data',
  );
const zMessage = z.object({
  messageId: zId,
  contextId: zOptId,
  taskId: zOptId,
  role: z.enum(['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT']),
  parts: z.array(zPart).min(1),
  metadata: zStruct.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
const zPushConfig = z.object({
  tenant: z.string().optional(),
  id: zOptId,
  taskId: zOptId,
  url: z.string().min(1).max(2048),
  token: z.string().optional(),
  authentication: z.object({ scheme: z.string().min(1), credentials: z.string().optional() }).optional(),
});
const zSendMessageRequest = z.object({
  tenant: z.string().optional(),
  message: zMessage,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      taskPushNotificationConfig: zPushConfig.optional(),
      historyLength: z.number().int().min(0).max(2147483647).optional(),
      returnImmediately: z.boolean().optional(),
    })
    .optional(),
  metadata: zStruct.optional(),
});
void zTimestamp;

// ---- inputs -----------------------------------------------------------------------------
const valid = fixture('SendMessageRequest');
const invalid = {
  ...fixture('SendMessageRequest'),
  message: {
    ...fixture('SendMessageRequest').message,
    messageId: '',
    parts: [{ text: 'a' }, { text: 'b', url: 'https://x.example.com/f' }, { raw: 'not base64!' }],
  },
};

// Sanity: both libraries agree on both inputs.
if (!REQUEST_VALIDATORS.SendMessage.is(valid) || !zSendMessageRequest.safeParse(valid).success) {
  throw new Error('valid input rejected');
}
if (REQUEST_VALIDATORS.SendMessage.is(invalid) || zSendMessageRequest.safeParse(invalid).success) {
  throw new Error('invalid input accepted');
}

// ---- measuring ----------------------------------------------------------------------------
const MAX_MS = 1500;

function measure(fn: () => void, maxIterations: number): number {
  for (let i = 0; i < Math.min(2000, maxIterations); i++) fn(); // warm up
  const start = performance.now();
  let n = 0;
  while (n < maxIterations) {
    for (let i = 0; i < 500; i++) fn();
    n += 500;
    if (performance.now() - start > MAX_MS) break;
  }
  return (n / (performance.now() - start)) * 1000;
}

let sink = 0;
const rows: [string, string, number][] = [];
const add = (lib: string, what: string, fn: () => void, max: number) =>
  rows.push([lib, what, measure(fn, max)]);

add(
  'TypeBox compiled (is)',
  'valid',
  () => void (sink += REQUEST_VALIDATORS.SendMessage.is(valid) ? 1 : 0),
  2_000_000,
);
add(
  'a2a-kit parseRequest',
  'valid',
  () => void (sink += parseRequest('SendMessage', valid) ? 1 : 0),
  2_000_000,
);
add(
  'zod 4 safeParse',
  'valid',
  () => void (sink += zSendMessageRequest.safeParse(valid).success ? 1 : 0),
  2_000_000,
);
add(
  'TypeBox compiled (is)',
  'invalid, yes/no',
  () => void (sink += REQUEST_VALIDATORS.SendMessage.is(invalid) ? 1 : 0),
  2_000_000,
);
add(
  'TypeBox check + paths',
  'invalid, with errors',
  () => {
    const r = REQUEST_VALIDATORS.SendMessage.check(invalid);
    sink += r.ok ? 0 : r.violations.length;
  },
  200_000,
);
add(
  'a2a-kit parseRequest',
  'invalid, throws',
  () => {
    try {
      parseRequest('SendMessage', invalid);
    } catch {
      sink += 1;
    }
  },
  200_000,
);
add(
  'zod 4 safeParse',
  'invalid, with errors',
  () => {
    const r = zSendMessageRequest.safeParse(invalid);
    sink += r.success ? 0 : r.error.issues.length;
  },
  200_000,
);

console.log(`SendMessageRequest validation (node ${process.version}, ${MAX_MS} ms max per row)\n`);
console.log(`${'validator'.padEnd(26)}${'input'.padEnd(24)}${'ops/s'.padStart(14)}`);
console.log('-'.repeat(64));
for (const [lib, what, ops] of rows) {
  console.log(`${lib.padEnd(26)}${what.padEnd(24)}${Math.round(ops).toLocaleString('en-US').padStart(14)}`);
}
if (sink < 0) console.log(sink);
