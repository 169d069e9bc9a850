/**
 * One running `execute` (or cancel hook) of the agent. Its AbortSignal is made only when the
 * agent reads it: most executions finish without ever looking, and an AbortController (an
 * EventTarget) is costly to create per request.
 */
export class Execution {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  /** close() aborted this execution: its end is no answer of the agent. */
  serverStopped = false;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#controller) this.#controller.abort(reason);
    else if (!this.#aborted) {
      this.#aborted = true;
      this.#reason = reason;
    }
  }
}
