/** Domain errors in tests: what a refused call names. */
import { DomainError } from '../../src/domain/errors';

/**
 * The code, first field and message of the DomainError `fn` throws.
 * @throws Error when `fn` returns, or rethrows what is not a DomainError
 */
export function problemOf(fn: () => unknown): { code: string; field?: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError)
      return { code: error.code, field: error.details?.[0]?.field, message: error.message };
    throw error;
  }
  throw new Error('expected a DomainError');
}
