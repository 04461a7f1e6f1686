/**
 * Requests between the benchmark and the processes it started, over Node's IPC channel
 * (`spawn(…, {stdio: [..., 'ipc']})`): the parent sends `{id, type}`, the child answers `{id, result}`
 * or `{id, error}`. The child's channel is unref'd, so answering never keeps a process alive.
 */
import type { ChildProcess } from 'node:child_process';

type Handler = () => unknown;

interface Request {
  id: number;
  type: string;
}

interface Reply {
  id: number;
  result?: unknown;
  error?: string;
}

const handlers = new Map<string, Handler>();

/** In a child: answer requests of `type` with `handler`'s result (awaited when it is a promise). */
export function answerRequests(type: string, handler: Handler): void {
  if (!process.send) return; // not started with an IPC channel: nobody can ask
  const first = handlers.size === 0;
  handlers.set(type, handler);
  if (!first) return;
  process.on('message', (message: Request) => {
    const found = handlers.get(message?.type);
    void Promise.resolve()
      .then(() => {
        if (!found) throw new Error(`no handler for ${String(message?.type)}`);
        return found();
      })
      .then(
        (result) => process.send?.({ id: message.id, result } satisfies Reply),
        (error: unknown) => process.send?.({ id: message.id, error: String(error) } satisfies Reply),
      );
  });
  process.channel?.unref();
}

let nextId = 1;

/** In the parent: asks `child` for `type` and resolves with its answer; rejects after `timeoutMs`. */
export function requestFrom<T>(child: ChildProcess, type: string, timeoutMs = 60_000): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`no answer to ${type} from process ${child.pid} within ${timeoutMs} ms`));
    }, timeoutMs);
    function onMessage(message: Reply): void {
      if (message?.id !== id) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.result as T);
    }
    child.on('message', onMessage);
    child.send({ id, type } satisfies Request);
  });
}
