/**
 * Reads the two sides of `svckit diff` (D-246): a contract file, a folder of contracts, or a git reference
 * whose `specs/` folder is read from the repository in the current directory. The format of each file is
 * detected from its content.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { type Contract, type Format, isObject } from './model.ts';
import { DiffInputError } from './refs.ts';

/** The largest contract file read, in bytes. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** The most contract files one side may hold. */
const MAX_FILES = 200;

/** One side of the comparison: its contracts by file name, and its CHANGES.md when it is a folder or a reference. */
export type Side = { label: string; contracts: Map<string, Contract>; changelog?: string; folder: boolean };

/** The format of a parsed document, or undefined when it is none of the four. */
export function detectFormat(document: unknown): Format | undefined {
  if (!isObject(document)) return undefined;
  if (typeof document.openapi === 'string') return 'openapi';
  if (typeof document.asyncapi === 'string') return 'asyncapi';
  if (typeof document.openrpc === 'string') return 'openrpc';
  if (typeof document.$schema === 'string' && /json-schema/.test(document.$schema)) return 'jsonschema';
  return undefined;
}

const CONTRACT_FILE = /\.(ya?ml|json)$/i;

/** Parses one file's text; a file given by name must be a contract, a file found in a folder may be something else. */
function parseContract(name: string, text: string, required: boolean): Contract | undefined {
  if (text.length > MAX_FILE_BYTES) throw new DiffInputError(`${name}: larger than ${MAX_FILE_BYTES} bytes`);
  let document: unknown;
  try {
    document = parse(text, { maxAliasCount: 1000 });
  } catch (error) {
    throw new DiffInputError(`${name}: not YAML or JSON (${(error as Error).message.split('\n')[0]})`);
  }
  const format = detectFormat(document);
  if (!format) {
    if (required) throw new DiffInputError(`${name}: not an OpenAPI, AsyncAPI, OpenRPC or JSON Schema document`);
    return undefined;
  }
  return { name, format, document };
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, {
      encoding: 'utf8',
      maxBuffer: MAX_FILE_BYTES * 2,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').split('\n')[0];
    throw new DiffInputError(`git ${args[0]} failed${stderr ? `: ${stderr}` : ''}`);
  }
}

/** Reads one side: an existing path, else a git reference (its `dir` folder). */
export function readSide(given: string, dir: string): Side {
  if (existsSync(given)) {
    const stats = statSync(given);
    if (stats.isFile()) {
      const contract = parseContract(path.basename(given), readFileSync(given, 'utf8'), true) as Contract;
      return { label: given, contracts: new Map([[contract.name, contract]]), folder: false };
    }
    const names = readdirSync(given)
      .filter((name) => CONTRACT_FILE.test(name))
      .sort();
    if (names.length > MAX_FILES) throw new DiffInputError(`${given}: more than ${MAX_FILES} contract files`);
    const contracts = new Map<string, Contract>();
    for (const name of names) {
      const file = path.join(given, name);
      if (!statSync(file).isFile()) continue;
      const contract = parseContract(name, readFileSync(file, 'utf8'), false);
      if (contract) contracts.set(name, contract);
    }
    const changelog = path.join(given, 'CHANGES.md');
    return {
      label: given,
      contracts,
      folder: true,
      changelog: existsSync(changelog) ? readFileSync(changelog, 'utf8') : undefined,
    };
  }
  let commit: string;
  try {
    commit = git(['rev-parse', '--verify', '--quiet', `${given}^{commit}`]).trim();
  } catch {
    throw new DiffInputError(`"${given}" is neither a file, a folder nor a git reference of this repository`);
  }
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new DiffInputError(`"${given}" is not a git commit`);
  const listed = git(['ls-tree', '--name-only', commit, `${dir.replace(/\/+$/, '')}/`])
    .split('\n')
    .filter(Boolean);
  const files = listed.filter((file) => CONTRACT_FILE.test(file));
  if (files.length > MAX_FILES) throw new DiffInputError(`${given}:${dir}: more than ${MAX_FILES} contract files`);
  const contracts = new Map<string, Contract>();
  for (const file of files) {
    const name = path.posix.basename(file);
    const contract = parseContract(`${given}:${file}`, git(['show', `${commit}:${file}`]), false);
    if (contract) contracts.set(name, { ...contract, name });
  }
  const changelogFile = listed.find((file) => path.posix.basename(file) === 'CHANGES.md');
  return {
    label: `${given} (${commit.slice(0, 12)}:${dir})`,
    contracts,
    folder: true,
    changelog: changelogFile ? git(['show', `${commit}:${changelogFile}`]) : undefined,
  };
}
