/**
 * How results are printed. Human: colour (off when not a terminal or with NO_COLOR), states as
 * words, artifacts as they grow. `--json`: NDJSON in one shape, `{"kind": K, "<K>": value}` per
 * line, K one of `task`, `message`, `statusUpdate`, `artifactUpdate`, `card`, `pushConfig`,
 * `deleted`, `listening`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import pc from 'picocolors';
import { ArtifactAssembler, textOf } from '../client/artifacts.js';
import type { StreamEvent } from '../client/client.js';
import { TaskState } from '../model/enums.js';
import type { Artifact, Message, Task, TaskStatus } from '../model/schema.js';
import type { ClientCommandIO } from './common.js';

/** One NDJSON line of `--json` output. */
export function jsonLine(kind: string, value: unknown): string {
  return JSON.stringify({ kind, [kind]: value });
}

const FAILED_STATES = new Set<string>([TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED]);

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export const stateWord = (state: string): string =>
  state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

/** A status as one coloured line. */
export function statusLine(status: TaskStatus): string {
  const text = status.message ? textOf(status.message) : '';
  const color = FAILED_STATES.has(status.state)
    ? pc.red
    : status.state === TaskState.COMPLETED
      ? pc.green
      : pc.yellow;
  return `${color(stateWord(status.state))}${text ? `: ${text}` : ''}`;
}

function artifactLines(a: Artifact): string[] {
  const lines = [`  ${pc.cyan(`artifact ${a.name ?? a.artifactId}`)}:`];
  const text = textOf(a);
  if (text) lines.push(text.replace(/^/gm, '    '));
  for (const p of a.parts) {
    if (p.data !== undefined) lines.push(`    ${JSON.stringify(p.data)}`);
    if (p.raw !== undefined || p.url !== undefined) {
      lines.push(
        `    file ${p.filename ?? '(unnamed)'}${p.mediaType ? ` (${p.mediaType})` : ''}${p.url ? ` at ${p.url}` : ''}`,
      );
    }
  }
  return lines;
}

/** Prints a task: id, state, artifacts. */
export function printTask(io: ClientCommandIO, task: Task): void {
  io.out(`${pc.bold('task')} ${task.id}${task.contextId ? ` (context ${task.contextId})` : ''}`);
  io.out(`  ${statusLine(task.status)}`);
  for (const a of task.artifacts ?? []) for (const l of artifactLines(a)) io.out(l);
}

/** Prints a direct message reply. */
export function printMessage(io: ClientCommandIO, message: Message): void {
  const text = textOf(message);
  io.out(text || JSON.stringify(message.parts));
}

/** Saves the file parts of `artifacts` under `dir`; returns the paths written. */
export async function saveFiles(dir: string, artifacts: Artifact[]): Promise<string[]> {
  const written: string[] = [];
  await mkdir(dir, { recursive: true });
  for (const a of artifacts) {
    a.parts.forEach((p, i) => {
      if (p.raw === undefined) return;
      const name = basename(p.filename || `${a.name ?? a.artifactId}-${i}`);
      written.push(join(dir, name));
    });
  }
  let n = 0;
  for (const a of artifacts) {
    for (const p of a.parts) {
      if (p.raw === undefined) continue;
      await writeFile(written[n++]!, Buffer.from(p.raw, 'base64'));
    }
  }
  return written;
}

/**
 * Prints stream events as they come: states as lines, artifacts assembled from their chunks
 * with text shown as it grows (written in place, the line finished when another event arrives).
 */
export class EventPrinter {
  readonly artifacts = new ArtifactAssembler();
  /** The artifact whose text is being written on the current line. */
  private growing: string | undefined;
  /** The text of each artifact shown so far (as many entries as the assembler holds artifacts). */
  private readonly shown = new Map<string, string>();
  constructor(
    private readonly io: ClientCommandIO,
    private readonly json: boolean,
  ) {}

  private endLine(): void {
    if (this.growing !== undefined) {
      (this.io.write ?? this.io.out)('\n');
      this.growing = undefined;
    }
  }

  event(event: StreamEvent): void {
    if (this.json) {
      const { kind } = event;
      this.io.out(jsonLine(kind, (event as Record<string, unknown>)[kind]));
      if (event.kind === 'artifactUpdate') this.artifacts.apply(event.artifactUpdate);
      if (event.kind === 'task') this.artifacts.seed(event.task);
      return;
    }
    switch (event.kind) {
      case 'task':
        this.endLine();
        this.artifacts.seed(event.task);
        this.io.out(`${pc.bold('task')} ${event.task.id}: ${statusLine(event.task.status)}`);
        break;
      case 'message':
        this.endLine();
        printMessage(this.io, event.message);
        break;
      case 'statusUpdate':
        this.endLine();
        this.io.out(statusLine(event.statusUpdate.status));
        break;
      case 'artifactUpdate': {
        const update = event.artifactUpdate;
        const whole = this.artifacts.apply(update);
        const id = whole.artifactId;
        const label = whole.name ?? id;
        // Show what the assembler holds: the assembled text past what is already on screen.
        // A server that resends the whole artifact on its last chunk (ADK does) adds nothing
        // then; a replacement that starts over is printed whole (issue 29).
        const shown = this.shown.get(id);
        let fresh: string | undefined;
        let wholeText: string;
        if (update.append && shown !== undefined) {
          // An append adds its own text: no join or compare of everything shown on each chunk.
          fresh = textOf(update.artifact);
          wholeText = shown + fresh;
        } else {
          wholeText = textOf(whole);
          fresh =
            shown !== undefined && wholeText.startsWith(shown) ? wholeText.slice(shown.length) : undefined;
        }
        this.shown.set(id, wholeText);
        const hasOther = update.artifact.parts.some((p) => p.text === undefined);
        if (this.growing === id && fresh !== undefined) {
          if (fresh) (this.io.write ?? this.io.out)(fresh);
        } else {
          this.endLine();
          const text = fresh ?? wholeText;
          if (text && this.io.write) {
            this.io.write(`${pc.cyan(`[${label}]`)} ${text}`);
            this.growing = id;
          } else if (text) this.io.out(`${pc.cyan(`[${label}]`)} ${text}`);
          else if (fresh === undefined || hasOther) this.io.out(pc.cyan(`[${label}]`));
        }
        if (hasOther) {
          this.endLine();
          for (const p of update.artifact.parts) {
            if (p.data !== undefined) this.io.out(`  ${JSON.stringify(p.data)}`);
            if (p.raw !== undefined || p.url !== undefined)
              this.io.out(`  file ${p.filename ?? '(unnamed)'}`);
          }
        }
        if (update.lastChunk) this.endLine();
        break;
      }
    }
  }

  /** Ends a line left open by growing text. */
  finish(): void {
    this.endLine();
  }
}
