/**
 * The options of `svckit conformance`: their types, the parsing of each value (a bad value is a usage error,
 * exit 2), and `--config` (D-182).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import Ajv2020 from 'ajv/dist/2020.js';
import type { Phase } from '../../../conformance/engine/core/cases.ts';
import { STATUS_JUDGED } from '../../../conformance/engine/openapi/judges.ts';
import { type CheckSetting, matchesPrefix } from '../../../conformance/runner.ts';
import { repoPath } from '../../../src/paths.ts';

/** The options of `svckit conformance`, as commander gives them (and --config fills them in). */
export type ConformanceOptions = {
  base?: string;
  wallet?: string;
  site?: string;
  caCert?: string;
  rpc?: string;
  rpcSenderKey?: string;
  rpcSenderKeyFile?: string;
  adminToken?: string;
  adminTokenFile?: string;
  secondToken?: string;
  secondTokenFile?: string;
  receiverHost?: string;
  receiverPort?: string;
  receiverTlsDir?: string;
  target: 'reference' | 'specs' | 'mocks';
  report?: string;
  out: string;
  only?: string[];
  webhookReceiver?: string;
  webhookSecret?: string;
  webhookSecretFile?: string;
  webhookPreviousSecret?: string;
  webhookPreviousSecretFile?: string;
  exclude?: string[];
  list?: boolean;
  config?: string;
  rate?: string;
  checkTimeout?: string;
  quiet?: boolean;
  phases?: string;
  seed?: string;
  maxExamples: string;
  har?: string;
  minScore?: string;
  minCoverage?: string;
  /** Per-check settings: the `checks` key of the --config file (D-232). */
  checks?: Record<string, CheckSetting>;
};

/** Every report format (conformance/report/write.ts REPORT_FORMATS; kept here so parsing loads no report code). */
export const REPORT_FORMATS = ['json', 'junit', 'html', 'ndjson'] as const;

/** One report format. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Parses `--report json,junit,html,ndjson`; an unknown format is a usage error. */
export function parseFormats(value: string | undefined): ReportFormat[] {
  if (!value) return [];
  return value.split(',').map((format) => {
    if (!(REPORT_FORMATS as readonly string[]).includes(format)) {
      throw new Error(`"--report" expected a comma-separated list of ${REPORT_FORMATS.join(', ')}, got "${format}"`);
    }
    return format as ReportFormat;
  });
}

/** The CI gates (D-232): the lowest score, and the lowest coverage per figure, in percent. */
export type Gates = {
  minScore?: number;
  minCoverage: Partial<Record<'operations' | 'responses' | 'parameters', number>>;
};

/** Parses `--min-score 80` and `--min-coverage operations=90,responses=75`. */
export function parseGates(options: Pick<ConformanceOptions, 'minScore' | 'minCoverage'>): Gates {
  const gates: Gates = { minCoverage: {} };
  if (options.minScore !== undefined) {
    const n = Number(options.minScore);
    if (String(options.minScore).trim() === '' || !(n >= 0 && n <= 100))
      throw new Error(`"--min-score" expected a number from 0 to 100, got "${options.minScore}"`);
    gates.minScore = n;
  }
  if (options.minCoverage !== undefined)
    for (const part of String(options.minCoverage).split(',')) {
      const match = /^(operations|responses|parameters)=(\d+(?:\.\d+)?)$/.exec(part.trim());
      if (!match || Number(match[2]) > 100)
        throw new Error(
          `"--min-coverage" expected figure=percent pairs of operations, responses, parameters (e.g. operations=90,responses=75), got "${part}"`,
        );
      gates.minCoverage[match[1] as 'operations'] = Number(match[2]);
    }
  return gates;
}

/** `--rate 5` or `--rate 5/s`: requests per second per origin (D-180). */
export function parseRate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(String(value).trim());
  const rate = match ? Number(match[1]) : Number.NaN;
  if (!(rate > 0 && rate <= 10_000))
    throw new Error(`"--rate" expected requests per second (e.g. 5 or 5/s), got "${value}"`);
  return rate;
}

/** `--check-timeout 90`: every check's deadline in seconds (D-181). */
export function parseSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!(Number.isFinite(seconds) && seconds > 0 && seconds <= 86_400))
    throw new Error(`"--check-timeout" expected seconds between 0 and 86400, got "${value}"`);
  return seconds * 1000;
}

/** Config keys whose values name files or folders: resolved against the config file's folder. */
const PATH_KEYS = new Set([
  'ca-cert',
  'receiver-tls-dir',
  'out',
  'rpc-sender-key-file',
  'admin-token-file',
  'second-token-file',
  'webhook-secret-file',
  'webhook-previous-secret-file',
  'har',
]);

/** conformance/config.schema.json: the published JSON Schema of a --config file (D-232). */
export const CONFIG_SCHEMA_PATH = repoPath('conformance/config.schema.json');

/** Validates a parsed --config file against its JSON Schema; throws naming every problem. */
function validateConfig(file: string, parsed: unknown): void {
  const ajv = new Ajv2020({ allErrors: true, strict: false, logger: false });
  const validate = ajv.compile(JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as object);
  if (validate(parsed)) return;
  const problems = (validate.errors ?? []).map((e) =>
    e.keyword === 'additionalProperties'
      ? `${e.instancePath || '/'}: unknown key "${(e.params as { additionalProperty: string }).additionalProperty}"${e.instancePath === '' ? ' (keys are the flag names, e.g. base, only, rate, and checks)' : ''}`
      : `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`,
  );
  throw new Error(`"--config" ${file} does not match conformance/config.schema.json: ${problems.join('; ')}`);
}

/**
 * Applies `--config <file>` (JSON or YAML; D-182): its keys are the long flag names, its values those of the flags
 * (a list for a flag taking several). A flag given on the command line wins; an unknown key is a usage error.
 */
export function applyConfig(command: Command, options: ConformanceOptions): void {
  if (!options.config) return;
  const file = options.config;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `"--config" cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(
      `"--config" ${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(
      `"--config" ${file} expected an object of flag names, got ${Array.isArray(parsed) ? 'a list' : typeof parsed}`,
    );
  validateConfig(file, parsed);
  const flags = new Map(command.options.map((o) => [o.long?.replace(/^--/, ''), o] as const));
  for (const [key, value] of Object.entries(parsed)) {
    if (key === 'checks') {
      options.checks = value as Record<string, CheckSetting>;
      for (const [id, setting] of Object.entries(options.checks))
        if (setting.expectedStatuses && !STATUS_JUDGED.some((name) => matchesPrefix(`generated.${name}`, id)))
          throw new Error(
            `"--config" ${file}: checks["${id}"].expectedStatuses applies only to the generated checks that judge statuses: ${STATUS_JUDGED.map((n) => `generated.${n}`).join(', ')} (D-245)`,
          );
      continue;
    }
    const option = flags.get(key);
    if (!option || key === 'config')
      throw new Error(`"--config" ${file}: unknown key "${key}" (keys are the flag names, e.g. base, only, rate)`);
    const name = option.attributeName();
    if (command.getOptionValueSource(name) === 'cli') continue;
    const variadic = option.variadic;
    if (
      variadic
        ? !Array.isArray(value) || value.some((v) => typeof v !== 'string')
        : !['string', 'number', 'boolean'].includes(typeof value)
    )
      throw new Error(
        `"--config" ${file}: "${key}" expected ${variadic ? 'a list of strings' : 'a string, number or boolean'}`,
      );
    if (option.isBoolean() && typeof value !== 'boolean')
      throw new Error(`"--config" ${file}: "${key}" expected true or false`);
    const text = typeof value === 'string' && PATH_KEYS.has(key) ? path.resolve(path.dirname(file), value) : value;
    command.setOptionValueWithSource(name, typeof text === 'number' ? String(text) : text, 'config');
    (options as Record<string, unknown>)[name] = command.getOptionValue(name);
  }
}

/** The source of a check for `--list`: its decision, or the start of its quote. */
export function sourceOf(source: { quote: string } | { decision: string }): string {
  if ('decision' in source) return source.decision;
  return JSON.stringify(source.quote.length > 60 ? `${source.quote.slice(0, 59)}…` : source.quote);
}

/** What the generated checks run with (D-185, D-232): the phases asked for (if any), seed and fuzz cases per operation. */
export type GenerationOptions = { phases?: Phase[]; seed: number; maxExamples: number };

/** `--phases`, `--seed`, `--max-examples`; the seed is random (and reported) unless given. */
export async function parseGeneration(options: ConformanceOptions): Promise<GenerationOptions> {
  const { parsePhases, parseCount } = await import('../../../conformance/engine/run-generated.ts');
  return {
    ...(options.phases !== undefined ? { phases: parsePhases(options.phases) } : {}),
    seed:
      options.seed !== undefined
        ? parseCount('--seed', options.seed, 2 ** 31 - 1)
        : Math.floor(Math.random() * 2 ** 31),
    maxExamples: parseCount('--max-examples', options.maxExamples, 100_000),
  };
}

/** True for a `--only` prefix that names the generated cases rather than catalogue checks. */
export const isGeneratedPrefix = (p: string) => p === 'generated' || p.startsWith('generated.');
