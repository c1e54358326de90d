/**
 * `svckit conformance --webhook-receiver <url> --webhook-secret <secret>`: an institution's own webhook
 * receiver as the target (D-171). Builds the receiver under test from the command's options, refusing bad
 * ones with a message that never repeats a secret.
 */
import { Catalogue } from '../catalogue.ts';
import { type ReceiverUnderTest, receiverSideChecks } from './checks.ts';

export { type ReceiverUnderTest, receiverSideChecks, receiverSideTarget } from './checks.ts';

/** D-060: a webhook secret is 32 to 256 printable ASCII characters. */
const SECRET = /^[\x21-\x7e]{32,256}$/;

/** The options naming the receiver. */
export type ReceiverOptions = {
  /** `--webhook-receiver`: the receiver's https URL. */
  url: string;
  /** `--webhook-secret`: the secret it verifies with. */
  secret: string | undefined;
  /** `--webhook-previous-secret`: a secret it held before, whose grace period is over. */
  previousSecret?: string;
  /** `--ca-cert` text, when the receiver's certificate is signed by a private CA. */
  caCert?: string;
};

/** The receiver under test; throws a usage error (without the secrets' values) when an option is bad. */
export function receiverUnderTest(options: ReceiverOptions): ReceiverUnderTest {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new Error(`"--webhook-receiver" expected an https URL, got "${options.url}"`);
  }
  // spec: "The service delivers payment events to HTTPS endpoints registered by the institution."
  if (url.protocol !== 'https:')
    throw new Error(`"--webhook-receiver" expected an https URL, got the scheme "${url.protocol}"`);
  if (options.secret === undefined) throw new Error('"--webhook-receiver" needs "--webhook-secret"');
  for (const [flag, value] of [
    ['--webhook-secret', options.secret],
    ['--webhook-previous-secret', options.previousSecret],
  ] as const) {
    if (value !== undefined && !SECRET.test(value))
      throw new Error(`"${flag}" expected 32 to 256 printable ASCII characters (D-060)`);
  }
  if (options.previousSecret !== undefined && options.previousSecret === options.secret)
    throw new Error('"--webhook-previous-secret" must differ from "--webhook-secret"');
  return {
    url,
    secret: options.secret,
    ...(options.previousSecret !== undefined ? { previousSecret: options.previousSecret } : {}),
    ...(options.caCert !== undefined ? { caCert: options.caCert } : {}),
  };
}

/** A catalogue holding the receiver-side checks of one receiver. */
export function receiverSideCatalogue(receiver: ReceiverUnderTest): Catalogue {
  const catalogue = new Catalogue();
  for (const check of receiverSideChecks(receiver)) catalogue.register(check);
  return catalogue;
}
