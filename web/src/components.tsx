/**
 * Shared pieces of the screens: the API's error as it came, a confirmation dialog, a secret shown
 * once with a copy button, a table (TanStack Table), list filters and page links.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
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

/** A time as the developer's locale shows it, with the ISO value in a tooltip. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span>—</span>;
  return (
    <time dateTime={value} title={value}>
      {new Date(value).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' })} UTC
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

/**
 * A modal confirmation (the native `<dialog>`: focus moves in, Escape cancels, focus returns).
 * Rendered while `open`; `onConfirm` runs the action.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  danger?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        props.onCancel();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      <div>{props.children}</div>
      <div className="actions">
        <button type="button" onClick={props.onCancel} disabled={props.busy}>
          Go back
        </button>
        <button
          type="button"
          className={props.danger ? 'danger' : 'primary'}
          onClick={props.onConfirm}
          disabled={props.busy}
          autoFocus
        >
          {props.busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </dialog>
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
 * row shows as a card, every value under its column's name.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  empty,
  testId,
}: {
  caption: string;
  columns: ColumnDef<T, any>[];
  rows: T[];
  empty: string;
  testId?: string;
}) {
  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel() });
  return (
    <div className="table-wrap">
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
                    <td key={cell.id} data-label={typeof header === 'string' ? header : undefined}>
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
 * A wide table that scrolls sideways inside the screen on a phone rather than widening the page; a named region
 * that takes focus, so it can be scrolled from the keyboard too.
 */
export function Scrollable({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="scroll-x" role="region" aria-label={label} tabIndex={0}>
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
