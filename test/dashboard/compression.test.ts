/**
 * Compressed answers (docs/api.md#compression) over real HTTP against the real stack: Brotli or gzip as
 * `Accept-Encoding` asks, for the API's JSON and the dashboard's files; small answers, clients that ask
 * for nothing and the event stream go as they are; the dashboard's source maps are never served.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { registerDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';

/** A raw answer: status, headers and the body's bytes as they came over the wire. */
interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
}

/**
 * GET `path` with exactly `headers` (fetch would add and undo its own encoding); with `firstChunkOnly` the
 * answer is cut after its headers and first bytes, for a stream that never ends.
 */
async function rawGet(path: string, headers: Record<string, string>, firstChunkOnly = false): Promise<RawAnswer> {
  const { baseUrl } = await getStack();
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(path, baseUrl), { headers }, (response) => {
      const chunks: Buffer[] = [];
      const done = () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (firstChunkOnly) {
          request.destroy();
          done();
        }
      });
      response.on('end', done);
    });
    request.on('error', (error) => (firstChunkOnly ? undefined : reject(error)));
  });
}

/** The script the dashboard's index.html loads first. */
async function dashboardScript(): Promise<string> {
  const index = await rawGet('/dashboard/', {});
  const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(index.bytes.toString('utf8'))?.[1];
  expect(script, 'the script of index.html').to.be.a('string');
  return script as string;
}

describe('compressed answers (docs/api.md#compression)', function () {
  this.timeout(60_000);

  it("sends the dashboard's script with Brotli or gzip as asked, identical once decoded, and as it is to a client that asks for neither", async () => {
    const script = await dashboardScript();
    const plain = await rawGet(script, {});
    expect(plain.status).to.equal(200);
    expect(plain.headers['content-encoding']).to.equal(undefined);
    const brotli = await rawGet(script, { 'accept-encoding': 'gzip, deflate, br' });
    expect(brotli.headers['content-encoding']).to.equal('br');
    expect(brotli.headers.vary).to.match(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(brotli.bytes).equals(plain.bytes)).to.equal(true);
    expect(brotli.bytes.length).to.be.below(plain.bytes.length / 2);
    const gzip = await rawGet(script, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).to.equal('gzip');
    expect(zlib.gunzipSync(gzip.bytes).equals(plain.bytes)).to.equal(true);
  });

  it('compresses a JSON answer of the API and leaves a small answer alone', async () => {
    const document = await rawGet('/v1/openapi.json', { 'accept-encoding': 'br' });
    expect(document.headers['content-encoding']).to.equal('br');
    expect(JSON.parse(zlib.brotliDecompressSync(document.bytes).toString('utf8')).openapi).to.match(/^3\./);
    const health = await rawGet('/healthz', { 'accept-encoding': 'br' });
    expect(health.status).to.equal(200);
    expect(health.bytes.length).to.be.below(1024);
    expect(health.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(health.bytes.toString('utf8'))).to.be.an('object');
  });

  it('never compresses the event stream, whose events must leave as they are written', async () => {
    const developer = await registerDeveloper();
    const stream = await rawGet(
      '/v1/developer/events/stream',
      { authorization: `Bearer ${developer.key}`, accept: 'text/event-stream', 'accept-encoding': 'br, gzip' },
      true,
    );
    expect(stream.status).to.equal(200);
    expect(stream.headers['content-type']).to.match(/^text\/event-stream/);
    expect(stream.headers['content-encoding']).to.equal(undefined);
  });

  it('serves no source map of the dashboard, and its script names none', async () => {
    const script = await dashboardScript();
    const code = (await rawGet(script, {})).bytes.toString('utf8');
    expect(code).not.to.match(/sourceMappingURL/);
    const map = await rawGet(`${script}.map`, {});
    expect(map.status).to.equal(404);
    expect(map.bytes.toString('utf8')).not.to.include('"sources"');
  });
});
