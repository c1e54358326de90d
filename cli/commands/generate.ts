/** `svckit generate`: writes generated/ and mocks/ from specs/ (the same code as `npm run generate`). */
import { Command } from 'commander';

/** Builds the `generate` sub-command. */
export function generateCommand(): Command {
  return new Command('generate')
    .description('Generate types, SDK clients, validators, Fastify route types and MSW mocks from specs/.')
    .action(async () => {
      // Loaded when the command runs: the codegen toolchain takes seconds to import.
      const { generateAll } = await import('../../scripts/generate/index.ts');
      const elapsed = await generateAll();
      console.log(`generated/ and mocks/ written from specs/ in ${(elapsed / 1000).toFixed(2)} s`);
    });
}
