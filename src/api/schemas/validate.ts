/**
 * Turns zod issues into the docs/api.md#errors `validation_error`: the message names the first bad field
 * ("amount is required") and `details` lists every one.
 */
import type { z } from 'zod';
import { validationError, type FieldProblem } from '../../domain/errors';
import { textFault, textFaultMessage } from '../../domain/text';
import { MAX_JSON_DEPTH } from '../middleware/json-body';

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
      if (issue.origin === 'string' || issue.origin === 'array') {
        const atLeast =
          issue.origin === 'string'
            ? `be at least ${issue.minimum} characters`
            : `list at least ${issue.minimum} items`;
        return {
          field,
          message: Number(issue.minimum) <= 1 ? `${field} must not be empty` : `${field} must ${atLeast}`,
        };
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
      return {
        field,
        message: issue.message.startsWith(field) ? issue.message : `${field} must be a valid ${issue.format}`,
      };
    case 'unrecognized_keys':
      return { field: issue.keys[0] ?? field, message: `unknown field: ${issue.keys.join(', ')}` };
    default:
      return { field, message: issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}` };
  }
}

/**
 * How deep {@link textProblems} looks into nested objects and arrays: as deep as a body may nest
 * (docs/limits.md#request-bodies), so no string of an accepted body escapes the text rule.
 */
const MAX_DEPTH = MAX_JSON_DEPTH + 1;

/**
 * Every string in `input` (values and object keys, nested) that breaks the text rule of
 * docs/limits.md#request-bodies: a lone surrogate (not well-formed Unicode) or a control character
 * other than tab, CR and LF. PostgreSQL refuses NUL in text and jsonb and lone surrogates in jsonb,
 * so such a string must be refused before it reaches a query, a workflow or a provider.
 * @param path the field's path so far (`metadata.order`); `body` when empty
 */
export function textProblems(input: unknown, path: string[] = [], depth = 0): FieldProblem[] {
  const field = path.join('.') || 'body';
  if (typeof input === 'string') {
    const fault = textFault(input);
    return fault ? [{ field, message: textFaultMessage(field, fault) }] : [];
  }
  if (input === null || typeof input !== 'object' || depth >= MAX_DEPTH) return [];
  return Object.entries(input).flatMap(([key, value]) => {
    const keyFault = textFault(key);
    const keyProblem = keyFault
      ? [
          {
            field,
            message: `${field} must not contain a key that ${keyFault === 'ill_formed' ? 'is not well-formed Unicode text' : 'holds control characters'}`,
          },
        ]
      : [];
    return [...keyProblem, ...textProblems(value, [...path, key], depth + 1)];
  });
}

/**
 * Refuses a text header (`Idempotency-Key`, `Last-Event-ID`) that breaks the text rule of
 * docs/limits.md#request-bodies.
 * @throws DomainError `validation_error` naming the header
 */
export function checkTextHeader(name: string, value: string): void {
  const problems = textProblems(value, [name]);
  if (problems.length > 0) throw validationError(problems);
}

/**
 * Parses `input` (a body, a query or multipart fields) with `schema`, after refusing any string
 * that breaks the text rule (ill-formed Unicode, control characters; docs/limits.md#request-bodies): every schema gets
 * it,
 * none can forget it.
 * @throws DomainError `validation_error` naming the first bad field, with `details` for all
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const text = textProblems(input);
  if (text.length > 0) throw validationError(text);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // Each unknown field is a problem of its own, so `details` names every one (docs/api.md#errors).
  throw validationError(
    result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ field: key, message: `unknown field: ${key}` }))
        : [describe(issue, input)],
    ),
  );
}
