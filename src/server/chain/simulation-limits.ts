/**
 * The settings of simulated calls (eth_call, eth_estimateGas) and their defaults, apart from the gate so the
 * settings table reads them without loading the chain surface.
 */

/** The simulation settings (SVC_RPC_GAS_CAP, SVC_RPC_SIMULATE_*; see src/config.ts). */
export type SimulationLimits = {
  /** D-199: the most gas one simulated call may use; also its gas when the request names none. */
  gasCap: number;
  /** D-200: simulated calls in flight per client IP. */
  perClient: number;
  /** D-200: simulated calls in flight on the gateway. */
  total: number;
  /** D-201: units of the D-024 rate limit one simulated call takes (every other request takes 1). */
  weight: number;
};

/** D-199, D-200, D-201: the defaults, measured on Anvil (see specs/DECISIONS.md). */
export const DEFAULT_SIMULATION: SimulationLimits = { gasCap: 2_000_000, perClient: 2, total: 4, weight: 20 };
