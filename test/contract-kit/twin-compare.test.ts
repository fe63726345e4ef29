import { runBin } from './harness';
import { startStaging, STAGING_VARIANTS } from './staging';

/**
 * `messaging-contract twin compare`: a client's session on a server and on another, answer beside
 * answer, by form only: the same server twice (other tokens, other ids, other clocks) answers
 * alike; two servers of other conventions do not, and each difference is named.
 */
describe('messaging-contract twin compare', () => {
  it('finds nothing between a server and itself, and names what differs between two servers; 2 when a side does not answer', async () => {
    const [a, b] = STAGING_VARIANTS;
    const server = await startStaging(a!.options);
    const other = await startStaging(b!.options);
    try {
      const same = await runBin([
        'twin',
        'compare',
        '--server',
        server.url,
        '--twin',
        server.url,
        '--token',
        'cmp-1',
        '--twin-token',
        'cmp-2',
      ]);
      expect({ code: same.code, tail: same.output.trim().split('\n').at(-1) }).toEqual({
        code: 0,
        tail: '17 of 17 steps answered alike (server ≠ twin above).',
      });

      const apart = await runBin([
        'twin',
        'compare',
        '--server',
        server.url,
        '--twin',
        other.url,
        '--token',
        'cmp-3',
      ]);
      expect(apart.code).toBe(1);
      // Hex ids beside UUIDs (of the whole session, as the kit infers a profile's), and a
      // refusal's body of another form.
      expect(apart.output).toMatch(/\ncontact ids: string hex of \d+(?: to \d+)? ≠ string uuid\n/);
      expect(apart.output).toMatch(/\n3\. a create without phone_number, refused \(POST \/v1\/contacts\):\n/);
      expect(apart.output).toMatch(/steps answered alike \(server ≠ twin above\)/);

      const nobody = await runBin([
        'twin',
        'compare',
        '--server',
        'http://127.0.0.1:9',
        '--twin',
        server.url,
        '--token',
        'cmp-4',
      ]);
      expect({ code: nobody.code, output: nobody.output }).toEqual({
        code: 2,
        output: expect.stringContaining('the server did not answer'),
      });
    } finally {
      await server.close();
      await other.close();
    }
  }, 180_000);
});
