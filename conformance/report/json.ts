// The machine-readable report. Its summary feeds conformance.protocol of the evidence document
// (D-045: "{checks, passed, failed, skipped, reproduce} from the API/webhook/JSON-RPC harness").
import { systemClock, type Clock } from '../clock.ts';
import { summarise, type CheckResult, type Summary } from '../runner.ts';
import { describeTarget, type Target, type TargetDescription } from '../targets/target.ts';
import { redactResult, toJson } from './format.ts';

/** The JSON report document. */
export interface JsonReport {
  /** ISO 8601 UTC time the report was produced. */
  generatedAt: string;
  /** The target the checks ran against (null when not given). */
  target: TargetDescription | null;
  /** Counts per status, stated separately. */
  summary: Summary;
  /** Every result, credentials redacted. */
  results: CheckResult[];
}

/** Options for buildJsonReport. */
export interface JsonReportOptions {
  /** The target the results came from. */
  target?: Target;
  /** Clock for generatedAt (house rule 6). */
  clock?: Clock;
}

/** Builds the JSON report object. */
export function buildJsonReport(results: readonly CheckResult[], options: JsonReportOptions = {}): JsonReport {
  return {
    generatedAt: new Date((options.clock ?? systemClock).now()).toISOString(),
    target: options.target ? describeTarget(options.target) : null,
    summary: summarise(results),
    results: results.map(redactResult),
  };
}

/** Formats the JSON report as indented text. */
export function formatJson(results: readonly CheckResult[], options: JsonReportOptions = {}): string {
  return `${toJson(buildJsonReport(results, options), 2)}\n`;
}
