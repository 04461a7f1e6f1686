/**
 * The profile (`GET`/`PUT /v1/developer/profile`, docs/api.md#profile): name, business name, country and phone can
 * change, the time zone the dashboard shows times in, and the setting `refuse_when_provider_down`.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api';
import { browserTimeZone, ErrorBox, Notice, PageTitle, Time } from '../components';
import { useProfile } from '../layout';
import type { Profile } from '../types';

/** The profile screen. */
export function ProfilePage() {
  const profile = useProfile();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ name: '', business_name: '', country: '', phone: '' });
  useEffect(() => {
    if (profile.data)
      setForm({
        name: profile.data.name,
        business_name: profile.data.business_name ?? '',
        country: profile.data.country ?? '',
        phone: profile.data.phone ?? '',
      });
  }, [profile.data]);
  const save = useMutation({
    mutationFn: () =>
      api<Profile>('/v1/developer/profile', {
        method: 'PUT',
        body: {
          name: form.name,
          business_name: form.business_name || null,
          country: form.country || null,
          phone: form.phone || null,
        },
      }),
    onSuccess: (updated) => queryClient.setQueryData(['profile'], updated),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const field = (name: keyof typeof form) => ({
    id: `profile-${name}`,
    value: form[name],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }),
  });
  const data = profile.data;
  return (
    <section>
      <PageTitle>Profile</PageTitle>
      <ErrorBox error={profile.error} />
      {data ? (
        <dl className="facts">
          <dt>E-mail</dt>
          <dd>{data.email}</dd>
          <dt>Merchant id</dt>
          <dd className="mono">{data.merchant_id}</dd>
          <dt>Plan</dt>
          <dd>{data.plan}</dd>
          <dt>Live access</dt>
          <dd>{data.has_live_access ? 'granted' : 'not yet'}</dd>
          <dt>Member since</dt>
          <dd>
            <Time value={data.created_at} />
          </dd>
        </dl>
      ) : null}
      <form onSubmit={submit} className="panel" aria-labelledby="profile-edit">
        <h2 id="profile-edit">Your details</h2>
        <label htmlFor="profile-name">Name</label>
        <input {...field('name')} required autoComplete="name" />
        <label htmlFor="profile-business_name">Business name</label>
        <input {...field('business_name')} autoComplete="organization" />
        <label htmlFor="profile-country">Country (ISO code, e.g. RW)</label>
        <input {...field('country')} maxLength={2} autoComplete="country" />
        <label htmlFor="profile-phone">Phone (international, e.g. +250788123456)</label>
        <input {...field('phone')} type="tel" autoComplete="tel" />
        <ErrorBox error={save.error} />
        {save.isSuccess ? <Notice>Saved.</Notice> : null}
        <button type="submit" className="primary" disabled={save.isPending}>
          Save
        </button>
      </form>
      {data ? <TimeZoneSetting saved={data.time_zone} /> : null}
      {data ? <OutageSetting refuse={data.refuse_when_provider_down} /> : null}
    </section>
  );
}

/** The IANA zones the browser knows, `UTC` first. */
function knownTimeZones(): string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
}

/**
 * The merchant's time zone (docs/api.md#profile): every time on the dashboard shows in it, UTC on hover; none chosen,
 * the browser's own.
 */
function TimeZoneSetting({ saved }: { saved: string | null }) {
  const queryClient = useQueryClient();
  const [zone, setZone] = useState(saved ?? '');
  useEffect(() => setZone(saved ?? ''), [saved]);
  const change = useMutation({
    mutationFn: () => api<Profile>('/v1/developer/profile', { method: 'PUT', body: { time_zone: zone || null } }),
    onSuccess: (updated) => queryClient.setQueryData(['profile'], updated),
  });
  return (
    <form
      className="panel"
      aria-labelledby="time-zone-setting"
      onSubmit={(event) => {
        event.preventDefault();
        change.mutate();
      }}
    >
      <h2 id="time-zone-setting">Time zone</h2>
      <label htmlFor="profile-time_zone">Show times in</label>
      <select id="profile-time_zone" value={zone} onChange={(event) => setZone(event.target.value)}>
        <option value="">This browser&apos;s time zone ({browserTimeZone()})</option>
        {knownTimeZones().map((name) => (
          <option key={name} value={name}>
            {name.replace(/_/g, ' ')}
          </option>
        ))}
      </select>
      <p className="hint">For everyone on your team. Hover over a time to see it in UTC.</p>
      <ErrorBox error={change.error} />
      {change.isSuccess ? <Notice>Saved.</Notice> : null}
      <button type="submit" className="primary" disabled={change.isPending}>
        Use this time zone
      </button>
    </form>
  );
}

/**
 * The setting `refuse_when_provider_down` (docs/availability.md#api-create): a checkbox saved on change, for both
 * environments.
 */
function OutageSetting({ refuse }: { refuse: boolean }) {
  const queryClient = useQueryClient();
  // Shown as ticked at once; a refused change puts the saved value back.
  const [checked, setChecked] = useState(refuse);
  useEffect(() => setChecked(refuse), [refuse]);
  const change = useMutation({
    mutationFn: (value: boolean) =>
      api<Profile>('/v1/developer/profile', { method: 'PUT', body: { refuse_when_provider_down: value } }),
    onSuccess: (updated) => queryClient.setQueryData(['profile'], updated),
    onError: () => setChecked(refuse),
  });
  return (
    <section className="panel" aria-labelledby="outage-setting">
      <h2 id="outage-setting">When an operator is down</h2>
      <label className="check">
        <input
          type="checkbox"
          id="refuse-when-provider-down"
          checked={checked}
          disabled={change.isPending}
          onChange={(event) => {
            setChecked(event.target.checked);
            change.mutate(event.target.checked);
          }}
        />{' '}
        Refuse API payments to an operator that is down (503 <code>provider_unavailable</code>, retry after 60 s)
      </label>
      <p className="hint">
        Off: such payments are accepted and wait until the operator answers. Applies to sandbox and live. Your hosted
        pages always refuse a payer's operator that is down.
      </p>
      <ErrorBox error={change.error} />
      {change.isSuccess ? <Notice>Saved.</Notice> : null}
    </section>
  );
}
