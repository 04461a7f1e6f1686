/**
 * The cursor of a cursor-paginated list (docs/limits.md#lists): `starting_after` names an item of the caller's list,
 * and the page is what follows it. A foreign id looks unknown (docs/api.md#merchants-and-environments).
 */
import { validationError } from '../domain/errors';

/**
 * The list position of the item `startingAfter`, as `find` reads it; undefined when no cursor was given.
 * @param unknown the validation message for an id `find` does not find
 * @throws DomainError `validation_error` (400) naming `starting_after` when `find` finds no such item of the caller's
 */
export async function cursorPosition<P>(
  startingAfter: string | undefined,
  find: (id: string) => Promise<P | undefined>,
  unknown: (id: string) => string,
): Promise<P | undefined> {
  if (startingAfter === undefined) return undefined;
  const position = await find(startingAfter);
  if (!position) throw validationError([{ field: 'starting_after', message: unknown(startingAfter) }]);
  return position;
}
