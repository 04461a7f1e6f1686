/**
 * The error middleware's answers for errors thrown by Koa and its libraries (http-errors), not by
 * our services (docs/api.md#errors): each in the envelope, with the thrower's own 4xx message and
 * never a stack trace; a 5xx says only "internal error".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { principalOf } from '../../src/api/middleware/auth';
import { errorHandler } from '../../src/api/middleware/error-handler';

describe('error middleware: errors of Koa and its libraries (docs/api.md#errors)', () => {
  let server: http.Server;
  let baseUrl: string;

  before(async () => {
    const app = new Koa();
    app.use(errorHandler());
    app.use((ctx) => {
      if (ctx.path === '/decode') ctx.throw(400, 'failed to decode');
      if (ctx.path === '/plain') ctx.throw(400);
      if (ctx.path === '/hidden') ctx.throw(400, 'internal detail', { expose: false });
      // A handler mounted without its authentication, which asks for the caller.
      if (ctx.path === '/no-principal') ctx.body = principalOf(ctx);
      ctx.throw(500, 'database password is hunter2');
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function answer(path: string): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${baseUrl}${path}`);
    return { status: response.status, body: await response.json() };
  }

  it("answers a 400 with its thrower's message, not a claim about the body", async () => {
    expect(await answer('/decode')).to.deep.equal({
      status: 400,
      body: { success: false, error: { code: 'invalid_request', message: 'failed to decode' } },
    });
    expect(await answer('/plain')).to.deep.equal({
      status: 400,
      body: { success: false, error: { code: 'invalid_request', message: 'Bad Request' } },
    });
  });

  it('keeps a message its thrower did not expose to itself, and a 5xx says only "internal error"', async () => {
    expect(await answer('/hidden')).to.deep.equal({
      status: 400,
      body: { success: false, error: { code: 'invalid_request', message: 'bad request' } },
    });
    expect(await answer('/boom')).to.deep.equal({
      status: 500,
      body: { success: false, error: { code: 'internal_error', message: 'internal error' } },
    });
  });

  it('answers a handler that meets no authenticated caller with 401 unauthorized, never 500 (docs/api.md#credentials)', async () => {
    expect(await answer('/no-principal')).to.deep.equal({
      status: 401,
      body: { success: false, error: { code: 'unauthorized', message: 'this endpoint needs a credential' } },
    });
  });
});
