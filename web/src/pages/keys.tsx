/**
 * API keys (docs/api.md#secret-keys): the environment's keys, masked; roll them with a grace period for the old ones;
 * the new key shown once with a copy button. In live, the first live key is revealed here once
 * after approval (docs/live-access.md#review).
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { api } from '../api';
import { DataTable, ErrorBox, PageTitle, SecretOnce, StatusBadge, Time } from '../components';
import { ConfirmDialog } from '../dialog';
import { useEnv, useProfile } from '../layout';
import type { KeySummary } from '../types';
import { canBuild, needsStepUp, useRole } from '../security';
import { StepUpPrompt } from './step-up';

const column = createColumnHelper<KeySummary>();
const COLUMNS = [
  column.accessor('masked', { header: 'Key', cell: (info) => <span className="mono">{info.getValue()}</span> }),
  column.accessor('status', { header: 'Status', cell: (info) => <StatusBadge status={info.getValue()} /> }),
  column.accessor('created_at', { header: 'Created', cell: (info) => <Time value={info.getValue()} /> }),
  column.accessor('expires_at', { header: 'Expires', cell: (info) => <Time value={info.getValue()} /> }),
];

/** The keys screen. */
export function KeysPage() {
  const env = useEnv();
  const profile = useProfile();
  const role = useRole();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => api<{ keys: KeySummary[] }>('/v1/developer/keys') });
  const [hours, setHours] = useState('24');
  const [confirming, setConfirming] = useState(false);
  const roll = useMutation({
    mutationFn: () =>
      api<{ key: { id: string; secret: string }; previous_keys_expire_at: string }>(`/v1/developer/keys/${env}/roll`, {
        body: { expires_in_hours: Number(hours) },
      }),
    onSettled: () => {
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  const reveal = useMutation({
    mutationFn: () => api<{ id: string; secret: string }>('/v1/developer/live-access/live-key', { body: {} }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['keys'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    roll.reset();
    setConfirming(true);
  };
  const rows = keys.data?.keys.filter((key) => key.environment === env) ?? [];
  return (
    <section>
      <PageTitle>API keys</PageTitle>
      <ErrorBox error={keys.error} />
      {keys.data ? (
        <DataTable
          caption={`Secret keys (${env})`}
          columns={COLUMNS}
          rows={rows}
          empty={`No ${env} key yet.`}
          testId="keys-table"
        />
      ) : (
        <p>Loading…</p>
      )}

      {env === 'live' && profile.data?.has_live_access ? (
        <div className="panel">
          <h2>First live key</h2>
          <p>The live key created at approval is shown once, here.</p>
          <button type="button" onClick={() => reveal.mutate()} disabled={reveal.isPending}>
            Reveal the first live key
          </button>
          <ErrorBox error={reveal.error} />
          {reveal.data ? (
            <SecretOnce label="Live secret key" value={reveal.data.secret} onDismiss={() => reveal.reset()} />
          ) : null}
        </div>
      ) : null}

      {/* Viewers read keys but never change them (docs/security.md#roles). */}
      <form onSubmit={submit} className="panel" aria-labelledby="roll-title" hidden={!canBuild(role)}>
        <h2 id="roll-title">Roll the {env} keys</h2>
        <p>A new key is made; the current ones keep working for the grace period, then stop.</p>
        <label htmlFor="grace-hours">Grace period for the old keys, in hours (0 = stop now)</label>
        <input
          id="grace-hours"
          type="number"
          min={0}
          max={720}
          step={1}
          required
          value={hours}
          onChange={(e) => setHours(e.target.value)}
        />
        <button type="submit" className="primary">
          Roll keys…
        </button>
        <ErrorBox error={roll.error} />
      </form>
      {needsStepUp(roll.error) ? <StepUpPrompt onConfirmed={() => roll.mutate()} /> : null}
      {roll.data ? (
        <div className="panel">
          <SecretOnce label={`New ${env} secret key`} value={roll.data.key.secret} onDismiss={() => roll.reset()} />
          <p>
            The previous keys stop at <Time value={roll.data.previous_keys_expire_at} />.
          </p>
        </div>
      ) : null}
      <ConfirmDialog
        open={confirming}
        title={`Roll the ${env} keys?`}
        confirmLabel="Roll keys"
        busy={roll.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => roll.mutate()}
      >
        <p>
          {Number(hours) === 0
            ? 'The current keys stop working now.'
            : `The current keys stop working in ${hours} hours.`}{' '}
          Update your integration with the new key before then.
        </p>
      </ConfirmDialog>
    </section>
  );
}
