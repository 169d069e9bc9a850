/**
 * The sender thread's entry (see {@link ThreadWebhookSender}): signs and POSTs the jobs the
 * delivery worker posts to it, and posts the results back, gathered (see {@link GATHER_MS}). `'abort'` stops every running POST (they answer `ABORTED`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { NotificationSigner } from '../../core/push/notification-signing.js';
import { WebhookClient } from './webhook-request.js';
import { sendJob, stopSignal, type SendResult } from './webhook-sender.js';
import {
  decodeJobs,
  encodeResults,
  SENDER_READY,
  type SenderThreadData,
  type ToSenderThread,
} from './webhook-sender-threaded.js';

const data = workerData as SenderThreadData;
const port = parentPort!;
const client = new WebhookClient(data.settings);
const signer = data.signingKey ? new NotificationSigner(data.signingKey) : undefined;
let stop = stopSignal();
let finished: SendResult[] = [];
/** POSTs started and not yet answered. */
let running = 0;
let flushTimer: NodeJS.Timeout | undefined;

/**
 * How long results wait for others while POSTs still run. Each message costs both threads a
 * wakeup and a clone whatever it carries (about 20 µs of the delivery worker's loop), and
 * under load the answers come one by one: gathered for a millisecond, they go back several
 * to a message, and the freed places come back as one batch of jobs.
 */
const GATHER_MS = 1;

/** Posts the results gathered so far, in one message. */
function flush(): void {
  clearTimeout(flushTimer);
  flushTimer = undefined;
  if (finished.length === 0) return;
  const results = finished;
  finished = [];
  port.postMessage(encodeResults(results));
}

function finish(result: SendResult): void {
  running--;
  finished.push(result);
  // The last running POST answered: nothing more to wait for.
  if (running === 0) setImmediate(flush);
  else flushTimer ??= setTimeout(flush, GATHER_MS);
}

port.on('message', (message: ToSenderThread) => {
  if (message === 'abort') {
    const stopping = stop;
    stop = stopSignal();
    stopping.abort();
    return;
  }
  const signal = stop.signal;
  for (const job of decodeJobs(message)) {
    running++;
    void sendJob(client, signer, job, signal).then(finish);
  }
});

// Loaded: from now on the delivery worker sends its batches here.
port.postMessage(SENDER_READY);
