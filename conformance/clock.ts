// House rule 6: one injectable clock. The harness uses the same clock type as the server.
export { systemClock, type Clock } from '@svckit/sdk/clock';
