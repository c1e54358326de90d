/**
 * ISO 20022 pacs.008 integration instructions (spec: POST /bank/connect returns "integration instructions
 * for ISO 20022 pacs.008 (FI-to-FI credit transfer) describing the message format and field mappings for
 * settlement instruction routing"; D-011, D-053, D-056).
 */
import type { BankConnectResponse, FieldMapping } from '@svckit/sdk/institutional';

const DOC = '/Document/FIToFICstmrCdtTrf';

/** One mapping row: element (relative), XPath suffix, the JSON projection's source, required, example. */
const row = (element: string, xpath: string, source: string, required: boolean, example: string): FieldMapping => ({
  element,
  xpath: `${DOC}/${xpath}`,
  source,
  required,
  example,
});

/** The pacs.008.001.08 field mappings for a correspondent `institutionBIC` settling through `accountId`. */
export function fieldMappings(institutionBIC: string, accountId: string, platformBIC: string): FieldMapping[] {
  return [
    row(
      'GrpHdr/MsgId',
      'GrpHdr/MsgId',
      'msgId; sender-assigned message id, unique per sender, at most 35 characters',
      true,
      `${institutionBIC.slice(0, 4)}20261121093000001`,
    ),
    row(
      'GrpHdr/CreDtTm',
      'GrpHdr/CreDtTm',
      'creDtTm; message creation time, ISO 8601 UTC (optional in the JSON projection, defaults to the time of receipt)',
      true,
      '2026-11-21T09:30:00.000Z',
    ),
    row('GrpHdr/NbOfTxs', 'GrpHdr/NbOfTxs', 'always 1; one credit transfer per message', true, '1'),
    row(
      'GrpHdr/SttlmInf/SttlmMtd',
      'GrpHdr/SttlmInf/SttlmMtd',
      'always INDA; settled by the platform as instructed agent',
      true,
      'INDA',
    ),
    row(
      'GrpHdr/SttlmInf/SttlmAcct',
      'GrpHdr/SttlmInf/SttlmAcct/Id/Othr/Id',
      'sttlmAcct; the accountId of this response, the platform account that funds settlement',
      true,
      accountId,
    ),
    row(
      'CdtTrfTxInf/PmtId/InstrId',
      'CdtTrfTxInf/PmtId/InstrId',
      "instrId; instructing agent's reference, at most 35 characters",
      false,
      `${institutionBIC.slice(0, 4)}-INSTR-000917`,
    ),
    row(
      'CdtTrfTxInf/PmtId/EndToEndId',
      'CdtTrfTxInf/PmtId/EndToEndId',
      "endToEndId; the originator's end-to-end reference, at most 35 characters",
      true,
      'INV-2026-1142',
    ),
    row(
      'CdtTrfTxInf/PmtId/UETR',
      'CdtTrfTxInf/PmtId/UETR',
      'uetr; UUID v4, carried as uetr in every webhook event of the payment',
      true,
      '8a562c67-ca16-48ba-b074-65581be6f001',
    ),
    row(
      'CdtTrfTxInf/IntrBkSttlmAmt',
      'CdtTrfTxInf/IntrBkSttlmAmt',
      'intrBkSttlmAmt; decimal, at most 2 fraction digits; becomes instrAmt',
      true,
      '1250.50',
    ),
    row(
      'CdtTrfTxInf/IntrBkSttlmAmt/@Ccy',
      'CdtTrfTxInf/IntrBkSttlmAmt/@Ccy',
      'intrBkSttlmCcy; ISO 4217 code or SVC for the native unit; becomes instrAmtCcy',
      true,
      'EUR',
    ),
    row('CdtTrfTxInf/ChrgBr', 'CdtTrfTxInf/ChrgBr', 'chrgBr; DEBT, CRED, SHAR or SLEV', true, 'SHAR'),
    row(
      'CdtTrfTxInf/Dbtr',
      'CdtTrfTxInf/Dbtr/Nm',
      'dbtrNm; debtor name, at most 140 characters',
      true,
      'Example Manufacturing GmbH',
    ),
    row(
      'CdtTrfTxInf/DbtrAgt/FinInstnId/BICFI',
      'CdtTrfTxInf/DbtrAgt/FinInstnId/BICFI',
      'dbtrAgt; the institutionBIC of this response; becomes dbtrInst',
      true,
      institutionBIC,
    ),
    row(
      'CdtTrfTxInf/Cdtr',
      'CdtTrfTxInf/Cdtr/Nm',
      'cdtrNm; creditor name, at most 140 characters',
      true,
      'Example Trading Ltd',
    ),
    row(
      'CdtTrfTxInf/CdtrAcct',
      'CdtTrfTxInf/CdtrAcct/Id/Othr/Id',
      'cdtrAcct; the platform account id credited on the chain',
      true,
      'acc_01JD3Z9R2M5N8P1Q4S7T0V3W6Y',
    ),
    row(
      'CdtTrfTxInf/CdtrAgt/FinInstnId/BICFI',
      'CdtTrfTxInf/CdtrAgt/FinInstnId/BICFI',
      "cdtrAgt; the platform's BIC; becomes cdtrInst",
      true,
      platformBIC,
    ),
    row(
      'CdtTrfTxInf/RmtInf',
      'CdtTrfTxInf/RmtInf/Ustrd',
      'rmtInf; unstructured remittance information, at most 140 characters',
      false,
      'Invoice 2026-1142',
    ),
  ];
}

/** The whole POST /bank/connect answer. */
export function integrationInstructions(input: {
  institutionBIC: string;
  accountId: string;
  settlementAddress: string;
  platformBIC: string;
}): BankConnectResponse {
  return {
    ok: true,
    institutionBIC: input.institutionBIC,
    accountId: input.accountId,
    settlementAddress: input.settlementAddress,
    messageType: 'pacs.008.001.08',
    messageFormat:
      'ISO 20022 XML (urn:iso:std:iso:20022:tech:xsd:pacs.008.001.08), one CdtTrfTxInf per message; submitted as its JSON projection',
    transport:
      'HTTPS POST {base_url}/wallet/api/v1/payments/pacs008 with a credential holding payments:write, over hybrid post-quantum TLS (X25519MLKEM768)',
    fieldMappings: fieldMappings(input.institutionBIC, input.accountId, input.platformBIC),
    notes: [
      "Settlement moves native units from the settlement account's address to the creditor account's address in one transaction.",
      'Amounts in a currency other than SVC are converted with the configured FX table when the rate is locked (payment.rate_locked).',
      'Every state change is pushed to the registered webhook endpoints, keyed by uetr.',
    ],
  };
}
