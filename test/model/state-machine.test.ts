import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  acceptsMessages,
  canTransition,
  explainTransition,
  INITIAL_STATES,
  isCancelable,
} from '../../src/model/state-machine.js';
import {
  isInterruptedState,
  isTerminalState,
  TASK_STATE_NAMES,
  TaskState,
  type TaskState as State,
} from '../../src/model/enums.js';

const S = TaskState;
const TERMINAL: State[] = [S.COMPLETED, S.FAILED, S.CANCELED, S.REJECTED];
const INTERRUPTED: State[] = [S.INPUT_REQUIRED, S.AUTH_REQUIRED];
const ACTIVE: State[] = [S.SUBMITTED, S.WORKING];

/** The expected answer for every ordered pair, written out independently of the implementation. */
function expected(from: State, to: State): boolean {
  if (from === S.UNSPECIFIED || to === S.UNSPECIFIED) return false; // never a real state (SRV-STATE-3)
  if (TERMINAL.includes(from)) return false; // SRV-STATE-2
  if (to === S.SUBMITTED) return from === S.SUBMITTED; // no going back once moved on
  return true; // active and interrupted states may reach any later state, and repeat themselves
}

describe('canTransition: all 81 ordered pairs of the 9 states', () => {
  for (const from of TASK_STATE_NAMES) {
    for (const to of TASK_STATE_NAMES) {
      const want = expected(from, to);
      test(`${from} -> ${to}: ${want ? 'allowed' : 'refused'}`, () => {
        assert.equal(canTransition(from, to), want);
        if (!want) assert.ok(explainTransition(from, to).length > 0);
      });
    }
  }

  test('terminal states accept no transition at all (SRV-STATE-2)', () => {
    for (const from of TERMINAL)
      for (const to of TASK_STATE_NAMES) assert.equal(canTransition(from, to), false);
  });

  test('interrupted states resume to WORKING and can end in any terminal state', () => {
    for (const from of INTERRUPTED) {
      assert.ok(canTransition(from, S.WORKING));
      for (const to of TERMINAL) assert.ok(canTransition(from, to));
    }
  });

  test('explainTransition names the reason', () => {
    assert.match(explainTransition(S.COMPLETED, S.WORKING), /terminal/);
    assert.match(explainTransition(S.WORKING, S.SUBMITTED), /cannot go back/);
    assert.match(explainTransition(S.WORKING, S.UNSPECIFIED), /UNSPECIFIED/);
  });

  test('a task may be born in any real state, never UNSPECIFIED', () => {
    assert.equal(INITIAL_STATES.has(S.UNSPECIFIED), false);
    for (const s of [...ACTIVE, ...INTERRUPTED, ...TERMINAL]) assert.ok(INITIAL_STATES.has(s), s);
  });
});

describe('acceptsMessages and isCancelable', () => {
  for (const state of TASK_STATE_NAMES) {
    test(state, () => {
      // SRV-SEND-5: a terminal task takes no more messages; interrupted ones wait for one.
      assert.equal(acceptsMessages(state), !TERMINAL.includes(state));
      // N7: active and interrupted tasks can be canceled; CANCELED itself is handled by the caller.
      assert.equal(isCancelable(state), ACTIVE.includes(state) || INTERRUPTED.includes(state));
      assert.equal(isTerminalState(state), TERMINAL.includes(state));
      assert.equal(isInterruptedState(state), INTERRUPTED.includes(state));
    });
  }
});
