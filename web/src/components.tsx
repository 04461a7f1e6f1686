/**
 * Shared pieces of the screens: the API's error as it came, a secret shown once with a copy button, a table (TanStack
 * Table), list filters and page links, the logo. The confirmation dialog is dialog.tsx.
 */
import {
  createContext,
  useContext,
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type FormEvent,
  type ReactNode,
} from 'react';
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import { ApiError } from './api';
import type { Payment } from './types';

/**
 * One filter of a list: a labelled `<select>` whose first choice (value `''`) is `any`, then `options` (a value, shown
 * as itself or with a label); `children` adds choices after them.
 */
export function FilterSelect({
  id,
  label,
  value,
  onChange,
  options,
  any = 'Any',
  children,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly (string | { value: string; label: string })[];
  any?: string;
  children?: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{any}</option>
        {options.map((option) => {
          const { value: optionValue, label: text } =
            typeof option === 'string' ? { value: option, label: option } : option;
          return (
            <option key={optionValue} value={optionValue}>
              {text}
            </option>
          );
        })}
        {children}
      </select>
    </div>
  );
}

/** One active filter of a list: its URL parameter, what the chip says and its accessible name. */
export interface ActiveFilter {
  name: string;
  label: string;
}

/**
 * The bar above a list: a "Filter" button that shows or hides the filter form `controls` on a phone (on wider screens
 * the form is always there and the button hidden, styles.css), and the active filters as chips, each removing its
 * filter when pressed.
 */
export function FilterBar({
  controls,
  open,
  onToggle,
  active,
  onRemove,
}: {
  controls: string;
  open: boolean;
  onToggle: () => void;
  active: ActiveFilter[];
  onRemove: (name: string) => void;
}) {
  return (
    <div className="filter-bar">
      <button type="button" className="filter-toggle" aria-expanded={open} aria-controls={controls} onClick={onToggle}>
        Filter{active.length ? ` (${active.length})` : ''}
      </button>
      {active.length ? (
        <ul className="chips" aria-label="Active filters">
          {active.map((filter) => (
            <li key={filter.name}>
              <button
                type="button"
                className="chip"
                aria-label={`Remove filter ${filter.label}`}
                onClick={() => onRemove(filter.name)}
              >
                {filter.label} <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * The filters of a list (docs/dashboard.md#phone): the {@link FilterBar} ("Filter" and the active filters as chips)
 * above the filter form `children`, a search landmark named `label` with the DOM id `id`. On a phone the form shows
 * only while "Filter" is pressed and closes once submitted; on wider screens it is always there.
 */
export function ListFilters({
  id,
  label,
  active,
  onRemove,
  onSubmit,
  children,
}: {
  id: string;
  label: string;
  active: ActiveFilter[];
  onRemove: (name: string) => void;
  onSubmit: (event: FormEvent) => void;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <FilterBar controls={id} open={open} onToggle={() => setOpen(!open)} active={active} onRemove={onRemove} />
      <form
        id={id}
        className={open ? 'filters collapsible open' : 'filters collapsible'}
        onSubmit={(event) => {
          onSubmit(event);
          setOpen(false);
        }}
        role="search"
        aria-label={label}
      >
        {children}
      </form>
    </>
  );
}

/**
 * The filters set in the URL `params` as chips, in the order of `names` (a URL parameter → the filter's name on its
 * chip, "Status: failed"); `show` words a value (a method's operator rather than its code), by default the value.
 */
export function activeFilters(
  params: URLSearchParams,
  names: Record<string, string>,
  show: (name: string, value: string) => string = (_name, value) => value,
): ActiveFilter[] {
  return Object.entries(names).flatMap(([name, label]) => {
    const value = params.get(name);
    return value ? [{ name, label: `${label}: ${show(name, value)}` }] : [];
  });
}

/** The URL `params` without filter `name` and without `paging` (the page parameters, which no longer apply). */
export function withoutFilter(params: URLSearchParams, name: string, paging: readonly string[]): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete(name);
  for (const parameter of paging) next.delete(parameter);
  return next;
}

/**
 * An id in a list (`pay_…`, `txn_…`), a link to `to` when given: one line, cut with an ellipsis where the screen is
 * narrow, the whole id as its title (hover) and in what a copy takes (docs/dashboard.md#phone). `text` is what it
 * says when more than the id ("API key key_…").
 */
export function IdText({ id, to, text = id }: { id: string; to?: string; text?: string }) {
  return to ? (
    <Link to={to} className="mono id" title={id}>
      {text}
    </Link>
  ) : (
    <span className="mono id" title={id}>
      {text}
    </span>
  );
}

/** The buttons of a filter form: apply (submits the form), clear (`onClear`), then `children`. */
export function FilterActions({ onClear, children }: { onClear: () => void; children?: ReactNode }) {
  return (
    <div className="filter-actions">
      <button type="submit" className="primary">
        Apply filters
      </button>
      <button type="button" onClick={onClear}>
        Clear
      </button>
      {children}
    </div>
  );
}

/**
 * The merchant's time zone (the profile's `time_zone`, docs/api.md#profile), which the signed-in frame provides;
 * undefined: the browser's own.
 */
export const TimeZoneContext = createContext<string | undefined>(undefined);

/** The browser's IANA time zone (`Africa/Kigali`), or `UTC` when it says none. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * A time (an ISO 8601 instant) in the merchant's time zone with its offset (`29 Nov 2026, 18:07:40 GMT+2`,
 * docs/dashboard.md#time-zone), the same time in UTC on hover (its title).
 */
export function Time({ value }: { value: string | null | undefined }) {
  const zone = useContext(TimeZoneContext) ?? browserTimeZone();
  if (!value) return <span>—</span>;
  const date = new Date(value);
  const shown = (timeZone: string) =>
    date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'long', timeZone });
  return (
    <time dateTime={value} title={shown('UTC')}>
      {shown(zone)}
    </time>
  );
}

/** Why an open payment waits (docs/payments.md#decision-time). */
export type PendingReason = NonNullable<Payment['pending_reason']>;

/** Each reason an open payment waits, in plain words for the merchant (docs/payments.md#decision-time). */
export const PENDING_REASON_WORDS: Record<PendingReason, string> = {
  awaiting_customer: 'Waiting for the customer to approve or pay',
  awaiting_provider: 'The customer has paid; waiting for the provider to settle it',
  provider_unreachable: 'The provider has not acknowledged the request yet; it is being sent again',
  awaiting_callback: "Waiting for the bank to report the customer's transfer",
  checking_with_provider: "The provider's last answer was unclear; checking with the provider",
};

/**
 * Why an open payment waits and the latest time it will be final, in plain words (docs/payments.md#decision-time);
 * `settled` (or nothing) once the payment is final.
 */
export function Waiting({
  reason,
  by,
  settled,
}: {
  reason: PendingReason | null;
  by: string | null;
  settled?: string;
}) {
  if (!reason) return settled ? <span data-testid="pending-reason">{settled}</span> : null;
  return (
    <span className="waiting" data-testid="pending-reason">
      {PENDING_REASON_WORDS[reason]}
      {by ? (
        <>
          ; decided by <Time value={by} />
        </>
      ) : null}
    </span>
  );
}

/** The API's error: its code, its message and each field problem, exactly as it answered (docs/api.md#errors). */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : undefined;
  return (
    <div className="error" role="alert" data-testid="api-error">
      <p>
        {api ? <code className="error-code">{api.status ? `${api.status} ${api.code}` : api.code}</code> : null}{' '}
        {error instanceof Error ? error.message : String(error)}
      </p>
      {api && api.details.length > 0 ? (
        <ul>
          {api.details.map((detail, index) => (
            <li key={index}>
              <code>{detail.field}</code>: {detail.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A polite status line (announced by screen readers). */
export function Notice({ children }: { children: ReactNode }) {
  return (
    <p className="notice" role="status">
      {children}
    </p>
  );
}

/** A secret shown once (a new key, a webhook's signing secret), with a copy button. */
export function SecretOnce({ label, value, onDismiss }: { label: string; value: string; onDismiss?: () => void }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      const input = document.getElementById(id) as HTMLInputElement | null;
      input?.select();
    }
  };
  return (
    <div className="secret" data-testid="secret-once">
      <label htmlFor={id}>{label}</label>
      <p className="hint">Copy it now: it is shown this once and never again.</p>
      <div className="row">
        <input id={id} readOnly value={value} className="mono" onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        {onDismiss ? (
          <button type="button" onClick={onDismiss}>
            I have saved it
          </button>
        ) : null}
      </div>
    </div>
  );
}

/**
 * A table of `rows` with TanStack Table's core row model; the caption names it for screen readers. On a phone each
 * row shows as a card, every value under its column's name; a `compact` list (payments) shows each row in three short
 * lines instead (amount and status, id, then the rest), so several rows fit on the first screen.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  empty,
  testId,
  compact = false,
}: {
  caption: string;
  columns: ColumnDef<T, any>[];
  rows: T[];
  empty: string;
  testId?: string;
  compact?: boolean;
}) {
  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel() });
  return (
    <div className={compact ? 'table-wrap compact-cards' : 'table-wrap'}>
      <table data-testid={testId}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col">
                  {header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="empty">
                {empty}
              </td>
            </tr>
          ) : (
            table.getRowModel().rows.map((row) => (
              <tr key={row.id}>
                {row.getVisibleCells().map((cell) => {
                  const header = cell.column.columnDef.header;
                  // The column's name beside the value when a phone shows the row as a card (styles.css).
                  return (
                    <td
                      key={cell.id}
                      data-label={typeof header === 'string' ? header : undefined}
                      className={`col-${cell.column.id}`}
                    >
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </td>
                  );
                })}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A wide table that scrolls sideways inside the screen on a tablet rather than widening the page; a named region
 * that takes focus, so it can be scrolled from the keyboard too. On a phone (styles.css) each row of its tables shows
 * as a card instead, every value under its column's name: the names are copied from the table's header cells into
 * each cell's `data-label` after every render.
 */
export function Scrollable({ label, children }: { label: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    for (const table of ref.current?.querySelectorAll('table') ?? []) {
      const names = [...table.querySelectorAll('thead tr:last-child th')].map((th) => th.textContent?.trim() ?? '');
      for (const row of table.querySelectorAll('tbody tr, tfoot tr')) {
        [...row.children].forEach((cell, index) => {
          const name = names[index];
          if (name) cell.setAttribute('data-label', name);
          else cell.removeAttribute('data-label');
        });
      }
    }
  });
  return (
    <div className="scroll-x cards" role="region" aria-label={label} tabIndex={0} ref={ref}>
      {children}
    </div>
  );
}

/** Previous/next page buttons and where we are. */
export function Pager({
  page,
  totalPages,
  total,
  onPage,
}: {
  page: number;
  totalPages: number;
  total: number;
  onPage: (page: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous page
      </button>
      <span aria-live="polite">
        Page {page} of {Math.max(totalPages, 1)} · {total} in all
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= totalPages}>
        Next page
      </button>
    </nav>
  );
}

/**
 * Pages of a cursor-paginated list (docs/limits.md#lists), as `GET /v1/payments` pages: `position` is how many pages
 * came before this one; `onNext` asks for the page after its last item, `onPrevious` and `onFirst` go back.
 */
export function CursorPager({
  position,
  hasMore,
  total,
  onFirst,
  onPrevious,
  onNext,
}: {
  position: number;
  hasMore: boolean;
  total: number;
  onFirst: () => void;
  onPrevious: () => void;
  onNext: () => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      {position > 1 ? (
        <button type="button" onClick={onFirst}>
          Newest
        </button>
      ) : null}
      <button type="button" onClick={onPrevious} disabled={position === 0}>
        Previous page
      </button>
      <span aria-live="polite">
        Page {position + 1} · {total} in all
      </span>
      <button type="button" onClick={onNext} disabled={!hasMore}>
        Next page
      </button>
    </nav>
  );
}

/** Our mark (the favicon's): a rounded green square with a white P; decorative beside the written name. */
export function Logo() {
  return (
    <svg className="logo" viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" fill="#0b6e4f" />
      <path
        d="M11 25V7h7.2c3.8 0 6.3 2.2 6.3 5.6s-2.5 5.7-6.3 5.7H15V25z M15 14.9h2.9c1.7 0 2.6-.8 2.6-2.3s-.9-2.2-2.6-2.2H15z"
        fill="#fff"
      />
    </svg>
  );
}

/** A status as a coloured badge (the word is always there, colour is never the only cue). */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{status.replace(/_/g, ' ')}</span>;
}

/** The page's heading, focused on navigation so screen readers announce the new screen. */
export function PageTitle({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${typeof children === 'string' ? children : 'Dashboard'} · PayCollect`;
    ref.current?.focus();
  }, [children]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}
