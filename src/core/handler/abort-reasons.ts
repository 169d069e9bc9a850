/** The reasons an agent's `signal` is aborted with, so an agent can tell why it was stopped. */

/** The abort reason given to an agent whose task was canceled. */
export class TaskCanceledReason extends Error {
  constructor(readonly taskId: string) {
    super(`task ${taskId} was canceled`);
    this.name = 'AbortError';
  }
}

/** The abort reason given to an agent whose task was failed for waiting too long in an interrupted state. */
export class InterruptedWaitExpiredReason extends Error {
  constructor(readonly taskId: string) {
    super(`task ${taskId} waited too long for the client and was failed`);
    this.name = 'AbortError';
  }
}
