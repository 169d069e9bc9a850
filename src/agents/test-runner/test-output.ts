/**
 * Reads a test run's output line by line: node's TAP reporter (`ok 1 - name`, `not ok 2 - name`,
 * `# SKIP`, the `# pass N` footer) and its spec reporter (`✔ name`, `✖ name`, `﹣ name # SKIP`,
 * the `ℹ pass N` footer). Only top-level results count; nested subtests are part of their parent.
 */

/** One finished top-level test. */
export interface TestResult {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
}

/** Counts so far; the footer, when the runner prints one, wins over the counted results. */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
}

const TAP_RESULT = /^(not )?ok \d+ - (.*?)(?:\s+#\s*(SKIP|TODO)\b.*)?$/i;
const SPEC_RESULT = /^([✔✖﹣])\s+(.*?)(?:\s+\([\d.]+m?s\))?(?:\s+#\s*(SKIP|TODO)\b.*)?$/u;
const FOOTER = /^(?:#|ℹ)\s+(pass|fail|skipped|todo)\s+(\d+)$/u;

/** Accumulates results from output lines. */
export class TestOutputReader {
  private readonly counted: TestCounts = { passed: 0, failed: 0, skipped: 0 };
  private readonly footer: Partial<Record<'pass' | 'fail' | 'skipped' | 'todo', number>> = {};
  private readonly failures: string[] = [];
  /** The spec reporter repeats failures after `✖ failing tests:`; they are not new results. */
  private recap = false;

  /** Reads one line; returns the top-level result it reports, if any. */
  line(line: string): TestResult | undefined {
    const footer = FOOTER.exec(line);
    if (footer) {
      this.footer[footer[1] as keyof typeof this.footer] = Number(footer[2]);
      return undefined;
    }
    // Indented lines are subtests or YAML diagnostics.
    if (/^\s/.test(line) || this.recap) return undefined;
    if (/^✖ failing tests:/u.test(line)) {
      this.recap = true;
      return undefined;
    }
    const tap = TAP_RESULT.exec(line);
    const spec = tap ? undefined : SPEC_RESULT.exec(line);
    let result: TestResult | undefined;
    if (tap) {
      result = { name: tap[2]!, outcome: tap[3] ? 'skipped' : tap[1] ? 'failed' : 'passed' };
    } else if (spec) {
      const outcome = spec[3] || spec[1] === '﹣' ? 'skipped' : spec[1] === '✖' ? 'failed' : 'passed';
      result = { name: spec[2]!, outcome };
    }
    if (!result) return undefined;
    this.counted[result.outcome]++;
    if (result.outcome === 'failed' && this.failures.length < 100) this.failures.push(result.name);
    return result;
  }

  /** The totals: the runner's own footer when it printed one, else what was counted. */
  counts(): TestCounts {
    if (this.footer.pass === undefined && this.footer.fail === undefined) return { ...this.counted };
    return {
      passed: this.footer.pass ?? 0,
      failed: this.footer.fail ?? 0,
      skipped: (this.footer.skipped ?? 0) + (this.footer.todo ?? 0),
    };
  }

  /** Names of the failed tests (at most 100). */
  failedTests(): string[] {
    return [...this.failures];
  }
}
