/**
 * `aiSdkExecutor`: an AI SDK language model (any provider) as an A2A AgentExecutor. The model
 * streams: its text becomes chunks of the artifact `response` (appended), a generated file an
 * artifact of its own, each tool call a
 * WORKING update, and a call of a tool without `execute` (such as {@link askUserTool}) ends the
 * turn in INPUT_REQUIRED with the model's question; the answer continues the task. The
 * conversation is rebuilt from the task's history and the context's earlier tasks; `ctx.signal`
 * aborts the generation. A malformed tool call (unknown tool, input not matching the schema) or
 * a model error fails the task with the reason.
 */
import { jsonSchema, stepCountIs, streamText, tool, type LanguageModel, type ToolSet } from 'ai';
import type { AgentExecutor, TaskEventSink } from '../../core/executor.js';
import { ContextMemory, conversation } from './conversation.js';

/** Options of {@link aiSdkExecutor}. */
export interface AiSdkExecutorOptions {
  /** The model, from any AI SDK provider. */
  model: LanguageModel;
  /** Tools the model may call. A tool without `execute` asks the user: the task waits in INPUT_REQUIRED. */
  tools?: ToolSet;
  /** The system prompt. */
  system?: string;
  /** Model steps (calls) per message at most, tool rounds included. @default 8 */
  maxSteps?: number;
  /** The artifact the answer streams into. @default 'response' */
  artifactId?: string;
  /** The longest one message's generation may take; then the task fails. @default 600000 (10 minutes) */
  timeoutMs?: number;
  /** Characters of answer per message at most; past them the task fails. @default 1000000 */
  maxAnswerChars?: number;
}

/** A tool the model calls to ask the user something: the task waits in INPUT_REQUIRED for the answer. */
export function askUserTool(description = 'Ask the user a question and wait for the answer.') {
  return tool({
    description,
    inputSchema: jsonSchema<{ question: string }>({
      type: 'object',
      properties: { question: { type: 'string', description: 'The question for the user.' } },
      required: ['question'],
    }),
  });
}

/** Sends text deltas as artifact chunks, one write at a time, joining the deltas that arrive meanwhile. */
class TextChunks {
  #pending = '';
  #writing: Promise<void> | undefined;
  #sent = false;
  #failure: unknown;

  constructor(
    private readonly task: TaskEventSink,
    private readonly artifactId: string,
  ) {}

  get sent(): boolean {
    return this.#sent || this.#pending !== '';
  }

  push(text: string): void {
    this.#pending += text;
    this.#pump();
  }

  #pump(): void {
    if (this.#writing || this.#pending === '') return;
    const text = this.#pending;
    this.#pending = '';
    const append = this.#sent;
    this.#sent = true;
    this.#writing = this.task
      .artifact({ artifactId: this.artifactId, name: this.artifactId, text }, { append })
      .then(
        () => {
          this.#writing = undefined;
          this.#pump();
        },
        (error: unknown) => {
          this.#failure ??= error;
          this.#writing = undefined;
        },
      );
  }

  /** Writes what is left, with the last-chunk mark. */
  async finish(): Promise<void> {
    for (let i = 0; this.#writing && i < 1000; i++) await this.#writing;
    if (this.#failure !== undefined) throw this.#failure;
    if (!this.sent) return;
    await this.task.artifact(
      { artifactId: this.artifactId, name: this.artifactId, parts: [{ text: this.#pending }] },
      { append: this.#sent, lastChunk: true },
    );
    this.#pending = '';
  }
}

/** An AgentExecutor answering with `model`. */
export function aiSdkExecutor(options: AiSdkExecutorOptions): AgentExecutor {
  const memory = new ContextMemory();
  const maxSteps = options.maxSteps ?? 8;
  const artifactId = options.artifactId ?? 'response';
  const timeoutMs = options.timeoutMs ?? 600_000;
  const maxAnswerChars = options.maxAnswerChars ?? 1_000_000;
  return {
    async execute(ctx, task) {
      const remembered = memory.get(ctx.contextId);
      const messages = conversation(remembered, ctx.task?.history ?? [], ctx.message);
      if (messages.length === 0) return task.reject('the message has nothing a language model can read');
      await task.working();
      const chunks = new TextChunks(task, artifactId);
      let answer = '';
      let question: string | undefined;
      let files = 0;
      const deadline = AbortSignal.timeout(timeoutMs);
      const result = streamText({
        model: options.model,
        ...(options.system !== undefined ? { system: options.system } : {}),
        messages,
        ...(options.tools ? { tools: options.tools } : {}),
        stopWhen: stepCountIs(maxSteps),
        abortSignal: AbortSignal.any([ctx.signal, deadline]),
      });
      for await (const part of result.fullStream) {
        switch (part.type) {
          case 'text-delta':
            if (answer.length + part.text.length > maxAnswerChars) {
              await chunks.finish().catch(() => undefined);
              return task.fail(`the model's answer exceeded ${maxAnswerChars} characters`);
            }
            answer += part.text;
            chunks.push(part.text);
            break;
          case 'tool-call': {
            if (part.invalid) {
              return task.fail(
                `the model made a malformed call of tool ${part.toolName}: ${errorText(part.error)}`,
              );
            }
            const userTool = options.tools?.[part.toolName];
            if (userTool && !userTool.execute) {
              question = questionOf(part.toolName, part.input);
              break;
            }
            await task.working({
              parts: [
                { text: `calling ${part.toolName}` },
                { data: { tool: part.toolName, input: part.input ?? null } },
              ],
            });
            break;
          }
          case 'file': {
            // A generated file (an image, ...): an artifact of its own.
            const raw = base64Of(part.file);
            if (raw !== undefined) {
              await task.artifact({
                name: `file-${++files}`,
                parts: [{ raw, mediaType: part.file.mediaType }],
              });
            }
            break;
          }
          case 'tool-error':
            await task.working(`tool ${part.toolName} failed: ${errorText(part.error)}`);
            break;
          case 'error':
            if (deadline.aborted && !ctx.signal.aborted) {
              return task.fail(`the model did not finish within ${timeoutMs} ms`);
            }
            throw new Error(`the model failed: ${errorText(part.error)}`);
          case 'abort':
            if (deadline.aborted && !ctx.signal.aborted) {
              return task.fail(`the model did not finish within ${timeoutMs} ms`);
            }
            return; // CancelTask: the task is already CANCELED
          default:
            break;
        }
      }
      if (ctx.signal.aborted) return;
      await chunks.finish();
      const turn = [...messages.slice(remembered.length)];
      if (answer) turn.push({ role: 'assistant', content: answer });
      if (question !== undefined) {
        turn.push({ role: 'assistant', content: question });
        return task.requireInput(question);
      }
      // The context's later tasks see this one's turns (a continued task's whole conversation).
      memory.add(ctx.contextId, turn);
      return task.complete();
    },
  };
}

/** The text of a question asked through a tool without `execute`. */
function questionOf(toolName: string, input: unknown): string {
  if (
    input !== null &&
    typeof input === 'object' &&
    typeof (input as { question?: unknown }).question === 'string'
  ) {
    return (input as { question: string }).question;
  }
  return `${toolName}: ${JSON.stringify(input ?? null)}`;
}

function errorText(error: unknown): string {
  return (
    error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error)
  ).split('\n')[0]!;
}

/** A generated file's bytes as base64, when the provider gave bytes (not only a URL). */
function base64Of(file: { readonly base64: string }): string | undefined {
  try {
    return file.base64 || undefined;
  } catch {
    return undefined;
  }
}
