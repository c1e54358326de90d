// The costliest simulated call per unit of gas this suite uses: the BLAKE2F precompile (EIP-152, address 0x09),
// which costs one gas per round, so one call can take as many rounds as the gas it is given.

const BLAKE2F = '0x0000000000000000000000000000000000000009';

/** Gas a call takes before the precompile runs: 21000 and the 213 bytes of input, with room to spare. */
export const INTRINSIC = 25_000;

/** A call object to BLAKE2F for `rounds` rounds (input: rounds, h, m, t, final flag), with `gas` when given. */
export const blake2f = (rounds: number, gas?: number) => ({
  to: BLAKE2F,
  data: `0x${rounds.toString(16).padStart(8, '0')}${'00'.repeat(64 + 128 + 16)}01`,
  ...(gas === undefined ? {} : { gas: `0x${gas.toString(16)}` }),
});
