/** Admin handlers for the QBFT validator set and votes (D-037, D-063). */
import { EVM_ADDRESS_EXPECTED, evmAddressParam } from '../http/evm-address.ts';
import type { RouteHandlers } from '../../../generated/admin/fastify.gen';
import { zAdminProposeValidatorVoteBody } from '@svckit/sdk/admin/zod';
import { ProposalRejected, quorums } from '../../node/qbft/consensus.ts';
import type { ChainRuntime } from '../../node/runtime.ts';
import type { Clock } from '@svckit/sdk/clock';
import { ErrorCode, RestError } from '../http/errors.ts';
import { guard, strict } from '../http/guards.ts';

type Handlers = Pick<RouteHandlers, 'adminProposeValidatorVote' | 'adminListValidatorVotes' | 'adminListValidators'>;

/** The QBFT handlers; on an external chain votes go to the real validators, so the console refuses them. */
export function qbftHandlers(chain: ChainRuntime, clock: Clock): Handlers {
  const latest = async () => Number(BigInt(await chain.upstream.call<string>('eth_blockNumber')));
  return {
    adminProposeValidatorVote: async (request, reply) => {
      const body = guard(strict(zAdminProposeValidatorVoteBody), request.body, { validator: EVM_ADDRESS_EXPECTED });
      const validator = evmAddressParam('validator', body.validator);
      if (chain.mode === 'external') {
        throw new RestError(
          ErrorCode.EXTERNAL_CHAIN,
          'validator votes are proposed on the validator nodes of an external chain, not through this console',
        );
      }
      try {
        const proposal = await chain.consensus.propose(validator, body.add, await latest(), new Date(clock.now()));
        return reply
          .code(202)
          .send({ validator: proposal.target, add: proposal.add, proposedAt: proposal.proposedAt.toISOString() });
      } catch (error) {
        if (error instanceof ProposalRejected) throw new RestError(ErrorCode.INVALID_VOTE, error.message);
        throw error;
      }
    },
    adminListValidatorVotes: async (_request, reply) => {
      const votes = await chain.consensus.proposals();
      return reply.code(200).send({
        votes: votes.map((v) => ({ validator: v.target, add: v.add, proposedAt: v.proposedAt.toISOString() })),
      });
    },
    adminListValidators: async (_request, reply) => {
      const blockNumber = await latest();
      const validators = chain.consensus.validatorsAt(blockNumber);
      return reply.code(200).send({ blockNumber, validators, ...quorums(validators.length) });
    },
  };
}
