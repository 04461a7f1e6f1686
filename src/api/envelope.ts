/**
 * The success envelope of the generic and developer endpoints (`{success, message, data}`, docs/versioning.md#stable).
 */
import type { Context } from 'koa';

/** `{success: true, message, data}` with HTTP `status`. */
export function respond(ctx: Context, status: number, message: string, data: unknown): void {
  ctx.status = status;
  ctx.body = { success: true, message, data };
}
