/**
 * Assembling artifacts from streamed chunks (CLI-STREAM-3): `append` adds parts to the
 * artifact with the same `artifactId`, otherwise the chunk replaces it; `lastChunk` marks it done.
 */
import type { Artifact, Task, TaskArtifactUpdateEvent } from '../model/schema.js';

/** Collects the artifacts of one task from its stream events. */
export class ArtifactAssembler {
  private readonly artifacts = new Map<string, Artifact>();
  private readonly complete = new Set<string>();

  /** Starts from a task snapshot's artifacts (e.g. after a reconnect). */
  seed(task: Task): void {
    for (const a of task.artifacts ?? []) {
      this.artifacts.set(a.artifactId, structuredClone(a));
    }
  }

  /** Applies one artifact update; returns the artifact as assembled so far. */
  apply(event: TaskArtifactUpdateEvent): Artifact {
    const chunk = event.artifact;
    const existing = this.artifacts.get(chunk.artifactId);
    let next: Artifact;
    if (event.append && existing) {
      next = {
        ...existing,
        ...chunk,
        parts: [...existing.parts, ...chunk.parts],
        metadata:
          existing.metadata || chunk.metadata ? { ...existing.metadata, ...chunk.metadata } : undefined,
      };
      if (next.metadata === undefined) delete next.metadata;
    } else {
      next = structuredClone(chunk);
      this.complete.delete(chunk.artifactId);
    }
    this.artifacts.set(chunk.artifactId, next);
    if (event.lastChunk) this.complete.add(chunk.artifactId);
    return next;
  }

  /** The artifact with `artifactId`, if any chunk arrived. */
  get(artifactId: string): Artifact | undefined {
    return this.artifacts.get(artifactId);
  }

  /** The first artifact with `name`. */
  byName(name: string): Artifact | undefined {
    return [...this.artifacts.values()].find((a) => a.name === name);
  }

  /** True once the chunk marked `lastChunk` arrived. */
  isComplete(artifactId: string): boolean {
    return this.complete.has(artifactId);
  }

  /** All artifacts in order of first appearance. */
  list(): Artifact[] {
    return [...this.artifacts.values()];
  }
}

/** The concatenated text parts of an artifact (or message). */
export function textOf(item: { parts: Artifact['parts'] } | undefined): string {
  if (!item) return '';
  return item.parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}
