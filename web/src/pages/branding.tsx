/**
 * Branding (docs/branding.md): the display name, brand colour and logo the hosted payment page shows. The colour
 * picker previews the page's button with the text colour the service will choose (docs/branding.md#colours: white
 * where it reaches WCAG AA on the colour, else black), computed by the same code the service runs. The logo is
 * uploaded as a file (PNG, JPEG or SVG, at most 512 kB, docs/branding.md#logo) and previewed from the service's copy.
 * Owners and admins change it; other roles see it.
 */
import { useEffect, useState, type ChangeEvent, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { BRAND_COLOR_PATTERN, contrastRatio, MAX_DISPLAY_NAME_LENGTH, textColorOn } from '../../../src/domain/branding';
import { api, downloadFile, upload } from '../api';
import { ErrorBox, Notice, PageTitle, Time } from '../components';
import { useProfile } from '../layout';
import { canManage, useRole } from '../security';
import type { Branding } from '../types';

/** The largest logo, in bytes (docs/branding.md#logo). */
const MAX_LOGO_BYTES = 512 * 1024;

/** The colour the preview shows before one is chosen (the page's own). */
const PAGE_DEFAULT_COLOR = '#1d4ed8';

/** The stored logo as an address the preview can show (a blob: URL of the service's copy), while it is current. */
function useLogoPreview(branding: Branding | undefined): string | undefined {
  const sha = branding?.logo?.sha256;
  const image = useQuery({
    queryKey: ['branding-logo', sha],
    enabled: sha !== undefined,
    queryFn: async () => (await downloadFile('/v1/developer/branding/logo', {}, 'logo')).blob,
    staleTime: Infinity,
  });
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!image.data || !sha) {
      setUrl(undefined);
      return undefined;
    }
    const made = URL.createObjectURL(image.data);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [image.data, sha]);
  return url;
}

/** The page's pay button as it will look on `color`, with its text colour and their contrast. */
function ButtonPreview({ color, name, logo }: { color: string; name: string; logo: string | undefined }) {
  const text = textColorOn(color);
  const ratio = contrastRatio(color, text);
  return (
    <figure className="brand-preview" data-testid="brand-preview">
      <figcaption>Preview of your payment page</figcaption>
      <div className="brand-preview-page">
        <div className="brand-preview-head">
          {logo ? <img src={logo} alt="" className="brand-preview-logo" /> : null}
          <strong>{name}</strong>
        </div>
        <p className="brand-preview-amount">RWF 5,000</p>
        <span
          className="brand-preview-button"
          style={{ background: color, color: text }}
          data-testid="brand-preview-button"
        >
          Pay RWF 5,000
        </span>
      </div>
      <p className="hint" data-testid="brand-contrast">
        Text on your colour: {text === '#ffffff' ? 'white' : 'black'}, contrast {ratio.toFixed(2)}:1 (WCAG AA needs
        4.5:1).
      </p>
    </figure>
  );
}

/** The branding screen. */
export function BrandingPage() {
  const queryClient = useQueryClient();
  const profile = useProfile();
  const role = useRole();
  const editable = canManage(role);
  const branding = useQuery({ queryKey: ['branding'], queryFn: () => api<Branding>('/v1/developer/branding') });
  const [name, setName] = useState('');
  const [color, setColor] = useState('');
  const [file, setFile] = useState<File>();
  const [fileProblem, setFileProblem] = useState<string>();
  const [progress, setProgress] = useState<number>();
  const logoUrl = useLogoPreview(branding.data);
  useEffect(() => {
    if (!branding.data) return;
    setName(branding.data.display_name ?? '');
    setColor(branding.data.brand_color ?? '');
  }, [branding.data]);

  const stored = (updated: Branding) => queryClient.setQueryData(['branding'], updated);
  const save = useMutation({
    mutationFn: () =>
      api<Branding>('/v1/developer/branding', {
        method: 'PUT',
        body: { display_name: name.trim() || null, brand_color: color || null },
      }),
    onSuccess: stored,
  });
  const send = useMutation({
    mutationFn: (chosen: File) => {
      const form = new FormData();
      form.append('logo', chosen);
      return upload<Branding>('/v1/developer/branding', form, setProgress, 'PUT');
    },
    onSuccess: (updated) => {
      stored(updated);
      setFile(undefined);
    },
    onSettled: () => setProgress(undefined),
  });
  const remove = useMutation({
    mutationFn: () => api<Branding>('/v1/developer/branding/logo', { method: 'DELETE' }),
    onSuccess: stored,
  });

  const colorValid = color === '' || BRAND_COLOR_PATTERN.test(color);
  const fallbackName = profile.data?.business_name ?? profile.data?.name ?? '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (colorValid) save.mutate();
  };
  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    send.reset();
    setFileProblem(chosen && chosen.size > MAX_LOGO_BYTES ? 'The logo must be at most 512 kB.' : undefined);
    setFile(chosen);
  };
  const sendLogo = (event: FormEvent) => {
    event.preventDefault();
    if (file && !fileProblem) send.mutate(file);
  };
  const logo = branding.data?.logo;

  return (
    <section>
      <PageTitle>Branding</PageTitle>
      <p className="hint">
        What your customers see on the payment page of your checkout sessions and payment links, in sandbox and live.
      </p>
      <ErrorBox error={branding.error} />
      {!editable && role ? <Notice>Only owners and admins can change the branding; you can see it.</Notice> : null}
      {branding.data ? (
        <div className="panels">
          <form onSubmit={submit} className="panel" aria-labelledby="branding-look">
            <h2 id="branding-look">Name and colour</h2>
            <label htmlFor="branding-name">Display name</label>
            <input
              id="branding-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={MAX_DISPLAY_NAME_LENGTH}
              placeholder={fallbackName}
              disabled={!editable}
              aria-describedby="branding-name-hint"
            />
            <p className="hint" id="branding-name-hint">
              Up to {MAX_DISPLAY_NAME_LENGTH} characters. Left empty, the page shows your business name.
            </p>
            <label htmlFor="branding-color-picker">Brand colour</label>
            <div className="row brand-color">
              <input
                id="branding-color-picker"
                type="color"
                value={colorValid && color ? color : PAGE_DEFAULT_COLOR}
                onChange={(e) => setColor(e.target.value)}
                disabled={!editable}
              />
              <label htmlFor="branding-color" className="visually-hidden">
                Brand colour as #rrggbb
              </label>
              <input
                id="branding-color"
                value={color}
                onChange={(e) => setColor(e.target.value.trim())}
                placeholder="#rrggbb"
                maxLength={7}
                disabled={!editable}
                aria-invalid={!colorValid}
                aria-describedby="branding-color-hint"
              />
              {color ? (
                <button type="button" onClick={() => setColor('')} disabled={!editable}>
                  No colour
                </button>
              ) : null}
            </div>
            <p className={colorValid ? 'hint' : 'hint error-text'} id="branding-color-hint" role="status">
              {colorValid
                ? 'Six hexadecimal digits, e.g. #0b6e4f.'
                : 'Write the colour as # and six hexadecimal digits.'}
            </p>
            <ErrorBox error={save.error} />
            {save.isSuccess ? <Notice>Saved.</Notice> : null}
            {editable ? (
              <button type="submit" className="primary" disabled={save.isPending || !colorValid}>
                Save
              </button>
            ) : null}
          </form>
          <ButtonPreview
            color={colorValid && color ? color : PAGE_DEFAULT_COLOR}
            name={name.trim() || fallbackName}
            logo={logoUrl}
          />
          <form onSubmit={sendLogo} className="panel" aria-labelledby="branding-logo">
            <h2 id="branding-logo">Logo</h2>
            {logo ? (
              <dl className="facts" data-testid="logo-facts">
                <dt>Type</dt>
                <dd>{logo.content_type}</dd>
                <dt>Size</dt>
                <dd>{Math.ceil(logo.size / 1024)} kB</dd>
                <dt>Uploaded</dt>
                <dd>
                  <Time value={logo.updated_at} />
                </dd>
              </dl>
            ) : (
              <p>No logo yet: the page shows your display name alone.</p>
            )}
            {editable ? (
              <>
                <label htmlFor="branding-logo-file">Choose a PNG, JPEG or SVG (at most 512 kB)</label>
                <input
                  id="branding-logo-file"
                  type="file"
                  accept="image/png,image/jpeg,image/svg+xml"
                  onChange={choose}
                  aria-describedby="branding-logo-hint"
                />
                <p className="hint" id="branding-logo-hint">
                  An SVG is cleaned: scripts, links and anything it would load from elsewhere are removed.
                </p>
                {fileProblem ? (
                  <p className="error" role="alert">
                    {fileProblem}
                  </p>
                ) : null}
                <ErrorBox error={send.error ?? remove.error} />
                {progress !== undefined ? <progress value={progress} max={1} aria-label="Upload progress" /> : null}
                {send.isSuccess ? <Notice>Logo uploaded.</Notice> : null}
                {remove.isSuccess && !logo ? <Notice>Logo removed.</Notice> : null}
                <div className="actions">
                  <button type="submit" className="primary" disabled={!file || !!fileProblem || send.isPending}>
                    Upload logo
                  </button>
                  {logo ? (
                    <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending}>
                      Remove logo
                    </button>
                  ) : null}
                </div>
              </>
            ) : null}
          </form>
        </div>
      ) : null}
    </section>
  );
}
