/** Bodies of `POST /v1/auth/register` and `POST /v1/auth/login` (docs/api.md#sessions). */
import { z } from '../../lib/zod';
import { emailAddress, trimmedText } from './fields';

/**
 * A new password (docs/api.md#sessions): 10 to 200 characters, the same rule wherever one is chosen (registration,
 * accepting an invitation, a password change).
 */
export const newPassword = z.string().min(10).max(200);

/** Register: e-mail, a password of 10–200 characters, a name, an optional business name. */
export const registerBody = z.strictObject({
  email: emailAddress.openapi({ description: 'Your e-mail, your sign-in name' }),
  password: newPassword.openapi({ description: 'At least 10 characters' }),
  name: trimmedText(200).openapi({ description: 'Your name' }),
  business_name: trimmedText(200).optional().openapi({ description: 'Your business, as customers know it' }),
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

/**
 * `POST /v1/developer/password` (docs/security.md#password): the current password and a new one, which must differ.
 */
export const changePasswordBody = z
  .strictObject({
    current_password: z.string().min(1).max(200).openapi({ description: 'The password you sign in with now' }),
    new_password: newPassword.openapi({
      description: 'The password to sign in with from now on: 10 to 200 characters, not the current one',
    }),
  })
  .refine((body) => body.new_password !== body.current_password, {
    message: 'new_password must differ from the current password',
    path: ['new_password'],
  });
