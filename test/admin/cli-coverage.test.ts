// Every operation of the admin contract has a `svckit admin` sub-command: the operationIds come from
// specs/admin.openapi.yaml, the commands from the CLI's own command tree (cli/commands/admin.ts), joined by
// the mapping table in cli/commands/admin/operations.ts.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { adminCommand } from '../../cli/commands/admin.ts';
import { ADMIN_OPERATIONS } from '../../cli/commands/admin/operations.ts';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const contract = parseYaml(readFileSync(new URL('../../specs/admin.openapi.yaml', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string }>>;
};
const operationIds = Object.values(contract.paths).flatMap((item) =>
  METHODS.flatMap((m) => (item[m]?.operationId ? [item[m].operationId] : [])),
);

/** The runnable command at `words` below `root`, or undefined. */
function find(root: Command, words: string[]): Command | undefined {
  let at: Command | undefined = root;
  for (const word of words) at = at?.commands.find((c) => c.name() === word);
  // A runnable command has an action; a group only lists its sub-commands.
  return at && (at as unknown as { _actionHandler: unknown })._actionHandler ? at : undefined;
}

describe('svckit admin covers the admin contract', () => {
  it('reads a plausible list of operations from the contract', () => {
    expect(operationIds.length).toBeGreaterThanOrEqual(31);
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it.each(operationIds)('%s has a svckit admin sub-command', (operationId) => {
    const words = ADMIN_OPERATIONS[operationId];
    expect(words, `${operationId} is missing from ADMIN_OPERATIONS (cli/commands/admin/operations.ts)`).toBeDefined();
    expect(
      find(adminCommand(), words!.split(' ')),
      `svckit admin ${words} does not exist or does nothing`,
    ).toBeDefined();
  });

  it('maps no operation the contract does not have', () => {
    expect(Object.keys(ADMIN_OPERATIONS).filter((id) => !operationIds.includes(id))).toEqual([]);
  });
});
