/**
 * Replays a case file written next to the engine's reports: the case's request is rebuilt against a given
 * base, sent, and judged by the named check that failed (and the others), so a fix can be confirmed.
 */
import { readFileSync } from 'node:fs';
import { SPECS_DIR } from '../../src/paths.ts';
import type { CaseFile } from '../report/engine.ts';
import { evaluate, type CheckVerdict } from './checks.ts';
import { engineClient, type WireRequest, type WireResponse } from './client.ts';
import { ENGINE_SURFACES, type EngineSurface, loadContract } from './contract.ts';
import { toRequest } from './run.ts';

/** The outcome of one replay. */
export interface ReplayOutcome {
  request: WireRequest;
  response: WireResponse;
  /** The verdict of the check the case file records. */
  verdict: CheckVerdict | undefined;
  /** Every verdict of the named checks on the answer. */
  verdicts: CheckVerdict[];
}

/** Reads and checks a case file. */
export function readCaseFile(path: string): CaseFile {
  const file = JSON.parse(readFileSync(path, 'utf8')) as CaseFile;
  if (file?.kind !== 'svckit-conformance-case' || !file.case || !(file.case.surface in ENGINE_SURFACES))
    throw new Error(`${path} is not an svckit conformance case file`);
  return file;
}

/** The base URL of a surface's paths under `{base_url}` (or `{wallet_api_url}` for the wallet surface). */
export function surfaceBase(surface: EngineSurface, base: URL, specsDir = SPECS_DIR): URL {
  const root = base.href.endsWith('/') ? base : new URL(`${base.href}/`);
  if (surface === 'wallet') return root;
  return new URL(`${loadContract(specsDir, surface).basePath.replace(/^\//, '')}/`, root);
}

/** Sends the case of `file` to `base` and judges the answer. */
export async function replayCase(
  file: CaseFile,
  options: { base: URL; caCert?: string; authorization?: string; specsDir?: string },
): Promise<ReplayOutcome> {
  const specsDir = options.specsDir ?? SPECS_DIR;
  const contract = loadContract(specsDir, file.case.surface);
  const op = contract.operations.find((o) => o.id === file.case.operation);
  if (!op) throw new Error(`the ${file.case.surface} contract has no operation ${file.case.operation}`);
  const request = toRequest(
    surfaceBase(file.case.surface, options.base, specsDir),
    op,
    file.case,
    options.authorization,
  );
  const client = engineClient({ ...(options.caCert ? { caCert: options.caCert } : {}), connections: 1 });
  try {
    const response = await client.send(request);
    const verdicts = evaluate(contract, op, file.case, response);
    const name = file.check.replace(/^generated\./, '');
    return { request, response, verdicts, verdict: verdicts.find((v) => v.check === name) };
  } finally {
    client.close();
  }
}
