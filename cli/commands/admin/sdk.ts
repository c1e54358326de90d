/**
 * The admin SDK, loaded when a command runs rather than when the CLI starts: its zod validators take about a
 * third of a second to import, which `svckit --help` and every other command would pay (D-230).
 */
export const adminSdk = () => import('@svckit/sdk/admin');
