/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): branding
 * (docs/branding.md), the merchant's settings and the logo the payment page shows by session id, without a key.
 */
import { z } from '../../lib/zod';
import * as out from '../../views';
import { brandingBody } from '../schemas/branding';
import { emptyBody } from '../schemas/webhooks';
import { environmentOnlyQuery } from '../schemas/developer';
import { DEVELOPER, DASHBOARD_CREDENTIALS, ok, type RouteDoc } from './shared';

const TAG = 'Branding';

/** Branding as the examples show it. */
const brandingExample = {
  object: 'branding' as const,
  display_name: 'Kigali Crafts',
  brand_color: '#0b6e4f',
  text_color: '#ffffff' as const,
  logo: {
    content_type: 'image/svg+xml' as const,
    size: 1_843,
    sha256: '9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f',
    updated_at: '2026-11-29T10:00:00.000Z',
  },
  updated_at: '2026-11-29T10:00:00.000Z',
};

/** The multipart file field `logo`. */
const logoFile = z.string().openapi({
  format: 'binary',
  description: 'PNG, JPEG or SVG, at most 512 kB; the type is read from the bytes, an SVG is sanitised',
});

/** The answer of a logo read, the dashboard's and the page's: the image as stored, with its own type. */
const LOGO_ANSWER: RouteDoc['success'] = {
  status: 200,
  description: 'The logo',
  contentType: 'image/*',
  schema: z.string().openapi({ format: 'binary', description: 'The image: PNG, JPEG or SVG' }),
  example: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>',
};

/** Branding. */
export const brandingRouteDocs: RouteDoc[] = [
  {
    operationId: 'retrieveBranding',
    method: 'get',
    path: '/v1/developer/branding',
    tag: TAG,
    summary: 'Retrieve your branding',
    description: `Your display name, brand colour with the text colour the page writes on it, and logo (its type, size and hash). Every field is null until you set it. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: environmentOnlyQuery,
    success: {
      status: 200,
      description: 'Your branding',
      schema: out.envelope(out.branding),
      example: ok('Branding retrieved', brandingExample),
    },
  },
  {
    operationId: 'updateBranding',
    method: 'put',
    path: '/v1/developer/branding',
    tag: TAG,
    summary: 'Change your branding',
    description:
      "The display name and brand colour as JSON (a field left out keeps its value, null clears it), or a multipart form with the same text fields and the file `logo`: a PNG, JPEG or SVG of at most 512 kB, recognised by its bytes (never its name or declared type). An SVG is sanitised: scripts, event handlers, `<foreignObject>`, `<style>`, links, animations and references outside the file are removed. The page's text colour on the brand colour is chosen for WCAG AA contrast. An owner's or admin's session token, or a secret key; it applies to both environments.",
    security: DEVELOPER,
    query: environmentOnlyQuery,
    body: brandingBody,
    bodyExample: { display_name: 'Kigali Crafts', brand_color: '#0b6e4f' },
    bodyAlternative: {
      contentType: 'multipart/form-data',
      schema: z.object({
        logo: logoFile.optional(),
        display_name: brandingBody.shape.display_name,
        brand_color: brandingBody.shape.brand_color,
      }),
      example: { logo: '(file contents)', display_name: 'Kigali Crafts' },
    },
    success: {
      status: 200,
      description: 'Your branding after the change',
      schema: out.envelope(out.branding),
      example: ok('Branding updated', brandingExample),
    },
    codes: ['unsupported_file_type', 'file_too_large'],
  },
  {
    operationId: 'retrieveBrandingLogo',
    method: 'get',
    path: '/v1/developer/branding/logo',
    tag: TAG,
    summary: 'Retrieve your logo',
    description: `Your logo as stored (an SVG sanitised), with its own \`Content-Type\` and the headers of the page's logo. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: environmentOnlyQuery,
    success: LOGO_ANSWER,
    codes: [{ code: 'not_found', when: 'You have no logo.', message: 'there is no logo' }],
  },
  {
    operationId: 'deleteBrandingLogo',
    method: 'delete',
    path: '/v1/developer/branding/logo',
    tag: TAG,
    summary: 'Remove your logo',
    description: "The page then shows your display name alone. An owner's or admin's session token, or a secret key.",
    security: DEVELOPER,
    query: environmentOnlyQuery,
    body: emptyBody,
    bodyExample: {},
    success: {
      status: 200,
      description: 'Your branding without a logo',
      schema: out.envelope(out.branding),
      example: ok('Logo removed', { ...brandingExample, logo: null }),
    },
    codes: [{ code: 'not_found', when: 'You have no logo.', message: 'there is no logo to remove' }],
  },
  {
    operationId: 'retrieveCheckoutSessionLogo',
    method: 'get',
    path: '/v1/checkout/sessions/{id}/logo',
    tag: TAG,
    summary: "The logo a checkout session's page shows",
    description:
      "The page's own read, without a key: the logo of the session's merchant, as stored (an SVG sanitised), with its own `Content-Type`, `X-Content-Type-Options: nosniff`, a Content-Security-Policy under which no script runs, an `ETag` and an hour's caching. 404 for an unknown session and for a merchant without a logo alike; it counts in the page's limit of 60 requests a minute per session and per client address (then 429 with `Retry-After`).",
    headers: z.object({
      'If-None-Match': z
        .string()
        .max(100)
        .optional()
        .openapi({ description: 'The `ETag` of a copy you hold: 304 while it is current' }),
    }),
    success: LOGO_ANSWER,
    otherSuccess: [{ status: 304, description: 'Your copy is current (no body)' }],
    errors: [404, 429],
  },
];
