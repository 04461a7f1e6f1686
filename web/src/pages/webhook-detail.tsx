/**
 * One webhook endpoint (docs/webhooks.md): edit, enable or disable, delete, send a test event, rotate the
 * signing secret (shown once), and its deliveries with every attempt (time, status code, duration,
 * response excerpt), what it sent (headers and body) and a resend button.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../api';
import { ErrorBox, Notice, PageTitle, Pager, SecretOnce, StatusBadge, Time } from '../components';
import { ConfirmDialog } from '../dialog';
import { useEnv } from '../layout';
import type { Delivery, Pagination, Webhook } from '../types';
import { EventPicker } from './webhooks';

const PAGE_SIZE = 10;
const EXCERPT = 200;

/** An event as `GET /v1/developer/events/{id}` answers it. */
interface EventView {
  id: string;
  object: 'event';
  event: string;
  created_at: string;
  data: unknown;
}

/**
 * What a delivery sent (docs/webhooks.md#signatures): its headers and its JSON body, the event without its
 * `object` field; read when the merchant opens it. The signatures are described, never recomputed here: they need
 * the secret.
 */
function DeliveryPayload({ delivery }: { delivery: Delivery }) {
  const env = useEnv();
  const [open, setOpen] = useState(false);
  const event = useQuery({
    queryKey: ['event', env, delivery.event_id],
    queryFn: () => api<EventView>(`/v1/developer/events/${encodeURIComponent(delivery.event_id)}`, { env }),
    // A test event is sent, not stored (docs/webhooks.md#test): there is nothing to read.
    enabled: open && delivery.event !== 'webhook.test',
    staleTime: Infinity,
  });
  const body = event.data
    ? { id: event.data.id, event: event.data.event, created_at: event.data.created_at, data: event.data.data }
    : undefined;
  return (
    <details className="payload" onToggle={(e) => setOpen(e.currentTarget.open)} data-testid="delivery-payload">
      <summary>Payload and headers</summary>
      <table className="compact">
        <caption className="visually-hidden">Headers of delivery {delivery.id}</caption>
        <tbody>
          {[
            ['Content-Type', 'application/json'],
            ['User-Agent', 'paycollect-webhooks/1.0'],
            ['webhook-id', delivery.event_id],
            ['webhook-timestamp', 'the Unix seconds of each attempt'],
            ['webhook-signature', "v1,… (Standard Webhooks, with the endpoint's secret)"],
            ['X-Webhook-Signature', "sha256=… (HMAC-SHA256 of the body, with the endpoint's secret)"],
          ].map(([name, value]) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td className="mono">{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {delivery.event === 'webhook.test' ? (
        <p className="hint">
          A test event is not kept: its body was{' '}
          <code>{'{id, event: "webhook.test", created_at, data: {webhook_id}}'}</code>.
        </p>
      ) : null}
      <ErrorBox error={event.error} />
      {event.isFetching && !body ? <p>Loading…</p> : null}
      {body ? (
        <pre className="mono" data-testid="delivery-body" tabIndex={0} aria-label={`Body of delivery ${delivery.id}`}>
          {JSON.stringify(body, null, 2)}
        </pre>
      ) : null}
    </details>
  );
}

/** The webhook detail screen. */
export function WebhookDetailPage() {
  const env = useEnv();
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const path = `/v1/developer/webhooks/${encodeURIComponent(id)}`;
  const [page, setPage] = useState(1);
  const webhook = useQuery({ queryKey: ['webhook', env, id], queryFn: () => api<Webhook>(path, { env }) });
  const deliveries = useQuery({
    queryKey: ['deliveries', env, id, page],
    queryFn: () =>
      api<{ deliveries: Delivery[]; pagination: Pagination }>(`${path}/deliveries`, {
        env,
        query: { page, limit: PAGE_SIZE },
      }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.deliveries.some((d) => d.status === 'pending') ? 2_000 : false),
  });
  const [form, setForm] = useState<{ url: string; description: string; events: string[] } | undefined>();
  useEffect(() => {
    if (webhook.data && !form)
      setForm({ url: webhook.data.url, description: webhook.data.description ?? '', events: webhook.data.events });
  }, [webhook.data, form]);
  const [confirm, setConfirm] = useState<'delete' | 'rotate' | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['webhook', env, id] });
    void queryClient.invalidateQueries({ queryKey: ['webhooks', env] });
    void queryClient.invalidateQueries({ queryKey: ['deliveries', env, id] });
  };

  const update = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<Webhook>(path, { env, method: 'PUT', body }),
    onSuccess: (updated) => {
      setNotice(`Saved: the endpoint is ${updated.status}.`);
      setForm({ url: updated.url, description: updated.description ?? '', events: updated.events });
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => api(path, { env, method: 'DELETE', body: {} }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['webhooks', env] });
      void navigate(`/${env}/webhooks`);
    },
    onSettled: () => setConfirm(undefined),
  });
  const test = useMutation({
    mutationFn: () =>
      api<{ delivered: boolean; status_code: number | null; duration_ms: number; error: string | null }>(
        `${path}/test`,
        { env, body: {} },
      ),
    onSuccess: () => refresh(),
  });
  const rotate = useMutation({
    mutationFn: () => api<Webhook & { secret: string }>(`${path}/rotate-secret`, { env, body: {} }),
    onSettled: () => setConfirm(undefined),
  });
  const resend = useMutation({
    mutationFn: (deliveryId: string) =>
      api<Delivery>(`${path}/deliveries/${encodeURIComponent(deliveryId)}/retry`, { env, body: {} }),
    onSuccess: (made) => {
      setNotice(`Resent as delivery ${made.id}.`);
      setPage(1);
      refresh();
    },
  });

  if (webhook.isPending) return <p>Loading…</p>;
  if (webhook.error) {
    return (
      <section>
        <PageTitle>Webhook {id}</PageTitle>
        <ErrorBox error={webhook.error} />
      </section>
    );
  }
  const current = webhook.data;
  const save = (event: FormEvent) => {
    event.preventDefault();
    if (!form) return;
    setNotice(undefined);
    update.mutate({ url: form.url, events: form.events, description: form.description || null });
  };

  return (
    <section>
      <p>
        <Link to={`/${env}/webhooks`}>← Webhooks</Link>
      </p>
      <PageTitle>Webhook {current.id}</PageTitle>
      <p>
        <span className="mono">{current.url}</span> · <StatusBadge status={current.status} />
      </p>
      <div className="actions">
        <button
          type="button"
          onClick={() => update.mutate({ status: current.status === 'enabled' ? 'disabled' : 'enabled' })}
          disabled={update.isPending}
        >
          {current.status === 'enabled' ? 'Disable' : 'Enable'}
        </button>
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
          {test.isPending ? 'Sending…' : 'Send test event'}
        </button>
        <button type="button" onClick={() => setConfirm('rotate')}>
          Rotate secret…
        </button>
        <button type="button" className="danger" onClick={() => setConfirm('delete')}>
          Delete…
        </button>
      </div>
      {notice ? <Notice>{notice}</Notice> : null}
      <ErrorBox error={update.error ?? test.error ?? rotate.error ?? remove.error ?? resend.error} />
      {test.data ? (
        <Notice>
          Test event {test.data.delivered ? 'delivered' : 'not delivered'}: {test.data.status_code ?? 'no answer'} in{' '}
          {test.data.duration_ms} ms{test.data.error ? ` (${test.data.error})` : ''}.
        </Notice>
      ) : null}
      {rotate.data ? (
        <SecretOnce label="New signing secret" value={rotate.data.secret} onDismiss={() => rotate.reset()} />
      ) : null}

      {form ? (
        <form onSubmit={save} className="panel" aria-labelledby="edit-webhook">
          <h2 id="edit-webhook">Edit</h2>
          <label htmlFor="edit-url">URL</label>
          <input id="edit-url" value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} required />
          <label htmlFor="edit-description">Description</label>
          <input
            id="edit-description"
            value={form.description}
            onChange={(e) => setForm({ ...form, description: e.target.value })}
            maxLength={500}
          />
          <EventPicker value={form.events} onChange={(events) => setForm({ ...form, events })} idPrefix="edit-event" />
          <button type="submit" className="primary" disabled={update.isPending}>
            Save
          </button>
        </form>
      ) : null}

      <h2>Deliveries</h2>
      <ErrorBox error={deliveries.error} />
      {deliveries.data ? (
        <>
          <ul className="delivery-list" data-testid="deliveries">
            {deliveries.data.deliveries.length === 0 ? <li>No delivery yet.</li> : null}
            {deliveries.data.deliveries.map((delivery) => (
              <li key={delivery.id} data-testid="delivery" data-delivery-id={delivery.id}>
                <p>
                  <strong>{delivery.event}</strong> <code>{delivery.id}</code> <StatusBadge status={delivery.status} />{' '}
                  · created <Time value={delivery.created_at} />
                  {delivery.retry_of ? (
                    <>
                      {' '}
                      · resend of <code>{delivery.retry_of}</code>
                    </>
                  ) : null}
                </p>
                <div className="table-wrap">
                  <table className="attempts-table">
                    <caption className="visually-hidden">Attempts of delivery {delivery.id}</caption>
                    <thead>
                      <tr>
                        <th scope="col">#</th>
                        <th scope="col">Time</th>
                        <th scope="col">Status code</th>
                        <th scope="col">Duration</th>
                        <th scope="col">Response (excerpt)</th>
                      </tr>
                    </thead>
                    <tbody>
                      {delivery.attempts.length === 0 ? (
                        <tr>
                          <td colSpan={5} className="empty">
                            No attempt yet{delivery.next_attempt_at ? '' : '.'}
                          </td>
                        </tr>
                      ) : null}
                      {delivery.attempts.map((attempt) => (
                        <tr key={attempt.attempt}>
                          <td data-label="#">{attempt.attempt}</td>
                          <td data-label="Time">
                            <Time value={attempt.attempted_at} />
                          </td>
                          <td data-label="Status code">{attempt.status_code ?? '—'}</td>
                          <td data-label="Duration" className="num">
                            {attempt.duration_ms} ms
                          </td>
                          <td data-label="Response (excerpt)" className="mono excerpt">
                            {attempt.error ?? (attempt.response_body ?? '').slice(0, EXCERPT)}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                {delivery.next_attempt_at ? (
                  <p className="hint">
                    Next attempt at <Time value={delivery.next_attempt_at} />
                  </p>
                ) : null}
                <DeliveryPayload delivery={delivery} />
                {delivery.event !== 'webhook.test' ? (
                  <button
                    type="button"
                    onClick={() => resend.mutate(delivery.id)}
                    disabled={resend.isPending}
                    aria-label={`Resend delivery ${delivery.id}`}
                  >
                    Resend
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
          <Pager
            page={page}
            totalPages={deliveries.data.pagination.total_pages}
            total={deliveries.data.pagination.total}
            onPage={setPage}
          />
        </>
      ) : null}

      <ConfirmDialog
        open={confirm === 'rotate'}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        busy={rotate.isPending}
        onCancel={() => setConfirm(undefined)}
        onConfirm={() => rotate.mutate()}
      >
        <p>Deliveries are signed with the new secret from now on; update your endpoint's verification.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'delete'}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        danger
        busy={remove.isPending}
        onCancel={() => setConfirm(undefined)}
        onConfirm={() => remove.mutate()}
      >
        <p>No more events are sent to {current.url}.</p>
      </ConfirmDialog>
    </section>
  );
}
