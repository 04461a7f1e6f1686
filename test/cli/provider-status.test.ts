/**
 * The admin command's `provider` group (docs/availability.md#overrides) against the real stack: an operator's status
 * with its reason shows in `GET /v1/availability` until cleared; what the environment does not serve is refused
 * naming the field, and nothing changes.
 */
import { expect } from 'chai';
import { runAdmin } from '../../src/cli/admin';
import { call, registerDeveloper } from '../helpers/http';

/** Runs the admin command in-process and captures what it printed. */
async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runAdmin(args, { out: (text) => void (out += text), err: (text) => void (err += text) });
  return { code, out, err };
}

describe('admin provider status (docs/availability.md#overrides)', function () {
  this.timeout(60_000);

  it("sets an operator's status with a reason until cleared, and merchants see it", async () => {
    const developer = await registerDeveloper();
    const momoGh = async () =>
      (
        (await call('/v1/availability', { key: developer.key })).body.data.availability as Record<string, unknown>[]
      ).find((row) => row.provider === 'momo' && row.country === 'GH' && row.operation === 'payout');
    const key = ['momo', 'gh', 'payout', '--environment', 'sandbox'];
    try {
      const set = await admin(
        'provider',
        'set-status',
        ...key,
        '--status',
        'down',
        '--reason',
        'MTN Ghana maintenance',
      );
      expect(set, set.err).to.deep.include({ code: 0, out: 'momo GH payout (sandbox): operational → down\n' });
      expect(await momoGh()).to.deep.include({ status: 'down', reason: 'MTN Ghana maintenance' });
      const listed = await admin('provider', 'status', '--environment', 'sandbox');
      expect(listed.out).to.match(/momo\s+GH\s+payout\s+down\s.*MTN Ghana maintenance/);

      const cleared = await admin('provider', 'clear-status', ...key);
      expect(cleared.out).to.equal('momo GH payout (sandbox): down → operational\n');
      expect(await momoGh()).to.deep.include({ status: 'operational', reason: null });
    } finally {
      await admin('provider', 'clear-status', ...key);
    }
  });

  it('refuses what the environment does not serve, naming the field, and changes nothing', async () => {
    const developer = await registerDeveloper();
    const before = (await call('/v1/availability', { key: developer.key })).body.data;
    const unknown = await admin(
      'provider',
      'set-status',
      'nope',
      'RW',
      'collection',
      '--status',
      'down',
      '--reason',
      'x',
    );
    expect(unknown).to.deep.include({ code: 1 });
    expect(unknown.err).to.match(/^error: provider: /);
    const country = await admin(
      'provider',
      'set-status',
      'mpesa',
      'RW',
      'collection',
      '--status',
      'down',
      '--reason',
      'x',
    );
    expect(country.err).to.match(/^error: country: /);
    const operation = await admin(
      'provider',
      'set-status',
      'momo',
      'RW',
      'settle',
      '--status',
      'down',
      '--reason',
      'x',
    );
    expect(operation.code).to.not.equal(0);
    expect(operation.err).to.contain('operation');
    const noReason = await admin('provider', 'set-status', 'momo', 'RW', 'collection', '--status', 'down');
    expect(noReason.code).to.not.equal(0);
    expect(noReason.err).to.contain('--reason');
    expect((await call('/v1/availability', { key: developer.key })).body.data).to.deep.equal(before);
  });
});
