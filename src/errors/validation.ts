/**
 * The throwing forms of the model's checks: a request that fails validation is
 * `InvalidParamsError` (the binding answers -32602 / 400 / INVALID_ARGUMENT), an object from a
 * peer that is unusable is `InvalidAgentResponseError`. The model itself only reports
 * violations, so it needs no error classes.
 */
import { OPERATIONS, type A2AMethod } from '../model/operations.js';
import { formatViolations, type SchemaViolation } from '../model/validate.js';
import {
  checkRequest,
  checkWireObject,
  type A2ARequest,
  type ValidationLimits,
  type WireObjectMap,
  type WireObjectName,
} from '../model/validators.js';
import { InvalidAgentResponseError, InvalidParamsError, MethodNotFoundError } from './a2a-error.js';

/**
 * Reads the params of `method` as the binding received them (a parsed JSON value) and returns
 * the canonical request. Accepts enum numbers and v0.3 spellings, snake_case field names,
 * `null` as absent, `configuration.pushNotificationConfig` (D5, N17, SRV-JSON-1/2/6/11);
 * ignores unknown fields. Returns the caller's object itself when it is already canonical,
 * else a fresh one (the input is never modified).
 * @throws InvalidParamsError with `violations` naming each bad path (`message.parts[2]: ...`).
 * @throws MethodNotFoundError when `method` is not one of the eleven operations.
 */
export function parseRequest<M extends A2AMethod>(
  method: M,
  params: unknown,
  limits?: ValidationLimits,
): A2ARequest<M> {
  if (!Object.prototype.hasOwnProperty.call(OPERATIONS, method)) {
    throw new MethodNotFoundError(`Method not found: ${String(method).slice(0, 100)}`);
  }
  const result = checkRequest(method, params, limits);
  if (result.ok) return result.value;
  throw invalidParams(result.violations);
}

/** An InvalidParamsError whose message lists the violations. */
export function invalidParams(violations: readonly SchemaViolation[]): InvalidParamsError {
  return new InvalidParamsError(formatViolations(violations), { violations });
}

/**
 * Like {@link checkWireObject}, returning the canonical object.
 * @throws InvalidAgentResponseError naming each bad path when the object is unusable.
 * @internal
 */
export function parseWireObject<K extends WireObjectName>(name: K, json: unknown): WireObjectMap[K] {
  const result = checkWireObject(name, json);
  if (result.ok) return result.value;
  throw new InvalidAgentResponseError(
    `Invalid ${String(name)} from agent: ${formatViolations(result.violations)}`,
    {
      violations: result.violations,
      raw: json,
    },
  );
}
