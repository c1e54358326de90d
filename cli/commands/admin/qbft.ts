/**
 * `svckit admin qbft votes list|propose` and `svckit admin qbft validators`: the QBFT validator set and the
 * votes to change it, through `/admin/v1/qbft/votes` and `/admin/v1/qbft/validators`.
 */
import { Command } from 'commander';
import { adminSdk } from './sdk.ts';
import {
  action,
  AdminCliError,
  adminClient,
  answer,
  connectionOptions,
  print,
  table,
  type AdminOptions,
} from './connection.ts';

function votesCommand(): Command {
  const command = new Command('votes').description('Votes to add or remove a validator.');
  command.addCommand(
    connectionOptions(new Command('list'))
      .description('List the pending votes.')
      .action(
        action(async (options: AdminOptions) => {
          const sdk = await adminSdk();
          const votes = answer(await sdk.adminListValidatorVotes({ client: adminClient(options) }));
          print(options, votes, (v) =>
            table(
              ['VALIDATOR', 'VOTE', 'PROPOSED'],
              v.votes.map((x) => [x.validator, x.add ? 'add' : 'remove', x.proposedAt]),
            ),
          );
        }),
      ),
  );
  command.addCommand(
    connectionOptions(new Command('propose'))
      .description('Propose adding (--add) or removing (--remove) a validator.')
      .argument('<validator>', "the validator's 0x address")
      .option('--add', 'vote to add it')
      .option('--remove', 'vote to remove it')
      .action(
        action(async (validator: string, options: AdminOptions & { add?: boolean; remove?: boolean }) => {
          const sdk = await adminSdk();
          if (!options.add === !options.remove) throw new AdminCliError('give exactly one of --add and --remove');
          const vote = answer(
            await sdk.adminProposeValidatorVote({
              client: adminClient(options),
              body: { validator, add: Boolean(options.add) },
            }),
          );
          print(options, vote, (v) => `proposed to ${v.add ? 'add' : 'remove'} ${v.validator} at ${v.proposedAt}`);
        }),
      ),
  );
  return command;
}

/** Builds the `qbft` sub-command. */
export function qbftCommand(): Command {
  return new Command('qbft')
    .description('The QBFT validator set.')
    .addCommand(votesCommand())
    .addCommand(
      connectionOptions(new Command('validators'))
        .description('Show the current validator set and its thresholds.')
        .action(
          action(async (options: AdminOptions) => {
            const sdk = await adminSdk();
            const set = answer(await sdk.adminListValidators({ client: adminClient(options) }));
            print(options, set, (s) =>
              [
                `block ${s.blockNumber}: n ${s.n}, f ${s.f}, threshold ${s.threshold}, vote threshold ${s.voteThreshold}`,
                ...s.validators,
              ].join('\n'),
            );
          }),
        ),
    );
}
