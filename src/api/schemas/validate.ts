/**
 * Turns zod issues into the D51 `validation_error`: the message names the first bad field
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

/**
 * Parses `input` with `schema`.
 * @throws DomainError `validation_error` naming the first bad field, with `details` for all
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error.issues.map((issue) => describe(issue, input)));
}
