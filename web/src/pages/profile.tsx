/**
 * The profile (`GET`/`PUT /v1/developer/profile`, docs/api.md#profile): name, business name, country and phone can
 * change.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api';
import { ErrorBox, Notice, PageTitle, Time } from '../components';
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
    </section>
  );
}
