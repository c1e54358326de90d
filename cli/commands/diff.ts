/**
 * `svckit diff <old> <new>` (D-246): the breaking-change gate for the four contract formats. Each side is a
 * contract file, a folder of contracts, or a git reference whose `specs/` is compared. Exit 1 when `--fail-on`
 * names a level that a change reaches, 0 otherwise, 2 for bad input.
 */
import { Command, Option } from 'commander';
import { type Change, DiffInputError, diffSides, fails, type Level, readSide } from '../../conformance/diff/index.ts';
import { renderJson, renderMarkdown, renderTable } from '../../conformance/diff/render.ts';

type DiffOptions = { failOn?: Level; format: 'table' | 'json' | 'markdown'; dir: string };

/** Builds the `diff` sub-command. */
export function diffCommand(): Command {
  return new Command('diff')
    .description(
      'Report every change between two versions of the contracts (OpenAPI, AsyncAPI, OpenRPC, JSON Schema), each ' +
        'classified as breaking, warning or info with a stable rule id (docs/diff-rules.md).',
    )
    .argument('<old>', 'the old side: a contract file, a folder of contracts, or a git reference (e.g. v0.1.0)')
    .argument('<new>', 'the new side, of the same kind (e.g. HEAD, or specs/)')
    .addOption(
      new Option('--fail-on <level>', 'exit 1 when a change of this level or above exists').choices([
        'breaking',
        'warning',
      ]),
    )
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'markdown']).default('table'))
    .option('--dir <folder>', 'with git references: the folder of contracts compared', 'specs')
    .action((oldGiven: string, newGiven: string, options: DiffOptions) => {
      let changes: Change[];
      let labels: [string, string];
      try {
        const before = readSide(oldGiven, options.dir);
        const after = readSide(newGiven, options.dir);
        if (before.folder !== after.folder)
          throw new DiffInputError('compare a file with a file, or a folder or reference with a folder or reference');
        if (!before.folder) {
          // Two single files are one contract under two names: compare them as one.
          const [oldContract] = before.contracts.values();
          const [newContract] = after.contracts.values();
          if (oldContract && newContract)
            after.contracts = new Map([[oldContract.name, { ...newContract, name: oldContract.name }]]);
        }
        changes = diffSides(before, after);
        labels = [before.label, after.label];
      } catch (error) {
        if (!(error instanceof DiffInputError)) throw error;
        console.error(`svckit diff: ${error.message}`);
        process.exit(2);
      }
      const render =
        options.format === 'json' ? renderJson : options.format === 'markdown' ? renderMarkdown : renderTable;
      console.log(render(changes, ...labels));
      process.exitCode = options.failOn !== undefined && fails(changes, options.failOn) ? 1 : 0;
    });
}
