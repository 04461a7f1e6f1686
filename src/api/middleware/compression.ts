/**
 * Compressed answers (docs/api.md#compression): Brotli or gzip, as the client's `Accept-Encoding` prefers,
 * for every compressible answer of at least 1 kB (JSON of the API, the dashboard's HTML, scripts and
 * styles), through koa-compress. Server-Sent Events are never compressed: a compressor holds bytes
 * back until it has enough, and a stream's events must leave as they are written.
 */
import compressible from 'compressible';
import compress from 'koa-compress';
import type { Middleware } from 'koa';

/** Answers smaller than this (bytes) go as they are: compressing them saves less than it costs. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** true for a content type worth compressing; false for `text/event-stream` and binary types (images, PDFs). */
export function worthCompressing(type: string): boolean {
  if (/^text\/event-stream\b/i.test(type)) return false;
  return compressible(type) === true;
}

/**
 * The compression middleware; mounted first, so it compresses the final body of every answer,
 * errors included, after everything inside it has read the body as it was.
 */
export function compression(): Middleware {
  return compress({
    filter: worthCompressing,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodingPreference: ['br', 'gzip', 'identity'],
    // Brotli's quality 4 (koa-compress's default) is as fast as gzip and smaller; zstd is left out
    // because Node 20 has no zstd compressor and answers must not depend on the Node version.
    zstd: false,
    deflate: false,
  });
}
