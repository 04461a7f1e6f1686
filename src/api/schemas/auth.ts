/** Bodies of `POST /v1/auth/register` and `POST /v1/auth/login` (docs/api.md#sessions). */
import { z } from '../../lib/zod';

/** Register: e-mail, a password of 10–200 characters, a name, an optional business name. */
export const registerBody = z.strictObject({
  email: z
    .email()
    .max(254)
    .transform((value) => value.trim().toLowerCase()),
  password: z.string().min(10).max(200),
  name: z.string().trim().min(1).max(200),
  business_name: z.string().trim().min(1).max(200).optional(),
});

/** Login: e-mail and password. */
export const loginBody = z.strictObject({
  email: z
    .string()
    .min(1)
    .max(254)
    .transform((value) => value.trim().toLowerCase()),
  password: z.string().min(1).max(200),
});
