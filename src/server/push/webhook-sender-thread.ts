/**
 * The sender thread's entry (see {@link ThreadWebhookSender}): signs and POSTs the jobs the
 * delivery worker posts to it, and posts the results back, those that finished together in
 * one message. `'abort'` stops every running POST (they answer `ABORTED`).
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

/** Posts the results gathered in this turn of the loop, in one message. */
function flush(): void {
  const results = finished;
  finished = [];
  port.postMessage(encodeResults(results));
}

port.on('message', (message: ToSenderThread) => {
  if (message === 'abort') {
    const running = stop;
    stop = stopSignal();
    running.abort();
    return;
  }
  const signal = stop.signal;
  for (const job of decodeJobs(message)) {
    void sendJob(client, signer, job, signal).then((result) => {
      if (finished.push(result) === 1) setImmediate(flush);
    });
  }
});

// Loaded: from now on the delivery worker sends its batches here.
port.postMessage(SENDER_READY);
