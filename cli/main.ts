/** The `svckit` command line: one sub-command per job, each with `--help`. */
import { Command } from 'commander';
import { acvpCommand } from './commands/acvp.ts';
import { adminCommand } from './commands/admin.ts';
import { conformanceCommand } from './commands/conformance.ts';
import { diffCommand } from './commands/diff.ts';
import { evidenceCommand } from './commands/evidence.ts';
import { generateCommand } from './commands/generate.ts';
import { interopCommand } from './commands/interop.ts';
import { proxyCommand } from './commands/proxy.ts';
import { replayCommand } from './commands/replay.ts';
import { serveCommand } from './commands/serve.ts';
import { wycheproofCommand } from './commands/wycheproof.ts';

const program = new Command('svckit')
  .description('Contract-first kit for the Ledger, Wallet and Chain Service: codegen, reference server, conformance.')
  .showHelpAfterError();

program.addCommand(generateCommand());
program.addCommand(conformanceCommand());
program.addCommand(serveCommand());
program.addCommand(acvpCommand());
program.addCommand(wycheproofCommand());
program.addCommand(interopCommand());
program.addCommand(evidenceCommand());
program.addCommand(adminCommand());
program.addCommand(replayCommand());
program.addCommand(diffCommand());
program.addCommand(proxyCommand());

/**
 * commander exits 1 on usage errors; svckit uses 2 for every usage or configuration error, in every
 * sub-command (an exit override is not inherited by commands added with addCommand, so each gets it).
 */
function exitTwoOnUsageErrors(command: Command): void {
  command.exitOverride((error) => {
    process.exit(error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : 2);
  });
  for (const sub of command.commands) exitTwoOnUsageErrors(sub);
}

exitTwoOnUsageErrors(program);
await program.parseAsync(process.argv);
