/**
 * Restricted keys (docs/security.md#restricted-keys): keys of this environment that hold only some scopes; create
 * one (shown once), roll it, revoke it. Viewers see the list only.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api';
import { ErrorBox, PageTitle, SecretOnce, StatusBadge, Time } from '../components';
import { useEnv } from '../layout';
import { canBuild, needsStepUp, SCOPES, useRole, type ListedKey } from '../security';
import { StepUpPrompt } from './step-up';

interface Issued {
  key: ListedKey & { secret: string };
}

/** The restricted keys screen. */
export function RestrictedKeysPage() {
  const env = useEnv();
  const role = useRole();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => api<{ keys: ListedKey[] }>('/v1/developer/keys') });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['keys'] });
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [shown, setShown] = useState<string>();
  const create = useMutation({
    mutationFn: () => api<Issued>('/v1/developer/keys', { body: { name, environment: env, scopes } }),
    onSuccess: (issued) => {
      setShown(issued.key.secret);
      setName('');
      setScopes([]);
      refresh();
    },
  });
  const roll = useMutation({
    mutationFn: (id: string) =>
      api<Issued>(`/v1/developer/keys/restricted/${id}/roll`, { body: { expires_in_hours: 0 } }),
    onSuccess: (issued) => {
      setShown(issued.key.secret);
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api<ListedKey>(`/v1/developer/keys/${id}`, { method: 'DELETE' }),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const rows = keys.data?.keys.filter((key) => key.kind === 'restricted' && key.environment === env) ?? [];
  const build = canBuild(role);
  const error = create.error ?? roll.error ?? revoke.error;
  return (
    <section>
      <PageTitle>Restricted keys</PageTitle>
      <p>Keys for a server or a partner that may do only part of what your secret key can.</p>
      <ErrorBox error={keys.error} />
      {shown ? (
        <SecretOnce label="Your new restricted key" value={shown} onDismiss={() => setShown(undefined)} />
      ) : null}
      <table data-testid="restricted-keys-table">
        <caption>Restricted keys ({env})</caption>
        <thead>
          <tr>
            <th>Name</th>
            <th>Key</th>
            <th>Scopes</th>
            <th>Status</th>
            <th>Created</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td className="mono">{key.masked}</td>
              <td>{key.scopes?.join(', ')}</td>
              <td>
                <StatusBadge status={key.status} />
              </td>
              <td>
                <Time value={key.created_at} />
              </td>
              <td>
                {build && key.status !== 'revoked' && key.status !== 'expired' ? (
                  <>
                    <button type="button" onClick={() => roll.mutate(key.id)}>
                      Roll
                    </button>
                    <button type="button" onClick={() => revoke.mutate(key.id)}>
                      Revoke
                    </button>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && keys.data ? <p>No restricted {env} key yet.</p> : null}
      <ErrorBox error={needsStepUp(error) ? undefined : error} />
      {needsStepUp(error) ? <StepUpPrompt onConfirmed={() => create.reset()} /> : null}
      {build ? (
        <form onSubmit={submit} data-testid="restricted-key-form">
          <h2>New restricted key</h2>
          <label htmlFor="rk-name">Name</label>
          <input id="rk-name" required value={name} onChange={(e) => setName(e.target.value)} />
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label key={scope} className="check">
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
                />{' '}
                {scope}
              </label>
            ))}
          </fieldset>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create key
          </button>
        </form>
      ) : null}
    </section>
  );
}
