/** `svckit generate`: writes generated/ and mocks/ from specs/ (the same code as `npm run generate`). */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { repoPath } from '../../src/paths.ts';

/** Builds the `generate` sub-command. */
export function generateCommand(): Command {
  return new Command('generate')
    .description('Generate types, SDK clients, validators, Fastify route types and MSW mocks from specs/.')
    .action(async () => {
      // Loaded when the command runs: the codegen toolchain takes seconds to import. It writes a checkout's
      // generated/; the installed package carries its generated code compiled and has no codegen (D-230).
      const generator = repoPath('scripts/generate/index.ts');
      if (!existsSync(generator)) {
        console.error(
          'svckit generate rewrites generated/ in a checkout of the svckit repository; this installed package has none.',
        );
        process.exitCode = 2;
        return;
      }
      const { generateAll } = (await import(
        pathToFileURL(generator).href
      )) as typeof import('../../scripts/generate/index.ts');
      const elapsed = await generateAll();
      console.log(`generated/ and mocks/ written from specs/ in ${(elapsed / 1000).toFixed(2)} s`);
    });
}
