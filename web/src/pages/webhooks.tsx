/**
 * Webhook endpoints of the environment (`/v1/developer/webhooks`, docs/webhooks.md#endpoints,
 * docs/webhooks.md#targets): the list and the
 * form that registers one; the signing secret is shown once, right after.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import { api, type Environment } from '../api';
import { DataTable, ErrorBox, PageTitle, SecretOnce, StatusBadge, Time } from '../components';
import { useEnv } from '../layout';
import { EVENT_NAMES, type Webhook } from '../types';
import { canBuild, useRole } from '../security';

const column = createColumnHelper<Webhook>();

function columns(env: Environment) {
  return [
    column.accessor('url', {
      header: 'Endpoint',
      cell: (info) => (
        <Link to={`/${env}/webhooks/${info.row.original.id}`} className="mono">
          {info.getValue()}
        </Link>
      ),
    }),
    column.accessor('status', { header: 'Status', cell: (info) => <StatusBadge status={info.getValue()} /> }),
    column.accessor('events', { header: 'Events', cell: (info) => info.getValue().join(', ') }),
    column.accessor('description', { header: 'Description', cell: (info) => info.getValue() ?? '—' }),
    column.accessor('created_at', { header: 'Created', cell: (info) => <Time value={info.getValue()} /> }),
  ];
}

/** Checkboxes for the subscribed event names. */
export function EventPicker({
  value,
  onChange,
  idPrefix,
}: {
  value: string[];
  onChange: (events: string[]) => void;
  idPrefix: string;
}) {
  return (
    <fieldset>
      <legend>Events</legend>
      {EVENT_NAMES.map((name) => (
        <div key={name} className="check">
          <input
            type="checkbox"
            id={`${idPrefix}-${name}`}
            checked={value.includes(name)}
            onChange={(e) => onChange(e.target.checked ? [...value, name] : value.filter((v) => v !== name))}
          />
          <label htmlFor={`${idPrefix}-${name}`}>{name}</label>
        </div>
      ))}
    </fieldset>
  );
}

/** The webhooks screen. */
export function WebhooksPage() {
  const env = useEnv();
  const role = useRole();
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: ['webhooks', env],
    queryFn: () => api<{ webhooks: Webhook[] }>('/v1/developer/webhooks', { env }),
  });
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(['payment.completed', 'payment.failed', 'refund.completed']);
  const create = useMutation({
    mutationFn: () =>
      api<Webhook & { secret: string }>('/v1/developer/webhooks', {
        env,
        body: { url, events, ...(description ? { description } : {}) },
      }),
    onSuccess: () => {
      setUrl('');
      setDescription('');
      void queryClient.invalidateQueries({ queryKey: ['webhooks', env] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <section>
      <PageTitle>Webhooks</PageTitle>
      <ErrorBox error={list.error} />
      {list.data ? (
        <DataTable
          caption={`Webhook endpoints (${env})`}
          columns={columns(env)}
          rows={list.data.webhooks}
          empty="No webhook endpoint yet."
          testId="webhooks-table"
        />
      ) : (
        <p>Loading…</p>
      )}

      <form onSubmit={submit} className="panel" aria-labelledby="new-webhook" hidden={!canBuild(role)}>
        <h2 id="new-webhook">Add an endpoint</h2>
        <label htmlFor="webhook-url">URL</label>
        <input
          id="webhook-url"
          type="text"
          inputMode="url"
          required
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          aria-describedby="webhook-url-hint"
        />
        <p id="webhook-url-hint" className="hint">
          {env === 'live' ? 'Live endpoints must use https.' : 'Sandbox endpoints may use http.'}
        </p>
        <label htmlFor="webhook-description">Description (optional)</label>
        <input
          id="webhook-description"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          maxLength={500}
        />
        <EventPicker value={events} onChange={setEvents} idPrefix="new-event" />
        <ErrorBox error={create.error} />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add endpoint'}
        </button>
      </form>
      {create.data ? (
        <div className="panel">
          <p>
            Endpoint <Link to={`/${env}/webhooks/${create.data.id}`}>{create.data.id}</Link> added.
          </p>
          <SecretOnce label="Signing secret" value={create.data.secret} onDismiss={() => create.reset()} />
        </div>
      ) : null}
    </section>
  );
}
