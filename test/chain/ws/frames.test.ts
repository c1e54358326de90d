// D-012, D-134: every frame on /ws gets a JSON-RPC answer, malformed ones the same error /rpc gives for the
// same body (-32700 not JSON, -32600 not a request object or an empty batch); a frame over the 1 MiB cap
// closes the socket with 1009. No frame ends the process: /rpc still answers afterwards.
import { beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { request, rpc } from '../../../conformance/http.ts';
import { sharedReferenceTarget } from '../../support/shared-stack.ts';
import type { Target } from '../../../conformance/targets/target.ts';
import { MAX_FRAME_BYTES } from '../../../src/server/chain/ws/routes.ts';
import { closed, issueApiKey, nextFrame, openWithToken } from './support.ts';

type Answer = { jsonrpc: string; id: unknown; error?: { code: number; message: string } };

let target: Target;
let token: string;

beforeAll(async () => {
  target = await sharedReferenceTarget();
  token = (await issueApiKey(target, ['chain:subscribe'])).token;
});

/** Sends `text` on `socket` and returns the answer frame. */
async function answerTo(socket: WebSocket, text: string): Promise<unknown> {
  const answer = nextFrame(socket);
  socket.send(text);
  return answer;
}

describe('/ws malformed frames', () => {
  it('answers null, 1, "x", [], [null] and 1 MiB of "[" with JSON-RPC errors, as /rpc does, and keeps serving', async () => {
    const socket = await openWithToken(target, token);
    try {
      const bodies = ['null', '1', '"x"', '[]', '[null]', '{"jsonrpc":', '['.repeat(MAX_FRAME_BYTES)];
      // 1 MiB of "[" is nested far deeper than D-144 allows: -32600 before any parsing, on both transports.
      const expected = [-32600, -32600, -32600, -32600, [-32600], -32700, -32600];
      for (const [i, body] of bodies.entries()) {
        const answer = (await answerTo(socket, body)) as Answer | Answer[];
        const codes = Array.isArray(answer) ? answer.map((a) => a.error?.code) : answer.error?.code;
        expect(codes, `frame ${body.slice(0, 12)}`).toEqual(expected[i]);
        // The same body over HTTP /rpc gets the same error codes.
        const overHttp = (await request(target, 'rpc', { body, headers: { 'content-type': 'application/json' } }))
          .json as Answer | Answer[];
        expect(Array.isArray(overHttp) ? overHttp.map((a) => a.error?.code) : overHttp.error?.code).toEqual(
          expected[i],
        );
      }
      // The socket still serves requests, and so does /rpc.
      expect(
        (
          (await answerTo(socket, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }))) as {
            result: string;
          }
        ).result,
      ).toBe('0x10f447');
      expect(((await rpc(target, 'eth_chainId')).json as { result: string }).result).toBe('0x10f447');
    } finally {
      socket.close();
    }
  });

  it('closes the socket with 1009 on a frame over the 1 MiB cap (D-134), and /rpc still answers', async () => {
    const socket = await openWithToken(target, token);
    const closing = closed(socket);
    socket.send('['.repeat(MAX_FRAME_BYTES + 1));
    expect((await closing).code).toBe(1009);
    expect(((await rpc(target, 'eth_chainId')).json as { result: string }).result).toBe('0x10f447');
  });
});
