/** `svckit serve`: the reference stack. Its work is built by a later issue; until then it says so. */
import { Command } from 'commander';

/** Builds the `serve` sub-command. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('Start the reference stack: Anvil, PGlite and the three HTTPS origins with hybrid post-quantum TLS.')
    .action(() => {
      console.error('svckit serve: the reference stack is built by the issue "Reference stack, part 1" and is not available yet.');
      process.exit(2);
    });
}
