/**
 * A process that logs through createLogger's default destination (fd 2): `idle` logs one line
 * and then waits to be killed; `exit` logs 1,000 lines and exits at once.
 */
import { createLogger } from '../../src/server/observability/logging.js';

const logger = createLogger();
if (process.argv[2] === 'exit') {
  for (let i = 0; i < 1000; i++) logger.info({ n: i }, 'line');
  process.exit(0);
} else {
  logger.info({ n: 0 }, 'alone');
  setTimeout(() => undefined, 60_000);
}
