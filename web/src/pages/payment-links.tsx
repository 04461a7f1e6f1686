/**
 * Payment links of the environment (`/v1/payment_links`, docs/payment-links.md): the form that creates one (a fixed
 * amount or one the customer chooses, a completion limit, a message or redirect after payment, fields to collect),
 * and each link with its address to copy, a WhatsApp share link, its QR code to download (SVG or PNG, drawn by the
 * API) and deactivation.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, newIdempotencyKey, type Environment } from '../api';
import { ErrorBox, PageTitle, StatusBadge } from '../components';
import { ConfirmDialog } from '../dialog';
import { useEnv } from '../layout';
import { CURRENCIES, formatMoney, parseAmount } from '../money';
import { useReportDownload } from '../report-download';
import { canBuild, useRole } from '../security';
import type { PaymentLink } from '../types';

/** The WhatsApp share address of a link: the chat app opens with the text ready to send (wa.me's documented form). */
export function whatsAppShareUrl(link: Pick<PaymentLink, 'description' | 'url'>): string {
  return `https://wa.me/?text=${encodeURIComponent(`${link.description}: ${link.url}`)}`;
}

/** What a link asks, in words: "15,000 RWF" or "500 – 50,000 RWF, the customer chooses". */
function amountText(link: PaymentLink): string {
  if (link.amount !== null) return formatMoney(link.amount, link.currency);
  if (!link.amount_range) return '—';
  return `${formatMoney(link.amount_range.min, link.currency)} – ${formatMoney(link.amount_range.max, link.currency)}, the customer chooses`;
}

type AfterKind = 'thanks' | 'message' | 'redirect';

/** The create form's fields, as typed. */
interface Draft {
  description: string;
  currency: string;
  chosen: boolean;
  amount: string;
  min: string;
  max: string;
  limit: string;
  after: AfterKind;
  message: string;
  url: string;
  collectName: boolean;
  collectEmail: boolean;
}

const EMPTY: Draft = {
  description: '',
  currency: 'RWF',
  chosen: false,
  amount: '',
  min: '',
  max: '',
  limit: '',
  after: 'thanks',
  message: '',
  url: '',
  collectName: false,
  collectEmail: false,
};

/**
 * The request body of `draft` (amounts typed in the currency's unit, sent in minor units).
 * @throws ApiError 400 naming the field the browser can already tell is wrong
 */
function bodyOf(draft: Draft): Record<string, unknown> {
  const minor = (field: string, text: string) => {
    const parsed = parseAmount(text, draft.currency);
    if (!parsed.ok)
      throw new ApiError(400, 'validation_error', `${field}: ${parsed.message}`, [{ field, message: parsed.message }]);
    return parsed.minor;
  };
  const body: Record<string, unknown> = { description: draft.description, currency: draft.currency };
  if (draft.chosen)
    body.amount_range = { min: minor('amount_range.min', draft.min), max: minor('amount_range.max', draft.max) };
  else body.amount = minor('amount', draft.amount);
  if (draft.limit.trim()) body.completed_limit = Number(draft.limit);
  if (draft.after === 'message') body.after_completion = { type: 'message', message: draft.message };
  if (draft.after === 'redirect') body.after_completion = { type: 'redirect', url: draft.url };
  const collect = [...(draft.collectName ? ['name'] : []), ...(draft.collectEmail ? ['email'] : [])];
  if (collect.length > 0) body.collect = collect;
  return body;
}

function CreateLinkForm({ env }: { env: Environment }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const create = useMutation({
    mutationFn: () =>
      api<PaymentLink>('/v1/payment_links', { env, body: bodyOf(draft), idempotencyKey: newIdempotencyKey() }),
    onSuccess: () => {
      setDraft(EMPTY);
      void queryClient.invalidateQueries({ queryKey: ['payment-links', env] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} className="panel" aria-labelledby="new-link">
      <h2 id="new-link">Create a link</h2>
      <label htmlFor="link-description">What the customer pays for</label>
      <input
        id="link-description"
        required
        maxLength={500}
        value={draft.description}
        onChange={(e) => set('description', e.target.value)}
      />
      <label htmlFor="link-currency">Currency</label>
      <select id="link-currency" value={draft.currency} onChange={(e) => set('currency', e.target.value)}>
        {CURRENCIES.map((c) => (
          <option key={c}>{c}</option>
        ))}
      </select>
      <fieldset>
        <legend>Amount</legend>
        <div className="check">
          <input
            type="radio"
            id="link-fixed"
            name="link-amount-kind"
            checked={!draft.chosen}
            onChange={() => set('chosen', false)}
          />
          <label htmlFor="link-fixed">A fixed amount</label>
        </div>
        <div className="check">
          <input
            type="radio"
            id="link-chosen"
            name="link-amount-kind"
            checked={draft.chosen}
            onChange={() => set('chosen', true)}
          />
          <label htmlFor="link-chosen">The customer chooses</label>
        </div>
        {draft.chosen ? (
          <>
            <label htmlFor="link-min">Minimum ({draft.currency})</label>
            <input
              id="link-min"
              inputMode="decimal"
              required
              value={draft.min}
              onChange={(e) => set('min', e.target.value)}
            />
            <label htmlFor="link-max">Maximum ({draft.currency})</label>
            <input
              id="link-max"
              inputMode="decimal"
              required
              value={draft.max}
              onChange={(e) => set('max', e.target.value)}
            />
          </>
        ) : (
          <>
            <label htmlFor="link-amount">Amount ({draft.currency})</label>
            <input
              id="link-amount"
              inputMode="decimal"
              required
              value={draft.amount}
              onChange={(e) => set('amount', e.target.value)}
            />
          </>
        )}
      </fieldset>
      <label htmlFor="link-limit">Most payments (optional)</label>
      <input
        id="link-limit"
        inputMode="numeric"
        pattern="[0-9]*"
        value={draft.limit}
        onChange={(e) => set('limit', e.target.value)}
        aria-describedby="link-limit-hint"
      />
      <p id="link-limit-hint" className="hint">
        After this many payments the link closes. Empty: no limit.
      </p>
      <label htmlFor="link-after">After payment</label>
      <select id="link-after" value={draft.after} onChange={(e) => set('after', e.target.value as AfterKind)}>
        <option value="thanks">Show our thank-you page</option>
        <option value="message">Show my message</option>
        <option value="redirect">Send the customer to my website</option>
      </select>
      {draft.after === 'message' ? (
        <>
          <label htmlFor="link-message">Message</label>
          <input
            id="link-message"
            required
            maxLength={500}
            value={draft.message}
            onChange={(e) => set('message', e.target.value)}
          />
        </>
      ) : null}
      {draft.after === 'redirect' ? (
        <>
          <label htmlFor="link-url">Website address</label>
          <input
            id="link-url"
            inputMode="url"
            required
            value={draft.url}
            onChange={(e) => set('url', e.target.value)}
            aria-describedby="link-url-hint"
          />
          <p id="link-url-hint" className="hint">
            {env === 'live' ? 'It must start with https://.' : 'https://, or http://localhost while you build.'}
          </p>
        </>
      ) : null}
      <fieldset>
        <legend>Ask the customer for</legend>
        <div className="check">
          <input
            type="checkbox"
            id="link-collect-name"
            checked={draft.collectName}
            onChange={(e) => set('collectName', e.target.checked)}
          />
          <label htmlFor="link-collect-name">Name</label>
        </div>
        <div className="check">
          <input
            type="checkbox"
            id="link-collect-email"
            checked={draft.collectEmail}
            onChange={(e) => set('collectEmail', e.target.checked)}
          />
          <label htmlFor="link-collect-email">E-mail</label>
        </div>
      </fieldset>
      <ErrorBox error={create.error} />
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create link'}
      </button>
    </form>
  );
}

function LinkCard({ link, env, mayChange }: { link: PaymentLink; env: Environment; mayChange: boolean }) {
  const queryClient = useQueryClient();
  const [copied, setCopied] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const download = useReportDownload();
  const setActive = useMutation({
    mutationFn: (active: boolean) =>
      api<PaymentLink>(`/v1/payment_links/${link.id}`, { env, method: 'PATCH', body: { active } }),
    onSuccess: () => {
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: ['payment-links', env] });
    },
  });
  const urlId = `link-url-${link.id}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link.url);
      setCopied(true);
    } catch {
      (document.getElementById(urlId) as HTMLInputElement | null)?.select();
    }
  };
  const qr = (format: 'svg' | 'png') =>
    void download.start(`/v1/payment_links/${link.id}/qr.${format}`, { env }, `${link.id}.${format}`);
  return (
    <li className="panel link-card" data-testid="payment-link">
      <h3>{link.description}</h3>
      <p>
        <StatusBadge status={link.active ? 'active' : 'inactive'} /> {amountText(link)} ·{' '}
        <span data-testid="link-completed">
          {link.completed_count}
          {link.completed_limit === null ? '' : ` of ${link.completed_limit}`} paid
        </span>
      </p>
      <label htmlFor={urlId}>Link</label>
      <div className="row">
        <input id={urlId} readOnly value={link.url} className="mono" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy link'}
        </button>
      </div>
      <div className="actions">
        <a className="button" href={whatsAppShareUrl(link)} target="_blank" rel="noopener noreferrer">
          Share on WhatsApp
        </a>
        <button type="button" onClick={() => qr('svg')} disabled={download.busy}>
          QR code (SVG)
        </button>
        <button type="button" onClick={() => qr('png')} disabled={download.busy}>
          QR code (PNG)
        </button>
        {mayChange ? (
          link.active ? (
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              Deactivate
            </button>
          ) : (
            <button type="button" onClick={() => setActive.mutate(true)} disabled={setActive.isPending}>
              Activate
            </button>
          )
        ) : null}
      </div>
      <ErrorBox error={download.error ?? setActive.error} />
      <ConfirmDialog
        open={confirming}
        title="Deactivate this link?"
        confirmLabel="Deactivate"
        danger
        busy={setActive.isPending}
        onConfirm={() => setActive.mutate(false)}
        onCancel={() => setConfirming(false)}
      >
        <p>Customers who open it will see that it is closed. You can activate it again later.</p>
      </ConfirmDialog>
    </li>
  );
}

/** The payment links screen. */
export function PaymentLinksPage() {
  const env = useEnv();
  const role = useRole();
  const list = useQuery({
    queryKey: ['payment-links', env],
    queryFn: () =>
      api<{ payment_links: PaymentLink[]; pagination: { has_more: boolean } }>('/v1/payment_links', {
        env,
        query: { limit: 100 },
      }),
  });
  return (
    <section>
      <PageTitle>Payment links</PageTitle>
      <p className="hint">
        Share a link in a chat or print its QR code: whoever opens it pays you on our page by mobile money.
      </p>
      {canBuild(role) ? <CreateLinkForm env={env} /> : null}
      <h2>Your links</h2>
      <ErrorBox error={list.error} />
      {list.data ? (
        list.data.payment_links.length === 0 ? (
          <p>No payment link yet.</p>
        ) : (
          <ul className="link-list" data-testid="payment-links">
            {list.data.payment_links.map((link) => (
              <LinkCard key={link.id} link={link} env={env} mayChange={canBuild(role)} />
            ))}
          </ul>
        )
      ) : (
        <p>Loading…</p>
      )}
      {list.data?.pagination.has_more ? <p className="hint">Showing your newest 100 links.</p> : null}
    </section>
  );
}
