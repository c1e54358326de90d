/** The `svckit` command line: one sub-command per job, each with `--help`. */
import { Command } from 'commander';
import { acvpCommand } from './commands/acvp.ts';
import { adminCommand } from './commands/admin.ts';
import { conformanceCommand } from './commands/conformance.ts';
import { evidenceCommand } from './commands/evidence.ts';
import { generateCommand } from './commands/generate.ts';
import { interopCommand } from './commands/interop.ts';
import { serveCommand } from './commands/serve.ts';
import { wycheproofCommand } from './commands/wycheproof.ts';

const program = new Command('svckit')
  .description('Contract-first kit for the Ledger, Wallet and Chain Service: codegen, reference server, conformance.')
  .showHelpAfterError()
  .exitOverride((error) => {
    // commander exits 1 on usage errors; svckit uses 2 for every usage or configuration error.
    process.exit(error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : 2);
  });

program.addCommand(generateCommand());
program.addCommand(conformanceCommand());
program.addCommand(serveCommand());
program.addCommand(acvpCommand());
program.addCommand(wycheproofCommand());
program.addCommand(interopCommand());
program.addCommand(evidenceCommand());
program.addCommand(adminCommand());

await program.parseAsync(process.argv);
