/**
 * The audit log (`GET /v1/developer/activity`, docs/live-access.md#audit-log): who did what, when, from where; newest
 * first.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useSearchParams } from 'react-router';
import { ID_PREFIXES } from '../../../src/domain/ids';
import { api, type Environment } from '../api';
import { DataTable, ErrorBox, PageTitle, Pager, Time } from '../components';
import { useEnv } from '../layout';
import type { AuditEntry, Pagination } from '../types';

const PAGE_SIZE = 25;
const column = createColumnHelper<AuditEntry>();

/** The screen that shows the resource `id` (by its prefix, src/domain/ids.ts), or undefined when none does. */
function screenOf(env: Environment, id: string): string | undefined {
  const prefix = id.slice(0, id.indexOf('_') + 1);
  switch (prefix) {
    case ID_PREFIXES.payment:
      return `/${env}/payments/${encodeURIComponent(id)}`;
    // A refund is a row of the payments list, found by its id.
    case ID_PREFIXES.refund:
      return `/${env}/payments?q=${encodeURIComponent(id)}`;
    case ID_PREFIXES.webhook:
      return `/${env}/webhooks/${encodeURIComponent(id)}`;
    case ID_PREFIXES.apiKey:
      return `/${env}/keys`;
    case ID_PREFIXES.document:
    case ID_PREFIXES.liveAccessRequest:
      return `/${env}/go-live`;
    case ID_PREFIXES.developer:
    case ID_PREFIXES.merchant:
      return `/${env}/profile`;
    default:
      return undefined;
  }
}

/** `id` as a link to its screen when it has one, else as text. */
function IdLink({ env, id, label }: { env: Environment; id: string; label?: string }) {
  const to = screenOf(env, id);
  const text = label ? `${label} ${id}` : id;
  return to ? (
    <Link to={to} className="mono">
      {text}
    </Link>
  ) : (
    <span className="mono">{text}</span>
  );
}

function columns(env: Environment) {
  return [
    column.accessor('created_at', { header: 'When', cell: (info) => <Time value={info.getValue()} /> }),
    column.accessor('action', { header: 'Action', cell: (info) => <code>{info.getValue()}</code> }),
    column.accessor('target', { header: 'Target', cell: (info) => <IdLink env={env} id={info.getValue()} /> }),
    column.accessor('actor', {
      header: 'By',
      cell: (info) => {
        const actor = info.getValue();
        // A reviewer, an operator or the system has no screen of the merchant's.
        return actor.type === 'developer' || actor.type === 'api_key' ? (
          <IdLink env={env} id={actor.id} label={ACTOR_LABELS[actor.type]} />
        ) : (
          `${ACTOR_LABELS[actor.type]} ${actor.id}`
        );
      },
    }),
    column.accessor('ip', { header: 'IP address', cell: (info) => info.getValue() ?? '—' }),
  ];
}

const ACTOR_LABELS: Record<AuditEntry['actor']['type'], string> = {
  developer: 'developer',
  api_key: 'API key',
  reviewer: 'reviewer',
  operator: 'operator',
  system: 'system',
};

/** The activity screen. */
export function ActivityPage() {
  const env = useEnv();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
  const activity = useQuery({
    queryKey: ['activity', env, page],
    queryFn: () =>
      api<{ activity: AuditEntry[]; pagination: Pagination }>('/v1/developer/activity', {
        env,
        query: { page, limit: PAGE_SIZE },
      }),
    placeholderData: keepPreviousData,
  });
  return (
    <section>
      <PageTitle>Activity</PageTitle>
      <ErrorBox error={activity.error} />
      {activity.data ? (
        <>
          <DataTable
            caption={`Activity log (${env}), newest first`}
            columns={columns(env)}
            rows={activity.data.activity}
            empty="Nothing happened yet."
            testId="activity-table"
          />
          <Pager
            page={page}
            totalPages={activity.data.pagination.total_pages}
            total={activity.data.pagination.total}
            onPage={(next) => setParams({ page: String(next) })}
          />
        </>
      ) : (
        <p>Loading…</p>
      )}
    </section>
  );
}
