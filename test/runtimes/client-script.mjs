// a2a-kit's client on another runtime (bun, deno, workerd): connects to the agent at the URL
// given, sends, streams, reads and cancels, and prints (or returns) what it saw as JSON.
import { A2AClient, ArtifactAssembler, textOf } from '../../dist/client/index.js';

/** Runs the calls against `url`; the summary the Node side checks. */
export async function exercise(url) {
  const client = await A2AClient.connect(url);
  try {
    const sent = await client.send({ text: 'hi' });
    const assembler = new ArtifactAssembler();
    let last;
    for await (const event of client.stream({ text: 'stream' })) {
      if (event.kind === 'task') assembler.seed(event.task);
      if (event.kind === 'artifactUpdate') assembler.apply(event.artifactUpdate);
      last = event;
    }
    const taskId = last?.kind === 'statusUpdate' ? last.statusUpdate.taskId : '';
    const got = await client.getTask(taskId);
    const held = await client.send({ text: 'hold', returnImmediately: true });
    const canceled = await client.cancelTask(held.kind === 'task' ? held.task.id : '');
    return {
      card: client.card.name,
      sent: sent.kind === 'task' ? sent.task.status.state : sent.kind,
      streamed: textOf(assembler.list()[0]),
      streamEnd: last?.kind === 'statusUpdate' ? last.statusUpdate.status.state : last?.kind,
      got: got.status.state,
      canceled: canceled.status.state,
    };
  } finally {
    await client.close();
  }
}

const args = globalThis.Deno ? globalThis.Deno.args : globalThis.process?.argv?.slice(2);
if (args?.[0]) console.log(JSON.stringify(await exercise(args[0])));
