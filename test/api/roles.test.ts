/**
 * The access table over real HTTP (docs/security.md#roles): every route of the OpenAPI document, called with the
 * session of a member of every role, answers exactly as the one table says: allowed (anything but 403) or 403
 * `forbidden` naming the role. Key-only routes refuse every session; the table lists every route and no other.
 */
import { expect } from 'chai';
import { ROUTE_DOCS } from '../../src/api/openapi';
import { ENDPOINT_ACCESS, ROLES, type Role } from '../../src/domain/access';
import { teamOfEveryRole } from '../helpers/security';
import { getStack } from '../helpers/stack';

/** The status and body of one call; the body is not read for an event stream, which stays open. */
async function statusOf(path: string, method: string, token: string): Promise<{ status: number; body: any }> {
  const { baseUrl } = await getStack();
  const controller = new AbortController();
  const hasBody = method !== 'GET';
  const response = await fetch(baseUrl + path, {
    method,
    signal: controller.signal,
    headers: {
      authorization: `Bearer ${token}`,
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
      'idempotency-key': `roles-${Date.now()}-${Math.random()}`,
    },
    body: hasBody ? '{}' : undefined,
  });
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    controller.abort();
    return { status: response.status, body: undefined };
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body };
}

const authenticated = ROUTE_DOCS.filter((doc) => doc.security?.length);
const endpoint = (doc: (typeof ROUTE_DOCS)[number]) => `${doc.method.toUpperCase()} ${doc.path}`;

describe('roles × endpoints (docs/security.md#roles)', function () {
  this.timeout(300_000);

  it('lists every authenticated route of the OpenAPI document in the access table, and nothing else', () => {
    const documented = authenticated.map(endpoint).sort();
    expect(Object.keys(ENDPOINT_ACCESS).sort()).to.deep.equal(documented);
  });

  it('answers every route, for every role, as the access table says', async () => {
    const { members } = await teamOfEveryRole();
    const mismatches: string[] = [];
    for (const doc of authenticated) {
      const access = ENDPOINT_ACCESS[endpoint(doc)];
      const path = doc.path.replace(/\{[^}]+\}/g, 'unknown_id');
      for (const role of ROLES) {
        const { status, body } = await statusOf(path, doc.method.toUpperCase(), members[role as Role].token);
        const takesSessions = doc.security?.includes('session') ?? false;
        if (!takesSessions) {
          if (status !== 401) mismatches.push(`${endpoint(doc)} as ${role}: ${status}, want 401 (keys only)`);
          continue;
        }
        const allowed = access?.roles.includes(role) ?? false;
        if (allowed && status === 403)
          mismatches.push(`${endpoint(doc)} as ${role}: 403 ${JSON.stringify(body?.error)}, want allowed`);
        if (!allowed && (status !== 403 || body?.error?.code !== 'forbidden' || !body.error.message.includes(role)))
          mismatches.push(`${endpoint(doc)} as ${role}: ${status}, want 403 forbidden`);
      }
    }
    expect(mismatches).to.deep.equal([]);
  });
});
