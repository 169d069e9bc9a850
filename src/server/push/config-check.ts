/**
 * Checks a push config when it is stored (SRV-PUSH-6, SRV-PUSH-8): the webhook URL through the
 * address guard (resolved and checked now, and again before each delivery), and caps on the
 * token and credentials, which travel as header values. Wired as a server interceptor around
 * CreateTaskPushNotificationConfig and the inline config of SendMessage / SendStreamingMessage,
 * so every binding (v0.3 included) is covered and the handler needs no change.
 */
import { InvalidParamsError } from '../../errors/a2a-error.js';
import type { TaskPushNotificationConfig } from '../../model/schema.js';
import type { OperationCall, ServerInterceptor } from '../../core/handler/interceptor.js';
import {
  parseWebhookUrl,
  resolveWebhook,
  systemResolver,
  WebhookAddressError,
  type AddressPolicy,
  type HostResolver,
} from './address-guard.js';

/** Longest accepted `token` (it is sent as the `X-A2A-Notification-Token` header). */
export const MAX_PUSH_TOKEN_LENGTH = 1024;
/** Longest accepted `authentication.credentials`. */
export const MAX_PUSH_CREDENTIALS_LENGTH = 4096;

/** An HTTP auth-scheme name (RFC 9110 token). */
const SCHEME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** A header value we are willing to send: visible ASCII and spaces, no CR/LF. */
const HEADER_VALUE = /^[\x20-\x7e]*$/;

/** Throws InvalidParamsError naming the field when `config` may not be stored. */
export async function checkPushConfig(
  config: TaskPushNotificationConfig,
  at: string,
  policy: AddressPolicy,
  resolve: HostResolver = systemResolver,
): Promise<void> {
  if (!config.url) throw invalid(`${at}.url`, 'is required');
  if (config.token !== undefined && config.token !== '') {
    if (config.token.length > MAX_PUSH_TOKEN_LENGTH) {
      throw invalid(`${at}.token`, `is longer than ${MAX_PUSH_TOKEN_LENGTH} characters`);
    }
    if (!HEADER_VALUE.test(config.token))
      throw invalid(`${at}.token`, 'must be printable ASCII (it is sent as a header)');
  }
  const auth = config.authentication;
  if (auth) {
    if (!SCHEME.test(auth.scheme ?? '')) {
      throw invalid(
        `${at}.authentication.scheme`,
        'must be an HTTP authentication scheme name such as Bearer',
      );
    }
    const credentials = auth.credentials ?? '';
    if (credentials.length > MAX_PUSH_CREDENTIALS_LENGTH) {
      throw invalid(
        `${at}.authentication.credentials`,
        `is longer than ${MAX_PUSH_CREDENTIALS_LENGTH} characters`,
      );
    }
    if (!HEADER_VALUE.test(credentials)) {
      throw invalid(`${at}.authentication.credentials`, 'must be printable ASCII (it is sent as a header)');
    }
  }
  try {
    await resolveWebhook(parseWebhookUrl(config.url, policy), policy, resolve);
  } catch (error) {
    // A name that does not resolve now may resolve later: the check before each delivery
    // decides then. Only a refused address (or form) is refused here.
    if (error instanceof WebhookAddressError && error.transient) return;
    if (error instanceof WebhookAddressError) throw invalid(`${at}.url`, `is refused: ${error.message}`);
    throw error;
  }
}

/** The interceptor that runs {@link checkPushConfig} on every config a client sends. */
export function pushConfigInterceptor(policy: AddressPolicy, resolve?: HostResolver): ServerInterceptor {
  // Not an async function: a call without a config (nearly all) goes straight on, with no
  // promise of this wrapper around it.
  return (next) => (call: OperationCall) => {
    let check: Promise<void> | undefined;
    if (call.method === 'CreateTaskPushNotificationConfig') {
      check = checkPushConfig(call.request as TaskPushNotificationConfig, 'config', policy, resolve);
    } else if (call.method === 'SendMessage' || call.method === 'SendStreamingMessage') {
      const inline = (
        call.request as { configuration?: { taskPushNotificationConfig?: TaskPushNotificationConfig } }
      ).configuration?.taskPushNotificationConfig;
      if (inline)
        check = checkPushConfig(inline, 'configuration.taskPushNotificationConfig', policy, resolve);
    }
    return check ? check.then(() => next(call)) : next(call);
  };
}

function invalid(path: string, description: string): InvalidParamsError {
  return new InvalidParamsError(`${path} ${description}`, { violations: [{ path, description }] });
}
