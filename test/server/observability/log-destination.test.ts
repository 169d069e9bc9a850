/**
 * BufferedLogDestination (issue 28), the default logger's writer, on descriptors that fail for
 * real: a FIFO nobody reads (write(2) says EAGAIN once the pipe's buffer is full) and /dev/full
 * (every write fails with ENOSPC). Lines come out whole and in order, memory stays bounded by
 * the buffer's limit, and nothing throws into the logging caller.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BufferedLogDestination } from '../../../src/server/observability/log-destination.js';

function jsonLine(n: number): string {
  return `${JSON.stringify({ n, pad: 'x'.repeat(200) })}\n`;
}

/** Everything the FIFO holds now (read without blocking). */
function drain(fd: number): string {
  const chunk = Buffer.alloc(64 * 1024);
  let text = '';
  // Bounded: a pipe holds at most its buffer (64 KiB by default), read in pieces of that size.
  for (let i = 0; i < 10_000; i++) {
    let read = 0;
    try {
      read = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      if ((error as { code?: string }).code === 'EAGAIN') break;
      throw error;
    }
    if (read === 0) break;
    text += chunk.subarray(0, read).toString();
  }
  return text;
}

test('a reader that stops reading: lines wait up to the limit, later ones are dropped and counted, and what arrives is whole and in order', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-logfifo-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = join(dir, 'log');
  execFileSync('mkfifo', [fifo]);
  // O_RDWR opens a FIFO without waiting for the other end; O_NONBLOCK makes a full pipe EAGAIN.
  const writeFd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  t.after(() => {
    closeSync(writeFd);
    closeSync(readFd);
  });
  const destination = new BufferedLogDestination({
    fd: writeFd,
    pieceChars: 4096,
    flushMs: 60_000,
    maxBufferedChars: 128 * 1024,
  });
  t.after(() => destination.end());

  const total = 2000; // about 420 KB: the pipe (64 KiB) and the buffer (128 KiB) cannot hold it
  for (let n = 0; n < total; n++) destination.write(jsonLine(n));
  assert.ok(destination.dropped > 0, 'lines past the limit are dropped');

  let text = drain(readFd);
  // Each flush now writes some of what waited; bounded by the lines that can be waiting.
  for (let i = 0; i < 100; i++) {
    destination.flushSync();
    const more = drain(readFd);
    if (more === '') break;
    text += more;
  }
  assert.ok(text.endsWith('\n'), 'no line is cut off');
  const numbers = text
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { n: number }).n);
  assert.equal(numbers.length + destination.dropped, total, 'every line arrived or was counted as dropped');
  for (let i = 1; i < numbers.length; i++) assert.ok(numbers[i]! > numbers[i - 1]!, 'in order');
  assert.equal(numbers[0], 0, 'the first lines are kept (new ones are dropped, not old ones)');
});

test('a descriptor whose writes fail (/dev/full): nothing throws and nothing piles up', (t) => {
  const fd = openSync('/dev/full', 'w');
  t.after(() => closeSync(fd));
  const destination = new BufferedLogDestination({
    fd,
    pieceChars: 1024,
    flushMs: 60_000,
    maxBufferedChars: 8192,
  });
  t.after(() => destination.end());
  for (let n = 0; n < 5000; n++) assert.equal(destination.write(jsonLine(n)), true);
  assert.equal(destination.dropped, 0, 'failed pieces are let go, so the buffer never fills');
  destination.end();
  assert.equal(destination.write(jsonLine(0)), false, 'a closed destination refuses lines');
});
