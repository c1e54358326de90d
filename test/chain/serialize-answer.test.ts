// D-196: /rpc writes an object result serialized once per object; the text must stay the JSON of the answer.
import { describe, expect, it } from 'vitest';
import type { RpcResponse } from '../../src/node/upstream.ts';
import { serializeAnswer } from '../../src/server/chain/routes.ts';

const block = { number: '0xdc', hash: `0x${'ab'.repeat(32)}`, transactions: [], extraData: 'a "quoted" \u2028 text' };

describe('serializeAnswer', () => {
  it('writes the same JSON as JSON.stringify for results, errors, batches and every id form', () => {
    const answers: (RpcResponse | RpcResponse[])[] = [
      { jsonrpc: '2.0', id: 1, result: block },
      { jsonrpc: '2.0', id: 'req "7"', result: block },
      { jsonrpc: '2.0', id: null, result: [block] },
      { jsonrpc: '2.0', id: 2, result: '0xdc' },
      { jsonrpc: '2.0', id: 3, result: null },
      { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'bad' } },
      [{ jsonrpc: '2.0', id: 5, result: block }],
    ];
    for (const answer of answers) expect(serializeAnswer(answer)).toBe(JSON.stringify(answer));
  });

  it('reuses the serialized result of the same object, with each answer keeping its own id', () => {
    const first = serializeAnswer({ jsonrpc: '2.0', id: 1, result: block });
    const second = serializeAnswer({ jsonrpc: '2.0', id: 2, result: block });
    expect(JSON.parse(first)).toEqual({ jsonrpc: '2.0', id: 1, result: block });
    expect(JSON.parse(second)).toEqual({ jsonrpc: '2.0', id: 2, result: block });
  });
});
