/**
 * Live progress of the demo's ship flow, from the planner's stream: a tree redrawn in place on a
 * terminal, one plain line per change otherwise. The planner's status messages carry a
 * `ProgressNote` under PROGRESS_KEY naming the agent, its task, its state, new artifacts and how
 * the update reached the planner (a push notification, a poll).
 */
import pc from 'picocolors';
import { PROGRESS_KEY, type ProgressNote } from '../../agents/planner/planner.js';
import { textOf } from '../../client/artifacts.js';
import type { StreamEvent } from '../../client/client.js';
import { stateWord } from '../render.js';

interface Node {
  agent: string;
  taskId?: string;
  state?: string;
  text?: string;
  artifacts: string[];
}

/** How an update reached the planner, when it was not a stream: `(push #3)`, `(polled)`. */
function viaLabel(note: ProgressNote): string {
  if (note.via === 'push' && note.notifications) return ` (push #${note.notifications})`;
  if (note.via === 'poll' && note.state) return ' (polled)';
  return '';
}

/** Renders the ship flow's progress. */
export class ShipProgress {
  private readonly root: Node = { agent: 'planner', artifacts: [] };
  private readonly children = new Map<string, Node>();
  private drawn = 0;
  constructor(
    private readonly write: (text: string) => void,
    private readonly tty: boolean,
  ) {}

  /** Applies one event of the planner's stream. */
  event(event: StreamEvent): void {
    if (event.kind === 'task') {
      this.root.taskId = event.task.id;
      this.update(
        this.root,
        event.task.status.state,
        event.task.status.message ? textOf(event.task.status.message) : undefined,
      );
      return;
    }
    if (event.kind === 'artifactUpdate') {
      const name = event.artifactUpdate.artifact.name ?? event.artifactUpdate.artifact.artifactId;
      if (!this.root.artifacts.includes(name)) this.root.artifacts.push(name);
      if (!this.tty) this.write(`planner: artifact ${name}\n`);
      else this.redraw();
      return;
    }
    if (event.kind !== 'statusUpdate') return;
    const status = event.statusUpdate.status;
    const note = status.message?.metadata?.[PROGRESS_KEY] as ProgressNote | undefined;
    if (!note || note.step === 'plan') {
      this.update(this.root, status.state, status.message ? textOf(status.message) : undefined);
      return;
    }
    this.root.state = status.state;
    let child = this.children.get(note.step);
    if (!child) {
      child = { agent: note.agent, artifacts: [] };
      this.children.set(note.step, child);
    }
    if (note.taskId) child.taskId = note.taskId;
    if (note.artifact && !child.artifacts.includes(note.artifact)) child.artifacts.push(note.artifact);
    const text = note.artifact ? `artifact ${note.artifact}` : note.text;
    this.update(child, note.state ?? child.state, text && `${text}${viaLabel(note)}`);
  }

  private update(node: Node, state: string | undefined, text: string | undefined): void {
    if (state) node.state = state;
    if (text) node.text = text.replace(/^\[[\w-]+\] /, '');
    if (!this.tty) {
      const id = node.taskId ? ` ${node.taskId.slice(0, 8)}` : '';
      this.write(
        `${node.agent}${id}: ${node.state ? stateWord(node.state) : ''}${text ? ` ${node.text}` : ''}\n`,
      );
      return;
    }
    this.redraw();
  }

  private line(node: Node, prefix: string): string[] {
    const state = node.state ? stateWord(node.state) : '';
    const colour = /completed/.test(state)
      ? pc.green
      : /failed|rejected|canceled/.test(state)
        ? pc.red
        : pc.yellow;
    const id = node.taskId ? pc.dim(` ${node.taskId.slice(0, 8)}`) : '';
    const out = [
      `${prefix}${pc.bold(node.agent.padEnd(11))}${id} ${colour(state.padEnd(14))} ${node.text ?? ''}`,
    ];
    if (node.artifacts.length)
      out.push(
        `${prefix.replace(/[├└]─ /, '│  ').replace(/└/, ' ')}   ${pc.cyan(node.artifacts.join(', '))}`,
      );
    return out;
  }

  private redraw(): void {
    const lines = this.line(this.root, '');
    const kids = [...this.children.values()];
    kids.forEach((k, i) => lines.push(...this.line(k, i === kids.length - 1 ? '└─ ' : '├─ ')));
    const columns = process.stdout.columns || 100;
    const clipped = lines.map((l) => (l.length > columns + 20 ? `${l.slice(0, columns + 19)}…` : l));
    const up = this.drawn > 0 ? `\x1b[${this.drawn}A\x1b[0J` : '';
    this.write(`${up}${clipped.join('\n')}\n`);
    this.drawn = clipped.length;
  }

  /** Forgets what was drawn, so the next frame starts below whatever was printed meanwhile. */
  detach(): void {
    this.drawn = 0;
  }
}
