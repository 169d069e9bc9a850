/** The exit codes of `a2a`, one per outcome (listed in `a2a --help`). */
import { TaskState } from '../model/enums.js';

/** Exit codes by outcome. */
export const EXIT = {
  /** The task completed, or the agent answered with a message. */
  ok: 0,
  failed: 1,
  usage: 2,
  canceled: 3,
  rejected: 4,
  inputRequired: 5,
  authRequired: 6,
  /** The agent could not be reached, or did not answer in time. */
  network: 7,
  /** The agent answered with a protocol error or an invalid response. */
  protocol: 8,
  /** `--timeout` passed (or a stream ended) while the task was still running. */
  stillRunning: 9,
  /** Interrupted with Ctrl-C. */
  interrupted: 130,
} as const;

/** The exit code a task in `state` ends the command with. */
export function exitCodeOfState(state: string): number {
  switch (state) {
    case TaskState.COMPLETED:
      return EXIT.ok;
    case TaskState.FAILED:
      return EXIT.failed;
    case TaskState.CANCELED:
      return EXIT.canceled;
    case TaskState.REJECTED:
      return EXIT.rejected;
    case TaskState.INPUT_REQUIRED:
      return EXIT.inputRequired;
    case TaskState.AUTH_REQUIRED:
      return EXIT.authRequired;
    default:
      return EXIT.stillRunning;
  }
}

/** The table printed at the end of `a2a --help`. */
export const EXIT_CODES_HELP = `
Exit codes:
  0    completed (or a direct message reply)
  1    the task failed
  2    usage error (bad option or argument)
  3    the task was canceled
  4    the agent rejected the task
  5    the task needs input: answer with  a2a send URL TEXT --task ID
  6    the task needs other credentials: send again with --token on the same --task
  7    network error: agent unreachable, or no answer in time
  8    protocol error: the agent answered with an A2A error or an invalid response
  9    still running when --timeout passed or the stream ended (a2a get URL ID later)
  130  interrupted (Ctrl-C); the task keeps running on the agent`;
