/**
 * Turns zod issues into the docs/api.md#errors `validation_error`: the message names the first bad field
 * ("amount is required") and `details` lists every one.
 */
import type { z } from 'zod';
import { validationError, type FieldProblem } from '../../domain/errors';

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

const TYPE_NAMES: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
};

function describe(issue: z.core.$ZodIssue, input: unknown): FieldProblem {
  const field = issue.path.map(String).join('.') || 'body';
  const value = valueAt(input, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return { field, message: `${field} is required` };
      return { field, message: `${field} must be ${TYPE_NAMES[issue.expected] ?? issue.expected}` };
    case 'too_small':
      if (issue.origin === 'string') {
        return { field, message: Number(issue.minimum) <= 1 ? `${field} must not be empty` : `${field} must be at least ${issue.minimum} characters` };
      }
      if (issue.origin === 'array') {
        return { field, message: Number(issue.minimum) <= 1 ? `${field} must not be empty` : `${field} must list at least ${issue.minimum} items` };
      }
      return { field, message: `${field} must be at least ${issue.minimum}` };
    case 'too_big':
      if (issue.origin === 'string') return { field, message: `${field} must be at most ${issue.maximum} characters` };
      if (issue.origin === 'array') return { field, message: `${field} must list at most ${issue.maximum} items` };
      return { field, message: `${field} must be at most ${issue.maximum}` };
    case 'invalid_value':
      if (value === undefined) return { field, message: `${field} is required` };
      return { field, message: `${field} must be one of: ${issue.values.map(String).join(', ')}` };
    case 'invalid_format':
      return { field, message: issue.message.startsWith(field) ? issue.message : `${field} must be a valid ${issue.format}` };
    case 'unrecognized_keys':
      return { field: issue.keys[0] ?? field, message: `unknown field: ${issue.keys.join(', ')}` };
    default:
      return { field, message: issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}` };
  }
}

/** C0 control characters other than tab, LF and CR, and DEL: refused in every string (docs/api.md#errors). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** How deep {@link controlCharacterProblems} looks into nested objects and arrays. */
const MAX_DEPTH = 8;

/**
 * Every string in `input` (values and object keys, nested) that holds a NUL or another control
 * character other than tab, CR and LF (docs/api.md#errors): PostgreSQL refuses NUL in text and jsonb, so such a
 * string must be refused before it reaches a query or a workflow.
 */
export function controlCharacterProblems(input: unknown, path: string[] = [], depth = 0): FieldProblem[] {
  const field = path.join('.') || 'body';
  if (typeof input === 'string') {
    return CONTROL_CHARACTER.test(input) ? [{ field, message: `${field} must not contain control characters (only tab, CR and LF are allowed)` }] : [];
  }
  if (input === null || typeof input !== 'object' || depth >= MAX_DEPTH) return [];
  return Object.entries(input).flatMap(([key, value]) => {
    const keyProblem = CONTROL_CHARACTER.test(key) ? [{ field, message: `${field} must not contain a key with control characters` }] : [];
    return [...keyProblem, ...controlCharacterProblems(value, [...path, key], depth + 1)];
  });
}

/**
 * Parses `input` (a body, a query or multipart fields) with `schema`, after refusing any string
 * with a control character (docs/api.md#errors).
 * @throws DomainError `validation_error` naming the first bad field, with `details` for all
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const control = controlCharacterProblems(input);
  if (control.length > 0) throw validationError(control);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // Each unknown field is a problem of its own, so `details` names every one (docs/api.md#errors).
  throw validationError(
    result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' ? issue.keys.map((key) => ({ field: key, message: `unknown field: ${key}` })) : [describe(issue, input)],
    ),
  );
}
