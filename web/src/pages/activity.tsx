/**
 * The audit log (`GET /v1/developer/activity`, docs/live-access.md#audit-log): who did what, when, from where; newest
 * first.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useSearchParams } from 'react-router';
import { api } from '../api';
import { DataTable, ErrorBox, PageTitle, Pager, Time } from '../components';
import { useEnv } from '../layout';
import type { AuditEntry, Pagination } from '../types';

const PAGE_SIZE = 25;
const column = createColumnHelper<AuditEntry>();
const COLUMNS = [
  column.accessor('created_at', { header: 'When', cell: (info) => <Time value={info.getValue()} /> }),
  column.accessor('action', { header: 'Action', cell: (info) => <code>{info.getValue()}</code> }),
  column.accessor('target', { header: 'Target', cell: (info) => <span className="mono">{info.getValue()}</span> }),
  column.accessor((row) => `${row.actor.type} ${row.actor.id}`, { id: 'actor', header: 'By' }),
  column.accessor('ip', { header: 'IP address', cell: (info) => info.getValue() ?? '—' }),
];

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
            columns={COLUMNS}
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
