/**
 * The public status page (docs/availability.md#status-page): a small HTML document with one style block and no script,
 * nothing loaded from elsewhere; every stored text (an operator's reason) escaped.
 */
import type { ProviderStatus, StatusPage } from '../domain/provider-health';

/** The page's only style; its SHA-256 is the one style the page's Content-Security-Policy allows. */
export const STATUS_PAGE_STYLE = [
  'body{font-family:system-ui,sans-serif;margin:0;color:#111;background:#fff;line-height:1.4}',
  'main{max-width:56rem;margin:0 auto;padding:1rem}',
  'h2{font-size:1.15rem;margin:1.5rem 0 .5rem}',
  'h3{font-size:1rem;margin:0}',
  'ul{list-style:none;margin:0;padding:0}',
  '.row{border-top:1px solid #ddd;padding:.6rem 0}',
  '.head{display:flex;justify-content:space-between;gap:.5rem;flex-wrap:wrap}',
  '.s{font-weight:600;margin:0}',
  '.s.operational{color:#14532d}.s.degraded{color:#713f12}.s.down{color:#7f1d1d}',
  '.bars{display:flex;gap:1px;margin-top:.4rem;height:1.6rem}',
  '.bars span{flex:1 1 0;min-width:0;border-radius:1px}',
  '.bars .operational{background:#16a34a}.bars .degraded{background:#ca8a04}.bars .down{background:#dc2626}',
  '.axis{display:flex;justify-content:space-between;font-size:.8rem;color:#444}',
  '.incidents li{border-top:1px solid #ddd;padding:.5rem 0;overflow-wrap:anywhere}',
  'time{font-variant-numeric:tabular-nums}',
].join('\n');

const WORD: Readonly<Record<ProviderStatus, string>> = {
  operational: 'Operational',
  degraded: 'Degraded',
  down: 'Down',
};

/** `text` safe inside HTML text and double-quoted attributes. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `2026-11-29 04:51 UTC` of epoch ms `at`. */
function utc(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** What the bars say in words, for a screen reader. */
function barsLabel(days: readonly ProviderStatus[]): string {
  const count = (status: ProviderStatus) => days.filter((day) => day === status).length;
  return `Last ${days.length} days: ${count('operational')} operational, ${count('degraded')} with a degraded spell, ${count('down')} with an outage`;
}

/** The page of `page` rendered at `now` (epoch ms), a complete HTML document (UTF-8). */
export function statusPageHtml(page: StatusPage, now: number): string {
  const groups = new Map<string, StatusPage['rows']>();
  for (const row of page.rows) {
    const name = `${row.provider} · ${row.country}`;
    groups.set(name, [...(groups.get(name) ?? []), row]);
  }
  const sections = [...groups].map(([name, rows]) => {
    const items = rows.map((row) => {
      const bars = row.days.map((day) => `<span class="${day}"></span>`).join('');
      const reason = row.reason ? `<p>${escapeHtml(row.reason)}</p>` : '';
      return `<li class="row"><div class="head"><h3>${row.operation}</h3><p class="s ${row.status}">${WORD[row.status]}</p></div>${reason}<div class="bars" role="img" aria-label="${barsLabel(row.days)}">${bars}</div><div class="axis" aria-hidden="true"><span>${page.firstDay}</span><span>today</span></div></li>`;
    });
    return `<section><h2>${escapeHtml(name)}</h2><ul>${items.join('')}</ul></section>`;
  });
  const incidents = page.incidents.length
    ? `<ul class="incidents">${page.incidents
        .map(
          (change) =>
            `<li><time datetime="${new Date(change.at).toISOString()}">${utc(change.at)}</time> ${change.provider} ${change.country} ${change.operation}: ${WORD[change.from]} → ${WORD[change.to]}${change.reason ? `. ${escapeHtml(change.reason)}` : ''}</li>`,
        )
        .join('')}</ul>`
    : `<p>No incidents in the last ${page.rows[0]?.days.length ?? 90} days.</p>`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Operator status</title><style>${STATUS_PAGE_STYLE}</style></head>`,
    '<body><main><h1>Operator status</h1>',
    `<p>Each mobile-money operator, country and operation as measured from live payments, payouts and refunds across all merchants. Updated ${utc(now)}.</p>`,
    ...sections,
    '<section><h2>Incidents</h2>',
    incidents,
    '</section></main></body>',
    '</html>',
  ].join('\n');
}
