// The receiver-side webhook checks (surface B, ids `webhooks.*`): the deliveries of three payment scenarios
// (deliveries.ts), then retries and the schedule (retry.ts).
import type { Check } from '../../catalogue.ts';
import { webhookDeliveryChecks } from './deliveries.ts';
import { webhookRetryChecks } from './retry.ts';

/** Every `webhooks.*` check, in run order. */
export function webhookChecks(): Check[] {
  return [...webhookDeliveryChecks(), ...webhookRetryChecks()];
}
