/**
 * Go live (docs/live-access.md#review, docs/live-access.md#documents): the checklist (identity document, business
 * registration, the request), the
 * uploads with their progress and the API's validation errors, the request form, its status and
 * the reviewer's message, and the answer to a reviewer's question. Once approved, the profile is
 * read again so the live switch appears.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, upload } from '../api';
import { ErrorBox, Notice, PageTitle, Scrollable, StatusBadge, Time } from '../components';
import type { DocumentView, LiveAccessStatus } from '../types';

const IDENTITY_TYPES = ['passport', 'national_id', 'drivers_licence'] as const;
const BUSINESS_TYPES_OF_DOCUMENT = ['business_registration', 'tax_identification', 'business_licence'] as const;
const BUSINESS_TYPES = ['e_commerce', 'saas', 'marketplace', 'fintech', 'education', 'healthcare', 'other'] as const;

/** What the checklist needs from the documents (the rule of `documents_missing`, docs/live-access.md#review). */
function checklist(documents: DocumentView[]) {
  const has = (type: string, side?: string) =>
    documents.some((d) => d.document_type === type && (side === undefined || d.side === side));
  return {
    identity: has('passport') || has('drivers_licence') || (has('national_id', 'front') && has('national_id', 'back')),
    business: has('business_registration'),
  };
}

/** One upload form: the document type (and side), the file, a progress bar and the API's answer. */
function UploadForm({ category, onUploaded }: { category: 'kyc' | 'business'; onUploaded: () => void }) {
  const [type, setType] = useState<string>(category === 'kyc' ? 'passport' : 'business_registration');
  const [side, setSide] = useState('front');
  const [progress, setProgress] = useState<number | undefined>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string | undefined>();
  const fileRef = useRef<HTMLInputElement>(null);
  const prefix = `upload-${category}`;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const file = fileRef.current?.files?.[0];
    const form = new FormData();
    form.append('document_type', type);
    if (category === 'kyc' && type === 'national_id') form.append('side', side);
    // No file: the API names what is missing, as for any other client.
    if (file) form.append('document', file, file.name);
    setError(undefined);
    setDone(undefined);
    setProgress(0);
    try {
      const stored = await upload<DocumentView>(`/v1/documents/upload/${category}`, form, setProgress);
      setDone(`${stored.file_name} uploaded as ${stored.document_type}${stored.side ? ` (${stored.side})` : ''}.`);
      if (fileRef.current) fileRef.current.value = '';
      onUploaded();
    } catch (caught) {
      setError(caught);
    } finally {
      setProgress(undefined);
    }
  };
  return (
    <form
      onSubmit={(event) => void submit(event)}
      className="panel"
      aria-labelledby={`${prefix}-title`}
      data-testid={prefix}
    >
      <h3 id={`${prefix}-title`}>{category === 'kyc' ? 'Identity document' : 'Business document'}</h3>
      <label htmlFor={`${prefix}-type`}>Document type</label>
      <select id={`${prefix}-type`} value={type} onChange={(e) => setType(e.target.value)}>
        {(category === 'kyc' ? IDENTITY_TYPES : BUSINESS_TYPES_OF_DOCUMENT).map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      {category === 'kyc' && type === 'national_id' ? (
        <>
          <label htmlFor={`${prefix}-side`}>Side</label>
          <select id={`${prefix}-side`} value={side} onChange={(e) => setSide(e.target.value)}>
            <option>front</option>
            <option>back</option>
          </select>
        </>
      ) : null}
      <label htmlFor={`${prefix}-file`}>File (PDF, JPEG or PNG, at most 10 MB)</label>
      <input id={`${prefix}-file`} type="file" ref={fileRef} accept="application/pdf,image/jpeg,image/png" />
      {progress !== undefined ? (
        <>
          <label htmlFor={`${prefix}-progress`}>Upload progress</label>
          <progress id={`${prefix}-progress`} max={1} value={progress}>
            {Math.round(progress * 100)} %
          </progress>
        </>
      ) : null}
      <ErrorBox error={error} />
      {done ? <Notice>{done}</Notice> : null}
      <button type="submit" className="primary" disabled={progress !== undefined}>
        Upload
      </button>
    </form>
  );
}

function RequestForm({ onFiled }: { onFiled: () => void }) {
  const [form, setForm] = useState({
    business_name: '',
    business_type: 'e_commerce',
    business_website: '',
    expected_monthly_volume: '',
    use_case: '',
    compliance_acknowledged: false,
  });
  const request = useMutation({
    mutationFn: () =>
      api<LiveAccessStatus>('/v1/developer/live-access/request', {
        body: {
          ...form,
          expected_monthly_volume:
            form.expected_monthly_volume === '' ? undefined : Number(form.expected_monthly_volume),
        },
      }),
    onSuccess: onFiled,
  });
  const text = (name: 'business_name' | 'business_website' | 'expected_monthly_volume' | 'use_case') => ({
    id: `req-${name}`,
    value: form[name],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }),
  });
  return (
    <form
      className="panel"
      aria-labelledby="request-title"
      onSubmit={(event) => {
        event.preventDefault();
        request.mutate();
      }}
    >
      <h3 id="request-title">Request live access</h3>
      <label htmlFor="req-business_name">Business name</label>
      <input {...text('business_name')} required />
      <label htmlFor="req-business_type">Business type</label>
      <select
        id="req-business_type"
        value={form.business_type}
        onChange={(e) => setForm({ ...form, business_type: e.target.value })}
      >
        {BUSINESS_TYPES.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <label htmlFor="req-business_website">Website</label>
      <input {...text('business_website')} inputMode="url" required />
      <label htmlFor="req-expected_monthly_volume">Expected monthly volume</label>
      <input {...text('expected_monthly_volume')} type="number" min={0} step={1} required />
      <label htmlFor="req-use_case">What will you collect payments for? (at least 20 characters)</label>
      <textarea {...text('use_case')} rows={3} required />
      <div className="check">
        <input
          type="checkbox"
          id="req-compliance"
          checked={form.compliance_acknowledged}
          onChange={(e) => setForm({ ...form, compliance_acknowledged: e.target.checked })}
        />
        <label htmlFor="req-compliance">I acknowledge the compliance terms</label>
      </div>
      <ErrorBox error={request.error} />
      <button type="submit" className="primary" disabled={request.isPending}>
        Send the request
      </button>
    </form>
  );
}

function RespondForm({ onSent }: { onSent: () => void }) {
  const [message, setMessage] = useState('');
  const respond = useMutation({
    mutationFn: () => api<LiveAccessStatus>('/v1/developer/live-access/respond', { body: { message } }),
    onSuccess: onSent,
  });
  return (
    <form
      className="panel"
      aria-labelledby="respond-title"
      onSubmit={(event) => {
        event.preventDefault();
        respond.mutate();
      }}
    >
      <h3 id="respond-title">Answer the reviewer</h3>
      <label htmlFor="respond-message">Your answer</label>
      <textarea id="respond-message" rows={3} value={message} onChange={(e) => setMessage(e.target.value)} required />
      <ErrorBox error={respond.error} />
      <button type="submit" className="primary" disabled={respond.isPending}>
        Send the answer
      </button>
    </form>
  );
}

/** The go-live screen. */
export function GoLivePage() {
  const queryClient = useQueryClient();
  const documents = useQuery({
    queryKey: ['documents'],
    queryFn: () => api<{ documents: DocumentView[] }>('/v1/documents'),
  });
  const status = useQuery({
    queryKey: ['live-access'],
    queryFn: () => api<LiveAccessStatus>('/v1/developer/live-access/status'),
    // A review is decided by people: follow it while it is open.
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? 3_000 : false),
  });
  const granted = status.data?.has_live_access ?? false;
  useEffect(() => {
    if (granted) void queryClient.invalidateQueries({ queryKey: ['profile'] });
  }, [granted, queryClient]);
  const reload = () => {
    void queryClient.invalidateQueries({ queryKey: ['documents'] });
    void queryClient.invalidateQueries({ queryKey: ['live-access'] });
    void queryClient.invalidateQueries({ queryKey: ['activity'] });
  };
  const docs = documents.data?.documents ?? [];
  const done = checklist(docs);
  const request = status.data?.live_access_request;
  const mayRequest = status.data && (status.data.status === 'none' || status.data.status === 'rejected');
  return (
    <section>
      <PageTitle>Go live</PageTitle>
      <ErrorBox error={documents.error ?? status.error} />
      <h2>Checklist</h2>
      <ul className="checklist" data-testid="checklist">
        <li data-done={done.identity}>
          <span aria-hidden="true">{done.identity ? '✔' : '○'}</span> Identity document (a passport, a driver's licence,
          or both sides of a national id): {done.identity ? 'uploaded' : 'missing'}
        </li>
        <li data-done={done.business}>
          <span aria-hidden="true">{done.business ? '✔' : '○'}</span> Business registration certificate:{' '}
          {done.business ? 'uploaded' : 'missing'}
        </li>
        <li data-done={Boolean(request)}>
          <span aria-hidden="true">{granted ? '✔' : request ? '…' : '○'}</span> Live access request:{' '}
          {request ? <StatusBadge status={request.status} /> : 'not sent'}
        </li>
      </ul>

      {request ? (
        <div className="panel" data-testid="request-status">
          <h2>Your request</h2>
          <dl className="facts">
            <dt>Request</dt>
            <dd className="mono">{request.id}</dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={request.status} />
            </dd>
            <dt>Sent</dt>
            <dd>
              <Time value={request.requested_at} />
            </dd>
            {request.decided_at ? (
              <>
                <dt>Decided</dt>
                <dd>
                  <Time value={request.decided_at} />
                </dd>
              </>
            ) : null}
            {request.reviewer_message ? (
              <>
                <dt>Reviewer's message</dt>
                <dd data-testid="reviewer-message">{request.reviewer_message}</dd>
              </>
            ) : null}
          </dl>
          {granted ? (
            <Notice>
              Live access is granted: switch to Live at the top, and reveal your first live key under API keys.
            </Notice>
          ) : null}
        </div>
      ) : null}
      {request?.status === 'more_info_required' ? <RespondForm onSent={reload} /> : null}

      {!granted ? (
        <>
          <h2>Documents</h2>
          <div className="panels">
            <UploadForm category="kyc" onUploaded={reload} />
            <UploadForm category="business" onUploaded={reload} />
          </div>
        </>
      ) : null}
      {docs.length > 0 ? (
        <Scrollable label="Uploaded documents">
          <table data-testid="documents-table">
            <caption>Uploaded documents</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">File</th>
                <th scope="col">Size</th>
                <th scope="col">Uploaded</th>
              </tr>
            </thead>
            <tbody>
              {docs.map((doc) => (
                <tr key={doc.id}>
                  <td>
                    {doc.document_type}
                    {doc.side ? ` (${doc.side})` : ''}
                  </td>
                  <td>{doc.file_name}</td>
                  <td className="num">{(doc.size / 1024).toFixed(1)} KB</td>
                  <td>
                    <Time value={doc.uploaded_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scrollable>
      ) : null}
      {mayRequest ? <RequestForm onFiled={reload} /> : null}
    </section>
  );
}
