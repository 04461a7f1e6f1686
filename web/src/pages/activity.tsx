/**
 * The audit log (`GET /v1/developer/activity`, docs/live-access.md#audit-log, docs/security.md#activity-log): who did
 * what, when, from where; newest first. Filters by action and by actor (a team member or an API key), kept in the URL
 * so a filtered log can be bookmarked; the API does the filtering (`?action=`, `?actor=`).
 */
import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useSearchParams } from 'react-router';
import { AUDIT_ACTIONS } from '../../../src/domain/audit-log';
import { ID_PREFIXES } from '../../../src/domain/ids';
import { api, type Environment } from '../api';
import {
  activeFilters,
  DataTable,
  ErrorBox,
  FilterActions,
  FilterSelect,
  IdText,
  ListFilters,
  PageTitle,
  Pager,
  Time,
  withoutFilter,
} from '../components';
import { useEnv } from '../layout';
import { useTeam, type ListedKey } from '../security';
import type { AuditEntry, Pagination } from '../types';

/** The actions, alphabetically, for the filter. */
const ACTIONS = [...AUDIT_ACTIONS].sort();

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

/** `id` (after `label`, when given) as a link to its screen when it has one, else as text. */
function IdLink({ env, id, label }: { env: Environment; id: string; label?: string }) {
  return <IdText id={id} to={screenOf(env, id)} text={label ? `${label} ${id}` : id} />;
}

/** The filters' names as their chips show them. */
const FILTER_NAMES = { action: 'Action', actor: 'By' };

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

/** Who may have acted, for the actor filter: the team's people and the merchant's keys, by id. */
function useActors(): { value: string; label: string }[] {
  const team = useTeam();
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => api<{ keys: ListedKey[] }>('/v1/developer/keys') });
  return [
    ...(team.data?.members ?? []).map((member) => ({
      value: member.developer_id,
      label: `${member.name} (${member.email})`,
    })),
    ...(keys.data?.keys ?? []).map((key) => ({
      value: key.id,
      label: `${key.name ?? `${key.kind} key`} ${key.environment} …${key.last4}`,
    })),
  ];
}

/** The activity screen. */
export function ActivityPage() {
  const env = useEnv();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
  const action = params.get('action') ?? '';
  const actor = params.get('actor') ?? '';
  const [draft, setDraft] = useState({ action, actor });
  const actors = useActors();
  const activity = useQuery({
    queryKey: ['activity', env, page, action, actor],
    queryFn: () =>
      api<{ activity: AuditEntry[]; pagination: Pagination }>('/v1/developer/activity', {
        env,
        query: { page, limit: PAGE_SIZE, action: action || undefined, actor: actor || undefined },
      }),
    placeholderData: keepPreviousData,
  });
  /** Sets the filters (and the page) in the URL, leaving out the empty ones. */
  const show = (filters: { action: string; actor: string }, nextPage = 1) => {
    const next = new URLSearchParams();
    if (filters.action) next.set('action', filters.action);
    if (filters.actor) next.set('actor', filters.actor);
    if (nextPage > 1) next.set('page', String(nextPage));
    setParams(next);
  };
  const apply = (event: FormEvent) => {
    event.preventDefault();
    show(draft);
  };
  const filtered = Boolean(action || actor);
  const remove = (name: string) => {
    setParams(withoutFilter(params, name, ['page']));
    setDraft({ ...draft, [name]: '' });
  };
  // An actor's chip names the member or key, as the filter offers them (the id when no longer listed).
  const active = activeFilters(params, FILTER_NAMES, (name, value) =>
    name === 'actor' ? (actors.find((candidate) => candidate.value === value)?.label ?? value) : value,
  );
  return (
    <section>
      <PageTitle>Activity</PageTitle>
      <ListFilters id="activity-filters" label="Filter activity" active={active} onRemove={remove} onSubmit={apply}>
        <FilterSelect
          id="activity-action"
          label="Action"
          value={draft.action}
          onChange={(value) => setDraft({ ...draft, action: value })}
          options={ACTIONS}
        />
        <FilterSelect
          id="activity-actor"
          label="By"
          any="Anyone"
          value={draft.actor}
          onChange={(value) => setDraft({ ...draft, actor: value })}
          options={actors}
        >
          {/* An actor named by a bookmarked URL but no longer listed (a removed member, a revoked key). */}
          {draft.actor && !actors.some((candidate) => candidate.value === draft.actor) ? (
            <option value={draft.actor}>{draft.actor}</option>
          ) : null}
        </FilterSelect>
        <FilterActions
          onClear={() => {
            setDraft({ action: '', actor: '' });
            show({ action: '', actor: '' });
          }}
        />
      </ListFilters>
      <ErrorBox error={activity.error} />
      {activity.data ? (
        <>
          <DataTable
            caption={`Activity log (${env}), newest first`}
            columns={columns(env)}
            rows={activity.data.activity}
            empty={filtered ? 'No entry matches these filters.' : 'Nothing happened yet.'}
            testId="activity-table"
          />
          <Pager
            page={page}
            totalPages={activity.data.pagination.total_pages}
            total={activity.data.pagination.total}
            onPage={(next) => show({ action, actor }, next)}
          />
        </>
      ) : (
        <p>Loading…</p>
      )}
    </section>
  );
}
