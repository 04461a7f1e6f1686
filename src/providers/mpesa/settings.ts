/**
 * The live M-Pesa adapter's settings (`mpesa`, docs/providers.md#m-pesa): platform credentials from the environment,
 * validated at start by the configuration; secrets are never logged.
 */
import { z } from '../../lib/zod';
import { allOrNone, providerVariables } from '../provider-variables';
import { descriptor } from './descriptor';

/**
 * - `baseUrl`: Daraja's host, `https://api.safaricom.co.ke` (sandbox: `https://sandbox.safaricom.co.ke`);
 * - `consumerKey`, `consumerSecret`: the Daraja app's credentials (HTTP Basic to the OAuth token call);
 * - `shortcode`: the business short code (`BusinessShortCode`, the paybill or the till's head office number);
 * - `passkey`: the Lipa Na M-Pesa Online passkey Safaricom issues with the short code;
 * - `transactionType`: `CustomerPayBillOnline` (paybill, default) or `CustomerBuyGoodsOnline` (till);
 * - `partyB`: the till number that receives a buy-goods payment (default: the short code);
 * - `timeoutMs`: time-out of every call to Daraja, in milliseconds (default 8000, at most 9000: an STK push must
 *   answer, or be given up as unknown, within the workflow's 10 s provider call);
 * - `initiatorName`, `securityCredential`: the B2C API initiator (a user of the M-Pesa organisation portal with the
 *   B2C ORG API initiator role) and its password encrypted with Safaricom's public certificate, base64, as Daraja's
 *   portal gives it. Both or neither: with them, M-Pesa also pays out by B2C (docs/payouts.md#m-pesa-b2c);
 * - `b2cShortcode`: the B2C (bulk disbursement) short code money is paid from (`PartyA`; default: `shortcode`).
 */
export const mpesaSettingsSchema = z
  .object({
    baseUrl: z.url(),
    consumerKey: z.string().min(1),
    consumerSecret: z.string().min(1),
    shortcode: z.string().regex(/^[0-9]{5,7}$/, 'a short code is 5 to 7 digits'),
    passkey: z.string().min(1),
    transactionType: z.enum(['CustomerPayBillOnline', 'CustomerBuyGoodsOnline']).default('CustomerPayBillOnline'),
    partyB: z
      .string()
      .regex(/^[0-9]{5,7}$/, 'a till number is 5 to 7 digits')
      .optional(),
    timeoutMs: z.number().int().positive().max(9000).default(8000),
    initiatorName: z.string().min(1).max(100).optional(),
    securityCredential: z.string().min(1).optional(),
    b2cShortcode: z
      .string()
      .regex(/^[0-9]{5,7}$/, 'a short code is 5 to 7 digits')
      .optional(),
  })
  .superRefine(allOrNone(['initiatorName', 'securityCredential'], 'required when the other B2C setting is given'));

/** The adapter's settings, as {@link mpesaSettingsSchema} gives them. */
export type MpesaSettings = z.infer<typeof mpesaSettingsSchema>;

/** M-Pesa's variables (docs/providers.md#configuration): `MPESA_…` in live, `MPESA_SANDBOX_…` for Daraja's sandbox. */
export const variables = providerVariables(descriptor.code, 'MPESA', mpesaSettingsSchema);
