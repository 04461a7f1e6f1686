/** Bodies of `POST /v1/auth/register` and `POST /v1/auth/login` (docs/api.md#sessions). */
import { z } from '../../lib/zod';

/** Register: e-mail, a password of 10–200 characters, a name, an optional business name. */
export const registerBody = z.strictObject({
  email: z
    .email()
    .max(254)
    .transform((value) => value.trim().toLowerCase())
    .openapi({ description: 'Your e-mail, your sign-in name' }),
  password: z.string().min(10).max(200).openapi({ description: 'At least 10 characters' }),
  name: z.string().trim().min(1).max(200).openapi({ description: 'Your name' }),
  business_name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'Your business, as customers know it' }),
});

/** Login: e-mail and password. */
export const loginBody = z.strictObject({
  email: z
    .string()
    .min(1)
    .max(254)
    .transform((value) => value.trim().toLowerCase())
    .openapi({ description: 'The e-mail you registered' }),
  password: z.string().min(1).max(200).openapi({ description: 'Your password' }),
});
