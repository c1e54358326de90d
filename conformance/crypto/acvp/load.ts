// Finds and loads ACVP vector sets: a directory holding prompt.json(.gz) and expectedResults.json(.gz),
// with internalProjection.json(.gz) where published, or internalProjection alone (upstream publishes it
// as the prompt with its answers; vectors/ carries it alone where it holds both, D-132). Files are the
// gen-val JSON objects, or the [{acvVersion}, {...}] arrays the ACVP server sends.
import { basename } from 'node:path';
import { findJsonFile, readJsonFile, walkDirectories, type JsonObject } from '../vectors.ts';

/** One loaded vector set. */
export interface AcvpVectorSet {
  /** The set's name: its directory name (e.g. "ML-DSA-sigGen-FIPS204"). */
  name: string;
  /** The directory it came from. */
  dir: string;
  /** The files read (for checksums). */
  files: string[];
  /** Header of the prompt. */
  header: { vsId: number; algorithm: string; mode: string | undefined; revision: string; isSample: boolean };
  /** Prompt test groups. */
  groups: JsonObject[];
  /** expectedResults cases by "tgId/tcId". */
  expected: Map<string, JsonObject>;
  /** internalProjection cases by "tgId/tcId". */
  projection: Map<string, JsonObject>;
}

/** Every set under `dir` (the directory itself may be one set), sorted by name. */
export function findAcvpSets(dir: string): string[] {
  return walkDirectories(dir).filter(
    (d) => findJsonFile(d, 'prompt') !== undefined || findJsonFile(d, 'internalProjection') !== undefined,
  );
}

/** Loads one set directory; throws with the path when a required file is missing or malformed. */
export function loadAcvpSet(dir: string): AcvpVectorSet {
  const projectionPath = findJsonFile(dir, 'internalProjection');
  const projectionDoc = projectionPath ? unwrap(readJsonFile(projectionPath), projectionPath) : undefined;
  // Without a prompt, the inputs are read from internalProjection, which carries every prompt field.
  const promptPath = findJsonFile(dir, 'prompt') ?? projectionPath;
  if (!promptPath) throw new Error(`${dir}: no prompt.json(.gz) and no internalProjection.json(.gz)`);
  const prompt =
    promptPath === projectionPath ? (projectionDoc as JsonObject) : unwrap(readJsonFile(promptPath), promptPath);
  const expectedPath = findJsonFile(dir, 'expectedResults');
  const expected = expectedPath
    ? byCase(unwrap(readJsonFile(expectedPath), expectedPath))
    : new Map<string, JsonObject>();
  const projection = projectionDoc ? byCase(projectionDoc) : new Map<string, JsonObject>();
  const files = [...new Set([promptPath, expectedPath, projectionPath].filter((f): f is string => f !== undefined))];
  if (!expectedPath && !projectionPath)
    throw new Error(`${dir}: neither expectedResults nor internalProjection is present`);
  const groups = prompt.testGroups;
  if (!Array.isArray(groups)) throw new Error(`${promptPath}: "testGroups" expected an array`);
  for (const key of ['algorithm', 'revision'] as const) {
    if (typeof prompt[key] !== 'string') throw new Error(`${promptPath}: "${key}" expected a string`);
  }
  return {
    name: basename(dir),
    dir,
    files,
    header: {
      vsId: typeof prompt.vsId === 'number' ? prompt.vsId : 0,
      algorithm: prompt.algorithm as string,
      mode: typeof prompt.mode === 'string' ? prompt.mode : undefined,
      revision: prompt.revision as string,
      isSample: prompt.isSample === true,
    },
    groups: groups as JsonObject[],
    expected,
    projection,
  };
}

/** The key of a case in the expected and projection maps. */
export function caseKey(tgId: unknown, tcId: unknown): string {
  return `${String(tgId)}/${String(tcId)}`;
}

/** A gen-val object, or the second element of an ACVP [{acvVersion}, {...}] array. */
function unwrap(data: unknown, path: string): JsonObject {
  const body = Array.isArray(data)
    ? data.find((item) => item && typeof item === 'object' && 'testGroups' in item)
    : data;
  if (!body || typeof body !== 'object') throw new Error(`${path}: expected an ACVP vector set object`);
  return body as JsonObject;
}

function byCase(doc: JsonObject): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  for (const group of (doc.testGroups as JsonObject[] | undefined) ?? []) {
    for (const test of (group.tests as JsonObject[] | undefined) ?? []) out.set(caseKey(group.tgId, test.tcId), test);
  }
  return out;
}
