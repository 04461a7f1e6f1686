/**
 * The hosted payment page's Content-Security-Policy (docs/hosted-page.md#security): scripts from this server only
 * (its one script file), no inline script and no `unsafe-inline` anywhere; the page's one inline stylesheet allowed by
 * its SHA-256 hash; images, fetches and form posts to this server only; never framed. Stripe's origins are added only
 * to a live page offering a card, the one third-party script the page ever loads.
 */
import crypto from 'node:crypto';

/** Stripe.js and its Payment Element's origins (Stripe's documented CSP for Stripe.js). */
const STRIPE = {
  script: 'https://js.stripe.com',
  frame: 'https://js.stripe.com https://hooks.stripe.com',
  connect: 'https://api.stripe.com',
} as const;

/** The CSP source of an inline element's exact text. */
export function sha256Source(text: string): string {
  return `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The policy of one answer.
 * @param inlineStyles the exact texts of the answer's `<style>` elements
 * @param stripe true when the answer loads Stripe.js (live, card offered)
 */
export function contentSecurityPolicy(options: { inlineStyles: readonly string[]; stripe: boolean }): string {
  const styles = options.inlineStyles.map(sha256Source);
  return [
    "default-src 'none'",
    `script-src 'self'${options.stripe ? ` ${STRIPE.script}` : ''}`,
    `style-src ${styles.length ? styles.join(' ') : "'none'"}`,
    "img-src 'self'",
    `connect-src 'self'${options.stripe ? ` ${STRIPE.connect}` : ''}`,
    ...(options.stripe ? [`frame-src ${STRIPE.frame}`] : []),
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
