/**
 * The PayCollect API's types, generated from its OpenAPI document (GET /v1/openapi.json) by
 * openapi-typescript. Do not edit: run `npm run client:generate`; `npm test` fails when this file
 * differs from what the document generates.
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description Answers 200 while the process runs.
         */
        get: operations["checkHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness
         * @description Answers 200 when the database and the workflow engine can be reached, 503 naming what cannot.
         */
        get: operations["checkReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics */
        get: operations["retrieveMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document
         * @description The OpenAPI 3.1 description of this API, from which clients can be generated.
         */
        get: operations["retrieveOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** API reference page */
        get: operations["retrieveApiReference"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/assets/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Assets of the reference page */
        get: operations["retrieveApiReferenceAsset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a developer account
         * @description Creates your account and merchant (`mer_…`) and answers a session token and your first sandbox secret key. The key's secret is shown only in this answer: store it. Passwords have 10 to 200 characters.
         */
        post: operations["registerDeveloper"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in
         * @description Answers a session token for the dashboard endpoints, valid for one hour, in `merchant_id` (default the first merchant you joined). With two-factor sign-in on, answers `{two_factor_required: true, challenge}` instead. A wrong e-mail address and a wrong password get the same answer.
         */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List payments
         * @description Your payments in the key's environment, newest first, `limit` per page (default 10, at most 100). For the next page pass the `pagination.next_starting_after` of this one as `starting_after`; new payments created meanwhile do not shift the pages. Filter by `status`, `pending_reason` (why an open payment waits: `awaiting_customer`, `awaiting_provider`, `provider_unreachable`, `awaiting_callback`, `checking_with_provider`), `payment_method` and creation time (`created[gte]`, `created[lte]`: Unix seconds or ISO 8601). Payments created through the merchant-scoped endpoint are listed too, in this form.
         */
        get: operations["listPayments"];
        put?: never;
        /**
         * Create a payment
         * @description `amount` is an integer in the currency's minor unit (RWF 1,500 is `1500`; USD 15.00 is `1500`). The answer comes once the provider has the request: `pending` with `next_action`, what the customer or your front end does next, or `failed` when the provider refused it at once. An open payment says why it waits, `pending_reason`, and the latest time it will be final, `decision_expected_by`; both are null once it is final.
         *
         *     Send an `Idempotency-Key`: a retry with the same key and body answers the first payment (header `Idempotent-Replayed: true`) and never creates a second one.
         *
         *     Sandbox test numbers (national number ending): `0001` completes at once, `0002` is declined, `0003` never answers and expires, `0010` fails at once with the provider's own error (`provider_error`), `0011` is taken and then never answered until it expires (`expired`); both count as the operator's failures in `GET /v1/availability`. Any other completes after a few seconds.
         */
        post: operations["createPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a payment */
        get: operations["retrievePayment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a payment
         * @description Cancels a `pending` or `processing` payment, with an optional `reason`. If the provider reports the customer's payment first, the cancel loses: 409 `payment_not_cancellable`, and the payment is `completed`.
         */
        post: operations["cancelPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payments/{id}/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund a payment
         * @description Refunds part (`amount`, in minor units) or all (no `amount`: the whole rest) of a `completed` payment. The refund is written before the provider is asked. It is `completed`, `failed` when the provider refused it (nothing moved; `refund.failed` is sent and the amount is refundable again), or `pending` when the provider's answer is not known yet: the amount then stays reserved (the payment's `amount_refund_pending`) and `refund.completed` or `refund.failed` follows once the provider decides. A `reason` that is not well-formed Unicode text is refused (400) before anything is written or sent.
         */
        post: operations["refundPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/merchants/{merchant_id}/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a payment (merchant-scoped)
         * @description The merchant-scoped form of payment creation: `amount` is a decimal string with two decimals (`"1500.00"`, also for currencies without minor units, where the decimals are `.00`), the key goes in `X-API-Key`, and errors answer `{error}`. The fee is in `metadata.fee_amount` and `metadata.fee_percentage`.
         */
        post: operations["createMerchantPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api/merchants/{merchant_id}/payments/{payment_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retrieve a payment (merchant-scoped) */
        get: operations["retrieveMerchantPayment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/provider-callbacks/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Provider callback (PUT)
         * @description The same callback for providers that call back with PUT (MTN MoMo does). Called by payment providers, not by merchants. Each provider authenticates its own way; a callback is a hint that the payment's status is then confirmed with the provider.
         */
        put: operations["receiveProviderCallbackByPut"];
        /**
         * Provider callback
         * @description Called by payment providers, not by merchants. Each provider authenticates its own way; a callback is a hint that the payment's status is then confirmed with the provider.
         */
        post: operations["receiveProviderCallback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/card-gateway/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm a sandbox card payment
         * @description Plays the card gateway in the sandbox, as the gateway's client library would in your front end: send the payment's `client_secret` and a test card. `4242424242424242` succeeds, `4000000000000002` is declined, `4000000000009995` has insufficient funds. No API key: the client secret is the credential.
         */
        post: operations["confirmSandboxCardPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/payments/{id}/simulate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate a sandbox bank transfer
         * @description Makes the customer's transfer of a sandbox bank transfer payment arrive (`completed`) or fail (`failed`) now, instead of after 30 seconds.
         */
        post: operations["simulateSandboxPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/balance/settle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make pending sandbox funds available now
         * @description Sets `available_on` of your pending sandbox balance transactions to now, so their funds count as available at once (live funds wait for their provider's settlement delay).
         */
        post: operations["settleSandboxBalance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sandbox/providers/{provider}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set a provider's status in your sandbox for 10 minutes
         * @description Sets the status your sandbox sees of one provider, country and operation for 10 minutes, so you can test what an outage does (docs/availability.md#sandbox-override): your `GET /v1/availability`, your hosted pages' warning (`degraded`) and refusal (`down`), and your `refuse_when_provider_down` follow it; other merchants and live see nothing of it; the simulator itself keeps answering. When what you see changes, `provider.status_changed` goes to your sandbox webhooks only; the lapse sends none. Setting it again restarts the 10 minutes; `operational` ends it early.
         */
        post: operations["updateSandboxProviderStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve your balance
         * @description What you are owed per currency, in minor units: `available` (its `available_on` has passed), `pending` (not yet), and `refund_reserved`, what refunds still awaiting their provider hold (already taken from the balance). Fees are not returned on refunds, so a balance may be below zero. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/balance_transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List balance transactions
         * @description Every movement of your balance, newest first: each collected payment (`amount`, `fee`, `net`), each refund when accepted (`net` = −amount), a refused refund's release (`refund_failure`), payouts and adjustments. Cursor pages as `GET /v1/payments`; filter by `type`, `source`, `payout`, `created[gte|lte]` and `available_on[gte|lte]`. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["listBalanceTransactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/balance_transactions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a balance transaction
         * @description One balance transaction; another merchant's id answers 404. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveBalanceTransaction"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/balance/settlement_report": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a day’s settlement report
         * @description Every balance transaction created on one UTC day (`date`, `YYYY-MM-DD`), oldest first, each with gross, fee and net, its payment, your description of it and its metadata; and per currency the day’s sums with what you were owed when it began and ended (`opening_balance + net = closing_balance`). Today gives the report so far (`complete: false`); a later day, or one more than 730 days back, is refused. `format=csv` answers a file to download (`text/csv`, UTF-8 with a byte-order mark, amounts as decimals in the currency’s unit, cells a spreadsheet would run as formulas prefixed with `'`), one `payment_metadata[key]` column per metadata key, and one section per currency: an `opening_balance` row, the currency’s lines, a `total` row and a `closing_balance` row, never a sum across currencies. `currency` narrows the report (JSON and CSV) to one currency. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveDaySettlementReport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/{id}/settlement_report": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a payout’s settlement report
         * @description What a payout comprised: the balance transactions it covers (payments, refunds, refused refunds, adjustments; an automatic payout covers what became available since the last one, a manual payout the balance transactions it drew on, first in first out), each with gross, fee and net, then its `payout_fee` line and, when not 0, a `balance_carried` line (balance it paid out that its lines do not itemize, or that stayed in your balance, such as the schedule’s minimum). The lines’ `net` adds up to the payout’s amount. `format=csv` answers a file to download, as the day report does. Another merchant’s payout answers 404. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrievePayoutSettlementReport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/availability": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Operators' availability
         * @description Each provider, country and operation your environment serves, measured from the service's own traffic across merchants (docs/availability.md): `status` (`operational`, `degraded`, `down`), since when, the success rate and the p50 and p95 seconds to final over the most recent 50 decided attempts within 10 minutes. Only the provider's own failures count against it, never your payers' declines. Any API key, restricted keys included. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["listAvailability"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The public status page
         * @description An HTML page for anyone, without a key (docs/availability.md#status-page): every provider, country and operation of the live environment with today's status, the last 90 days as daily bars (the worst status of each day) and the changes of those days with their reasons. No script; cached for 30 s.
         */
        get: operations["retrieveStatusPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payout_destinations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List payout destinations
         * @description Your destinations, newest first, with their verification state. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["listPayoutDestinations"];
        put?: never;
        /**
         * Add a payout destination
         * @description A mobile-money wallet (`{type: mobile_money, phone_number}`, E.164; its operator is found by prefix and, where the provider can say (MTN), its holder is looked up) or a bank account (`{type: bank_account, bank_code, account_number, account_holder_name}`). In live it needs a session token whose two-factor code is from the last 5 minutes, the owners are e-mailed, and it is usable 24 hours later; in the sandbox at once. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        post: operations["createPayoutDestination"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payout_destinations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a payout destination
         * @description No payout can go to it any more; payouts already made keep naming it. In live it needs the same step-up as adding one. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        delete: operations["deletePayoutDestination"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List payouts
         * @description Your payouts, newest first, in cursor pages as `GET /v1/payments`; filter by `status`, `destination` and `created[gte|lte]`. What a payout covers: `GET /v1/balance_transactions?payout=po_…`. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["listPayouts"];
        put?: never;
        /**
         * Create a payout
         * @description Sends `amount` minor units of your available balance to one of your destinations. Amount and payout fee (mobile money 1 %, bank a flat fee per currency) are reserved at once; the answer comes once the rail has the payout (`in_transit` or `paid`), refused it (`failed`, funds back) or is down (`pending` with `pending_reason`: it is sent when the rail is back), within 10 s. Send an `Idempotency-Key`: a retry with the same key answers the same payout. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        post: operations["createPayout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a payout
         * @description One payout with its status timeline; another merchant's id answers 404. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrievePayout"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payouts/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a pending payout
         * @description While it is `pending` (its rail does not have it yet, e.g. while the rail is down): `cancelled`, amount and fee back to the balance. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        post: operations["cancelPayout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payout_schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve the automatic payout setting
         * @description `manual` until you set one. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrievePayoutSchedule"];
        /**
         * Set automatic payouts
         * @description `daily` (06:00 UTC) or `weekly` (Mondays 06:00 UTC) pays out what your available balance in `currency` holds above `minimum`, less the payout fee, to `destination`; `manual` stops it. Each automatic payout names the balance transactions it covers: `GET /v1/balance_transactions?payout=po_…`. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        put: operations["updatePayoutSchedule"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/checkout/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List checkout sessions
         * @description Your sessions, newest first, in cursor pages as `GET /v1/payments`; filter by `status`. A secret key (or a restricted key with `checkout:read`), or a session token of any role (the dashboard). With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["listCheckoutSessions"];
        put?: never;
        /**
         * Create a checkout session
         * @description One amount for one customer to pay on the page at `url`, by attempts (each a payment of the session; one at a time, at most 10) until `expires_at` (`expires_in` 1,800–86,400 s, default 86,400). A secret key, or a restricted key with `checkout:write`; `Idempotency-Key` as for payments.
         */
        post: operations["createCheckoutSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/checkout/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a checkout session
         * @description `payment` names the payment that completed it once `complete`. A secret key (or a restricted key with `checkout:read`), or a session token of any role. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveCheckoutSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/checkout/sessions/{id}/expire": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Expire a checkout session
         * @description An `open` session without an attempt in flight becomes `expired` (`checkout.session.expired`).
         */
        post: operations["expireCheckoutSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/checkout/sessions/{id}/public": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a checkout session as its page shows it
         * @description The page's own read, without a key: the session id is the capability. Only what the page shows: no metadata, no phone number, no id of your other resources. The page's own API takes 60 requests a minute per session and per client address (then 429 with `Retry-After`) and sends no CORS headers.
         */
        get: operations["retrievePublicCheckoutSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/checkout/sessions/{id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an attempt on a checkout session
         * @description The page's attempt, without a key: a mobile-money payment of the session to the number as the payer wrote it (the operator from its prefix, or `operator` for a ported number), which prompts the payer; or, where the session's currency is one cards take, `{"payment_method": "card"}`, a card payment whose `next_action.client_secret` the card form confirms (`operator` null). One at a time: while an attempt's payment has no final outcome another is refused and nobody is prompted.
         */
        post: operations["createCheckoutAttempt"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/checkout/sessions/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow a checkout session's status live
         * @description The page's live status, without a key, as Server-Sent Events (docs/checkout.md#live-status): `retry:` and a `: connected` comment, then at once the current state as one message whose `data` is `{status, attempt: {status, failure_code} | null}` (the latest attempt's payment), a message at each change, a `: heartbeat` comment every 15 seconds, and the end once the session is `complete` or `expired` (or after an hour: reconnect). At most 5 streams per session and 20 per client address at once.
         */
        get: operations["streamCheckoutSessionStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List payment links
         * @description Your links, newest first, in cursor pages as `GET /v1/payments`; filter by `active`.
         */
        get: operations["listPaymentLinks"];
        put?: never;
        /**
         * Create a payment link
         * @description A reusable address to share in a chat or print as a QR code: each visit opens a checkout session (1 h) on our page. Either a fixed `amount` or an `amount_range` the customer chooses in; optionally a `completed_limit`, what happens `after_completion`, and fields to `collect`. Redirects are https in live (sandbox also http to localhost). A secret key, a restricted key with `checkout:write`, or a dashboard session; `Idempotency-Key` as for payments.
         */
        post: operations["createPaymentLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_links/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a payment link
         * @description `completed_count` counts its completed sessions.
         */
        get: operations["retrievePaymentLink"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update a payment link
         * @description Changes `active` (`false` closes the link: it shows a closed page and its open sessions take no new attempt), `completed_limit` (`null` removes it), `after_completion` (`null`: the page’s own thanks) or `description`. Sessions already opened keep their amount and redirect. A link is never deleted.
         */
        patch: operations["updatePaymentLink"];
        trace?: never;
    };
    "/v1/payment_links/{id}/qr.svg": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A payment link's QR code as SVG
         * @description The link's `url` as a QR code (error correction M, a quiet zone of 4 modules), to print at any size.
         */
        get: operations["retrievePaymentLinkQrSvg"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/payment_links/{id}/qr.png": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A payment link's QR code as PNG
         * @description The link's `url` as a QR code: a square PNG of exactly `size` × `size` pixels (128 to 1,024, default 512; another size is 400 naming `size`).
         */
        get: operations["retrievePaymentLinkQrPng"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/l/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open a payment link (the address you share)
         * @description What a customer's browser follows, without a key: an active link below its limit opens a new checkout session (1 h; the link's amount, or none until the customer chooses it) and answers 303 to its page, `/pay/{cs_id}`. An unknown link answers a plain page with 404; an inactive link, or one whose completed sessions reached `completed_limit`, a plain page with 410; both in the payer's language (Accept-Language: English, French, Swahili, Kinyarwanda). Each client address opens at most 20 links a minute (then a plain page with 429 and `Retry-After`).
         */
        get: operations["retrievePaymentLinkPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/branding": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve your branding
         * @description Your display name, brand colour with the text colour the page writes on it, and logo (its type, size and hash). Every field is null until you set it. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveBranding"];
        /**
         * Change your branding
         * @description The display name and brand colour as JSON (a field left out keeps its value, null clears it), or a multipart form with the same text fields and the file `logo`: a PNG, JPEG or SVG of at most 512 kB, recognised by its bytes (never its name or declared type). An SVG is sanitised: scripts, event handlers, `<foreignObject>`, `<style>`, links, animations and references outside the file are removed. The page's text colour on the brand colour is chosen for WCAG AA contrast. An owner's or admin's session token, or a secret key; it applies to both environments.
         */
        put: operations["updateBranding"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/branding/logo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve your logo
         * @description Your logo as stored (an SVG sanitised), with its own `Content-Type` and the headers of the page's logo. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveBrandingLogo"];
        put?: never;
        post?: never;
        /**
         * Remove your logo
         * @description The page then shows your display name alone. An owner's or admin's session token, or a secret key.
         */
        delete: operations["deleteBrandingLogo"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/checkout/sessions/{id}/logo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The logo a checkout session's page shows
         * @description The page's own read, without a key: the logo of the session's merchant, as stored (an SVG sanitised), with its own `Content-Type`, `X-Content-Type-Options: nosniff`, a Content-Security-Policy under which no script runs, an `ETag` and an hour's caching. 404 for an unknown session and for a merchant without a logo alike; it counts in the page's limit of 60 requests a minute per session and per client address (then 429 with `Retry-After`).
         */
        get: operations["retrieveCheckoutSessionLogo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List events
         * @description Your events, newest first, `limit` per page (default 10, at most 100); `type` filters by event name. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve an event
         * @description With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream sandbox events
         * @description Your sandbox events as Server-Sent Events, as `paycollect listen` reads them: `retry:`, an `id:` with its start position and a `: connected` comment, then one message per event (`id` the event id, `event` its name, `data` the webhook delivery payload as JSON), a `: heartbeat` comment every 15 seconds, and the end after an hour. Reconnect with `Last-Event-ID` to resume right after the last event you received. Sandbox secret keys and sandbox session tokens only.
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve your profile
         * @description With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveProfile"];
        /**
         * Update your profile
         * @description Changes any of `name`, `business_name`, `country` (ISO 3166-1 alpha-2), `phone` (E.164), `time_zone` (an IANA zone name such as `Africa/Kigali`, the zone the dashboard shows times in) and the setting `refuse_when_provider_down`; `null` clears the optional ones. Other fields, and a time zone that is not an IANA zone, are refused with 400 naming the field.
         */
        put: operations["updateProfile"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List transactions
         * @description Payments and refunds as one list, newest first, with fee and net in minor units, counting only money that moved: a payment whose money was not collected (pending, processing, failed, cancelled) and a refund not completed have fee 0 and net 0; a completed refund's net is negative. Filters: `status` (one or more, comma-separated), `method`, `currency`, `q` (part of an id, the description or the customer) and `date` (`YYYY-MM-DD` or `YYYY-MM-DD..YYYY-MM-DD`, UTC days). Page with a cursor as `GET /v1/payments` does: pass `pagination.next_starting_after` as `starting_after` for the next page; or by number, passing the first page's `pagination.as_of` with later pages. Either way new transactions do not shift the pages. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["listTransactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/transactions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a transaction
         * @description A payment or a refund by its id. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveTransaction"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Analytics
         * @description Volumes, fees and net per currency, counts by status and by method, the success rate (completed among decided payments) and a daily series, from `from` to `to` (UTC days, both included; default the last 30 days). Counts and the success rate cover every currency unless `currency` narrows everything to one currency’s payments; amounts are never added across currencies. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Audit log
         * @description Every change made to your account through the API or by a reviewer, and every sign-in, newest first: who (a team member or a key), from which IP address, in which request and with which user agent. `action` and `actor` (an id) narrow the list. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["listActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/payments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Payment detail with its timeline
         * @description A payment with its fee and net (0 and 0 unless its money was collected), its refunds and their course (`refund_changes`: pending from the request, completed or failed from when it settled), each status change and what caused it (creation, provider callback, poll, expiry, you), its events with their deliveries, and when the provider is checked next. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrievePaymentTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/payments/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a payment (dashboard)
         * @description Does what `POST /v1/payments/{id}/cancel` does, for the dashboard's session token. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        post: operations["cancelPaymentFromDashboard"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/payments/{id}/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund a payment (dashboard)
         * @description Does what `POST /v1/payments/{id}/refund` does, for the dashboard's session token. With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        post: operations["refundPaymentFromDashboard"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents/upload/kyc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload an identity document
         * @description A passport, a driver's licence, or one side of a national ID (`side` `front` or `back`), as a PDF, JPEG or PNG of at most 10 MB. Replaces the current document of its type and side.
         */
        post: operations["uploadIdentityDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents/upload/business": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a business document
         * @description A business registration certificate (the default `document_type`), a tax identification or a business licence, as a PDF, JPEG or PNG of at most 10 MB. Replaces the current document of its type.
         */
        post: operations["uploadBusinessDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List uploaded documents */
        get: operations["listDocuments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/live-access/request": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Request live access
         * @description Starts the review of your business for live payments. Needs an identity document (a passport, a driver's licence, or both sides of a national ID) and a business registration certificate uploaded first; one request at a time.
         */
        post: operations["requestLiveAccess"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/live-access/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Live access status */
        get: operations["retrieveLiveAccessStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/live-access/respond": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer the reviewers
         * @description Answers the reviewers' question when the request is `more_info_required`; the review then resumes.
         */
        post: operations["respondToLiveAccessReview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/live-access/live-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reveal your first live key
         * @description Answers the live secret key created when live access was approved, once: store it. Roll the live keys for a new one. Takes no body; one sent must be JSON, as on every endpoint.
         */
        post: operations["revealLiveKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a webhook endpoint
         * @description Subscribes `url` to `events` (see the `webhooks` section for each payload). Live endpoints must be `https` and resolve to public addresses. The answer carries the signing secret, shown only here. At most 16 endpoints per environment.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Retrieve a webhook endpoint
         * @description With a session token, `?environment=live` selects live data (default sandbox); a secret key selects its own environment.
         */
        get: operations["retrieveWebhook"];
        /**
         * Update a webhook endpoint
         * @description Changes any of `url`, `events`, `status` (`enabled` or `disabled`; enabling a `failed` endpoint takes it back) and `description`. Retries still to come use the new values.
         */
        put: operations["updateWebhook"];
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Deletes the endpoint; deliveries waiting for a retry end `cancelled`.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test delivery
         * @description Sends one `webhook.test` event to the endpoint now, a single attempt, and answers its outcome. The endpoint's status does not change, whatever the answer.
         */
        post: operations["sendWebhookTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description Answers a new secret, shown only here. For 24 hours, until `previous_secret_expires_at`, every delivery is signed with both secrets, so you can deploy the new one at any moment that day.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List deliveries
         * @description The endpoint's deliveries with each attempt (time, status code, the first 1 KiB of the answer, duration, error), newest first.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/webhooks/{id}/deliveries/{delivery_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver an event again
         * @description Starts a new delivery of the same event to the endpoint, with the full schedule of attempts.
         */
        post: operations["retryWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List secret keys
         * @description Your secret keys, masked; never their secrets. Session token only.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create a restricted key
         * @description A key `rk_sandbox_…` or `rk_live_…` that holds only `scopes` (`payments:read`, `payments:write`, `refunds:write`, `payouts:read`, `payouts:write`, `balance:read`, `webhooks:write`); an endpoint outside them answers 403 `forbidden` naming the scope it needs. The secret is shown only in this answer. Same rate limits and environments as secret keys.
         */
        post: operations["createRestrictedKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/keys/{environment}/roll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Roll the secret keys
         * @description Creates a new key for the environment, shown only in this answer, and lets the previous keys work for `expires_in_hours` more (default 24, 0 = stop now). Session token only.
         */
        post: operations["rollApiKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/login/2fa": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Finish a two-factor sign-in
         * @description When `POST /v1/auth/login` answered `two_factor_required`, send its `challenge` (valid 5 minutes) with the current 6-digit code from your authenticator app, or one of your recovery codes. A code works once: the same code is refused until the next one shows. Five wrong codes in 15 minutes lock the account for the rest of the window; an address that sends twenty is locked too.
         */
        post: operations["completeTwoFactorLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/switch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Switch merchant
         * @description For a person in several teams: answers a session token for another merchant they belong to. A two-factor confirmation carries over.
         */
        post: operations["switchMerchant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/sign-out-everywhere": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out everywhere
         * @description Ends every session token of yours, in every merchant, this one included: for a lost laptop or a shared browser.
         */
        post: operations["signOutEverywhere"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/invitations/{token}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invitation
         * @description The `token` is the last part of the link in the invitation e-mail, valid 72 hours and once. Signed in (session token), you join as you are, if your e-mail is the invited one; otherwise send `name` and `password` to create your account under the invited e-mail. Answers your membership and a session in that merchant.
         */
        post: operations["acceptInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/2fa": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Two-factor status
         * @description Whether two-factor sign-in is on for you, and how many recovery codes you have left.
         */
        get: operations["retrieveTwoFactor"];
        put?: never;
        post?: never;
        /**
         * Turn two-factor off
         * @description Needs a code confirmed in the last 5 minutes. Forgets the secret and the recovery codes; your other sessions end and a new session token is answered.
         */
        delete: operations["disableTwoFactor"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/2fa/enroll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start two-factor enrolment
         * @description Answers a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 seconds) and its `otpauth://` URI for a QR code. Nothing changes until you confirm a first code; enrolling again replaces a secret not yet confirmed.
         */
        post: operations["enrollTwoFactor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/2fa/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm two-factor enrolment
         * @description Send the code your app shows: two-factor sign-in is on from now. The answer holds ten recovery codes, each good once, shown only here, and a new session token; your other sessions end.
         */
        post: operations["confirmTwoFactor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/2fa/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm a code (step-up)
         * @description Live key rolls, restricted live keys, team changes, turning two-factor off and live payout destinations need a code confirmed in the last 5 minutes. Send one here: the answer is a session token that carries the confirmation.
         */
        post: operations["verifyTwoFactor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change your password
         * @description Send your current password and the new one (10 to 200 characters, as at registration). With two-factor sign-in on, a code confirmed in the last 5 minutes is needed first (`POST /v1/developer/2fa/verify`). Every session of yours ends, in every merchant, this one included: sign in again elsewhere; the answer is a new session token for here. The change is written to the activity log, never the password.
         */
        post: operations["changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/team/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List team members
         * @description The merchant's members and their roles, and the merchants you belong to (for switching).
         */
        get: operations["listTeamMembers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/team/members/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a member
         * @description Owners and admins; only an owner removes an owner, and the last owner cannot leave. The member's next request in this merchant is refused.
         */
        delete: operations["removeTeamMember"];
        options?: never;
        head?: never;
        /**
         * Change a member's role
         * @description Owners and admins; only an owner changes an owner or makes one, and the last owner cannot be demoted. Needs a two-factor code from the last 5 minutes when two-factor is on.
         */
        patch: operations["updateTeamMember"];
        trace?: never;
    };
    "/v1/developer/team/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List open invitations
         * @description Invitations not yet accepted, newest first, with when their link expires.
         */
        get: operations["listInvitations"];
        put?: never;
        /**
         * Invite a member
         * @description E-mails a link valid 72 hours, once. Owners and admins; only an owner invites an owner. Needs a two-factor code from the last 5 minutes when two-factor is on.
         */
        post: operations["createInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/keys/restricted/{id}/roll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Roll a restricted key
         * @description A new key with the same name, scopes and environment, shown only in this answer; the old one works `expires_in_hours` more (default 24, 0 = stop now).
         */
        post: operations["rollRestrictedKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/developer/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a restricted key
         * @description The key stops at once. Secret keys are replaced by rolling them instead.
         */
        delete: operations["revokeRestrictedKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "payment.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A payment was created
         * @description Sent for payments created through either payment endpoint, once the payment is recorded. `data` is the payment.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `payment.created` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onPaymentCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "payment.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A payment completed
         * @description The provider confirmed the customer paid. `data` is the payment. Also sent, a second time, when a provider success arrives after the payment had failed as `expired` or `provider_error`: the payment then becomes `completed` with `reconciled_at` set.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `payment.completed` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onPaymentCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "payment.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A payment failed
         * @description The provider declined the payment, or it expired (`failure_code` says which). `data` is the payment.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `payment.failed` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onPaymentFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "payment.cancelled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A payment was cancelled
         * @description You cancelled a pending or processing payment. `data` is the payment.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `payment.cancelled` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onPaymentCancelled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "refund.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A refund completed
         * @description The provider confirmed a refund. `data` is the refund with `payment`, the payment after it (`refunded` once fully refunded). A provider success that arrives after you cancelled a payment is refunded in full automatically, with the reason `late_success_after_cancel`.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `refund.completed` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onRefundCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "refund.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A refund failed
         * @description The provider refused a refund (`failure_message` says why); no money moved. Its amount is released: refundable again, no longer in the payment's `amount_refund_pending`. `data` is the refund with `payment`, the payment after it. A refund whose provider answer is only unknown stays `pending` and is never failed for it.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `refund.failed` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onRefundFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A webhook endpoint was created
         * @description Sent to your other endpoints subscribed to it, never to the new endpoint itself. `data` is the webhook, without its secret.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `webhook.created` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onWebhookCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "payout.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A payout was created
         * @description A payout was accepted and its amount and fee reserved from your balance (docs/payouts.md#states). `data` is the payout, `pending`.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `payout.created` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onPayoutCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "payout.paid": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A payout was paid
         * @description The provider paid the payout to the destination. `data` is the payout, `paid`.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `payout.paid` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onPayoutPaid"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "payout.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A payout failed
         * @description The provider refused the payout (`failure_code` says why); amount and fee are back in your balance. `data` is the payout. A payout whose answer is only unknown stays `in_transit` and is asked about, never failed for it.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `payout.failed` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onPayoutFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "payout.returned": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A paid payout was returned
         * @description The provider reversed a paid payout: amount and fee are back in your balance. `data` is the payout, `returned`.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `payout.returned` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onPayoutReturned"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "checkout.session.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A checkout session was paid
         * @description One attempt of the session completed it (docs/checkout.md#states). `data` is the session, `complete`, whose `payment` names the payment that paid it (its own `payment.completed` carries the payment).
         *
         *     Delivered to each enabled webhook endpoint subscribed to `checkout.session.completed` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onCheckoutSessionCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "checkout.session.expired": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A checkout session expired
         * @description You expired it, or `expires_at` passed with no attempt in flight (docs/checkout.md#states). `data` is the session, `expired`.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `checkout.session.expired` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onCheckoutSessionExpired"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "provider.status_changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An operator's status changed
         * @description A provider, country and operation of your environment changed status (`operational`, `degraded`, `down`), as measured from all merchants' traffic or set by our operators with a reason (docs/availability.md#events). Sent to every merchant of the environment with an endpoint subscribed to it, once per change. `data` is the status with the figures of its window.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `provider.status_changed` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onProviderStatusChanged"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A test delivery
         * @description Sent only by `POST /v1/developer/webhooks/{id}/test`, once, whatever the endpoint subscribes to; never listed as an event.
         *
         *     Delivered to each enabled webhook endpoint subscribed to `webhook.test` as a `POST` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on `webhook-id`, and read `data.status` rather than the order of events.
         */
        post: operations["onWebhookTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description A payment was created */
        PaymentCreatedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "payment.created";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["Payment"];
        };
        /** @description The object the event is about, as it was then */
        Payment: {
            /** @description Payment id, `pay_` and 24 characters */
            id: string;
            /**
             * @description Always `payment`
             * @enum {string}
             */
            object: "payment";
            /** @description In the currency's minor unit (RWF, UGX, XOF and XAF have none: 1500 is RWF 1,500; KES, GHS, USD, EUR, GBP, LRD and TZS have two: 1500 is 15.00) */
            amount: number;
            /** @description Refunded so far, in minor units */
            amount_refunded: number;
            /** @description Held by refunds whose provider answer is not final yet, in minor units: not refunded yet and not refundable again; it moves to `amount_refunded` when such a refund completes and is released when it fails */
            amount_refund_pending: number;
            /** @description ISO 4217 code */
            currency: string;
            /**
             * @description `pending` (the provider has the request; waiting for the customer), `processing`, then `completed`, `failed`, `cancelled`, or `refunded` once fully refunded
             * @enum {string}
             */
            status: "pending" | "processing" | "completed" | "failed" | "cancelled" | "refunded";
            /** @description How the customer pays: `mobile_money`, `bank_transfer`, `card`, or a provider code of the merchant-scoped list */
            payment_method: string;
            /** @description The provider code that handles it (`momo`, `mobile_money_b`, `card_gateway`, …) */
            provider: string;
            /** @description The provider's own id of the collected money, the one the customer sees on their receipt or SMS: M-Pesa's `MpesaReceiptNumber` (e.g. `NLJ7RT61SV`), MTN MoMo's `financialTransactionId`, Airtel's `airtel_money_id`, the card gateway's charge id (`ch_…`), or the sandbox's simulated one (`SBX` and 7 characters); null until the provider confirmed the collection, or when its confirmation named none */
            provider_receipt_number: string | null;
            /** @description Your description of the payment, as you sent it; null when none */
            description: string | null;
            /** @description The customer's phone number in E.164 form (mobile money only) */
            phone_number?: string;
            /** @description The customer's e-mail (card and bank transfer, when given) */
            customer_email?: string;
            /** @description The customer's wallet id (wallet payments only) */
            wallet_id?: string;
            /** @description Your key-value pairs, as you sent them */
            metadata: {
                [key: string]: string;
            };
            /** @description Why the payment failed, one of the documented codes (`declined`, `expired`, …); null unless failed */
            failure_code: string | null;
            /** @description The provider's or the service's explanation of the failure, for a person; null unless failed */
            failure_message: string | null;
            /** @description The reason you gave when cancelling; null unless cancelled with one */
            cancellation_reason: string | null;
            /** @description The checkout session (`cs_…`) this payment is an attempt of (docs/checkout.md#api); null for any other payment */
            checkout_session: string | null;
            next_action: components["schemas"]["NextAction"];
            /** @description Card payments: what your front end confirms the card with */
            client_secret?: string;
            /**
             * @description `sandbox` or `live`: the environment of the key that created it
             * @enum {string}
             */
            environment: "sandbox" | "live";
            /**
             * Format: date-time
             * @description When a payment still open fails with `failure_code` `expired`
             */
            expires_at: string;
            pending_reason: components["schemas"]["PendingReason"];
            /**
             * Format: date-time
             * @description The latest time the open payment will be final (ISO 8601, UTC): its expiry plus up to 3 minutes for the provider's last word; for `provider_unreachable` no earlier than 6 minutes after creation; for `checking_with_provider` the end of the reconciliation window after that; null once final
             */
            decision_expected_by: string | null;
            /** @description The balance transaction (`txn_…`) that credited you once the provider collected the money; null before or without it */
            balance_transaction: string | null;
            /**
             * Format: date-time
             * @description Set when a provider success that arrived after the payment had failed (expired or provider error) completed it
             */
            reconciled_at: string | null;
            refundable: components["schemas"]["Refundable"];
            cancellable: components["schemas"]["Cancellable"];
            /**
             * Format: date-time
             * @description When it was created (ISO 8601, UTC)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it last changed (ISO 8601, UTC)
             */
            updated_at: string;
        };
        /** @description What the customer must do next; null when nothing */
        NextAction: {
            /**
             * @description The customer makes a bank transfer
             * @enum {string}
             */
            type: "bank_transfer";
            /** @description The bank to pay into */
            bank_name: string;
            /** @description The account holder's name */
            account_name: string;
            /** @description The account to pay into */
            account_number: string;
            /** @description The reference the customer must give with the transfer, so it is matched to this payment */
            reference: string;
        } | {
            /**
             * @description The customer confirms the card payment on your page
             * @enum {string}
             */
            type: "card_confirm";
            /** @description The secret your page passes to the card form */
            client_secret: string;
        } | {
            /**
             * @description The customer approves on their phone
             * @enum {string}
             */
            type: "mobile_money_approval";
            /** @description What to tell the customer */
            message: string;
        } | {
            /**
             * @description The customer pays on the provider's own page
             * @enum {string}
             */
            type: "redirect";
            /** @description The provider's payment page (Orange Money's web payment, Wave's `wave_launch_url`): send the customer's browser there */
            url: string;
        } | null;
        /**
         * @description Why the open payment waits: `awaiting_customer` (the customer has the prompt, the card form or the transfer details), `awaiting_provider` (the customer acted; the provider is settling), `provider_unreachable` (the provider has not acknowledged the request yet; it is sent again), `awaiting_callback` (a bank transfer: waiting for the bank to report it), `checking_with_provider` (the provider left a question about it unanswered); null once the payment is final
         * @enum {string|null}
         */
        PendingReason: "awaiting_customer" | "awaiting_provider" | "provider_unreachable" | "awaiting_callback" | "checking_with_provider" | null;
        /** @description Whether it can be refunded now, and why not */
        Refundable: {
            /** @description True when `POST /v1/payments/{id}/refund` of the whole refundable rest would be taken now */
            allowed: boolean;
            /** @description True when a refund of part of the rest would be taken too (false: the provider refunds whole payments only, or nothing is refundable) */
            partial: boolean;
            /** @description Why not, for a person: the message the refund would be refused with (its status, the refund window, nothing left to refund, a provider that cannot refund); null when allowed */
            reason: string | null;
        };
        /** @description Whether it can be cancelled now, and why not */
        Cancellable: {
            /** @description True when `POST /v1/payments/{id}/cancel` would be taken now */
            allowed: boolean;
            /** @description Why not, for a person: the payment is no longer open, or its provider cannot withdraw a request (a mobile-money prompt lapses at `expires_at`); null when allowed */
            reason: string | null;
        };
        /** @description A payment completed */
        PaymentCompletedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "payment.completed";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["Payment"];
        };
        /** @description A payment failed */
        PaymentFailedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "payment.failed";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["Payment"];
        };
        /** @description A payment was cancelled */
        PaymentCancelledEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "payment.cancelled";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["Payment"];
        };
        /** @description A refund completed */
        RefundCompletedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "refund.completed";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            /** @description The object the event is about, as it was then */
            data: components["schemas"]["Refund"] & {
                payment: components["schemas"]["Payment"] & unknown;
            };
        };
        /** @description Money sent back to the customer of a payment */
        Refund: {
            /** @description Refund id, `ref_` and 24 characters */
            id: string;
            /**
             * @description Always `refund`
             * @enum {string}
             */
            object: "refund";
            /** @description The payment refunded */
            payment_id: string;
            /** @description The amount refunded, in minor units */
            amount: number;
            /** @description ISO 4217 code, the payment's */
            currency: string;
            /**
             * @description `pending` until the provider answers, then `completed` or `failed`
             * @enum {string}
             */
            status: "pending" | "completed" | "failed";
            /** @description The reason you gave; null when none */
            reason: string | null;
            /** @description Why the provider refused the refund; null unless failed */
            failure_message: string | null;
            /**
             * Format: date-time
             * @description When it was requested (ISO 8601, UTC)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it completed; null until then
             */
            completed_at: string | null;
            /** @description The balance transaction (`txn_…`) that took the amount from your balance; null once refused */
            balance_transaction: string | null;
        };
        /** @description A refund failed */
        RefundFailedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "refund.failed";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            /** @description The object the event is about, as it was then */
            data: components["schemas"]["Refund"] & {
                payment: components["schemas"]["Payment"] & unknown;
            };
        };
        /** @description A webhook endpoint was created */
        WebhookCreatedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "webhook.created";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["Webhook"];
        };
        /** @description The object the event is about, as it was then */
        Webhook: {
            /** @description Webhook id, `whk_` and 24 characters */
            id: string;
            /**
             * @description Always `webhook`
             * @enum {string}
             */
            object: "webhook";
            /** @description Where deliveries are POSTed */
            url: string;
            /** @description The event names delivered to it */
            events: string[];
            /**
             * @description `enabled`; `disabled` by you; `failed` when the endpoint refused for good
             * @enum {string}
             */
            status: "enabled" | "disabled" | "failed";
            /** @description Why the webhook is failed (e.g. "the endpoint answered 410 Gone at …"); null unless status is failed */
            failure_reason: string | null;
            /** @description Your description; null when none */
            description: string | null;
            /**
             * @description The environment whose events it receives
             * @enum {string}
             */
            environment: "sandbox" | "live";
            /**
             * Format: date-time
             * @description Until when the secret replaced by the last rotation still signs deliveries, beside the current one; null when none does
             */
            previous_secret_expires_at: string | null;
            /**
             * Format: date-time
             * @description When it was registered (ISO 8601, UTC)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it last changed (ISO 8601, UTC)
             */
            updated_at: string;
        };
        /** @description A payout was created */
        PayoutCreatedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "payout.created";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["Payout"];
        };
        /** @description The object the event is about, as it was then */
        Payout: {
            /** @description Payout id, `po_` and 24 characters */
            id: string;
            /**
             * @description Always `payout`
             * @enum {string}
             */
            object: "payout";
            /** @description Minor units sent to the destination */
            amount: number;
            /** @description Payout fee, minor units, taken from the balance with the amount */
            fee: number;
            /** @description ISO 4217 code */
            currency: string;
            /** @description The destination id */
            destination: string;
            /**
             * @description `pending`, `in_transit`, then `paid`, `failed` or `cancelled`; `returned` after paid
             * @enum {string}
             */
            status: "pending" | "in_transit" | "paid" | "failed" | "returned" | "cancelled";
            /**
             * @description Why it failed or was returned; null otherwise
             * @enum {string|null}
             */
            failure_code: "account_invalid" | "account_restricted" | "amount_invalid" | "platform_funds" | "declined" | "provider_error" | null;
            /** @description The provider's words, when it gave some */
            failure_message: string | null;
            /** @description Why a pending payout has not reached its provider yet (its rail is down) */
            pending_reason: string | null;
            /** @description Created by the payout schedule rather than a request */
            automatic: boolean;
            /** @description Yours, as sent; null when none */
            description: string | null;
            /**
             * Format: date-time
             * @description When the provider paid it; null until then
             */
            arrival_date: string | null;
            /** @description The balance transaction that reserved amount and fee */
            balance_transaction: string;
            /**
             * Format: date-time
             * @description When it was requested (ISO 8601, UTC)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When its status last changed (ISO 8601, UTC)
             */
            updated_at: string;
        };
        /** @description A payout was paid */
        PayoutPaidEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "payout.paid";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["Payout"];
        };
        /** @description A payout failed */
        PayoutFailedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "payout.failed";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["Payout"];
        };
        /** @description A paid payout was returned */
        PayoutReturnedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "payout.returned";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["Payout"];
        };
        /** @description A checkout session was paid */
        CheckoutSessionCompletedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "checkout.session.completed";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["CheckoutSession"];
        };
        /** @description The object the event is about, as it was then */
        CheckoutSession: {
            /** @description Session id, `cs_` and 24 characters (at least 128 random bits) */
            id: string;
            /**
             * @description Always `checkout.session`
             * @enum {string}
             */
            object: "checkout.session";
            /** @description The payment page's address, `{PUBLIC_BASE_URL}/pay/{id}` */
            url: string;
            /**
             * @description `open`, `complete` or `expired` (docs/checkout.md#states)
             * @enum {string}
             */
            status: "open" | "complete" | "expired";
            /** @description Amount in minor units; null on a payment link's session whose customer chooses the amount, until an attempt carries it */
            amount: number | null;
            /** @description ISO 4217 currency code */
            currency: string;
            /** @description What the customer pays for, as the page shows it */
            description: string;
            /** @description The number the page suggests, E.164; null if none */
            customer_phone: string | null;
            /** @description The payment that completed the session; null before */
            payment: string | null;
            /** @description The payment link the session was opened from (`plink_…`); null if you created it */
            payment_link: string | null;
            /** @description How many attempts (the session's payments) were made */
            attempts_count: number;
            /**
             * @description The page's language
             * @enum {string}
             */
            locale: "en" | "fr" | "sw" | "rw";
            /**
             * Format: date-time
             * @description When an open session without an attempt in flight expires
             */
            expires_at: string;
            /** @description Where the page sends the customer after a success; null on a payment link's session that shows a message instead */
            success_url: string | null;
            /** @description Where the page sends a customer who gives up */
            cancel_url: string | null;
            /**
             * Format: date-time
             * @description When it was created
             */
            created_at: string;
            /** @description Your key-value pairs, as you sent them */
            metadata: {
                [key: string]: string;
            };
        };
        /** @description A checkout session expired */
        CheckoutSessionExpiredEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "checkout.session.expired";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["CheckoutSession"];
        };
        /** @description An operator's status changed */
        ProviderStatusChangedEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "provider.status_changed";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            data: components["schemas"]["ProviderStatusChanged"];
        };
        /** @description The object the event is about, as it was then */
        ProviderStatusChanged: {
            /** @description The provider code (`momo`, `mobile_money_b`, `mpesa`, …) */
            provider: string;
            /** @description ISO 3166 alpha-2 country code */
            country: string;
            /**
             * @description What is measured: collections, payouts or refunds
             * @enum {string}
             */
            operation: "collection" | "payout" | "refund";
            /**
             * @description The status shown now (docs/availability.md#statuses)
             * @enum {string}
             */
            status: "operational" | "degraded" | "down";
            /**
             * @description The status shown before the change
             * @enum {string}
             */
            previous_status: "operational" | "degraded" | "down";
            /** @description When the status changed (ISO 8601, UTC) */
            since: string;
            /** @description Why: the measured figures (share of provider failures, p95), or an operator's reason for a status set by hand */
            reason: string | null;
            /** @description Share of the window’s decided attempts that succeeded (0–1); null without attempts */
            success_rate: number | null;
            /** @description Decided attempts in the window (the most recent 50 within 10 minutes) */
            window_attempts: number;
        };
        /** @description A test delivery */
        WebhookTestEvent: {
            /** @description The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it */
            id: string;
            /**
             * @description The event's name
             * @enum {string}
             */
            event: "webhook.test";
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            /** @description The object the event is about, as it was then */
            data: {
                /** @description The webhook tested */
                webhook_id: string;
            };
        };
        EnvelopeError: {
            /**
             * @description Always false on an error
             * @enum {boolean}
             */
            success: false;
            /** @description What went wrong */
            error: {
                /**
                 * @description What went wrong, one of the documented codes; branch on it
                 * @enum {string}
                 */
                code: "invalid_request" | "validation_error" | "unauthorized" | "invalid_api_key" | "forbidden" | "merchant_mismatch" | "not_found" | "method_not_allowed" | "conflict" | "idempotency_key_reused" | "payment_not_cancellable" | "payment_not_refundable" | "amount_exceeds_refundable" | "insufficient_balance" | "payout_not_cancellable" | "checkout_session_not_open" | "checkout_session_attempt_in_progress" | "checkout_session_attempts_exhausted" | "payment_link_inactive" | "payment_link_exhausted" | "documents_missing" | "file_too_large" | "unsupported_file_type" | "provider_unavailable" | "rate_limited" | "service_unavailable" | "internal_error";
                /** @description What went wrong, for a person; may change wording */
                message: string;
                /** @description For `validation_error` (and `documents_missing`): every bad field or missing item, the first being the one the message names */
                details?: {
                    /** @description The field, in dotted form (`metadata.order_id`) */
                    field: string;
                    /** @description What is wrong with it */
                    message: string;
                }[];
            };
        };
        MerchantScopedError: {
            /** @description What went wrong, for a person */
            error: string;
        };
        /** @description A payment as the merchant-scoped endpoints show it, with decimal-string amounts */
        MerchantScopedPayment: {
            /** @description Payment id, `pay_` and 24 characters */
            id: string;
            /**
             * @description `pending`, `processing`, `completed`, `failed`, `cancelled` or `refunded`
             * @enum {string}
             */
            status: "pending" | "processing" | "completed" | "failed" | "cancelled" | "refunded";
            /** @description The amount as a decimal string in the currency's unit (`"1500.00"`) */
            amount: string;
            /** @description ISO 4217 code */
            currency: string;
            /** @description The provider code the customer pays with */
            payment_method: string;
            /** @description The provider's own id of the collected money, the one the customer sees on their receipt or SMS: M-Pesa's `MpesaReceiptNumber` (e.g. `NLJ7RT61SV`), MTN MoMo's `financialTransactionId`, Airtel's `airtel_money_id`, the card gateway's charge id (`ch_…`), or the sandbox's simulated one (`SBX` and 7 characters); null until the provider confirmed the collection, or when its confirmation named none */
            provider_receipt_number: string | null;
            /** @description Your description; null when none */
            description: string | null;
            /** @description Card payments: the secret your page passes to the card form to confirm the payment */
            client_secret?: string;
            /** @description Why the payment failed; null unless failed */
            failure_code: string | null;
            /**
             * Format: date-time
             * @description When it was created (ISO 8601, UTC)
             */
            created_at: string;
            /** @description Your metadata, plus `fee_amount` and `fee_percentage` as decimal strings */
            metadata: {
                [key: string]: string;
            };
        };
        /** @description The answer itself */
        Balance: {
            /**
             * @description Always `balance`
             * @enum {string}
             */
            object: "balance";
            /** @description Owed to you and available now: what you are owed less the pending credits; exactly what a payout may take (amount + fee) */
            available: {
                /** @description Minor units; may be below zero (refunds keep no fee back) */
                amount: number;
                /** @description ISO 4217 code */
                currency: string;
            }[];
            /** @description Credits owed to you, available once their `available_on` comes (a debit is never pending) */
            pending: {
                /** @description Minor units; may be below zero (refunds keep no fee back) */
                amount: number;
                /** @description ISO 4217 code */
                currency: string;
            }[];
            /** @description Held by refunds whose provider answer is not final yet (already taken from available or pending) */
            refund_reserved: {
                /** @description Minor units; may be below zero (refunds keep no fee back) */
                amount: number;
                /** @description ISO 4217 code */
                currency: string;
            }[];
            /**
             * @description The environment whose money this is
             * @enum {string}
             */
            environment: "sandbox" | "live";
        };
        /** @description The answer itself */
        SandboxProviderStatus: {
            /** @description The provider code (`momo`, `mobile_money_b`, `mpesa`, …) */
            provider: string;
            /** @description ISO 3166 alpha-2 country code */
            country: string;
            /**
             * @description What is measured: collections, payouts or refunds
             * @enum {string}
             */
            operation: "collection" | "payout" | "refund";
            /**
             * @description The status shown now (docs/availability.md#statuses)
             * @enum {string}
             */
            status: "operational" | "degraded" | "down";
            /**
             * @description The status shown before the change
             * @enum {string}
             */
            previous_status: "operational" | "degraded" | "down";
            /** @description Your reason */
            reason: string;
            /** @description When it lapses and your sandbox sees the pooled status again (ISO 8601, UTC) */
            expires_at: string;
        };
        BalanceTransaction: {
            /** @description Balance transaction id, `txn_` and 24 characters */
            id: string;
            /**
             * @description Always `balance_transaction`
             * @enum {string}
             */
            object: "balance_transaction";
            /**
             * @description What moved your balance: a payment, a refund, a refused refund, a payout, an adjustment …
             * @enum {string}
             */
            type: "payment" | "refund" | "refund_failure" | "payout" | "payout_failure" | "adjustment";
            /** @description Gross, minor units: negative for a refund or payout */
            amount: number;
            /** @description What we kept, minor units (0 for refunds) */
            fee: number;
            /** @description What your balance moved by: `amount − fee`, minor units */
            net: number;
            /** @description ISO 4217 code */
            currency: string;
            /** @description The payment, refund, payout or adjustment id */
            source: string;
            /**
             * @description `pending` until `available_on`, then `available`
             * @enum {string}
             */
            status: "pending" | "available";
            /**
             * Format: date-time
             * @description When the funds are (or became) available
             */
            available_on: string;
            /**
             * Format: date-time
             * @description When it was recorded (ISO 8601, UTC)
             */
            created_at: string;
            /** @description What it is, in words */
            description: string;
        };
        /** @description The answer itself */
        DaySettlementReport: {
            /**
             * @description Always `day_settlement_report`
             * @enum {string}
             */
            object: "day_settlement_report";
            /** @description The UTC day, `YYYY-MM-DD` */
            date: string;
            /**
             * @description The environment whose money this is
             * @enum {string}
             */
            environment: "sandbox" | "live";
            /**
             * Format: date-time
             * @description The day’s start, inclusive (00:00 UTC)
             */
            interval_start: string;
            /**
             * Format: date-time
             * @description The day’s end, exclusive (00:00 UTC the next day)
             */
            interval_end: string;
            /** @description False for today: the day has not ended and its report may still grow */
            complete: boolean;
            /** @description Per currency you hold, sorted by code */
            currencies: {
                /** @description ISO 4217 code */
                currency: string;
                /** @description What you were owed (available and pending) when the day began, minor units */
                opening_balance: number;
                /** @description How many lines */
                count: number;
                /** @description Sum of the lines’ gross, minor units */
                gross: number;
                /** @description Sum of the lines’ fees, minor units */
                fee: number;
                /** @description Sum of the lines’ net, minor units */
                net: number;
                /** @description What you were owed when the day ended (for today: now), `opening_balance + net` */
                closing_balance: number;
            }[];
            /** @description Every balance transaction created that day, oldest first */
            lines: components["schemas"]["SettlementReportLine"][];
        };
        SettlementReportLine: {
            /** @description The balance transaction (`txn_…`); null for a `balance_carried` line */
            balance_transaction: string | null;
            /**
             * @description The balance transaction's type; in a payout report also `payout_fee` (the payout's fee) and `balance_carried` (balance the payout paid out or left that its lines do not itemize)
             * @enum {string}
             */
            category: "payment" | "refund" | "refund_failure" | "payout" | "payout_failure" | "adjustment" | "payout_fee" | "balance_carried";
            /** @description The payment, refund, payout or adjustment id */
            source: string;
            /** @description The payment a payment or refund line belongs to (`pay_…`); null otherwise */
            payment: string | null;
            /**
             * Format: date-time
             * @description When it was recorded (ISO 8601, UTC)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When its funds are available; null for a payout report's own lines
             */
            available_on: string | null;
            /** @description ISO 4217 code */
            currency: string;
            /** @description Gross, minor units: negative for refunds and payouts */
            gross: number;
            /** @description What we kept, minor units */
            fee: number;
            /** @description What your balance moved by, `gross − fee`, minor units */
            net: number;
            /** @description What it is, in words */
            description: string;
            /** @description Your own description of the payment (or payout), as sent; null when none */
            merchant_description: string | null;
            /** @description The payment's metadata, as sent; null for lines without a payment */
            payment_metadata: {
                [key: string]: string;
            } | null;
        };
        /** @description The answer itself */
        PayoutSettlementReport: {
            /**
             * @description Always `payout_settlement_report`
             * @enum {string}
             */
            object: "payout_settlement_report";
            /** @description The payout reported */
            payout: {
                /** @description Payout id, `po_…` */
                id: string;
                /** @description Minor units sent to the destination */
                amount: number;
                /** @description Payout fee, minor units */
                fee: number;
                /** @description ISO 4217 code */
                currency: string;
                /**
                 * @description Its status now
                 * @enum {string}
                 */
                status: "pending" | "in_transit" | "paid" | "failed" | "returned" | "cancelled";
                /** @description Created by the payout schedule; false: created by a request (both itemize what they drew on) */
                automatic: boolean;
                /**
                 * Format: date-time
                 * @description When the provider paid it; null until then
                 */
                arrival_date: string | null;
                /**
                 * Format: date-time
                 * @description When it was created (ISO 8601, UTC)
                 */
                created_at: string;
            };
            /** @description The balance transactions it covers (payments, refunds, adjustments), summed */
            activity: {
                /** @description How many lines */
                count: number;
                /** @description Sum of the lines’ gross, minor units */
                gross: number;
                /** @description Sum of the lines’ fees, minor units */
                fee: number;
                /** @description Sum of the lines’ net, minor units */
                net: number;
            };
            /** @description The payout fee, minor units */
            payout_fee: number;
            /** @description Minor units: above 0 when the payout paid out balance its lines do not itemize, below 0 when part of their net stayed in your balance. `activity.net − payout_fee + balance_carried = payout.amount` */
            balance_carried: number;
            /** @description The covered balance transactions oldest first, then `payout_fee` and `balance_carried`: their `net` adds up to `payout.amount` */
            lines: components["schemas"]["SettlementReportLine"][];
        };
        Availability: {
            /** @description The provider code (`momo`, `mobile_money_b`, `mpesa`, …) */
            provider: string;
            /** @description ISO 3166 alpha-2 country code */
            country: string;
            /**
             * @description What is measured: collections, payouts or refunds
             * @enum {string}
             */
            operation: "collection" | "payout" | "refund";
            /**
             * @description docs/availability.md#statuses
             * @enum {string}
             */
            status: "operational" | "degraded" | "down";
            /** @description When the status began; null when it never changed */
            since: string | null;
            /** @description Share of the window’s decided attempts that succeeded (0–1); null without attempts */
            success_rate: number | null;
            /** @description Median seconds from request to final in the window */
            p50_seconds: number | null;
            /** @description 95th percentile seconds from request to final */
            p95_seconds: number | null;
            /** @description Decided attempts in the window (the most recent 50 within 10 minutes) */
            window_attempts: number;
            /** @description An operator's reason for a status it set; else null */
            reason: string | null;
        };
        /** @description The answer itself */
        PayoutDestination: {
            /** @description Destination id, `dst_` and 24 characters */
            id: string;
            /**
             * @description Always `payout_destination`
             * @enum {string}
             */
            object: "payout_destination";
            /**
             * @description A mobile money wallet or a bank account
             * @enum {string}
             */
            type: "mobile_money" | "bank_account";
            /** @description The provider whose rail pays it (the wallet operator, or the bank rail) */
            provider: string;
            /** @description Last four digits of the number or account number */
            last4: string;
            /** @description The bank's code; null for a wallet */
            bank_code: string | null;
            /** @description The account holder's name as given; null for a wallet */
            account_holder_name: string | null;
            /**
             * @description `verified`: the provider confirmed the holder, or a payout reached it; `unverified`: the provider says no active wallet has this number; `pending_verification`: the provider cannot say (yet)
             * @enum {string}
             */
            status: "verified" | "pending_verification" | "unverified";
            /**
             * Format: date-time
             * @description From when payouts may go to it (live: 24 hours after it was added)
             */
            usable_from: string;
            /**
             * Format: date-time
             * @description When it was added (ISO 8601, UTC)
             */
            created_at: string;
        };
        /** @description The answer itself */
        PayoutDetail: components["schemas"]["Payout"] & {
            /** @description The states it went through, oldest first */
            timeline: {
                /**
                 * @description The state it entered
                 * @enum {string}
                 */
                status: "pending" | "in_transit" | "paid" | "failed" | "returned" | "cancelled";
                /**
                 * Format: date-time
                 * @description When (ISO 8601, UTC)
                 */
                at: string;
            }[];
        };
        /** @description The answer itself */
        PayoutSchedule: {
            /**
             * @description Always `payout_schedule`
             * @enum {string}
             */
            object: "payout_schedule";
            /**
             * @description `manual`, or `daily` / `weekly` at 06:00 UTC (weekly: Mondays)
             * @enum {string}
             */
            schedule: "manual" | "daily" | "weekly";
            /** @description The destination automatic payouts go to; null for manual */
            destination: string | null;
            /** @description The currency paid out; null for manual */
            currency: string | null;
            /** @description Minor units kept in the balance; what is above it is paid out */
            minimum: number;
            /**
             * Format: date-time
             * @description When it was last set; null while never set
             */
            updated_at: string | null;
        };
        /** @description The answer itself */
        CheckoutSessionPublic: {
            /** @description Session id */
            id: string;
            /**
             * @description Always `checkout.session.public`
             * @enum {string}
             */
            object: "checkout.session.public";
            /**
             * @description `open`, `complete` or `expired`
             * @enum {string}
             */
            status: "open" | "complete" | "expired";
            /** @description Amount in minor units; null while the customer chooses it within `amount_range` */
            amount: number | null;
            /** @description The range an attempt's `amount` must fall in (both inclusive); null: fixed amount */
            amount_range: {
                /** @description Smallest amount, minor units */
                min: number;
                /** @description Largest amount, minor units */
                max: number;
            } | null;
            /** @description The fields each attempt must carry (docs/payment-links.md#collect) */
            collect: ("name" | "email")[];
            /** @description ISO 4217 currency code */
            currency: string;
            /** @description What the customer pays for */
            description: string;
            /** @description The merchant's business name */
            merchant_name: string;
            /** @description The methods the page offers */
            payment_methods: "mobile_money"[];
            /** @description True while an attempt's payment has no final outcome */
            attempt_in_progress: boolean;
            /** @description How many more attempts the session takes */
            attempts_left: number;
            /**
             * Format: date-time
             * @description When the session expires
             */
            expires_at: string;
            /** @description Where the page sends the customer after a success; null: show `completion_message` */
            success_url: string | null;
            /** @description What the page says after a success, from the payment link; null: the page's own thanks */
            completion_message: string | null;
            /** @description Where the page sends a customer who gives up */
            cancel_url: string | null;
        };
        /** @description The answer itself */
        CheckoutAttempt: {
            /** @description The attempt's payment id */
            payment: string;
            /** @description The payment's status (`pending` while the payer approves) */
            status: string;
            next_action: components["schemas"]["NextAction"] & unknown;
            /** @description The mobile-money operator asked; null for a card */
            operator: string | null;
        };
        /** @description The answer itself */
        PaymentLink: {
            /** @description Link id, `plink_` and 24 random base62 characters */
            id: string;
            /**
             * @description Always `payment_link`
             * @enum {string}
             */
            object: "payment_link";
            /** @description The address to share, `{PUBLIC_BASE_URL}/l/{id}` */
            url: string;
            /** @description Whether the link opens sessions; false shows a closed page */
            active: boolean;
            /** @description The fixed amount in minor units; null: a range */
            amount: number | null;
            /** @description The range the customer chooses in (both inclusive); null: a fixed amount */
            amount_range: {
                /** @description Smallest amount, minor units */
                min: number;
                /** @description Largest amount, minor units */
                max: number;
            } | null;
            /** @description ISO 4217 currency code */
            currency: string;
            /** @description What the customer pays for */
            description: string;
            /** @description The methods the page offers */
            payment_methods: "mobile_money"[];
            /** @description At most this many payments complete through the link; null: no limit */
            completed_limit: number | null;
            /** @description How many sessions of the link completed */
            completed_count: number;
            /** @description A message or a redirect after a payment; null: the page's own thanks */
            after_completion: {
                /**
                 * @description Show `message` on the page
                 * @enum {string}
                 */
                type: "message";
                /** @description What the page says after a payment */
                message: string;
            } | {
                /**
                 * @description Send the payer to `url`
                 * @enum {string}
                 */
                type: "redirect";
                /** @description Where the page sends the payer after a payment */
                url: string;
            } | null;
            /** @description The fields each payer gives before paying (docs/payment-links.md#collect) */
            collect: ("name" | "email")[];
            /**
             * Format: date-time
             * @description When it was created
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it last changed
             */
            updated_at: string;
        };
        /** @description The answer itself */
        Branding: {
            /**
             * @description Always `branding`
             * @enum {string}
             */
            object: "branding";
            /** @description The name the payment page shows; null: it shows your business name */
            display_name: string | null;
            /** @description The brand colour, `#rrggbb` in lower case; null: the page keeps its own */
            brand_color: string | null;
            /**
             * @description The text colour the page writes on the brand colour: white when it reaches WCAG AA contrast (4.5:1), else black; null without a brand colour
             * @enum {string|null}
             */
            text_color: "#ffffff" | "#000000" | null;
            /** @description The logo; null when there is none */
            logo: {
                /**
                 * @description The type read from the bytes
                 * @enum {string}
                 */
                content_type: "image/png" | "image/jpeg" | "image/svg+xml";
                /** @description Size in bytes (an SVG: once sanitised) */
                size: number;
                /** @description SHA-256 of the stored bytes, lower-case hex */
                sha256: string;
                /**
                 * Format: date-time
                 * @description When it was uploaded
                 */
                updated_at: string;
            } | null;
            /**
             * Format: date-time
             * @description When the branding last changed; null if never
             */
            updated_at: string | null;
        };
        /** @description Something that happened to one of your objects; webhook deliveries carry it */
        Event: {
            /** @description Event id, `evt_` and 24 characters; the `webhook-id` of its deliveries */
            id: string;
            /**
             * @description Always `event`
             * @enum {string}
             */
            object: "event";
            /** @description The event's name (`payment.completed`) */
            event: string;
            /**
             * Format: date-time
             * @description When it happened (ISO 8601, UTC)
             */
            created_at: string;
            /** @description The object the event is about, as a webhook delivery carries it (see the `webhooks` section) */
            data?: unknown;
        };
        /** @description One event sent to one webhook endpoint, with its attempts */
        WebhookDelivery: {
            /** @description Delivery id, `dlv_` and 24 characters */
            id: string;
            /**
             * @description Always `webhook_delivery`
             * @enum {string}
             */
            object: "webhook_delivery";
            /** @description The webhook it goes to */
            webhook_id: string;
            /** @description The event it carries, the `webhook-id` header */
            event_id: string;
            /** @description The event's name */
            event: string;
            /**
             * @description `pending` while attempts go on, then `succeeded`, `failed` or `cancelled`
             * @enum {string}
             */
            status: "pending" | "succeeded" | "failed" | "cancelled";
            /** @description Attempts made so far */
            attempt_count: number;
            /**
             * Format: date-time
             * @description When the next attempt is due; null when none is
             */
            next_attempt_at: string | null;
            /** @description The delivery this one resends; null for a first delivery */
            retry_of: string | null;
            /**
             * Format: date-time
             * @description When it was created (ISO 8601, UTC)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When it last changed (ISO 8601, UTC)
             */
            updated_at: string;
            /** @description Every attempt, oldest first */
            attempts: {
                /** @description Its number, from 1 */
                attempt: number;
                /**
                 * Format: date-time
                 * @description When it was sent (ISO 8601, UTC)
                 */
                attempted_at: string;
                /** @description The endpoint's HTTP status; null when it never answered */
                status_code: number | null;
                /** @description The start of the endpoint's answer; null when none */
                response_body: string | null;
                /** @description How long the attempt took, in milliseconds */
                duration_ms: number;
                /** @description Why no answer came (time-out, refused connection); null when one came */
                error: string | null;
            }[];
        };
        /** @description The answer itself */
        WebhookWithSecret: components["schemas"]["Webhook"] & {
            /** @description The signing secret (`whsec_…`); shown only here, store it */
            secret: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    checkHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Up */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always `ok`: the process runs
                         * @enum {string}
                         */
                        status: "ok";
                    };
                };
            };
        };
    };
    checkReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok",
                     *       "checks": {
                     *         "database": "ok",
                     *         "temporal": "ok"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description `ok` when every check is `ok`, else `unavailable` */
                        status: string;
                        /** @description `database` and `temporal`, each `ok` or `unavailable` (down, or slower than the deadline) */
                        checks: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description Not ready: the same body, `status: unavailable` and the check that failed (`unavailable`), within READINESS_TIMEOUT_MS (docs/api.md#health) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok",
                     *       "checks": {
                     *         "database": "ok",
                     *         "temporal": "ok"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description `ok` when every check is `ok`, else `unavailable` */
                        status: string;
                        /** @description `database` and `temporal`, each `ok` or `unavailable` (down, or slower than the deadline) */
                        checks: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    retrieveMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example # HELP http_requests_total HTTP requests by route and status
                     *     # TYPE http_requests_total counter
                     */
                    "text/plain": string;
                };
            };
        };
    };
    retrieveOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI 3.1 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "openapi": "3.1.0",
                     *       "info": {
                     *         "title": "PayCollect payment collection API",
                     *         "version": "1.0.0"
                     *       }
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveApiReference: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML page rendering this document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en">…</html>
                     */
                    "text/html": string;
                };
            };
        };
    };
    retrieveApiReferenceAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The file name of the asset */
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A static file of Swagger UI */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example (file contents) */
                    "application/octet-stream": string;
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    registerDeveloper: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "email": "amina@example.com",
                 *       "password": "correct horse battery",
                 *       "name": "Amina Uwase",
                 *       "business_name": "Kigali Books"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: email
                     * @description Your e-mail, your sign-in name
                     */
                    email: string;
                    /** @description At least 10 characters */
                    password: string;
                    /** @description Your name */
                    name: string;
                    /** @description Your business, as customers know it */
                    business_name?: string;
                };
            };
        };
        responses: {
            /** @description Developer, session token and the first sandbox key (its secret shown once) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Developer registered",
                     *       "data": {
                     *         "developer": {
                     *           "id": "dev_8Jk2LmN4pQ6rS8tU0vW2xY4z",
                     *           "merchant_id": "mer_3Fh8KdP2xQ7mWz9LcR4tVb6N",
                     *           "email": "amina@example.com",
                     *           "name": "Amina Uwase",
                     *           "business_name": "Kigali Books",
                     *           "plan": "sandbox",
                     *           "has_live_access": false,
                     *           "created_at": "2026-11-20T08:00:00.000Z"
                     *         },
                     *         "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfOEprMkxtTjRwUTZyUzh0VTB2VzJ4WTR6In0.c2lnbmF0dXJl",
                     *         "expires_at": "2026-11-24T11:00:00.000Z",
                     *         "api_key": {
                     *           "id": "key_7Cd9Ef1Gh3Ij5Kl7Mn9Op1Qr",
                     *           "environment": "sandbox",
                     *           "secret": "sk_sandbox_4eC39HqLyjWDarjtT1zdp7dc9Xk2LmNo",
                     *           "last4": "LmNo"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your developer account */
                            developer: {
                                /** @description Your developer id, `dev_…` */
                                id: string;
                                /** @description Your merchant id, `mer_…`: the owner of your payments */
                                merchant_id: string;
                                /** @description Your e-mail, your sign-in name */
                                email: string;
                                /** @description Your name */
                                name: string;
                                /** @description Your business; null when not given */
                                business_name: string | null;
                                /** @description Your plan (`sandbox` until live access, then the approved plan) */
                                plan: string;
                                /** @description Whether live access was granted */
                                has_live_access: boolean;
                                /**
                                 * Format: date-time
                                 * @description When you registered (ISO 8601, UTC)
                                 */
                                created_at: string;
                            };
                            /** @description The session token: send it as `Authorization: Bearer <token>` */
                            token: string;
                            /**
                             * Format: date-time
                             * @description When the token stops working; sign in again then (ISO 8601, UTC)
                             */
                            expires_at: string;
                            /** @description Your first sandbox secret key */
                            api_key: {
                                /** @description Key id, `key_…` */
                                id: string;
                                /**
                                 * @description Always `sandbox`: live keys come with live access
                                 * @enum {string}
                                 */
                                environment: "sandbox";
                                /** @description The secret key `sk_sandbox_…`, shown only here: store it */
                                secret: string;
                                /** @description Its last 4 characters, as key lists show it */
                                last4: string;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: An account with this e-mail address exists already.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "email": "amina@example.com",
                 *       "password": "correct horse battery"
                 *     }
                 */
                "application/json": {
                    /** @description The e-mail you registered */
                    email: string;
                    /** @description Your password */
                    password: string;
                    /** @description The merchant to act in, `mer_…`, for a person in several teams (default: your first) */
                    merchant_id?: string;
                };
            };
        };
        responses: {
            /** @description Session token; with two-factor sign-in on, a challenge to send with a code to `POST /v1/auth/login/2fa` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Logged in",
                     *       "data": {
                     *         "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfOEprMkxtTjRwUTZyUzh0VTB2VzJ4WTR6In0.c2lnbmF0dXJl",
                     *         "expires_at": "2026-11-24T11:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The session token: send it as `Authorization: Bearer <token>` */
                            token: string;
                            /**
                             * Format: date-time
                             * @description When the token stops working; sign in again then (ISO 8601, UTC)
                             */
                            expires_at: string;
                        } | {
                            /**
                             * @description Two-factor sign-in is on: no session yet, send a code with the `challenge`
                             * @enum {boolean}
                             */
                            two_factor_required: true;
                            /** @description Send it with the current code to `POST /v1/auth/login/2fa` within 5 minutes; it is no session */
                            challenge: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The e-mail address or the password is wrong.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: You are not a member of the `merchant_id` you asked for.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listPayments: {
        parameters: {
            query?: {
                /** @description How many payments to answer, 1 to 100 */
                limit?: number;
                /** @description A payment id (`pay_…`): answer the payments that come after it in the list, i.e. created before it. Pass `pagination.next_starting_after` of the previous page. */
                starting_after?: string;
                /** @description Only payments in this status */
                status?: "pending" | "processing" | "completed" | "failed" | "cancelled" | "refunded";
                /** @description Only open payments waiting for this reason (`awaiting_customer`, `awaiting_provider`, `provider_unreachable`, `awaiting_callback`, `checking_with_provider`); final payments have none */
                pending_reason?: "awaiting_customer" | "awaiting_provider" | "provider_unreachable" | "awaiting_callback" | "checking_with_provider";
                /** @description Only payments of this method */
                payment_method?: "mobile_money" | "bank_transfer" | "card" | "card_gateway" | "momo" | "mobile_money_b" | "mpesa" | "orange" | "vodacom" | "wave" | "mobile_money_c" | "wallet";
                /** @description Only the attempts of this checkout session (`cs_…`): the payments its page started */
                checkout_session?: string;
                /** @description Only payments created at or after this time: Unix seconds or an ISO 8601 date-time */
                "created[gte]"?: string;
                /** @description Only payments created at or before this time: Unix seconds (the whole second counts) or an ISO 8601 date-time */
                "created[lte]"?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of payments, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payments retrieved",
                     *       "data": {
                     *         "payments": [
                     *           {
                     *             "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "object": "payment",
                     *             "amount": 1500,
                     *             "amount_refunded": 0,
                     *             "amount_refund_pending": 0,
                     *             "currency": "RWF",
                     *             "status": "completed",
                     *             "payment_method": "mobile_money",
                     *             "provider": "momo",
                     *             "provider_receipt_number": "5729364812",
                     *             "description": "Order #1042",
                     *             "phone_number": "+250788123456",
                     *             "metadata": {
                     *               "order_id": "1042"
                     *             },
                     *             "failure_code": null,
                     *             "failure_message": null,
                     *             "cancellation_reason": null,
                     *             "checkout_session": null,
                     *             "next_action": null,
                     *             "environment": "sandbox",
                     *             "expires_at": "2026-11-24T10:10:00.000Z",
                     *             "pending_reason": null,
                     *             "decision_expected_by": null,
                     *             "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                     *             "reconciled_at": null,
                     *             "refundable": {
                     *               "allowed": true,
                     *               "partial": true,
                     *               "reason": null
                     *             },
                     *             "cancellable": {
                     *               "allowed": false,
                     *               "reason": "a completed payment cannot be cancelled; only pending and processing payments can"
                     *             },
                     *             "created_at": "2026-11-24T10:00:00.000Z",
                     *             "updated_at": "2026-11-24T10:00:04.000Z"
                     *           }
                     *         ],
                     *         "pagination": {
                     *           "limit": 1,
                     *           "has_more": true,
                     *           "next_starting_after": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description This page of payments, newest first */
                            payments: (components["schemas"]["Payment"] & unknown)[];
                            /** @description Where this page ends and how to get the next */
                            pagination: {
                                /** @description Items a page */
                                limit: number;
                                /** @description True when more items follow the last one of this page */
                                has_more: boolean;
                                /** @description Pass it as `starting_after` for the next page; null on the last page */
                                next_starting_after: string | null;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: An unknown query field, a bad filter value, or a `starting_after` that is not one of your payments. The message names the field.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 hours answer the first result again */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "amount": 1500,
                 *       "currency": "RWF",
                 *       "payment_method": "mobile_money",
                 *       "phone_number": "+250788123456",
                 *       "description": "Order #1042",
                 *       "metadata": {
                 *         "order_id": "1042"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description The amount in minor units of the currency (1500 RWF is `1500`, 15.00 KES is `1500`) */
                    amount: number;
                    /**
                     * @description ISO 4217 code
                     * @enum {string}
                     */
                    currency: "RWF" | "UGX" | "KES" | "GHS" | "USD" | "EUR" | "GBP" | "LRD" | "TZS" | "ZMW" | "XOF" | "XAF" | "GNF" | "SZL" | "MWK" | "CDF" | "MGA" | "SCR" | "NGN";
                    /**
                     * @description How the customer pays
                     * @enum {string}
                     */
                    payment_method: "mobile_money" | "bank_transfer" | "card";
                    /** @description Mobile money: the customer's number as people write it (`0788 000 001`, `+250 788-000-001`); stored in E.164 */
                    phone_number?: string;
                    /**
                     * @description Mobile money: the operator, when the number does not tell it
                     * @enum {string}
                     */
                    provider?: "momo" | "mobile_money_b" | "mpesa" | "orange" | "vodacom" | "wave";
                    /**
                     * @description Mobile money: the operator of a ported number, overriding the prefix table
                     * @enum {string}
                     */
                    operator?: "momo" | "mobile_money_b" | "mpesa" | "orange" | "vodacom" | "wave";
                    /** @description ISO 3166-1 alpha-2 country of a number written nationally (default: the currency's) */
                    country?: string;
                    /** @description Yours, shown on the dashboard and in lists */
                    description?: string;
                    /**
                     * Format: email
                     * @description The customer's e-mail (card, bank transfer)
                     */
                    customer_email?: string;
                    /** @description Your key-value pairs, at most 50, returned as sent */
                    metadata?: {
                        [key: string]: string;
                    };
                    /** @description Seconds until the payment expires, 60 up to the method's default */
                    expires_in?: number;
                };
            };
        };
        responses: {
            /** @description The payment: `pending` with the provider's `next_action`, or `failed` when the provider refused it */
            201: {
                headers: {
                    /** @description Present when this answer is the replay of an earlier request with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payment created",
                     *       "data": {
                     *         "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "object": "payment",
                     *         "amount": 1500,
                     *         "amount_refunded": 0,
                     *         "amount_refund_pending": 0,
                     *         "currency": "RWF",
                     *         "status": "pending",
                     *         "payment_method": "mobile_money",
                     *         "provider": "momo",
                     *         "provider_receipt_number": null,
                     *         "description": "Order #1042",
                     *         "phone_number": "+250788123456",
                     *         "metadata": {
                     *           "order_id": "1042"
                     *         },
                     *         "failure_code": null,
                     *         "failure_message": null,
                     *         "cancellation_reason": null,
                     *         "checkout_session": null,
                     *         "next_action": {
                     *           "type": "mobile_money_approval",
                     *           "message": "A payment prompt was sent to +250788123456; the customer approves it on their phone"
                     *         },
                     *         "environment": "sandbox",
                     *         "expires_at": "2026-11-24T10:10:00.000Z",
                     *         "pending_reason": "awaiting_customer",
                     *         "decision_expected_by": "2026-11-24T10:13:00.000Z",
                     *         "balance_transaction": null,
                     *         "reconciled_at": null,
                     *         "refundable": {
                     *           "allowed": false,
                     *           "partial": false,
                     *           "reason": "a pending payment cannot be refunded; only completed payments can"
                     *         },
                     *         "cancellable": {
                     *           "allowed": false,
                     *           "reason": "momo cannot withdraw a request the customer has not answered: it lapses at expires_at"
                     *         },
                     *         "created_at": "2026-11-24T10:00:00.000Z",
                     *         "updated_at": "2026-11-24T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Payment"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `validation_error`: A field is missing, unknown or invalid, the currency or the phone number's country is not served by the method, or `expires_in` is out of range. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `idempotency_key_reused`: This `Idempotency-Key` was used within 24 hours with a different request.
             *     - `conflict`: A request with this `Idempotency-Key` is still in progress; retry in a moment.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             *     - `provider_unavailable`: No provider serves the method in this environment yet; or your `refuse_when_provider_down` is on and the number's operator is `down` (docs/availability.md#api-create): then with `Retry-After: 60`, and the `Idempotency-Key` is free for a retry. Nothing was created.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrievePayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payment retrieved",
                     *       "data": {
                     *         "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "object": "payment",
                     *         "amount": 1500,
                     *         "amount_refunded": 0,
                     *         "amount_refund_pending": 0,
                     *         "currency": "RWF",
                     *         "status": "completed",
                     *         "payment_method": "mobile_money",
                     *         "provider": "momo",
                     *         "provider_receipt_number": "5729364812",
                     *         "description": "Order #1042",
                     *         "phone_number": "+250788123456",
                     *         "metadata": {
                     *           "order_id": "1042"
                     *         },
                     *         "failure_code": null,
                     *         "failure_message": null,
                     *         "cancellation_reason": null,
                     *         "checkout_session": null,
                     *         "next_action": null,
                     *         "environment": "sandbox",
                     *         "expires_at": "2026-11-24T10:10:00.000Z",
                     *         "pending_reason": null,
                     *         "decision_expected_by": null,
                     *         "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                     *         "reconciled_at": null,
                     *         "refundable": {
                     *           "allowed": true,
                     *           "partial": true,
                     *           "reason": null
                     *         },
                     *         "cancellable": {
                     *           "allowed": false,
                     *           "reason": "a completed payment cannot be cancelled; only pending and processing payments can"
                     *         },
                     *         "created_at": "2026-11-24T10:00:00.000Z",
                     *         "updated_at": "2026-11-24T10:00:04.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Payment"] & unknown;
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    cancelPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 hours answer the first result again */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "reason": "customer changed their mind"
                 *     }
                 */
                "application/json": {
                    /** @description Why you cancel; shown as `cancellation_reason` */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description The cancelled payment */
            200: {
                headers: {
                    /** @description Present when this answer is the replay of an earlier request with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payment cancelled",
                     *       "data": {
                     *         "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "object": "payment",
                     *         "amount": 1500,
                     *         "amount_refunded": 0,
                     *         "amount_refund_pending": 0,
                     *         "currency": "RWF",
                     *         "status": "cancelled",
                     *         "payment_method": "mobile_money",
                     *         "provider": "momo",
                     *         "provider_receipt_number": null,
                     *         "description": "Order #1042",
                     *         "phone_number": "+250788123456",
                     *         "metadata": {
                     *           "order_id": "1042"
                     *         },
                     *         "failure_code": null,
                     *         "failure_message": null,
                     *         "cancellation_reason": "customer changed their mind",
                     *         "checkout_session": null,
                     *         "next_action": null,
                     *         "environment": "sandbox",
                     *         "expires_at": "2026-11-24T10:10:00.000Z",
                     *         "pending_reason": null,
                     *         "decision_expected_by": null,
                     *         "balance_transaction": null,
                     *         "reconciled_at": null,
                     *         "refundable": {
                     *           "allowed": false,
                     *           "partial": false,
                     *           "reason": "a cancelled payment cannot be refunded; only completed payments can"
                     *         },
                     *         "cancellable": {
                     *           "allowed": false,
                     *           "reason": "a cancelled payment cannot be cancelled; only pending and processing payments can"
                     *         },
                     *         "created_at": "2026-11-24T10:00:00.000Z",
                     *         "updated_at": "2026-11-24T10:01:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Payment"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `idempotency_key_reused`: This `Idempotency-Key` was used within 24 hours with a different request.
             *     - `conflict`: A request with this `Idempotency-Key` is still in progress; retry in a moment.
             *     - `payment_not_cancellable`: The payment is no longer `pending` or `processing` (also when the provider's success came first: the payment is then `completed`).
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: The payment did not answer in time or could not take the request. It may still be carried out: retry with the same `Idempotency-Key` to learn the outcome.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    refundPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 hours answer the first result again */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "amount": 500,
                 *       "reason": "one item out of stock"
                 *     }
                 */
                "application/json": {
                    /** @description The amount to refund in minor units; default the whole refundable rest */
                    amount?: number;
                    /** @description Why you refund; kept on the refund */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description The refund: `completed`, `failed` or `pending` */
            201: {
                headers: {
                    /** @description Present when this answer is the replay of an earlier request with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Refund completed",
                     *       "data": {
                     *         "id": "ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b",
                     *         "object": "refund",
                     *         "payment_id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "amount": 500,
                     *         "currency": "RWF",
                     *         "status": "completed",
                     *         "reason": "one item out of stock",
                     *         "failure_message": null,
                     *         "created_at": "2026-11-24T11:00:00.000Z",
                     *         "completed_at": "2026-11-24T11:00:01.000Z",
                     *         "balance_transaction": "txn_9Lm1No3Pq5Rs7Tu9Vw1Xy3Za"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Refund"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `amount_exceeds_refundable`: The amount is more than what is left to refund (refunds in progress count).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `idempotency_key_reused`: This `Idempotency-Key` was used within 24 hours with a different request.
             *     - `conflict`: A request with this `Idempotency-Key` is still in progress; retry in a moment.
             *     - `payment_not_refundable`: The payment is not `completed`, or its refund window has passed.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: The payment did not answer in time or could not take the request. It may still be carried out: retry with the same `Idempotency-Key` to learn the outcome.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createMerchantPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 hours answer the first result again */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Your merchant id (`mer_…`) */
                merchant_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "amount": "1500.00",
                 *       "currency": "RWF",
                 *       "payment_method": "momo",
                 *       "description": "Order #1042",
                 *       "payment_method_data": {
                 *         "phone_number": "+250788123456"
                 *       }
                 *     }
                 */
                "application/json": {
                    /**
                     * @description The amount as a decimal string with two decimals, in the currency's unit
                     * @example 1500.00
                     */
                    amount: string;
                    /**
                     * @description ISO 4217 code
                     * @enum {string}
                     */
                    currency: "RWF" | "UGX" | "KES" | "GHS" | "USD" | "EUR" | "GBP" | "LRD" | "TZS" | "ZMW" | "XOF" | "XAF" | "GNF" | "SZL" | "MWK" | "CDF" | "MGA" | "SCR" | "NGN";
                    /**
                     * @description The provider code the customer pays with
                     * @enum {string}
                     */
                    payment_method: "card_gateway" | "momo" | "mobile_money_b" | "mpesa" | "orange" | "vodacom" | "wave" | "mobile_money_c" | "wallet";
                    /** @description Yours, shown on the dashboard and in lists */
                    description?: string;
                    /** @description What the method needs to reach the customer */
                    payment_method_data?: {
                        /** @description Card payments: `["card"]` */
                        payment_method_types?: "card"[];
                        /** @description Mobile money: the customer's number */
                        phone_number?: string;
                        /** @description ISO 3166-1 alpha-2 country of a number written nationally (default: the currency's) */
                        country?: string;
                        /** @description Wallet payments: the customer's wallet id */
                        wallet_id?: string;
                    };
                };
            };
        };
        responses: {
            /** @description The payment, `pending` */
            200: {
                headers: {
                    /** @description Present when this answer is the replay of an earlier request with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *       "status": "pending",
                     *       "amount": "1500.00",
                     *       "currency": "RWF",
                     *       "payment_method": "momo",
                     *       "provider_receipt_number": null,
                     *       "description": "Order #1042",
                     *       "failure_code": null,
                     *       "created_at": "2026-11-24T10:00:00.000Z",
                     *       "metadata": {
                     *         "fee_amount": "23.00",
                     *         "fee_percentage": "1.50"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["MerchantScopedPayment"];
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `idempotency_key_reused`: This `Idempotency-Key` was used within 24 hours with a different request.
             *     - `conflict`: A request with this `Idempotency-Key` is still in progress; retry in a moment.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             *     - `provider_unavailable`: No provider serves this payment method in this environment yet; nothing was created.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
        };
    };
    retrieveMerchantPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Your merchant id (`mer_…`) */
                merchant_id: string;
                /** @description The payment id (`pay_…`) */
                payment_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *       "status": "pending",
                     *       "amount": "1500.00",
                     *       "currency": "RWF",
                     *       "payment_method": "momo",
                     *       "provider_receipt_number": null,
                     *       "description": "Order #1042",
                     *       "failure_code": null,
                     *       "created_at": "2026-11-24T10:00:00.000Z",
                     *       "metadata": {
                     *         "fee_amount": "23.00",
                     *         "fee_percentage": "1.50"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["MerchantScopedPayment"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MerchantScopedError"];
                };
            };
        };
    };
    receiveProviderCallbackByPut: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The provider code (`momo`, `mobile_money_b`, `card_gateway`, `mpesa`) */
                provider: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "provider_reference": "1f0c7a52-3b9e-4d8a-9a43-5c2e8b7d6f10",
                 *       "status": "succeeded"
                 *     }
                 */
                "application/json": {
                    /** @description The provider's reference of the payment, as it answered the payment's initiation */
                    provider_reference: string;
                    /**
                     * @description The status the provider claims; the service confirms it with the provider before it counts
                     * @enum {string}
                     */
                    status: "pending" | "succeeded" | "failed" | "cancelled";
                    /**
                     * @description Why it failed, for `failed`
                     * @enum {string}
                     */
                    failure_code?: "declined" | "card_declined" | "insufficient_funds" | "provider_error";
                    /** @description The provider's own words about the failure */
                    failure_message?: string;
                };
            };
        };
        responses: {
            /** @description Received (also for a payment already closed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Callback received",
                     *       "data": {
                     *         "received": true,
                     *         "payment_id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "action": "signalled"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /**
                             * @description Always `true`: the callback was taken
                             * @enum {boolean}
                             */
                            received: true;
                            /** @description The payment the callback is about, `pay_…` (absent for a payout or refund result) */
                            payment_id?: string;
                            /** @description The payout an M-Pesa B2C result is about, `po_…` (absent for a payment callback) */
                            payout_id?: string;
                            /** @description The refund an M-Pesa reversal result is about, `ref_…` (absent for a payment or payout callback) */
                            refund_id?: string;
                            /**
                             * @description `signalled`: the payment's workflow confirms the status with the provider now; `ignored`: the callback cannot change the payment, payout or refund (already settled, repeated); `recorded`: a payout's or refund's result was kept, read by its workflow's next status call
                             * @enum {string}
                             */
                            action: "signalled" | "ignored" | "recorded";
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The callback's signature or token is missing or wrong.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: The callback's hint could not be handed to the payment's workflow within the deadline (2 s). Nothing is lost: send the callback again after `Retry-After` seconds; the payment's status is also polled.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    receiveProviderCallback: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The provider code (`momo`, `mobile_money_b`, `card_gateway`, `mpesa`) */
                provider: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "provider_reference": "1f0c7a52-3b9e-4d8a-9a43-5c2e8b7d6f10",
                 *       "status": "succeeded"
                 *     }
                 */
                "application/json": {
                    /** @description The provider's reference of the payment, as it answered the payment's initiation */
                    provider_reference: string;
                    /**
                     * @description The status the provider claims; the service confirms it with the provider before it counts
                     * @enum {string}
                     */
                    status: "pending" | "succeeded" | "failed" | "cancelled";
                    /**
                     * @description Why it failed, for `failed`
                     * @enum {string}
                     */
                    failure_code?: "declined" | "card_declined" | "insufficient_funds" | "provider_error";
                    /** @description The provider's own words about the failure */
                    failure_message?: string;
                };
            };
        };
        responses: {
            /** @description Received (also for a payment already closed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Callback received",
                     *       "data": {
                     *         "received": true,
                     *         "payment_id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "action": "signalled"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /**
                             * @description Always `true`: the callback was taken
                             * @enum {boolean}
                             */
                            received: true;
                            /** @description The payment the callback is about, `pay_…` (absent for a payout or refund result) */
                            payment_id?: string;
                            /** @description The payout an M-Pesa B2C result is about, `po_…` (absent for a payment callback) */
                            payout_id?: string;
                            /** @description The refund an M-Pesa reversal result is about, `ref_…` (absent for a payment or payout callback) */
                            refund_id?: string;
                            /**
                             * @description `signalled`: the payment's workflow confirms the status with the provider now; `ignored`: the callback cannot change the payment, payout or refund (already settled, repeated); `recorded`: a payout's or refund's result was kept, read by its workflow's next status call
                             * @enum {string}
                             */
                            action: "signalled" | "ignored" | "recorded";
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The callback's signature or token is missing or wrong.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: The callback's hint could not be handed to the payment's workflow within the deadline (2 s). Nothing is lost: send the callback again after `Retry-After` seconds; the payment's status is also polled.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    confirmSandboxCardPayment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "client_secret": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V_secret_Xy7Qm2Lk9Pw4Zt8R",
                 *       "card_number": "4242424242424242",
                 *       "exp_month": 12,
                 *       "exp_year": 2030,
                 *       "cvc": "123"
                 *     }
                 */
                "application/json": {
                    /** @description The payment's `next_action.client_secret` */
                    client_secret: string;
                    /** @description A test card number, digits only */
                    card_number: string;
                    /** @description Expiry month, 1 to 12 */
                    exp_month: number;
                    /** @description Expiry year, four digits */
                    exp_year: number;
                    /** @description 3 or 4 digits */
                    cvc: string;
                };
            };
        };
        responses: {
            /** @description The gateway's answer; the payment follows within moments */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Card confirmation received",
                     *       "data": {
                     *         "payment_id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "outcome": {
                     *           "status": "succeeded"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The payment the card was confirmed for, `pay_…` */
                            payment_id: string;
                            /** @description The simulated gateway's answer, as the gateway's client library gives it */
                            outcome: {
                                /** @description The gateway's status: `succeeded`, or `requires_payment_method` for a declined card */
                                status: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No card payment has this client secret.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: The payment is closed or its card was already confirmed.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    simulateSandboxPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "outcome": "completed"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description How the simulated customer ends the payment
                     * @enum {string}
                     */
                    outcome: "completed" | "failed";
                };
            };
        };
        responses: {
            /** @description The payment (its status follows within moments) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Bank transfer simulated",
                     *       "data": {
                     *         "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "object": "payment",
                     *         "amount": 250000,
                     *         "amount_refunded": 0,
                     *         "amount_refund_pending": 0,
                     *         "currency": "RWF",
                     *         "status": "pending",
                     *         "payment_method": "bank_transfer",
                     *         "provider": "bank_transfer",
                     *         "provider_receipt_number": null,
                     *         "description": "Order #1042",
                     *         "metadata": {
                     *           "order_id": "1042"
                     *         },
                     *         "failure_code": null,
                     *         "failure_message": null,
                     *         "cancellation_reason": null,
                     *         "checkout_session": null,
                     *         "next_action": {
                     *           "type": "bank_transfer",
                     *           "bank_name": "Sandbox Bank",
                     *           "account_name": "PayCollect Sandbox",
                     *           "account_number": "000123456789",
                     *           "reference": "PC7HC2WQN5"
                     *         },
                     *         "environment": "sandbox",
                     *         "expires_at": "2026-11-27T10:00:00.000Z",
                     *         "pending_reason": "awaiting_callback",
                     *         "decision_expected_by": "2026-11-27T10:03:00.000Z",
                     *         "balance_transaction": null,
                     *         "reconciled_at": null,
                     *         "refundable": {
                     *           "allowed": false,
                     *           "partial": false,
                     *           "reason": "a pending payment cannot be refunded; only completed payments can"
                     *         },
                     *         "cancellable": {
                     *           "allowed": true,
                     *           "reason": null
                     *         },
                     *         "created_at": "2026-11-24T10:00:00.000Z",
                     *         "updated_at": "2026-11-24T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Payment"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No sandbox bank transfer payment has this id.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: The payment is closed, its transfer was already decided, or it is not at the provider yet (retry in a moment).
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    settleSandboxBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The balance after settling */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Sandbox funds settled",
                     *       "data": {
                     *         "object": "balance",
                     *         "available": [
                     *           {
                     *             "amount": 977,
                     *             "currency": "RWF"
                     *           }
                     *         ],
                     *         "pending": [
                     *           {
                     *             "amount": 0,
                     *             "currency": "RWF"
                     *           }
                     *         ],
                     *         "refund_reserved": [
                     *           {
                     *             "amount": 0,
                     *             "currency": "RWF"
                     *           }
                     *         ],
                     *         "environment": "sandbox"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Balance"];
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: The key is a live key: only sandbox funds are settled on demand.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    updateSandboxProviderStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The provider code (`momo`, `mobile_money_b`, `card_gateway`, `mpesa`) */
                provider: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "country": "RW",
                 *       "operation": "collection",
                 *       "status": "down",
                 *       "reason": "testing our outage banner"
                 *     }
                 */
                "application/json": {
                    /** @description ISO 3166-1 alpha-2 code of a country the sandbox serves the provider in (`RW`) */
                    country: string;
                    /**
                     * @description `collection`, `payout` or `refund`
                     * @enum {string}
                     */
                    operation: "collection" | "payout" | "refund";
                    /**
                     * @description The status your sandbox sees for 10 minutes (docs/availability.md#statuses)
                     * @enum {string}
                     */
                    status: "operational" | "degraded" | "down";
                    /** @description Why, as `reason` of your availability and of the event (1–200 characters) */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Your sandbox's status of the provider */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Sandbox provider status set",
                     *       "data": {
                     *         "provider": "momo",
                     *         "country": "RW",
                     *         "operation": "collection",
                     *         "status": "down",
                     *         "previous_status": "operational",
                     *         "reason": "testing our outage banner",
                     *         "expires_at": "2026-11-29T09:51:30.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["SandboxProviderStatus"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `validation_error`: The sandbox serves no such provider, or not in that country or for that operation; or a field is bad.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: The key is a live key: a provider's status is set in the sandbox only.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveBalance: {
        parameters: {
            query?: {
                /** @description Which environment's money (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The balance */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Balance retrieved",
                     *       "data": {
                     *         "object": "balance",
                     *         "available": [
                     *           {
                     *             "amount": -500,
                     *             "currency": "RWF"
                     *           }
                     *         ],
                     *         "pending": [
                     *           {
                     *             "amount": 1477,
                     *             "currency": "RWF"
                     *           }
                     *         ],
                     *         "refund_reserved": [
                     *           {
                     *             "amount": 0,
                     *             "currency": "RWF"
                     *           }
                     *         ],
                     *         "environment": "sandbox"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Balance"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listBalanceTransactions: {
        parameters: {
            query?: {
                /** @description Which environment's money (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
                /** @description How many balance transactions to answer, 1 to 100 */
                limit?: number;
                /** @description A balance transaction id (`txn_…`): answer those created before it. Pass `pagination.next_starting_after`. */
                starting_after?: string;
                /** @description Only balance transactions of this type */
                type?: "payment" | "refund" | "refund_failure" | "payout" | "payout_failure" | "adjustment";
                /** @description Only those of this payment, refund or payout id */
                source?: string;
                /** @description Only those a payout (`po_…`) covers */
                payout?: string;
                /** @description Created at or after: Unix seconds or an ISO 8601 date-time */
                "created[gte]"?: string;
                /** @description Created at or before: Unix seconds or an ISO 8601 date-time */
                "created[lte]"?: string;
                /** @description Available at or after: Unix seconds or ISO 8601 */
                "available_on[gte]"?: string;
                /** @description Available at or before: Unix seconds or ISO 8601 */
                "available_on[lte]"?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of balance transactions, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Balance transactions retrieved",
                     *       "data": {
                     *         "balance_transactions": [
                     *           {
                     *             "id": "txn_9Lm1No3Pq5Rs7Tu9Vw1Xy3Za",
                     *             "object": "balance_transaction",
                     *             "type": "refund",
                     *             "amount": -500,
                     *             "fee": 0,
                     *             "net": -500,
                     *             "currency": "RWF",
                     *             "source": "ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b",
                     *             "status": "available",
                     *             "available_on": "2026-11-24T11:00:00.000Z",
                     *             "created_at": "2026-11-24T11:00:00.000Z",
                     *             "description": "Refund ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b of payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V"
                     *           },
                     *           {
                     *             "id": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                     *             "object": "balance_transaction",
                     *             "type": "payment",
                     *             "amount": 1500,
                     *             "fee": 23,
                     *             "net": 1477,
                     *             "currency": "RWF",
                     *             "source": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "status": "pending",
                     *             "available_on": "2026-11-25T10:00:04.000Z",
                     *             "created_at": "2026-11-24T10:00:04.000Z",
                     *             "description": "Payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V"
                     *           }
                     *         ],
                     *         "pagination": {
                     *           "limit": 2,
                     *           "has_more": false,
                     *           "next_starting_after": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your balance transactions, newest first */
                            balance_transactions: components["schemas"]["BalanceTransaction"][];
                            /** @description Where this page ends: `has_more` and `next_starting_after` */
                            pagination: {
                                /** @description Items a page */
                                limit: number;
                                /** @description True when more items follow the last one of this page */
                                has_more: boolean;
                                /** @description Pass it as `starting_after` for the next page; null on the last page */
                                next_starting_after: string | null;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: An unknown query field, an unknown `type`, a `limit` above 100, a malformed date, or a `starting_after` that is not one of yours. The message names the parameter.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveBalanceTransaction: {
        parameters: {
            query?: {
                /** @description Which environment's money (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The balance transaction */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Balance transaction retrieved",
                     *       "data": {
                     *         "id": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                     *         "object": "balance_transaction",
                     *         "type": "payment",
                     *         "amount": 1500,
                     *         "fee": 23,
                     *         "net": 1477,
                     *         "currency": "RWF",
                     *         "source": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "status": "pending",
                     *         "available_on": "2026-11-25T10:00:04.000Z",
                     *         "created_at": "2026-11-24T10:00:04.000Z",
                     *         "description": "Payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["BalanceTransaction"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveDaySettlementReport: {
        parameters: {
            query: {
                /** @description Which environment's money (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
                /** @description `json` (default): the envelope, amounts in minor units. `csv`: a file to download (`text/csv`, UTF-8), amounts as decimals in the currency’s unit */
                format?: "json" | "csv";
                /** @description One currency (ISO 4217, upper case): its section alone. Default: every currency you hold, each in its own section */
                currency?: "RWF" | "UGX" | "KES" | "GHS" | "USD" | "EUR" | "GBP" | "LRD" | "TZS" | "ZMW" | "XOF" | "XAF" | "GNF" | "SZL" | "MWK" | "CDF" | "MGA" | "SCR" | "NGN";
                /** @description The UTC day, `YYYY-MM-DD`: today at the latest (its report so far), at most 730 days back */
                date: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The day’s report (the envelope; with `format=csv`, the CSV file) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Settlement report retrieved",
                     *       "data": {
                     *         "object": "day_settlement_report",
                     *         "date": "2026-11-24",
                     *         "environment": "sandbox",
                     *         "interval_start": "2026-11-24T00:00:00.000Z",
                     *         "interval_end": "2026-11-25T00:00:00.000Z",
                     *         "complete": true,
                     *         "currencies": [
                     *           {
                     *             "currency": "RWF",
                     *             "opening_balance": 0,
                     *             "count": 2,
                     *             "gross": 1000,
                     *             "fee": 23,
                     *             "net": 977,
                     *             "closing_balance": 977
                     *           }
                     *         ],
                     *         "lines": [
                     *           {
                     *             "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                     *             "category": "payment",
                     *             "source": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "payment": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "created_at": "2026-11-24T10:00:04.000Z",
                     *             "available_on": "2026-11-25T10:00:04.000Z",
                     *             "currency": "RWF",
                     *             "gross": 1500,
                     *             "fee": 23,
                     *             "net": 1477,
                     *             "description": "Payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "merchant_description": "Order 1042",
                     *             "payment_metadata": {
                     *               "order_id": "1042"
                     *             }
                     *           },
                     *           {
                     *             "balance_transaction": "txn_9Lm1No3Pq5Rs7Tu9Vw1Xy3Za",
                     *             "category": "refund",
                     *             "source": "ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b",
                     *             "payment": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "created_at": "2026-11-24T11:00:00.000Z",
                     *             "available_on": "2026-11-24T11:00:00.000Z",
                     *             "currency": "RWF",
                     *             "gross": -500,
                     *             "fee": 0,
                     *             "net": -500,
                     *             "description": "Refund ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b of payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "merchant_description": "Order 1042",
                     *             "payment_metadata": {
                     *               "order_id": "1042"
                     *             }
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["DaySettlementReport"];
                    };
                    /**
                     * @example balance_transaction,created_at,available_on,category,source,payment,currency,gross,fee,net,description,merchant_description,payment_metadata[order_id]
                     *     ,2026-11-24T00:00:00.000Z,,opening_balance,,,RWF,,,0,Owed to you when the day began (available and pending),,
                     *     txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk,2026-11-24T10:00:04.000Z,2026-11-25T10:00:04.000Z,payment,pay_7Hc2WqN5xR8tLm3Kd9PzYb4V,pay_7Hc2WqN5xR8tLm3Kd9PzYb4V,RWF,1500,23,1477,Payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V,Order 1042,1042
                     *     txn_9Lm1No3Pq5Rs7Tu9Vw1Xy3Za,2026-11-24T11:00:00.000Z,2026-11-24T11:00:00.000Z,refund,ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b,pay_7Hc2WqN5xR8tLm3Kd9PzYb4V,RWF,-500,0,-500,Refund ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b of payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V,Order 1042,1042
                     *     ,,,total,,,RWF,1000,23,977,The day in this currency: 2 lines,,
                     *     ,2026-11-25T00:00:00.000Z,,closing_balance,,,RWF,,,977,Owed to you when the day ended (opening balance + the day’s net),,
                     */
                    "text/csv": string;
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A missing or malformed `date`, a day after today (UTC) or more than 730 days back, a `currency` the service does not take, a `format` other than `json` or `csv`, or an unknown query field. The message names the parameter.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrievePayoutSettlementReport: {
        parameters: {
            query?: {
                /** @description Which environment's money (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
                /** @description `json` (default): the envelope, amounts in minor units. `csv`: a file to download (`text/csv`, UTF-8), amounts as decimals in the currency’s unit */
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payout’s report (the envelope; with `format=csv`, the CSV file) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Settlement report retrieved",
                     *       "data": {
                     *         "object": "payout_settlement_report",
                     *         "payout": {
                     *           "id": "po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                     *           "amount": 967,
                     *           "fee": 10,
                     *           "currency": "RWF",
                     *           "status": "paid",
                     *           "automatic": true,
                     *           "arrival_date": "2026-11-26T06:00:02.000Z",
                     *           "created_at": "2026-11-26T06:00:00.000Z"
                     *         },
                     *         "activity": {
                     *           "count": 2,
                     *           "gross": 1000,
                     *           "fee": 23,
                     *           "net": 977
                     *         },
                     *         "payout_fee": 10,
                     *         "balance_carried": 0,
                     *         "lines": [
                     *           {
                     *             "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                     *             "category": "payment",
                     *             "source": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "payment": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "created_at": "2026-11-24T10:00:04.000Z",
                     *             "available_on": "2026-11-25T10:00:04.000Z",
                     *             "currency": "RWF",
                     *             "gross": 1500,
                     *             "fee": 23,
                     *             "net": 1477,
                     *             "description": "Payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "merchant_description": "Order 1042",
                     *             "payment_metadata": {
                     *               "order_id": "1042"
                     *             }
                     *           },
                     *           {
                     *             "balance_transaction": "txn_9Lm1No3Pq5Rs7Tu9Vw1Xy3Za",
                     *             "category": "refund",
                     *             "source": "ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b",
                     *             "payment": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "created_at": "2026-11-24T11:00:00.000Z",
                     *             "available_on": "2026-11-24T11:00:00.000Z",
                     *             "currency": "RWF",
                     *             "gross": -500,
                     *             "fee": 0,
                     *             "net": -500,
                     *             "description": "Refund ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b of payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "merchant_description": "Order 1042",
                     *             "payment_metadata": {
                     *               "order_id": "1042"
                     *             }
                     *           },
                     *           {
                     *             "balance_transaction": "txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd",
                     *             "category": "payout_fee",
                     *             "source": "po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                     *             "payment": null,
                     *             "created_at": "2026-11-26T06:00:00.000Z",
                     *             "available_on": null,
                     *             "currency": "RWF",
                     *             "gross": 0,
                     *             "fee": 10,
                     *             "net": -10,
                     *             "description": "Payout fee of po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                     *             "merchant_description": null,
                     *             "payment_metadata": null
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["PayoutSettlementReport"];
                    };
                    /**
                     * @example balance_transaction,created_at,available_on,category,source,payment,currency,gross,fee,net,description,merchant_description,payment_metadata[order_id]
                     *     txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk,2026-11-24T10:00:04.000Z,2026-11-25T10:00:04.000Z,payment,pay_7Hc2WqN5xR8tLm3Kd9PzYb4V,pay_7Hc2WqN5xR8tLm3Kd9PzYb4V,RWF,1500,23,1477,Payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V,Order 1042,1042
                     *     txn_9Lm1No3Pq5Rs7Tu9Vw1Xy3Za,2026-11-24T11:00:00.000Z,2026-11-24T11:00:00.000Z,refund,ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b,pay_7Hc2WqN5xR8tLm3Kd9PzYb4V,RWF,-500,0,-500,Refund ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b of payment pay_7Hc2WqN5xR8tLm3Kd9PzYb4V,Order 1042,1042
                     *     txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd,2026-11-26T06:00:00.000Z,,payout_fee,po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab,,RWF,0,10,-10,Payout fee of po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab,,
                     */
                    "text/csv": string;
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listAvailability: {
        parameters: {
            query?: {
                /** @description Which environment's providers (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every served provider, country and operation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Availability retrieved",
                     *       "data": {
                     *         "availability": [
                     *           {
                     *             "provider": "momo",
                     *             "country": "RW",
                     *             "operation": "collection",
                     *             "status": "degraded",
                     *             "since": "2026-11-29T09:41:30.000Z",
                     *             "success_rate": 0.62,
                     *             "p50_seconds": 21.4,
                     *             "p95_seconds": 74,
                     *             "window_attempts": 50,
                     *             "reason": null
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description One row per provider, country and operation */
                            availability: components["schemas"]["Availability"][];
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveStatusPage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html>… */
                    "text/html": string;
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listPayoutDestinations: {
        parameters: {
            query?: {
                /** @description Which environment (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The destinations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payout destinations retrieved",
                     *       "data": {
                     *         "payout_destinations": [
                     *           {
                     *             "id": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                     *             "object": "payout_destination",
                     *             "type": "mobile_money",
                     *             "provider": "momo",
                     *             "last4": "0001",
                     *             "bank_code": null,
                     *             "account_holder_name": null,
                     *             "status": "verified",
                     *             "usable_from": "2026-11-24T12:00:00.000Z",
                     *             "created_at": "2026-11-24T12:00:00.000Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your destinations in this environment */
                            payout_destinations: components["schemas"]["PayoutDestination"][];
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createPayoutDestination: {
        parameters: {
            query?: {
                /** @description Which environment (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "type": "mobile_money",
                 *       "phone_number": "+250788000001"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description A mobile money wallet
                     * @enum {string}
                     */
                    type: "mobile_money";
                    /**
                     * @description E.164
                     * @example +250788000001
                     */
                    phone_number: string;
                    /**
                     * @description The operator whose rail pays the wallet, overriding the prefix table: a ported number, or a wallet that claims no prefixes (Wave's)
                     * @enum {string}
                     */
                    operator?: "momo" | "mobile_money_b" | "mpesa" | "vodacom" | "wave";
                } | {
                    /**
                     * @description A bank account
                     * @enum {string}
                     */
                    type: "bank_account";
                    /**
                     * @description The bank's code (SWIFT/BIC or its national code)
                     * @example BKIGRWRW
                     */
                    bank_code: string;
                    /**
                     * @description The account number, digits only
                     * @example 00040000120001
                     */
                    account_number: string;
                    /**
                     * @description The account holder's name, as the bank has it
                     * @example Kigali Crafts Ltd
                     */
                    account_holder_name: string;
                };
            };
        };
        responses: {
            /** @description The destination */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payout destination created",
                     *       "data": {
                     *         "id": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                     *         "object": "payout_destination",
                     *         "type": "mobile_money",
                     *         "provider": "momo",
                     *         "last4": "0001",
                     *         "bank_code": null,
                     *         "account_holder_name": null,
                     *         "status": "verified",
                     *         "usable_from": "2026-11-24T12:00:00.000Z",
                     *         "created_at": "2026-11-24T12:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["PayoutDestination"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    deletePayoutDestination: {
        parameters: {
            query?: {
                /** @description Which environment (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payout destination deleted",
                     *       "data": {
                     *         "id": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                     *         "deleted": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The deleted destination */
                            id: string;
                            /**
                             * @description Always `true`
                             * @enum {boolean}
                             */
                            deleted: true;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listPayouts: {
        parameters: {
            query?: {
                /** @description Which environment (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
                /** @description How many payouts to answer, 1 to 100 */
                limit?: number;
                /** @description A payout id (`po_…`): answer those created before it. Pass `pagination.next_starting_after`. */
                starting_after?: string;
                /** @description Only payouts in this status */
                status?: "pending" | "in_transit" | "paid" | "failed" | "returned" | "cancelled";
                /** @description Only payouts to this destination */
                destination?: string;
                /** @description Created at or after: Unix seconds or an ISO 8601 date-time */
                "created[gte]"?: string;
                /** @description Created at or before: Unix seconds or an ISO 8601 date-time */
                "created[lte]"?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of payouts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payouts retrieved",
                     *       "data": {
                     *         "payouts": [
                     *           {
                     *             "id": "po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                     *             "object": "payout",
                     *             "amount": 50000,
                     *             "fee": 500,
                     *             "currency": "RWF",
                     *             "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                     *             "status": "paid",
                     *             "failure_code": null,
                     *             "failure_message": null,
                     *             "pending_reason": null,
                     *             "automatic": false,
                     *             "description": "Weekly takings",
                     *             "arrival_date": "2026-11-24T12:05:01.000Z",
                     *             "balance_transaction": "txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd",
                     *             "created_at": "2026-11-24T12:05:00.000Z",
                     *             "updated_at": "2026-11-24T12:05:01.000Z"
                     *           }
                     *         ],
                     *         "pagination": {
                     *           "limit": 10,
                     *           "has_more": false,
                     *           "next_starting_after": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your payouts, newest first */
                            payouts: components["schemas"]["Payout"][];
                            /** @description Where this page ends: `has_more` and `next_starting_after` */
                            pagination: {
                                /** @description Items a page */
                                limit: number;
                                /** @description True when more items follow the last one of this page */
                                has_more: boolean;
                                /** @description Pass it as `starting_after` for the next page; null on the last page */
                                next_starting_after: string | null;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createPayout: {
        parameters: {
            query?: {
                /** @description Which environment (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 hours answer the first result again */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "amount": 50000,
                 *       "currency": "RWF",
                 *       "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Minor units, more than 0; the balance must cover it plus the fee
                     * @example 50000
                     */
                    amount: number;
                    /**
                     * @description ISO 4217 code; the destination's rail must pay it
                     * @enum {string}
                     */
                    currency: "RWF" | "UGX" | "KES" | "GHS" | "USD" | "EUR" | "GBP" | "LRD" | "TZS" | "ZMW" | "XOF" | "XAF" | "GNF" | "SZL" | "MWK" | "CDF" | "MGA" | "SCR" | "NGN";
                    /** @description A destination id (`dst_…`) */
                    destination: string;
                    /** @description Yours, returned as sent */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description The payout */
            201: {
                headers: {
                    /** @description Present when this answer is the replay of an earlier request with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payout created",
                     *       "data": {
                     *         "id": "po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                     *         "object": "payout",
                     *         "amount": 50000,
                     *         "fee": 500,
                     *         "currency": "RWF",
                     *         "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                     *         "status": "paid",
                     *         "failure_code": null,
                     *         "failure_message": null,
                     *         "pending_reason": null,
                     *         "automatic": false,
                     *         "description": "Weekly takings",
                     *         "arrival_date": "2026-11-24T12:05:01.000Z",
                     *         "balance_transaction": "txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd",
                     *         "created_at": "2026-11-24T12:05:00.000Z",
                     *         "updated_at": "2026-11-24T12:05:01.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Payout"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `idempotency_key_reused`: This `Idempotency-Key` was used within 24 hours with a different request.
             *     - `insufficient_balance`: The available balance is negative, or less than the payout amount plus the payout fee (docs/payouts.md#money). Nothing is reserved.
             *     - `conflict`: The live destination was added less than 24 hours ago.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             *     - `provider_unavailable`: No payout rail for this destination exists in this environment yet (the live bank rail). Nothing is reserved.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrievePayout: {
        parameters: {
            query?: {
                /** @description Which environment (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payout */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payout retrieved",
                     *       "data": {
                     *         "id": "po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                     *         "object": "payout",
                     *         "amount": 50000,
                     *         "fee": 500,
                     *         "currency": "RWF",
                     *         "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                     *         "status": "paid",
                     *         "failure_code": null,
                     *         "failure_message": null,
                     *         "pending_reason": null,
                     *         "automatic": false,
                     *         "description": "Weekly takings",
                     *         "arrival_date": "2026-11-24T12:05:01.000Z",
                     *         "balance_transaction": "txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd",
                     *         "created_at": "2026-11-24T12:05:00.000Z",
                     *         "updated_at": "2026-11-24T12:05:01.000Z",
                     *         "timeline": [
                     *           {
                     *             "status": "pending",
                     *             "at": "2026-11-24T12:05:00.000Z"
                     *           },
                     *           {
                     *             "status": "in_transit",
                     *             "at": "2026-11-24T12:05:01.000Z"
                     *           },
                     *           {
                     *             "status": "paid",
                     *             "at": "2026-11-24T12:05:01.000Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["PayoutDetail"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    cancelPayout: {
        parameters: {
            query?: {
                /** @description Which environment (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cancelled payout */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payout cancelled",
                     *       "data": {
                     *         "id": "po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                     *         "object": "payout",
                     *         "amount": 50000,
                     *         "fee": 500,
                     *         "currency": "RWF",
                     *         "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                     *         "status": "cancelled",
                     *         "failure_code": null,
                     *         "failure_message": null,
                     *         "pending_reason": null,
                     *         "automatic": false,
                     *         "description": "Weekly takings",
                     *         "arrival_date": null,
                     *         "balance_transaction": "txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd",
                     *         "created_at": "2026-11-24T12:05:00.000Z",
                     *         "updated_at": "2026-11-24T12:05:01.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Payout"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `payout_not_cancellable`: The payout is no longer `pending`: its provider has it, or it has ended.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrievePayoutSchedule: {
        parameters: {
            query?: {
                /** @description Which environment (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The setting */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payout schedule retrieved",
                     *       "data": {
                     *         "object": "payout_schedule",
                     *         "schedule": "daily",
                     *         "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                     *         "currency": "RWF",
                     *         "minimum": 10000,
                     *         "updated_at": "2026-11-24T12:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["PayoutSchedule"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    updatePayoutSchedule: {
        parameters: {
            query?: {
                /** @description Which environment (a session token; an API key is bound to its own) */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "schedule": "daily",
                 *       "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                 *       "currency": "RWF",
                 *       "minimum": 10000
                 *     }
                 */
                "application/json": {
                    /**
                     * @description `manual`, `daily` or `weekly`
                     * @enum {string}
                     */
                    schedule: "manual" | "daily" | "weekly";
                    /** @description The destination automatic payouts go to */
                    destination?: string;
                    /**
                     * @description The currency automatic payouts pay out
                     * @enum {string}
                     */
                    currency?: "RWF" | "UGX" | "KES" | "GHS" | "USD" | "EUR" | "GBP" | "LRD" | "TZS" | "ZMW" | "XOF" | "XAF" | "GNF" | "SZL" | "MWK" | "CDF" | "MGA" | "SCR" | "NGN";
                    /**
                     * @description Minor units kept in the balance (default 0)
                     * @example 10000
                     */
                    minimum?: number;
                };
            };
        };
        responses: {
            /** @description The setting */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payout schedule updated",
                     *       "data": {
                     *         "object": "payout_schedule",
                     *         "schedule": "daily",
                     *         "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                     *         "currency": "RWF",
                     *         "minimum": 10000,
                     *         "updated_at": "2026-11-24T12:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["PayoutSchedule"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listCheckoutSessions: {
        parameters: {
            query?: {
                /** @description How many sessions to answer, 1 to 100 */
                limit?: number;
                /** @description A session id (`cs_…`): answer those created before it. Pass `pagination.next_starting_after`. */
                starting_after?: string;
                /** @description Only sessions in this status */
                status?: "open" | "complete" | "expired";
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sessions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Checkout sessions retrieved",
                     *       "data": {
                     *         "checkout_sessions": [
                     *           {
                     *             "id": "cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                     *             "object": "checkout.session",
                     *             "url": "https://api.paycollect.example/pay/cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                     *             "status": "open",
                     *             "amount": 5000,
                     *             "currency": "RWF",
                     *             "description": "School fees, term 1",
                     *             "customer_phone": null,
                     *             "payment": null,
                     *             "payment_link": null,
                     *             "attempts_count": 0,
                     *             "locale": "en",
                     *             "expires_at": "2026-11-30T10:00:00.000Z",
                     *             "success_url": "https://school.example/paid",
                     *             "cancel_url": null,
                     *             "created_at": "2026-11-29T10:00:00.000Z",
                     *             "metadata": {
                     *               "student": "S-1042"
                     *             }
                     *           }
                     *         ],
                     *         "pagination": {
                     *           "limit": 10,
                     *           "has_more": false,
                     *           "next_starting_after": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your sessions, newest first */
                            checkout_sessions: components["schemas"]["CheckoutSession"][];
                            /** @description Where this page ends: `has_more` and `next_starting_after` */
                            pagination: {
                                /** @description Items a page */
                                limit: number;
                                /** @description True when more items follow the last one of this page */
                                has_more: boolean;
                                /** @description Pass it as `starting_after` for the next page; null on the last page */
                                next_starting_after: string | null;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createCheckoutSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 hours answer the first result again */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "amount": 5000,
                 *       "currency": "RWF",
                 *       "description": "School fees, term 1",
                 *       "success_url": "https://school.example/paid",
                 *       "metadata": {
                 *         "student": "S-1042"
                 *       }
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Minor units of the currency
                     * @example 5000
                     */
                    amount: number;
                    /**
                     * @description ISO 4217 code
                     * @enum {string}
                     */
                    currency: "RWF" | "UGX" | "KES" | "GHS" | "USD" | "EUR" | "GBP" | "LRD" | "TZS" | "ZMW" | "XOF" | "XAF" | "GNF" | "SZL" | "MWK" | "CDF" | "MGA" | "SCR" | "NGN";
                    /** @description What the customer pays for, on the page */
                    description: string;
                    /** @description The methods the page offers (default: every method the currency allows; mobile money) */
                    payment_methods?: "mobile_money"[];
                    /** @description A number the page suggests */
                    customer_phone?: string;
                    /**
                     * Format: uri
                     * @description Where the page sends the customer after a success
                     * @example https://shop.example/thanks
                     */
                    success_url: string;
                    /**
                     * Format: uri
                     * @description Where the page sends a customer who gives up
                     * @example https://shop.example/thanks
                     */
                    cancel_url?: string;
                    /** @description Seconds until the session expires, 1,800 to 86,400 (default 86,400) */
                    expires_in?: number;
                    /**
                     * @description The page's language
                     * @enum {string}
                     */
                    locale?: "en" | "fr" | "sw" | "rw";
                    /** @description Your key-value pairs, at most 50, returned as sent */
                    metadata?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description The session, `open` */
            201: {
                headers: {
                    /** @description Present when this answer is the replay of an earlier request with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Checkout session created",
                     *       "data": {
                     *         "id": "cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                     *         "object": "checkout.session",
                     *         "url": "https://api.paycollect.example/pay/cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                     *         "status": "open",
                     *         "amount": 5000,
                     *         "currency": "RWF",
                     *         "description": "School fees, term 1",
                     *         "customer_phone": null,
                     *         "payment": null,
                     *         "payment_link": null,
                     *         "attempts_count": 0,
                     *         "locale": "en",
                     *         "expires_at": "2026-11-30T10:00:00.000Z",
                     *         "success_url": "https://school.example/paid",
                     *         "cancel_url": null,
                     *         "created_at": "2026-11-29T10:00:00.000Z",
                     *         "metadata": {
                     *           "student": "S-1042"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["CheckoutSession"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `idempotency_key_reused`: This `Idempotency-Key` was used within 24 hours with a different request.
             *     - `conflict`: A request with this `Idempotency-Key` is still in progress; retry in a moment.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveCheckoutSession: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Checkout session retrieved",
                     *       "data": {
                     *         "id": "cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                     *         "object": "checkout.session",
                     *         "url": "https://api.paycollect.example/pay/cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                     *         "status": "complete",
                     *         "amount": 5000,
                     *         "currency": "RWF",
                     *         "description": "School fees, term 1",
                     *         "customer_phone": null,
                     *         "payment": "pay_2Kl4Mn6Op8Qr0St2Uv4Wx6Yz",
                     *         "payment_link": null,
                     *         "attempts_count": 2,
                     *         "locale": "en",
                     *         "expires_at": "2026-11-30T10:00:00.000Z",
                     *         "success_url": "https://school.example/paid",
                     *         "cancel_url": null,
                     *         "created_at": "2026-11-29T10:00:00.000Z",
                     *         "metadata": {
                     *           "student": "S-1042"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["CheckoutSession"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    expireCheckoutSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The session, `expired` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Checkout session expired",
                     *       "data": {
                     *         "id": "cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                     *         "object": "checkout.session",
                     *         "url": "https://api.paycollect.example/pay/cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                     *         "status": "expired",
                     *         "amount": 5000,
                     *         "currency": "RWF",
                     *         "description": "School fees, term 1",
                     *         "customer_phone": null,
                     *         "payment": null,
                     *         "payment_link": null,
                     *         "attempts_count": 0,
                     *         "locale": "en",
                     *         "expires_at": "2026-11-30T10:00:00.000Z",
                     *         "success_url": "https://school.example/paid",
                     *         "cancel_url": null,
                     *         "created_at": "2026-11-29T10:00:00.000Z",
                     *         "metadata": {
                     *           "student": "S-1042"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["CheckoutSession"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `checkout_session_not_open`: The checkout session is `complete` or `expired` (docs/checkout.md#states): it takes no attempt and no expire.
             *     - `checkout_session_attempt_in_progress`: An attempt of the checkout session has no final outcome yet: no second attempt, no expire; nobody is prompted.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrievePublicCheckoutSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session's page form */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Checkout session retrieved",
                     *       "data": {
                     *         "id": "cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                     *         "object": "checkout.session.public",
                     *         "status": "open",
                     *         "amount": 5000,
                     *         "amount_range": null,
                     *         "collect": [],
                     *         "currency": "RWF",
                     *         "description": "School fees, term 1",
                     *         "merchant_name": "Kigali Crafts Ltd",
                     *         "payment_methods": [
                     *           "mobile_money"
                     *         ],
                     *         "attempt_in_progress": false,
                     *         "attempts_left": 10,
                     *         "expires_at": "2026-11-30T10:00:00.000Z",
                     *         "success_url": "https://school.example/paid",
                     *         "completion_message": null,
                     *         "cancel_url": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["CheckoutSessionPublic"];
                    };
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createCheckoutAttempt: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "payment_method": "mobile_money",
                 *       "phone_number": "0788 000 001"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description How the payer pays
                     * @enum {string}
                     */
                    payment_method: "mobile_money";
                    /**
                     * @description The payer's number as people write it (`0788 000 001`)
                     * @example 0788000001
                     */
                    phone_number: string;
                    /**
                     * @description The operator of a ported number
                     * @enum {string}
                     */
                    operator?: "momo" | "mobile_money_b" | "mpesa" | "orange" | "vodacom" | "wave";
                    /**
                     * @description The amount the payer chose, in minor units: required, within `amount_range`, on a payment link's session with a customer-chosen amount; refused elsewhere
                     * @example 2000
                     */
                    amount?: number;
                    /**
                     * @description The payer's name, where the session's `collect` asks for it
                     * @example Aline Uwase
                     */
                    name?: string;
                    /**
                     * Format: email
                     * @description The payer's email, where the session's `collect` asks for it
                     * @example aline@example.rw
                     */
                    email?: string;
                } | {
                    /**
                     * @description How the payer pays
                     * @enum {string}
                     */
                    payment_method: "card";
                    /**
                     * @description The amount the payer chose, in minor units: required, within `amount_range`, on a payment link's session with a customer-chosen amount; refused elsewhere
                     * @example 2000
                     */
                    amount?: number;
                    /**
                     * @description The payer's name, where the session's `collect` asks for it
                     * @example Aline Uwase
                     */
                    name?: string;
                    /**
                     * Format: email
                     * @description The payer's email, where the session's `collect` asks for it
                     * @example aline@example.rw
                     */
                    email?: string;
                };
            };
        };
        responses: {
            /** @description The attempt's payment */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Checkout attempt started",
                     *       "data": {
                     *         "payment": "pay_2Kl4Mn6Op8Qr0St2Uv4Wx6Yz",
                     *         "status": "pending",
                     *         "next_action": {
                     *           "type": "mobile_money_approval",
                     *           "message": "Approve the payment on your phone"
                     *         },
                     *         "operator": "momo"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["CheckoutAttempt"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `checkout_session_not_open`: The checkout session is `complete` or `expired` (docs/checkout.md#states): it takes no attempt and no expire.
             *     - `checkout_session_attempt_in_progress`: An attempt of the checkout session has no final outcome yet: no second attempt, no expire; nobody is prompted.
             *     - `checkout_session_attempts_exhausted`: The checkout session had its 10 attempts.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             *     - `provider_unavailable`: No provider serves the method in this environment yet; or the payer's operator is `down` for the session's merchant (docs/hosted-page.md#operator-status): then with `Retry-After: 60`. Nothing was sent, no payment was created, and the session counts no attempt.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    streamCheckoutSessionStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An open stream of states */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": "{\"status\":\"open\",\"attempt\":{\"status\":\"failed\",\"failure_code\":\"insufficient_funds\"}}"
                     *     }
                     */
                    "text/event-stream": {
                        /** @description The state as JSON: `{status, attempt: {status, failure_code} | null}` */
                        data: string;
                        /** @description Milliseconds before a reconnection */
                        retry?: number;
                    };
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listPaymentLinks: {
        parameters: {
            query?: {
                /** @description How many links to answer, 1 to 100 */
                limit?: number;
                /** @description A link id (`plink_…`): answer those created before it. Pass `pagination.next_starting_after`. */
                starting_after?: string;
                /** @description Only active (`true`) or inactive (`false`) links */
                active?: "true" | "false";
                /** @description With a session token: the environment (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of links */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payment links retrieved",
                     *       "data": {
                     *         "payment_links": [
                     *           {
                     *             "id": "plink_5Pq7Rs9Tu1Vw3Xy5Za7Bc9De",
                     *             "object": "payment_link",
                     *             "url": "https://api.paycollect.example/l/plink_5Pq7Rs9Tu1Vw3Xy5Za7Bc9De",
                     *             "active": true,
                     *             "amount": 15000,
                     *             "amount_range": null,
                     *             "currency": "RWF",
                     *             "description": "Kitenge dress, size M",
                     *             "payment_methods": [
                     *               "mobile_money"
                     *             ],
                     *             "completed_limit": 20,
                     *             "completed_count": 3,
                     *             "after_completion": {
                     *               "type": "message",
                     *               "message": "Murakoze! We deliver tomorrow."
                     *             },
                     *             "collect": [
                     *               "name"
                     *             ],
                     *             "created_at": "2026-11-29T10:00:00.000Z",
                     *             "updated_at": "2026-11-29T10:00:00.000Z"
                     *           }
                     *         ],
                     *         "pagination": {
                     *           "limit": 10,
                     *           "has_more": false,
                     *           "next_starting_after": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your links, newest first */
                            payment_links: components["schemas"]["PaymentLink"][];
                            /** @description Where this page ends: `has_more` and `next_starting_after` */
                            pagination: {
                                /** @description Items a page */
                                limit: number;
                                /** @description True when more items follow the last one of this page */
                                has_more: boolean;
                                /** @description Pass it as `starting_after` for the next page; null on the last page */
                                next_starting_after: string | null;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createPaymentLink: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 hours answer the first result again */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "amount": 15000,
                 *       "currency": "RWF",
                 *       "description": "Kitenge dress, size M",
                 *       "completed_limit": 20,
                 *       "after_completion": {
                 *         "type": "message",
                 *         "message": "Murakoze! We deliver tomorrow."
                 *       },
                 *       "collect": [
                 *         "name"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /**
                     * @description A fixed amount in minor units
                     * @example 15000
                     */
                    amount?: number;
                    /** @description The customer chooses the amount on the page, within these bounds (inclusive) */
                    amount_range?: {
                        /** @description Smallest amount the customer may pay, minor units */
                        min: number;
                        /** @description Largest amount the customer may pay, minor units */
                        max: number;
                    };
                    /**
                     * @description ISO 4217 code; one mobile money holds
                     * @enum {string}
                     */
                    currency: "RWF" | "UGX" | "KES" | "GHS" | "USD" | "EUR" | "GBP" | "LRD" | "TZS" | "ZMW" | "XOF" | "XAF" | "GNF" | "SZL" | "MWK" | "CDF" | "MGA" | "SCR" | "NGN";
                    /**
                     * @description What the customer pays for, on the page
                     * @example Kitenge dress, size M
                     */
                    description: string;
                    /** @description The methods the page offers (default: mobile money) */
                    payment_methods?: "mobile_money"[];
                    /** @description At most this many payments complete through the link; then it shows a closed page */
                    completed_limit?: number;
                    /** @description A message on the page, or a redirect, after a payment (default: the page’s own thanks) */
                    after_completion?: {
                        /**
                         * @description Show `message` on the page
                         * @enum {string}
                         */
                        type: "message";
                        /** @description What the page says after a payment */
                        message: string;
                    } | {
                        /**
                         * @description Send the payer to `url`
                         * @enum {string}
                         */
                        type: "redirect";
                        /**
                         * Format: uri
                         * @description Where the page sends the payer after a payment: https (sandbox also http://localhost)
                         * @example https://shop.example/thanks
                         */
                        url: string;
                    };
                    /** @description Fields each payer must give before paying: `name`, `email` */
                    collect?: ("name" | "email")[];
                    /** @description Whether the link opens sessions (default true) */
                    active?: boolean;
                };
            };
        };
        responses: {
            /** @description The link, active unless `active: false` was sent */
            201: {
                headers: {
                    /** @description Present when this answer is the replay of an earlier request with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payment link created",
                     *       "data": {
                     *         "id": "plink_5Pq7Rs9Tu1Vw3Xy5Za7Bc9De",
                     *         "object": "payment_link",
                     *         "url": "https://api.paycollect.example/l/plink_5Pq7Rs9Tu1Vw3Xy5Za7Bc9De",
                     *         "active": true,
                     *         "amount": 15000,
                     *         "amount_range": null,
                     *         "currency": "RWF",
                     *         "description": "Kitenge dress, size M",
                     *         "payment_methods": [
                     *           "mobile_money"
                     *         ],
                     *         "completed_limit": 20,
                     *         "completed_count": 0,
                     *         "after_completion": {
                     *           "type": "message",
                     *           "message": "Murakoze! We deliver tomorrow."
                     *         },
                     *         "collect": [
                     *           "name"
                     *         ],
                     *         "created_at": "2026-11-29T10:00:00.000Z",
                     *         "updated_at": "2026-11-29T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["PaymentLink"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `idempotency_key_reused`: This `Idempotency-Key` was used within 24 hours with a different request.
             *     - `conflict`: A request with this `Idempotency-Key` is still in progress; retry in a moment.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrievePaymentLink: {
        parameters: {
            query?: {
                /** @description With a session token: the environment (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The link */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payment link retrieved",
                     *       "data": {
                     *         "id": "plink_5Pq7Rs9Tu1Vw3Xy5Za7Bc9De",
                     *         "object": "payment_link",
                     *         "url": "https://api.paycollect.example/l/plink_5Pq7Rs9Tu1Vw3Xy5Za7Bc9De",
                     *         "active": true,
                     *         "amount": 15000,
                     *         "amount_range": null,
                     *         "currency": "RWF",
                     *         "description": "Kitenge dress, size M",
                     *         "payment_methods": [
                     *           "mobile_money"
                     *         ],
                     *         "completed_limit": 20,
                     *         "completed_count": 3,
                     *         "after_completion": {
                     *           "type": "message",
                     *           "message": "Murakoze! We deliver tomorrow."
                     *         },
                     *         "collect": [
                     *           "name"
                     *         ],
                     *         "created_at": "2026-11-29T10:00:00.000Z",
                     *         "updated_at": "2026-11-29T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["PaymentLink"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    updatePaymentLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "active": false
                 *     }
                 */
                "application/json": {
                    /** @description false closes the link: it shows a closed page */
                    active?: boolean;
                    /** @description At most this many payments complete through the link; then it shows a closed page */
                    completed_limit?: number | null;
                    /** @description A message on the page, or a redirect, after a payment (default: the page’s own thanks) */
                    after_completion?: {
                        /**
                         * @description Show `message` on the page
                         * @enum {string}
                         */
                        type: "message";
                        /** @description What the page says after a payment */
                        message: string;
                    } | {
                        /**
                         * @description Send the payer to `url`
                         * @enum {string}
                         */
                        type: "redirect";
                        /**
                         * Format: uri
                         * @description Where the page sends the payer after a payment: https (sandbox also http://localhost)
                         * @example https://shop.example/thanks
                         */
                        url: string;
                    } | null;
                    /**
                     * @description What the customer pays for, on the page
                     * @example Kitenge dress, size M
                     */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description The link after the change */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payment link updated",
                     *       "data": {
                     *         "id": "plink_5Pq7Rs9Tu1Vw3Xy5Za7Bc9De",
                     *         "object": "payment_link",
                     *         "url": "https://api.paycollect.example/l/plink_5Pq7Rs9Tu1Vw3Xy5Za7Bc9De",
                     *         "active": false,
                     *         "amount": 15000,
                     *         "amount_range": null,
                     *         "currency": "RWF",
                     *         "description": "Kitenge dress, size M",
                     *         "payment_methods": [
                     *           "mobile_money"
                     *         ],
                     *         "completed_limit": 20,
                     *         "completed_count": 3,
                     *         "after_completion": {
                     *           "type": "message",
                     *           "message": "Murakoze! We deliver tomorrow."
                     *         },
                     *         "collect": [
                     *           "name"
                     *         ],
                     *         "created_at": "2026-11-29T10:00:00.000Z",
                     *         "updated_at": "2026-11-29T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["PaymentLink"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrievePaymentLinkQrSvg: {
        parameters: {
            query?: {
                /** @description With a session token: the environment (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An SVG document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 41 41" shape-rendering="crispEdges">…</svg> */
                    "image/svg+xml": string;
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrievePaymentLinkQrPng: {
        parameters: {
            query?: {
                /** @description The side of the square PNG in pixels, 128 to 1,024 (default 512) */
                size?: number;
                /** @description With a session token: the environment (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A PNG image */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example (PNG bytes) */
                    "image/png": string;
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrievePaymentLinkPage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the new session's page; `Location` is `{PUBLIC_BASE_URL}/pay/{cs_id}` */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example Redirecting to https://api.paycollect.example/pay/cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc. */
                    "text/plain": string;
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveBranding: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Your branding */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Branding retrieved",
                     *       "data": {
                     *         "object": "branding",
                     *         "display_name": "Kigali Crafts",
                     *         "brand_color": "#0b6e4f",
                     *         "text_color": "#ffffff",
                     *         "logo": {
                     *           "content_type": "image/svg+xml",
                     *           "size": 1843,
                     *           "sha256": "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f",
                     *           "updated_at": "2026-11-29T10:00:00.000Z"
                     *         },
                     *         "updated_at": "2026-11-29T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Branding"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    updateBranding: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Kigali Crafts",
                 *       "brand_color": "#0b6e4f"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description The name the payment page shows, 1 to 60 characters; null: your business name
                     * @example Kigali Crafts
                     */
                    display_name?: string | null;
                    /**
                     * @description The brand colour, `#rrggbb`; null: the page keeps its own
                     * @example #0b6e4f
                     */
                    brand_color?: string | null;
                };
                /**
                 * @example {
                 *       "logo": "(file contents)",
                 *       "display_name": "Kigali Crafts"
                 *     }
                 */
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description PNG, JPEG or SVG, at most 512 kB; the type is read from the bytes, an SVG is sanitised
                     */
                    logo?: string;
                    /**
                     * @description The name the payment page shows, 1 to 60 characters; null: your business name
                     * @example Kigali Crafts
                     */
                    display_name?: string | null;
                    /**
                     * @description The brand colour, `#rrggbb`; null: the page keeps its own
                     * @example #0b6e4f
                     */
                    brand_color?: string | null;
                };
            };
        };
        responses: {
            /** @description Your branding after the change */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Branding updated",
                     *       "data": {
                     *         "object": "branding",
                     *         "display_name": "Kigali Crafts",
                     *         "brand_color": "#0b6e4f",
                     *         "text_color": "#ffffff",
                     *         "logo": {
                     *           "content_type": "image/svg+xml",
                     *           "size": 1843,
                     *           "sha256": "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f",
                     *           "updated_at": "2026-11-29T10:00:00.000Z"
                     *         },
                     *         "updated_at": "2026-11-29T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Branding"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `unsupported_file_type`: The file is not a PDF, JPEG or PNG (read from its bytes, not its name).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             *     - `file_too_large`: The file is larger than 10 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveBrandingLogo: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The logo */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg> */
                    "image/*": string;
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: You have no logo.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    deleteBrandingLogo: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Your branding without a logo */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Logo removed",
                     *       "data": {
                     *         "object": "branding",
                     *         "display_name": "Kigali Crafts",
                     *         "brand_color": "#0b6e4f",
                     *         "text_color": "#ffffff",
                     *         "logo": null,
                     *         "updated_at": "2026-11-29T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Branding"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: You have no logo.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveCheckoutSessionLogo: {
        parameters: {
            query?: never;
            header?: {
                /** @description The `ETag` of a copy you hold: 304 while it is current */
                "If-None-Match"?: string;
            };
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The logo */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg> */
                    "image/*": string;
                };
            };
            /** @description Your copy is current (no body) */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg> */
                    "image/*": string;
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description The page, from 1 */
                page?: number;
                /** @description Items a page, 1 to 100 */
                limit?: number;
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
                /** @description Only events of this name */
                type?: "payment.created" | "payment.completed" | "payment.failed" | "payment.cancelled" | "refund.completed" | "refund.failed" | "webhook.created" | "payout.created" | "payout.paid" | "payout.failed" | "payout.returned" | "checkout.session.completed" | "checkout.session.expired" | "provider.status_changed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of events, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Events retrieved",
                     *       "data": {
                     *         "events": [
                     *           {
                     *             "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                     *             "object": "event",
                     *             "event": "payment.completed",
                     *             "created_at": "2026-11-24T10:00:04.000Z",
                     *             "data": {
                     *               "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *               "object": "payment",
                     *               "amount": 1500,
                     *               "amount_refunded": 0,
                     *               "amount_refund_pending": 0,
                     *               "currency": "RWF",
                     *               "status": "completed",
                     *               "payment_method": "mobile_money",
                     *               "provider": "momo",
                     *               "provider_receipt_number": "5729364812",
                     *               "description": "Order #1042",
                     *               "phone_number": "+250788123456",
                     *               "metadata": {
                     *                 "order_id": "1042"
                     *               },
                     *               "failure_code": null,
                     *               "failure_message": null,
                     *               "cancellation_reason": null,
                     *               "checkout_session": null,
                     *               "next_action": null,
                     *               "environment": "sandbox",
                     *               "expires_at": "2026-11-24T10:10:00.000Z",
                     *               "pending_reason": null,
                     *               "decision_expected_by": null,
                     *               "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                     *               "reconciled_at": null,
                     *               "refundable": {
                     *                 "allowed": true,
                     *                 "partial": true,
                     *                 "reason": null
                     *               },
                     *               "cancellable": {
                     *                 "allowed": false,
                     *                 "reason": "a completed payment cannot be cancelled; only pending and processing payments can"
                     *               },
                     *               "created_at": "2026-11-24T10:00:00.000Z",
                     *               "updated_at": "2026-11-24T10:00:04.000Z"
                     *             }
                     *           }
                     *         ],
                     *         "pagination": {
                     *           "page": 1,
                     *           "limit": 10,
                     *           "total": 1,
                     *           "total_pages": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description This page of events, newest first */
                            events: components["schemas"]["Event"][];
                            /** @description Where this page stands in the list */
                            pagination: {
                                /** @description This page, from 1 */
                                page: number;
                                /** @description Items a page */
                                limit: number;
                                /** @description Items the filters select, on every page */
                                total: number;
                                /** @description Pages of `limit` items */
                                total_pages: number;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveEvent: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Event retrieved",
                     *       "data": {
                     *         "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                     *         "object": "event",
                     *         "event": "payment.completed",
                     *         "created_at": "2026-11-24T10:00:04.000Z",
                     *         "data": {
                     *           "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *           "object": "payment",
                     *           "amount": 1500,
                     *           "amount_refunded": 0,
                     *           "amount_refund_pending": 0,
                     *           "currency": "RWF",
                     *           "status": "completed",
                     *           "payment_method": "mobile_money",
                     *           "provider": "momo",
                     *           "provider_receipt_number": "5729364812",
                     *           "description": "Order #1042",
                     *           "phone_number": "+250788123456",
                     *           "metadata": {
                     *             "order_id": "1042"
                     *           },
                     *           "failure_code": null,
                     *           "failure_message": null,
                     *           "cancellation_reason": null,
                     *           "checkout_session": null,
                     *           "next_action": null,
                     *           "environment": "sandbox",
                     *           "expires_at": "2026-11-24T10:10:00.000Z",
                     *           "pending_reason": null,
                     *           "decision_expected_by": null,
                     *           "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                     *           "reconciled_at": null,
                     *           "refundable": {
                     *             "allowed": true,
                     *             "partial": true,
                     *             "reason": null
                     *           },
                     *           "cancellable": {
                     *             "allowed": false,
                     *             "reason": "a completed payment cannot be cancelled; only pending and processing payments can"
                     *           },
                     *           "created_at": "2026-11-24T10:00:00.000Z",
                     *           "updated_at": "2026-11-24T10:00:04.000Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Event"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                /** @description With a session token: must be `sandbox` (the default); the stream is sandbox only */
                environment?: "sandbox" | "live";
            };
            header?: {
                /** @description Resume right after this event (evt_…), or `0` from the first event; without it the stream starts after the last event written so far and announces that position as its first `id:` */
                "Last-Event-ID"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An open stream of events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                     *       "event": "payment.completed",
                     *       "data": "{\"id\":\"evt_4Zq8rT2mWc9LbX1yHn7KpD3s\",\"event\":\"payment.completed\",\"created_at\":\"2026-11-24T10:00:00.000Z\",\"data\":{\"id\":\"pay_7Hc2WqN5xR8tLm3Kd9PzYb4V\",\"status\":\"completed\"}}"
                     *     }
                     */
                    "text/event-stream": {
                        /** @description The event id (evt_…) */
                        id?: string;
                        /** @description The event name */
                        event: string;
                        /** @description The webhook delivery payload, as JSON */
                        data: string;
                        /** @description Milliseconds before a reconnection */
                        retry?: number;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: An unknown query field, or a `Last-Event-ID` that names no event of your account.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: A live secret key or a live session: the stream serves sandbox events only.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests, or your account has its most streams open already; retry after `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveProfile: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The profile */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Profile retrieved",
                     *       "data": {
                     *         "id": "dev_8Jk2LmN4pQ6rS8tU0vW2xY4z",
                     *         "merchant_id": "mer_3Fh8KdP2xQ7mWz9LcR4tVb6N",
                     *         "email": "amina@example.com",
                     *         "name": "Amina Uwase",
                     *         "business_name": "Kigali Books",
                     *         "plan": "sandbox",
                     *         "has_live_access": false,
                     *         "created_at": "2026-11-20T08:00:00.000Z",
                     *         "country": "RW",
                     *         "phone": "+250788123456",
                     *         "time_zone": "Africa/Kigali",
                     *         "refuse_when_provider_down": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your developer id, `dev_…` */
                            id: string;
                            /** @description Your merchant id, `mer_…`: the owner of your payments */
                            merchant_id: string;
                            /** @description Your e-mail, your sign-in name */
                            email: string;
                            /** @description Your name */
                            name: string;
                            /** @description Your business; null when not given */
                            business_name: string | null;
                            /** @description Your plan (`sandbox` until live access, then the approved plan) */
                            plan: string;
                            /** @description Whether live access was granted */
                            has_live_access: boolean;
                            /**
                             * Format: date-time
                             * @description When you registered (ISO 8601, UTC)
                             */
                            created_at: string;
                            /** @description Your country, ISO 3166-1 alpha-2; null when not given */
                            country: string | null;
                            /** @description Your phone number; null when not given */
                            phone: string | null;
                            /** @description The IANA time zone the dashboard shows times in (`Africa/Kigali`); null: the browser's own */
                            time_zone: string | null;
                            /** @description Whether API creates to an operator that is `down` are refused with 503 `provider_unavailable` (docs/availability.md#api-create); false by default */
                            refuse_when_provider_down: boolean;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    updateProfile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "business_name": "Kigali Books Ltd",
                 *       "phone": "+250788123456"
                 *     }
                 */
                "application/json": {
                    /** @description Your name */
                    name?: string;
                    /** @description Your business; null clears it */
                    business_name?: string | null;
                    /** @description ISO 3166-1 alpha-2 code (`RW`); null clears it */
                    country?: string | null;
                    /** @description Your phone in E.164 form; null clears it */
                    phone?: string | null;
                    /** @description IANA time zone the dashboard shows times in (`Africa/Kigali`); null: the browser's */
                    time_zone?: string | null;
                    /** @description True: `POST /v1/payments` to an operator that is `down` answers 503 `provider_unavailable` with `Retry-After` and creates nothing; false (the default): it is accepted and waits (docs/availability.md#api-create) */
                    refuse_when_provider_down?: boolean;
                };
            };
        };
        responses: {
            /** @description The profile */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Profile updated",
                     *       "data": {
                     *         "id": "dev_8Jk2LmN4pQ6rS8tU0vW2xY4z",
                     *         "merchant_id": "mer_3Fh8KdP2xQ7mWz9LcR4tVb6N",
                     *         "email": "amina@example.com",
                     *         "name": "Amina Uwase",
                     *         "business_name": "Kigali Books Ltd",
                     *         "plan": "sandbox",
                     *         "has_live_access": false,
                     *         "created_at": "2026-11-20T08:00:00.000Z",
                     *         "country": "RW",
                     *         "phone": "+250788123456",
                     *         "time_zone": "Africa/Kigali",
                     *         "refuse_when_provider_down": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your developer id, `dev_…` */
                            id: string;
                            /** @description Your merchant id, `mer_…`: the owner of your payments */
                            merchant_id: string;
                            /** @description Your e-mail, your sign-in name */
                            email: string;
                            /** @description Your name */
                            name: string;
                            /** @description Your business; null when not given */
                            business_name: string | null;
                            /** @description Your plan (`sandbox` until live access, then the approved plan) */
                            plan: string;
                            /** @description Whether live access was granted */
                            has_live_access: boolean;
                            /**
                             * Format: date-time
                             * @description When you registered (ISO 8601, UTC)
                             */
                            created_at: string;
                            /** @description Your country, ISO 3166-1 alpha-2; null when not given */
                            country: string | null;
                            /** @description Your phone number; null when not given */
                            phone: string | null;
                            /** @description The IANA time zone the dashboard shows times in (`Africa/Kigali`); null: the browser's own */
                            time_zone: string | null;
                            /** @description Whether API creates to an operator that is `down` are refused with 503 `provider_unavailable` (docs/availability.md#api-create); false by default */
                            refuse_when_provider_down: boolean;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listTransactions: {
        parameters: {
            query?: {
                /** @description The page, from 1 */
                page?: number;
                /** @description Items a page, 1 to 100 */
                limit?: number;
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
                /** @description A payment or refund id (`pay_…`, `ref_…`): answer the transactions that come after it in the list, i.e. created before it. Pass `pagination.next_starting_after` of the previous page; `page` is then ignored. */
                starting_after?: string;
                /** @description The first page's `pagination.as_of`: later numbered pages leave out what was created since */
                as_of?: string;
                /** @description One or more statuses, comma-separated (`completed,refunded`) */
                status?: string;
                /** @description Only this `payment_method` */
                method?: "mobile_money" | "bank_transfer" | "card" | "card_gateway" | "momo" | "mobile_money_b" | "mpesa" | "orange" | "vodacom" | "wave" | "mobile_money_c" | "wallet";
                /** @description Only this currency (ISO 4217) */
                currency?: string;
                /** @description Part of an id (payment or refund), the description or the customer, any case */
                q?: string;
                /** @description Only the attempts (payments) of this checkout session (`cs_…`) and their refunds */
                checkout_session?: string;
                /** @description A UTC day `YYYY-MM-DD` or a range `YYYY-MM-DD..YYYY-MM-DD`, both ends included */
                date?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of transactions, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Transactions retrieved",
                     *       "data": {
                     *         "transactions": [
                     *           {
                     *             "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "type": "payment",
                     *             "payment_id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "amount": 1500,
                     *             "currency": "RWF",
                     *             "fee": 23,
                     *             "net": 1477,
                     *             "status": "completed",
                     *             "pending_reason": null,
                     *             "decision_expected_by": null,
                     *             "payment_method": "mobile_money",
                     *             "customer": "+250788123456",
                     *             "description": "Order #1042",
                     *             "created_at": "2026-11-24T10:00:00.000Z",
                     *             "updated_at": "2026-11-24T10:00:04.000Z"
                     *           }
                     *         ],
                     *         "pagination": {
                     *           "page": 1,
                     *           "limit": 10,
                     *           "total": 1,
                     *           "total_pages": 1,
                     *           "as_of": "2026-11-24T12:00:00.000Z",
                     *           "has_more": false,
                     *           "next_starting_after": null
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description This page of payments and refunds, newest first */
                            transactions: {
                                /** @description The payment (`pay_…`) or refund (`ref_…`) id */
                                id: string;
                                /**
                                 * @description `payment` or `refund`
                                 * @enum {string}
                                 */
                                type: "payment" | "refund";
                                /** @description The payment (a refund's own payment) */
                                payment_id: string;
                                /** @description The amount in minor units */
                                amount: number;
                                /** @description ISO 4217 code */
                                currency: string;
                                /** @description The fee in minor units, once money moved; else 0 */
                                fee: number;
                                /** @description What you keep in minor units: amount − fee for a collected payment, −amount for a completed refund; else 0 */
                                net: number;
                                /** @description The payment's or the refund's status */
                                status: string;
                                pending_reason: components["schemas"]["PendingReason"] & unknown;
                                /**
                                 * Format: date-time
                                 * @description The latest time an open payment will be final (ISO 8601, UTC); null for a final payment and a refund
                                 */
                                decision_expected_by: string | null;
                                /** @description The payment's method */
                                payment_method: string;
                                /** @description The customer's phone, wallet or e-mail; null when none */
                                customer: string | null;
                                /** @description The payment's description; null when none */
                                description: string | null;
                                /**
                                 * Format: date-time
                                 * @description When it was created (ISO 8601, UTC)
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When it last changed (ISO 8601, UTC)
                                 */
                                updated_at: string;
                            }[];
                            /** @description Where this page stands in the list */
                            pagination: {
                                /** @description This page, from 1 */
                                page: number;
                                /** @description Items a page */
                                limit: number;
                                /** @description Items the filters select, on every page */
                                total: number;
                                /** @description Pages of `limit` items */
                                total_pages: number;
                                /**
                                 * Format: date-time
                                 * @description The instant the page was read as of; pass it with later page numbers
                                 */
                                as_of: string;
                                /** @description True when more items follow the last one of this page */
                                has_more: boolean;
                                /** @description Pass it as `starting_after` for the next page; null on the last page */
                                next_starting_after: string | null;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveTransaction: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Transaction retrieved",
                     *       "data": {
                     *         "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "type": "payment",
                     *         "payment_id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "amount": 1500,
                     *         "currency": "RWF",
                     *         "fee": 23,
                     *         "net": 1477,
                     *         "status": "completed",
                     *         "pending_reason": null,
                     *         "decision_expected_by": null,
                     *         "payment_method": "mobile_money",
                     *         "customer": "+250788123456",
                     *         "description": "Order #1042",
                     *         "created_at": "2026-11-24T10:00:00.000Z",
                     *         "updated_at": "2026-11-24T10:00:04.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The payment (`pay_…`) or refund (`ref_…`) id */
                            id: string;
                            /**
                             * @description `payment` or `refund`
                             * @enum {string}
                             */
                            type: "payment" | "refund";
                            /** @description The payment (a refund's own payment) */
                            payment_id: string;
                            /** @description The amount in minor units */
                            amount: number;
                            /** @description ISO 4217 code */
                            currency: string;
                            /** @description The fee in minor units, once money moved; else 0 */
                            fee: number;
                            /** @description What you keep in minor units: amount − fee for a collected payment, −amount for a completed refund; else 0 */
                            net: number;
                            /** @description The payment's or the refund's status */
                            status: string;
                            pending_reason: components["schemas"]["PendingReason"] & unknown;
                            /**
                             * Format: date-time
                             * @description The latest time an open payment will be final (ISO 8601, UTC); null for a final payment and a refund
                             */
                            decision_expected_by: string | null;
                            /** @description The payment's method */
                            payment_method: string;
                            /** @description The customer's phone, wallet or e-mail; null when none */
                            customer: string | null;
                            /** @description The payment's description; null when none */
                            description: string | null;
                            /**
                             * Format: date-time
                             * @description When it was created (ISO 8601, UTC)
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description When it last changed (ISO 8601, UTC)
                             */
                            updated_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveAnalytics: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
                /** @description One currency (ISO 4217, upper case): its payments alone, so counts and the success rate are of that currency. Default: all, volumes per currency */
                currency?: "RWF" | "UGX" | "KES" | "GHS" | "USD" | "EUR" | "GBP" | "LRD" | "TZS" | "ZMW" | "XOF" | "XAF" | "GNF" | "SZL" | "MWK" | "CDF" | "MGA" | "SCR" | "NGN";
                /** @description First UTC day `YYYY-MM-DD` (default 30 days before `to`) */
                from?: string;
                /** @description Last UTC day `YYYY-MM-DD`, included (default today) */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Volumes, counts, success rate, daily series */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Analytics retrieved",
                     *       "data": {
                     *         "from": "2026-10-26T00:00:00.000Z",
                     *         "to": "2026-11-25T00:00:00.000Z",
                     *         "volume_by_currency": [
                     *           {
                     *             "currency": "RWF",
                     *             "completed_volume": 1500,
                     *             "refunded_volume": 500,
                     *             "fees": 23,
                     *             "net": 977
                     *           }
                     *         ],
                     *         "count_by_status": {
                     *           "completed": 1
                     *         },
                     *         "count_by_method": {
                     *           "mobile_money": 1
                     *         },
                     *         "success_rate": 1,
                     *         "daily": [
                     *           {
                     *             "date": "2026-11-24",
                     *             "currency": "RWF",
                     *             "payments": 1,
                     *             "completed": 1,
                     *             "completed_volume": 1500,
                     *             "fees": 23
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /**
                             * Format: date-time
                             * @description The first instant counted (ISO 8601, UTC)
                             */
                            from: string;
                            /**
                             * Format: date-time
                             * @description The instant counting ended (ISO 8601, UTC)
                             */
                            to: string;
                            /** @description Money in the range, one entry per currency */
                            volume_by_currency: {
                                /** @description ISO 4217 code */
                                currency: string;
                                /** @description Completed payments' amounts, minor units */
                                completed_volume: number;
                                /** @description Completed refunds' amounts, minor units */
                                refunded_volume: number;
                                /** @description Fees, minor units */
                                fees: number;
                                /** @description Completed volume − refunded − fees, minor units */
                                net: number;
                            }[];
                            /** @description Payments by status */
                            count_by_status: {
                                [key: string]: number;
                            };
                            /** @description Payments by method */
                            count_by_method: {
                                [key: string]: number;
                            };
                            /** @description Completed ÷ all payments settled in the range, 0 to 1; null when none */
                            success_rate: number | null;
                            /** @description One entry per UTC day and currency, oldest first */
                            daily: {
                                /** @description The UTC day `YYYY-MM-DD` */
                                date: string;
                                /** @description ISO 4217 code */
                                currency: string;
                                /** @description Payments created that day */
                                payments: number;
                                /** @description Of them, completed */
                                completed: number;
                                /** @description Their completed amounts, minor units */
                                completed_volume: number;
                                /** @description Fees of those completed payments, minor units */
                                fees: number;
                            }[];
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listActivity: {
        parameters: {
            query?: {
                /** @description The page, from 1 */
                page?: number;
                /** @description Items a page, 1 to 100 */
                limit?: number;
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
                /** @description Only entries of this action, e.g. `team.role_changed` or `password.changed` */
                action?: string;
                /** @description Only entries by this actor: a person `dev_…` or a key `key_…` */
                actor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of entries, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Activity retrieved",
                     *       "data": {
                     *         "activity": [
                     *           {
                     *             "id": "act_0Mn2Op4Qr6St8Uv0Wx2Yz4Ab",
                     *             "actor": {
                     *               "type": "api_key",
                     *               "id": "key_7Cd9Ef1Gh3Ij5Kl7Mn9Op1Qr"
                     *             },
                     *             "action": "payment.created",
                     *             "target": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "ip": "203.0.113.7",
                     *             "request_id": "3f0c2a9e-8d5b-4c1e-9a7f-2b6d4e8c1a05",
                     *             "user_agent": "paycollect-node/0.1.0",
                     *             "created_at": "2026-11-24T10:00:00.000Z"
                     *           }
                     *         ],
                     *         "pagination": {
                     *           "page": 1,
                     *           "limit": 10,
                     *           "total": 1,
                     *           "total_pages": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description This page of entries, newest first */
                            activity: {
                                /** @description Entry id, `act_…` */
                                id: string;
                                /** @description Who did it: a developer, an API key, a reviewer, an operator or the system, with its id */
                                actor: {
                                    /**
                                     * @description What kind of actor: a person signed in, an API key, our reviewer, operator or system
                                     * @enum {string}
                                     */
                                    type: "developer" | "api_key" | "reviewer" | "operator" | "system";
                                    /** @description The actor's id: `dev_…` for a person, `key_…` for a key, a name for reviewers and the system */
                                    id: string;
                                };
                                /** @description What was done (`payment.created`, `key.rolled`, …) */
                                action: string;
                                /** @description The id of what it was done to */
                                target: string;
                                /** @description The address it came from; null when not over HTTP */
                                ip: string | null;
                                /** @description The request that made it (`X-Request-Id`); null when none */
                                request_id: string | null;
                                /** @description The caller's User-Agent; null when none */
                                user_agent: string | null;
                                /**
                                 * Format: date-time
                                 * @description When (ISO 8601, UTC)
                                 */
                                created_at: string;
                            }[];
                            /** @description Where this page stands in the list */
                            pagination: {
                                /** @description This page, from 1 */
                                page: number;
                                /** @description Items a page */
                                limit: number;
                                /** @description Items the filters select, on every page */
                                total: number;
                                /** @description Pages of `limit` items */
                                total_pages: number;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrievePaymentTimeline: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payment detail */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payment retrieved",
                     *       "data": {
                     *         "payment": {
                     *           "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *           "object": "payment",
                     *           "amount": 1500,
                     *           "amount_refunded": 500,
                     *           "amount_refund_pending": 0,
                     *           "currency": "RWF",
                     *           "status": "completed",
                     *           "payment_method": "mobile_money",
                     *           "provider": "momo",
                     *           "provider_receipt_number": "5729364812",
                     *           "description": "Order #1042",
                     *           "phone_number": "+250788123456",
                     *           "metadata": {
                     *             "order_id": "1042"
                     *           },
                     *           "failure_code": null,
                     *           "failure_message": null,
                     *           "cancellation_reason": null,
                     *           "checkout_session": null,
                     *           "next_action": null,
                     *           "environment": "sandbox",
                     *           "expires_at": "2026-11-24T10:10:00.000Z",
                     *           "pending_reason": null,
                     *           "decision_expected_by": null,
                     *           "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                     *           "reconciled_at": null,
                     *           "refundable": {
                     *             "allowed": true,
                     *             "partial": true,
                     *             "reason": null
                     *           },
                     *           "cancellable": {
                     *             "allowed": false,
                     *             "reason": "a completed payment cannot be cancelled; only pending and processing payments can"
                     *           },
                     *           "created_at": "2026-11-24T10:00:00.000Z",
                     *           "updated_at": "2026-11-24T11:00:01.000Z"
                     *         },
                     *         "fee": 23,
                     *         "net": 977,
                     *         "provider_reference": "1f0c7a52-3b9e-4d8a-9a43-5c2e8b7d6f10",
                     *         "refunds": [
                     *           {
                     *             "id": "ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b",
                     *             "object": "refund",
                     *             "payment_id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *             "amount": 500,
                     *             "currency": "RWF",
                     *             "status": "completed",
                     *             "reason": "one item out of stock",
                     *             "failure_message": null,
                     *             "created_at": "2026-11-24T11:00:00.000Z",
                     *             "completed_at": "2026-11-24T11:00:01.000Z",
                     *             "balance_transaction": "txn_9Lm1No3Pq5Rs7Tu9Vw1Xy3Za"
                     *           }
                     *         ],
                     *         "status_changes": [
                     *           {
                     *             "at": "2026-11-24T10:00:00.000Z",
                     *             "from": null,
                     *             "to": "pending",
                     *             "source": "create",
                     *             "failure_code": null,
                     *             "failure_message": null
                     *           },
                     *           {
                     *             "at": "2026-11-24T10:00:04.000Z",
                     *             "from": "pending",
                     *             "to": "completed",
                     *             "source": "provider_callback",
                     *             "failure_code": null,
                     *             "failure_message": null
                     *           }
                     *         ],
                     *         "refund_changes": [
                     *           {
                     *             "at": "2026-11-24T11:00:00.000Z",
                     *             "refund_id": "ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b",
                     *             "amount": 500,
                     *             "status": "pending",
                     *             "reason": "one item out of stock",
                     *             "failure_message": null
                     *           },
                     *           {
                     *             "at": "2026-11-24T11:00:01.000Z",
                     *             "refund_id": "ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b",
                     *             "amount": 500,
                     *             "status": "completed",
                     *             "reason": null,
                     *             "failure_message": null
                     *           }
                     *         ],
                     *         "postings": [
                     *           {
                     *             "journal_id": "jrn_4Ab6Cd8Ef0Gh2Ij4Kl6Mn8Op",
                     *             "cause": "payment:pay_7Hc2WqN5xR8tLm3Kd9PzYb4V:completed",
                     *             "account": "provider_clearing:momo",
                     *             "amount": 1500,
                     *             "currency": "RWF",
                     *             "created_at": "2026-11-24T10:00:04.000Z"
                     *           },
                     *           {
                     *             "journal_id": "jrn_4Ab6Cd8Ef0Gh2Ij4Kl6Mn8Op",
                     *             "cause": "payment:pay_7Hc2WqN5xR8tLm3Kd9PzYb4V:completed",
                     *             "account": "merchant_balance:mer_3Fh8KdP2xQ7mWz9LcR4tVb6N",
                     *             "amount": -1477,
                     *             "currency": "RWF",
                     *             "created_at": "2026-11-24T10:00:04.000Z"
                     *           },
                     *           {
                     *             "journal_id": "jrn_4Ab6Cd8Ef0Gh2Ij4Kl6Mn8Op",
                     *             "cause": "payment:pay_7Hc2WqN5xR8tLm3Kd9PzYb4V:completed",
                     *             "account": "platform_fees",
                     *             "amount": -23,
                     *             "currency": "RWF",
                     *             "created_at": "2026-11-24T10:00:04.000Z"
                     *           }
                     *         ],
                     *         "history_available": true,
                     *         "events": [
                     *           {
                     *             "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                     *             "event": "payment.completed",
                     *             "created_at": "2026-11-24T10:00:04.000Z",
                     *             "data": {
                     *               "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *               "object": "payment",
                     *               "amount": 1500,
                     *               "amount_refunded": 0,
                     *               "amount_refund_pending": 0,
                     *               "currency": "RWF",
                     *               "status": "completed",
                     *               "payment_method": "mobile_money",
                     *               "provider": "momo",
                     *               "provider_receipt_number": "5729364812",
                     *               "description": "Order #1042",
                     *               "phone_number": "+250788123456",
                     *               "metadata": {
                     *                 "order_id": "1042"
                     *               },
                     *               "failure_code": null,
                     *               "failure_message": null,
                     *               "cancellation_reason": null,
                     *               "checkout_session": null,
                     *               "next_action": null,
                     *               "environment": "sandbox",
                     *               "expires_at": "2026-11-24T10:10:00.000Z",
                     *               "pending_reason": null,
                     *               "decision_expected_by": null,
                     *               "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                     *               "reconciled_at": null,
                     *               "refundable": {
                     *                 "allowed": true,
                     *                 "partial": true,
                     *                 "reason": null
                     *               },
                     *               "cancellable": {
                     *                 "allowed": false,
                     *                 "reason": "a completed payment cannot be cancelled; only pending and processing payments can"
                     *               },
                     *               "created_at": "2026-11-24T10:00:00.000Z",
                     *               "updated_at": "2026-11-24T10:00:04.000Z"
                     *             },
                     *             "deliveries": [
                     *               {
                     *                 "id": "dlv_9Qr1St3Uv5Wx7Yz9Ab1Cd3Ef",
                     *                 "object": "webhook_delivery",
                     *                 "webhook_id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op",
                     *                 "event_id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                     *                 "event": "payment.completed",
                     *                 "status": "succeeded",
                     *                 "attempt_count": 1,
                     *                 "next_attempt_at": null,
                     *                 "retry_of": null,
                     *                 "created_at": "2026-11-24T10:00:04.000Z",
                     *                 "updated_at": "2026-11-24T10:00:04.000Z",
                     *                 "attempts": [
                     *                   {
                     *                     "attempt": 1,
                     *                     "attempted_at": "2026-11-24T10:00:04.000Z",
                     *                     "status_code": 200,
                     *                     "response_body": "ok",
                     *                     "duration_ms": 87,
                     *                     "error": null
                     *                   }
                     *                 ]
                     *               }
                     *             ]
                     *           }
                     *         ],
                     *         "next_provider_check": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            payment: components["schemas"]["Payment"] & unknown;
                            /** @description The fee in minor units, once money moved; else 0 */
                            fee: number;
                            /** @description Amount − fee − refunded, in minor units */
                            net: number;
                            /** @description The provider's own id of the payment request (MTN MoMo's X-Reference-Id, Airtel's transaction id, the card gateway's PaymentIntent); null until it gave one, and for M-Pesa, whose push names the payment by this service's id (docs/providers.md#m-pesa): its customer-facing id is `payment.provider_receipt_number` */
                            provider_reference: string | null;
                            /** @description The refunds, oldest first */
                            refunds: components["schemas"]["Refund"][];
                            /** @description Every status change, oldest first */
                            status_changes: {
                                /**
                                 * Format: date-time
                                 * @description When (ISO 8601, UTC)
                                 */
                                at: string;
                                /**
                                 * @description The status before; null at creation
                                 * @enum {string|null}
                                 */
                                from: "pending" | "processing" | "completed" | "failed" | "cancelled" | "refunded" | null;
                                /**
                                 * @description The status after
                                 * @enum {string}
                                 */
                                to: "pending" | "processing" | "completed" | "failed" | "cancelled" | "refunded";
                                /**
                                 * @description What caused it: the answer at creation, a provider callback, a poll, the expiry, you, or a reconciliation
                                 * @enum {string}
                                 */
                                source: "create" | "provider_callback" | "poll" | "expiry" | "merchant" | "reconciliation";
                                /** @description Why it failed; null unless it did */
                                failure_code: string | null;
                                /** @description The explanation of the failure; null unless it failed */
                                failure_message: string | null;
                            }[];
                            /** @description Each refund's course: requested, then completed or failed */
                            refund_changes: {
                                /**
                                 * Format: date-time
                                 * @description When (ISO 8601, UTC)
                                 */
                                at: string;
                                /** @description The refund, `ref_…` */
                                refund_id: string;
                                /** @description Minor units */
                                amount: number;
                                /**
                                 * @description `pending` when requested, then `completed` or `failed` when it settled
                                 * @enum {string}
                                 */
                                status: "pending" | "completed" | "failed";
                                /** @description The reason you gave; null when none */
                                reason: string | null;
                                /** @description Why the provider refused it; null unless failed */
                                failure_message: string | null;
                            }[];
                            /** @description Whether the workflow's history is still kept (the sources of status changes come from it) */
                            history_available: boolean;
                            /** @description The events sent about the payment, oldest first */
                            events: {
                                /** @description Event id, `evt_` and 24 characters; the `webhook-id` of its deliveries */
                                id: string;
                                /** @description The event's name (`payment.completed`) */
                                event: string;
                                /**
                                 * Format: date-time
                                 * @description When it happened (ISO 8601, UTC)
                                 */
                                created_at: string;
                                /** @description The event's payload, as the webhook delivered it */
                                data?: unknown;
                                /** @description The event's deliveries to your webhook endpoints, with their attempts */
                                deliveries: components["schemas"]["WebhookDelivery"][];
                            }[];
                            /** @description When the service next asks the provider, and why; null when nothing is awaited */
                            next_provider_check: {
                                /**
                                 * Format: date-time
                                 * @description When the service asks the provider next (ISO 8601, UTC)
                                 */
                                at: string;
                                /**
                                 * @description `poll`: the payment is still awaited; `expiry`: the last check at its expiry; `refund_check`: a refund is awaited
                                 * @enum {string}
                                 */
                                reason: "poll" | "expiry" | "refund_check";
                            } | null;
                            /** @description The ledger postings of the payment and its refunds (docs/ledger.md#postings), oldest first */
                            postings: {
                                /** @description The journal (`jrn_…`) the posting belongs to */
                                journal_id: string;
                                /** @description What posted it: `payment:{id}:completed`, `refund:{id}:reserved` … */
                                cause: string;
                                /** @description The ledger account: its kind, and its owner after a colon */
                                account: string;
                                /** @description Minor units, debit positive, credit negative */
                                amount: number;
                                /** @description ISO 4217 code */
                                currency: string;
                                /**
                                 * Format: date-time
                                 * @description When it was posted (ISO 8601, UTC)
                                 */
                                created_at: string;
                            }[];
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    cancelPaymentFromDashboard: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 hours answer the first result again */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "reason": "customer changed their mind"
                 *     }
                 */
                "application/json": {
                    /** @description Why you cancel; shown as `cancellation_reason` */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description The cancelled payment */
            200: {
                headers: {
                    /** @description Present when this answer is the replay of an earlier request with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Payment cancelled",
                     *       "data": {
                     *         "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "object": "payment",
                     *         "amount": 1500,
                     *         "amount_refunded": 0,
                     *         "amount_refund_pending": 0,
                     *         "currency": "RWF",
                     *         "status": "cancelled",
                     *         "payment_method": "mobile_money",
                     *         "provider": "momo",
                     *         "provider_receipt_number": null,
                     *         "description": "Order #1042",
                     *         "phone_number": "+250788123456",
                     *         "metadata": {
                     *           "order_id": "1042"
                     *         },
                     *         "failure_code": null,
                     *         "failure_message": null,
                     *         "cancellation_reason": "customer changed their mind",
                     *         "checkout_session": null,
                     *         "next_action": null,
                     *         "environment": "sandbox",
                     *         "expires_at": "2026-11-24T10:10:00.000Z",
                     *         "pending_reason": null,
                     *         "decision_expected_by": null,
                     *         "balance_transaction": null,
                     *         "reconciled_at": null,
                     *         "refundable": {
                     *           "allowed": false,
                     *           "partial": false,
                     *           "reason": "a cancelled payment cannot be refunded; only completed payments can"
                     *         },
                     *         "cancellable": {
                     *           "allowed": false,
                     *           "reason": "a cancelled payment cannot be cancelled; only pending and processing payments can"
                     *         },
                     *         "created_at": "2026-11-24T10:00:00.000Z",
                     *         "updated_at": "2026-11-24T10:01:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Payment"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `idempotency_key_reused`: This `Idempotency-Key` was used within 24 hours with a different request.
             *     - `conflict`: A request with this `Idempotency-Key` is still in progress; retry in a moment.
             *     - `payment_not_cancellable`: The payment is no longer `pending` or `processing` (also when the provider's success came first: the payment is then `completed`).
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: The payment did not answer in time or could not take the request. It may still be carried out: retry with the same `Idempotency-Key` to learn the outcome.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    refundPaymentFromDashboard: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key and body within 24 hours answer the first result again */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "amount": 500,
                 *       "reason": "one item out of stock"
                 *     }
                 */
                "application/json": {
                    /** @description The amount to refund in minor units; default the whole refundable rest */
                    amount?: number;
                    /** @description Why you refund; kept on the refund */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description The refund: `completed`, `failed` or `pending` */
            201: {
                headers: {
                    /** @description Present when this answer is the replay of an earlier request with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Refund completed",
                     *       "data": {
                     *         "id": "ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b",
                     *         "object": "refund",
                     *         "payment_id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                     *         "amount": 500,
                     *         "currency": "RWF",
                     *         "status": "completed",
                     *         "reason": "one item out of stock",
                     *         "failure_message": null,
                     *         "created_at": "2026-11-24T11:00:00.000Z",
                     *         "completed_at": "2026-11-24T11:00:01.000Z",
                     *         "balance_transaction": "txn_9Lm1No3Pq5Rs7Tu9Vw1Xy3Za"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Refund"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `amount_exceeds_refundable`: The amount is more than what is left to refund (refunds in progress count).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `idempotency_key_reused`: This `Idempotency-Key` was used within 24 hours with a different request.
             *     - `conflict`: A request with this `Idempotency-Key` is still in progress; retry in a moment.
             *     - `payment_not_refundable`: The payment is not `completed`, or its refund window has passed.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: The payment did not answer in time or could not take the request. It may still be carried out: retry with the same `Idempotency-Key` to learn the outcome.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    uploadIdentityDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "document": "(file contents)",
                 *       "document_type": "passport"
                 *     }
                 */
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description PDF, JPEG or PNG, at most 10 MB; the type is read from the bytes
                     */
                    document: string;
                    /**
                     * @description `national_id`, `passport` or `drivers_licence`
                     * @enum {string}
                     */
                    document_type: "national_id" | "passport" | "drivers_licence";
                    /**
                     * @description A national ID's side, `front` or `back`; refused for the others
                     * @enum {string}
                     */
                    side?: "front" | "back";
                };
            };
        };
        responses: {
            /** @description The stored document */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Document uploaded",
                     *       "data": {
                     *         "id": "doc_6Gh8Ij0Kl2Mn4Op6Qr8St0Uv",
                     *         "object": "document",
                     *         "category": "kyc",
                     *         "document_type": "passport",
                     *         "side": null,
                     *         "file_name": "passport.pdf",
                     *         "content_type": "application/pdf",
                     *         "size": 482133,
                     *         "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                     *         "uploaded_at": "2026-11-21T09:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Document id, `doc_…` */
                            id: string;
                            /**
                             * @description Always `document`
                             * @enum {string}
                             */
                            object: "document";
                            /**
                             * @description `kyc` (identity) or `business`
                             * @enum {string}
                             */
                            category: "kyc" | "business";
                            /** @description `national_id`, `passport`, `drivers_licence`, `business_registration`, … */
                            document_type: string;
                            /**
                             * @description A national ID's side; null for the others
                             * @enum {string|null}
                             */
                            side: "front" | "back" | null;
                            /** @description The file's name as uploaded */
                            file_name: string;
                            /**
                             * @description The type read from its bytes
                             * @enum {string}
                             */
                            content_type: "application/pdf" | "image/jpeg" | "image/png";
                            /** @description Its size in bytes */
                            size: number;
                            /** @description SHA-256 of its bytes, hex */
                            sha256: string;
                            /**
                             * Format: date-time
                             * @description When it was uploaded (ISO 8601, UTC)
                             */
                            uploaded_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `unsupported_file_type`: The file is not a PDF, JPEG or PNG (read from its bytes, not its name).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: Your account holds as many documents as it may; see the upload limits.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `file_too_large`: The file is larger than 10 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    uploadBusinessDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "document": "(file contents)",
                 *       "document_type": "business_registration"
                 *     }
                 */
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description PDF, JPEG or PNG, at most 10 MB; the type is read from the bytes
                     */
                    document: string;
                    /**
                     * @description `business_registration` (default), `tax_identification` or `business_licence`
                     * @default business_registration
                     * @enum {string}
                     */
                    document_type?: "business_registration" | "tax_identification" | "business_licence";
                };
            };
        };
        responses: {
            /** @description The stored document */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Document uploaded",
                     *       "data": {
                     *         "id": "doc_6Gh8Ij0Kl2Mn4Op6Qr8St0Uv",
                     *         "object": "document",
                     *         "category": "business",
                     *         "document_type": "business_registration",
                     *         "side": null,
                     *         "file_name": "certificate.pdf",
                     *         "content_type": "application/pdf",
                     *         "size": 482133,
                     *         "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                     *         "uploaded_at": "2026-11-21T09:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Document id, `doc_…` */
                            id: string;
                            /**
                             * @description Always `document`
                             * @enum {string}
                             */
                            object: "document";
                            /**
                             * @description `kyc` (identity) or `business`
                             * @enum {string}
                             */
                            category: "kyc" | "business";
                            /** @description `national_id`, `passport`, `drivers_licence`, `business_registration`, … */
                            document_type: string;
                            /**
                             * @description A national ID's side; null for the others
                             * @enum {string|null}
                             */
                            side: "front" | "back" | null;
                            /** @description The file's name as uploaded */
                            file_name: string;
                            /**
                             * @description The type read from its bytes
                             * @enum {string}
                             */
                            content_type: "application/pdf" | "image/jpeg" | "image/png";
                            /** @description Its size in bytes */
                            size: number;
                            /** @description SHA-256 of its bytes, hex */
                            sha256: string;
                            /**
                             * Format: date-time
                             * @description When it was uploaded (ISO 8601, UTC)
                             */
                            uploaded_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `unsupported_file_type`: The file is not a PDF, JPEG or PNG (read from its bytes, not its name).
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: Your account holds as many documents as it may; see the upload limits.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `file_too_large`: The file is larger than 10 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Documents */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Documents retrieved",
                     *       "data": {
                     *         "documents": [
                     *           {
                     *             "id": "doc_6Gh8Ij0Kl2Mn4Op6Qr8St0Uv",
                     *             "object": "document",
                     *             "category": "kyc",
                     *             "document_type": "passport",
                     *             "side": null,
                     *             "file_name": "passport.pdf",
                     *             "content_type": "application/pdf",
                     *             "size": 482133,
                     *             "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                     *             "uploaded_at": "2026-11-21T09:00:00.000Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your uploaded documents */
                            documents: {
                                /** @description Document id, `doc_…` */
                                id: string;
                                /**
                                 * @description Always `document`
                                 * @enum {string}
                                 */
                                object: "document";
                                /**
                                 * @description `kyc` (identity) or `business`
                                 * @enum {string}
                                 */
                                category: "kyc" | "business";
                                /** @description `national_id`, `passport`, `drivers_licence`, `business_registration`, … */
                                document_type: string;
                                /**
                                 * @description A national ID's side; null for the others
                                 * @enum {string|null}
                                 */
                                side: "front" | "back" | null;
                                /** @description The file's name as uploaded */
                                file_name: string;
                                /**
                                 * @description The type read from its bytes
                                 * @enum {string}
                                 */
                                content_type: "application/pdf" | "image/jpeg" | "image/png";
                                /** @description Its size in bytes */
                                size: number;
                                /** @description SHA-256 of its bytes, hex */
                                sha256: string;
                                /**
                                 * Format: date-time
                                 * @description When it was uploaded (ISO 8601, UTC)
                                 */
                                uploaded_at: string;
                            }[];
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    requestLiveAccess: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "business_name": "Kigali Books",
                 *       "business_type": "e_commerce",
                 *       "business_website": "https://kigalibooks.example.com",
                 *       "expected_monthly_volume": 5000000,
                 *       "use_case": "Online book shop collecting mobile money and card payments in Rwanda",
                 *       "compliance_acknowledged": true
                 *     }
                 */
                "application/json": {
                    /** @description The registered name of your business */
                    business_name: string;
                    /**
                     * @description What your business does
                     * @enum {string}
                     */
                    business_type: "e_commerce" | "saas" | "marketplace" | "fintech" | "education" | "healthcare" | "other";
                    /**
                     * Format: uri
                     * @description Your website, http(s) with a domain name
                     */
                    business_website: string;
                    /** @description What you expect to collect a month, your estimate */
                    expected_monthly_volume: number;
                    /** @description What you will collect payments for, at least 20 characters */
                    use_case: string;
                    /** @description Must be true: you acknowledge the compliance terms */
                    compliance_acknowledged: boolean;
                };
            };
        };
        responses: {
            /** @description The request, under review */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Live access requested",
                     *       "data": {
                     *         "status": "pending",
                     *         "has_live_access": false,
                     *         "live_access_request": {
                     *           "id": "req_1Wx3Yz5Ab7Cd9Ef1Gh3Ij5Kl",
                     *           "status": "under_review",
                     *           "requested_at": "2026-11-21T09:30:00.000Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /**
                             * @description `none` before any request, then `pending`, `approved` or `rejected`
                             * @enum {string}
                             */
                            status: "none" | "pending" | "approved" | "rejected";
                            /** @description Whether live access was granted */
                            has_live_access: boolean;
                            /** @description Your latest request; absent before the first */
                            live_access_request?: {
                                /** @description The request's id, `req_…` */
                                id: string;
                                /**
                                 * @description Where the review stands
                                 * @enum {string}
                                 */
                                status: "under_review" | "more_info_required" | "approved" | "rejected";
                                /**
                                 * Format: date-time
                                 * @description When you sent it (ISO 8601, UTC)
                                 */
                                requested_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the reviewers decided (ISO 8601, UTC)
                                 */
                                decided_at?: string;
                                /** @description What the reviewer wrote to you */
                                reviewer_message?: string;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `documents_missing`: An identity document or the business registration certificate has not been uploaded yet; `details` lists what is missing.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: Live access is granted already, or a request is still open.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveLiveAccessStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Live access status retrieved",
                     *       "data": {
                     *         "status": "pending",
                     *         "has_live_access": false,
                     *         "live_access_request": {
                     *           "id": "req_1Wx3Yz5Ab7Cd9Ef1Gh3Ij5Kl",
                     *           "status": "under_review",
                     *           "requested_at": "2026-11-21T09:30:00.000Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /**
                             * @description `none` before any request, then `pending`, `approved` or `rejected`
                             * @enum {string}
                             */
                            status: "none" | "pending" | "approved" | "rejected";
                            /** @description Whether live access was granted */
                            has_live_access: boolean;
                            /** @description Your latest request; absent before the first */
                            live_access_request?: {
                                /** @description The request's id, `req_…` */
                                id: string;
                                /**
                                 * @description Where the review stands
                                 * @enum {string}
                                 */
                                status: "under_review" | "more_info_required" | "approved" | "rejected";
                                /**
                                 * Format: date-time
                                 * @description When you sent it (ISO 8601, UTC)
                                 */
                                requested_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the reviewers decided (ISO 8601, UTC)
                                 */
                                decided_at?: string;
                                /** @description What the reviewer wrote to you */
                                reviewer_message?: string;
                            };
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    respondToLiveAccessReview: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "message": "Our business registration number is 108234567; the certificate is uploaded."
                 *     }
                 */
                "application/json": {
                    /** @description Your answer to the reviewer, 1 to 5000 characters */
                    message: string;
                };
            };
        };
        responses: {
            /** @description Recorded; the review resumed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Response received; the review resumed",
                     *       "data": {
                     *         "status": "pending",
                     *         "has_live_access": false,
                     *         "live_access_request": {
                     *           "id": "req_1Wx3Yz5Ab7Cd9Ef1Gh3Ij5Kl",
                     *           "status": "under_review",
                     *           "requested_at": "2026-11-21T09:30:00.000Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /**
                             * @description `none` before any request, then `pending`, `approved` or `rejected`
                             * @enum {string}
                             */
                            status: "none" | "pending" | "approved" | "rejected";
                            /** @description Whether live access was granted */
                            has_live_access: boolean;
                            /** @description Your latest request; absent before the first */
                            live_access_request?: {
                                /** @description The request's id, `req_…` */
                                id: string;
                                /**
                                 * @description Where the review stands
                                 * @enum {string}
                                 */
                                status: "under_review" | "more_info_required" | "approved" | "rejected";
                                /**
                                 * Format: date-time
                                 * @description When you sent it (ISO 8601, UTC)
                                 */
                                requested_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the reviewers decided (ISO 8601, UTC)
                                 */
                                decided_at?: string;
                                /** @description What the reviewer wrote to you */
                                reviewer_message?: string;
                            };
                        };
                    };
                };
            };
            /** @description Recorded; the review resumes shortly */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Response received; the review resumed",
                     *       "data": {
                     *         "status": "pending",
                     *         "has_live_access": false,
                     *         "live_access_request": {
                     *           "id": "req_1Wx3Yz5Ab7Cd9Ef1Gh3Ij5Kl",
                     *           "status": "under_review",
                     *           "requested_at": "2026-11-21T09:30:00.000Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /**
                             * @description `none` before any request, then `pending`, `approved` or `rejected`
                             * @enum {string}
                             */
                            status: "none" | "pending" | "approved" | "rejected";
                            /** @description Whether live access was granted */
                            has_live_access: boolean;
                            /** @description Your latest request; absent before the first */
                            live_access_request?: {
                                /** @description The request's id, `req_…` */
                                id: string;
                                /**
                                 * @description Where the review stands
                                 * @enum {string}
                                 */
                                status: "under_review" | "more_info_required" | "approved" | "rejected";
                                /**
                                 * Format: date-time
                                 * @description When you sent it (ISO 8601, UTC)
                                 */
                                requested_at: string;
                                /**
                                 * Format: date-time
                                 * @description When the reviewers decided (ISO 8601, UTC)
                                 */
                                decided_at?: string;
                                /** @description What the reviewer wrote to you */
                                reviewer_message?: string;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: No request is waiting for information from you.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    revealLiveKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The live key; never shown again */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Live key revealed; it is not shown again",
                     *       "data": {
                     *         "id": "key_7Cd9Ef1Gh3Ij5Kl7Mn9Op1Qr",
                     *         "object": "api_key",
                     *         "environment": "live",
                     *         "secret": "sk_live_7dQ2mXr9Lk4Pw8Zt1Vb6Nc3Hy5Jf0Gs",
                     *         "last4": "f0Gs",
                     *         "created_at": "2026-11-22T15:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Key id, `key_…` */
                            id: string;
                            /**
                             * @description Always `api_key`
                             * @enum {string}
                             */
                            object: "api_key";
                            /**
                             * @description Always `live`
                             * @enum {string}
                             */
                            environment: "live";
                            /** @description The secret key `sk_live_…`, shown once: store it */
                            secret: string;
                            /** @description Its last 4 characters */
                            last4: string;
                            /**
                             * Format: date-time
                             * @description When it was made (ISO 8601, UTC)
                             */
                            created_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: Live access has not been approved.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: The live key was revealed already.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Webhooks */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Webhooks retrieved",
                     *       "data": {
                     *         "webhooks": [
                     *           {
                     *             "id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op",
                     *             "object": "webhook",
                     *             "url": "https://shop.example.com/paycollect/webhooks",
                     *             "events": [
                     *               "payment.completed",
                     *               "payment.failed",
                     *               "refund.completed"
                     *             ],
                     *             "status": "enabled",
                     *             "failure_reason": null,
                     *             "description": "Order fulfilment",
                     *             "environment": "sandbox",
                     *             "previous_secret_expires_at": null,
                     *             "created_at": "2026-11-21T10:00:00.000Z",
                     *             "updated_at": "2026-11-21T10:00:00.000Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your webhook endpoints in this environment */
                            webhooks: (components["schemas"]["Webhook"] & unknown)[];
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "url": "https://shop.example.com/paycollect/webhooks",
                 *       "events": [
                 *         "payment.completed",
                 *         "payment.failed",
                 *         "refund.completed"
                 *       ],
                 *       "description": "Order fulfilment"
                 *     }
                 */
                "application/json": {
                    /** @description Where to POST the events (https in live) */
                    url: string;
                    /** @description The event names to deliver */
                    events: ("payment.created" | "payment.completed" | "payment.failed" | "payment.cancelled" | "refund.completed" | "refund.failed" | "webhook.created" | "payout.created" | "payout.paid" | "payout.failed" | "payout.returned" | "checkout.session.completed" | "checkout.session.expired" | "provider.status_changed")[];
                    /** @description Yours, to tell endpoints apart */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description The webhook with its signing secret, shown once */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Webhook created",
                     *       "data": {
                     *         "id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op",
                     *         "object": "webhook",
                     *         "url": "https://shop.example.com/paycollect/webhooks",
                     *         "events": [
                     *           "payment.completed",
                     *           "payment.failed",
                     *           "refund.completed"
                     *         ],
                     *         "status": "enabled",
                     *         "failure_reason": null,
                     *         "description": "Order fulfilment",
                     *         "environment": "sandbox",
                     *         "previous_secret_expires_at": null,
                     *         "created_at": "2026-11-21T10:00:00.000Z",
                     *         "updated_at": "2026-11-21T10:00:00.000Z",
                     *         "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["WebhookWithSecret"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: The environment has 16 webhook endpoints already.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Webhook retrieved",
                     *       "data": {
                     *         "id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op",
                     *         "object": "webhook",
                     *         "url": "https://shop.example.com/paycollect/webhooks",
                     *         "events": [
                     *           "payment.completed",
                     *           "payment.failed",
                     *           "refund.completed"
                     *         ],
                     *         "status": "enabled",
                     *         "failure_reason": null,
                     *         "description": "Order fulfilment",
                     *         "environment": "sandbox",
                     *         "previous_secret_expires_at": null,
                     *         "created_at": "2026-11-21T10:00:00.000Z",
                     *         "updated_at": "2026-11-21T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Webhook"] & unknown;
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "status": "disabled"
                 *     }
                 */
                "application/json": {
                    /** @description A new address */
                    url?: string;
                    /** @description The event names to deliver from now on */
                    events?: ("payment.created" | "payment.completed" | "payment.failed" | "payment.cancelled" | "refund.completed" | "refund.failed" | "webhook.created" | "payout.created" | "payout.paid" | "payout.failed" | "payout.returned" | "checkout.session.completed" | "checkout.session.expired" | "provider.status_changed")[];
                    /**
                     * @description `enabled` or `disabled`
                     * @enum {string}
                     */
                    status?: "enabled" | "disabled";
                    /** @description Yours; null clears it */
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description The webhook */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Webhook updated",
                     *       "data": {
                     *         "id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op",
                     *         "object": "webhook",
                     *         "url": "https://shop.example.com/paycollect/webhooks",
                     *         "events": [
                     *           "payment.completed",
                     *           "payment.failed",
                     *           "refund.completed"
                     *         ],
                     *         "status": "disabled",
                     *         "failure_reason": null,
                     *         "description": "Order fulfilment",
                     *         "environment": "sandbox",
                     *         "previous_secret_expires_at": null,
                     *         "created_at": "2026-11-21T10:00:00.000Z",
                     *         "updated_at": "2026-11-21T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["Webhook"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Deleted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Webhook deleted",
                     *       "data": {
                     *         "id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op",
                     *         "deleted": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The deleted endpoint, `whk_…` */
                            id: string;
                            /**
                             * @description Always `true`: nothing more is delivered to it
                             * @enum {boolean}
                             */
                            deleted: true;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    sendWebhookTest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The attempt's outcome */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Test delivery sent",
                     *       "data": {
                     *         "delivered": true,
                     *         "status_code": 200,
                     *         "duration_ms": 92,
                     *         "error": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Whether your endpoint answered with a 2xx status */
                            delivered: boolean;
                            /** @description Your endpoint's HTTP status; null when it gave none (refused, timed out) */
                            status_code: number | null;
                            /** @description How long the attempt took, in milliseconds */
                            duration_ms: number;
                            /** @description Why it was not delivered (connection refused, time-out, status); null when delivered */
                            error: string | null;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The webhook with its new secret, shown once */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Webhook secret rotated",
                     *       "data": {
                     *         "id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op",
                     *         "object": "webhook",
                     *         "url": "https://shop.example.com/paycollect/webhooks",
                     *         "events": [
                     *           "payment.completed",
                     *           "payment.failed",
                     *           "refund.completed"
                     *         ],
                     *         "status": "enabled",
                     *         "failure_reason": null,
                     *         "description": "Order fulfilment",
                     *         "environment": "sandbox",
                     *         "previous_secret_expires_at": "2026-11-25T10:00:00.000Z",
                     *         "created_at": "2026-11-21T10:00:00.000Z",
                     *         "updated_at": "2026-11-21T10:00:00.000Z",
                     *         "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["WebhookWithSecret"];
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description The page, from 1 */
                page?: number;
                /** @description Items a page, 1 to 100 */
                limit?: number;
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Deliveries retrieved",
                     *       "data": {
                     *         "deliveries": [
                     *           {
                     *             "id": "dlv_9Qr1St3Uv5Wx7Yz9Ab1Cd3Ef",
                     *             "object": "webhook_delivery",
                     *             "webhook_id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op",
                     *             "event_id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                     *             "event": "payment.completed",
                     *             "status": "succeeded",
                     *             "attempt_count": 1,
                     *             "next_attempt_at": null,
                     *             "retry_of": null,
                     *             "created_at": "2026-11-24T10:00:04.000Z",
                     *             "updated_at": "2026-11-24T10:00:04.000Z",
                     *             "attempts": [
                     *               {
                     *                 "attempt": 1,
                     *                 "attempted_at": "2026-11-24T10:00:04.000Z",
                     *                 "status_code": 200,
                     *                 "response_body": "ok",
                     *                 "duration_ms": 87,
                     *                 "error": null
                     *               }
                     *             ]
                     *           }
                     *         ],
                     *         "pagination": {
                     *           "page": 1,
                     *           "limit": 10,
                     *           "total": 1,
                     *           "total_pages": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description This page of the endpoint's deliveries, with their attempts */
                            deliveries: components["schemas"]["WebhookDelivery"][];
                            /** @description Where this page stands in the list */
                            pagination: {
                                /** @description This page, from 1 */
                                page: number;
                                /** @description Items a page */
                                limit: number;
                                /** @description Items the filters select, on every page */
                                total: number;
                                /** @description Pages of `limit` items */
                                total_pages: number;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retryWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
                /** @description The delivery id (`dlv_…`) */
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description The new delivery */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Delivery retry started",
                     *       "data": {
                     *         "id": "dlv_3Gh5Ij7Kl9Mn1Op3Qr5St7Uv",
                     *         "object": "webhook_delivery",
                     *         "webhook_id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op",
                     *         "event_id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                     *         "event": "payment.completed",
                     *         "status": "pending",
                     *         "attempt_count": 0,
                     *         "next_attempt_at": null,
                     *         "retry_of": "dlv_9Qr1St3Uv5Wx7Yz9Ab1Cd3Ef",
                     *         "created_at": "2026-11-24T10:00:04.000Z",
                     *         "updated_at": "2026-11-24T10:00:04.000Z",
                     *         "attempts": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        data: components["schemas"]["WebhookDelivery"] & unknown;
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             *     - `invalid_api_key`: The secret key is unknown, was rolled and has expired, or was revoked.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: The endpoint is disabled or failed with 410 Gone (enable it first), or the delivery was a test.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Keys retrieved",
                     *       "data": {
                     *         "keys": [
                     *           {
                     *             "id": "key_7Cd9Ef1Gh3Ij5Kl7Mn9Op1Qr",
                     *             "kind": "secret",
                     *             "name": null,
                     *             "scopes": null,
                     *             "environment": "sandbox",
                     *             "masked": "sk_sandbox_…9Xk2",
                     *             "last4": "9Xk2",
                     *             "status": "active",
                     *             "created_at": "2026-11-20T08:00:00.000Z",
                     *             "expires_at": null
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Your secret and restricted keys, masked */
                            keys: {
                                /** @description Key id, `key_…` */
                                id: string;
                                /**
                                 * @description `secret` (every scope) or `restricted` (its `scopes` only)
                                 * @enum {string}
                                 */
                                kind: "secret" | "restricted";
                                /** @description A restricted key's name; null for secret keys */
                                name: string | null;
                                /** @description A restricted key's scopes; null for secret keys, which hold every scope */
                                scopes: ("payments:read" | "payments:write" | "refunds:write" | "payouts:read" | "payouts:write" | "balance:read" | "webhooks:write" | "checkout:read" | "checkout:write")[] | null;
                                /**
                                 * @description `sandbox` or `live`
                                 * @enum {string}
                                 */
                                environment: "sandbox" | "live";
                                /** @description The key with all but its start and last 4 characters hidden */
                                masked: string;
                                /** @description Its last 4 characters */
                                last4: string;
                                /**
                                 * @description `active`; `expiring` during a roll's grace period; `expired`; `revoked`
                                 * @enum {string}
                                 */
                                status: "active" | "expiring" | "expired" | "revoked";
                                /**
                                 * Format: date-time
                                 * @description When it was made (ISO 8601, UTC)
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When it stops working; null while it has no end
                                 */
                                expires_at: string | null;
                            }[];
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createRestrictedKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "name": "Checkout server",
                 *       "environment": "sandbox",
                 *       "scopes": [
                 *         "payments:write",
                 *         "payments:read"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description A name to know the key by (who or what uses it), 1 to 100 characters */
                    name: string;
                    /**
                     * @description `sandbox`, or `live` once live access is granted (needs a recent two-factor code)
                     * @enum {string}
                     */
                    environment: "sandbox" | "live";
                    /** @description What the key may do, each scope once; anything else answers 403 `forbidden` */
                    scopes: ("payments:read" | "payments:write" | "refunds:write" | "payouts:read" | "payouts:write" | "balance:read" | "webhooks:write" | "checkout:read" | "checkout:write")[];
                };
            };
        };
        responses: {
            /** @description The key, shown once */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Restricted key created",
                     *       "data": {
                     *         "key": {
                     *           "id": "key_2Wq4Er6Ty8Ui0Op2As4Df6Gh",
                     *           "kind": "restricted",
                     *           "name": "Checkout server",
                     *           "scopes": [
                     *             "payments:write",
                     *             "payments:read"
                     *           ],
                     *           "environment": "sandbox",
                     *           "masked": "rk_sandbox_…Zx9q",
                     *           "last4": "Zx9q",
                     *           "status": "active",
                     *           "created_at": "2026-11-20T08:00:00.000Z",
                     *           "expires_at": null,
                     *           "secret": "rk_sandbox_4eC39HqLyjWDarjtT1zdp7dcZx9q"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The key, with its secret this once */
                            key: {
                                /** @description Key id, `key_…` */
                                id: string;
                                /**
                                 * @description `secret` (every scope) or `restricted` (its `scopes` only)
                                 * @enum {string}
                                 */
                                kind: "secret" | "restricted";
                                /** @description A restricted key's name; null for secret keys */
                                name: string | null;
                                /** @description A restricted key's scopes; null for secret keys, which hold every scope */
                                scopes: ("payments:read" | "payments:write" | "refunds:write" | "payouts:read" | "payouts:write" | "balance:read" | "webhooks:write" | "checkout:read" | "checkout:write")[] | null;
                                /**
                                 * @description `sandbox` or `live`
                                 * @enum {string}
                                 */
                                environment: "sandbox" | "live";
                                /** @description The key with all but its start and last 4 characters hidden */
                                masked: string;
                                /** @description Its last 4 characters */
                                last4: string;
                                /**
                                 * @description `active`; `expiring` during a roll's grace period; `expired`; `revoked`
                                 * @enum {string}
                                 */
                                status: "active" | "expiring" | "expired" | "revoked";
                                /**
                                 * Format: date-time
                                 * @description When it was made (ISO 8601, UTC)
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When it stops working; null while it has no end
                                 */
                                expires_at: string | null;
                                /** @description The key `rk_sandbox_…` or `rk_live_…`, shown only here: store it */
                                secret: string;
                            };
                            /**
                             * Format: date-time
                             * @description After a roll: when the key it replaces stops working (ISO 8601, UTC)
                             */
                            previous_key_expires_at?: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: Your role cannot create keys, or a live key without a code confirmed in the last 5 minutes.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: A live key before live access is approved.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    rollApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description `sandbox` or `live` */
                environment: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "expires_in_hours": 24
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Hours the old key still works, 0 to 720 (0: it stops now)
                     * @default 24
                     */
                    expires_in_hours?: number;
                };
            };
        };
        responses: {
            /** @description The new key, shown once */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Key rolled",
                     *       "data": {
                     *         "key": {
                     *           "id": "key_7Cd9Ef1Gh3Ij5Kl7Mn9Op1Qr",
                     *           "environment": "sandbox",
                     *           "secret": "sk_sandbox_4eC39HqLyjWDarjtT1zdp7dc9Xk2LmNo",
                     *           "last4": "LmNo",
                     *           "created_at": "2026-11-24T12:00:00.000Z"
                     *         },
                     *         "previous_keys_expire_at": "2026-11-25T12:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The new secret key, with its secret this once */
                            key: {
                                /** @description The new key id, `key_…` */
                                id: string;
                                /** @description `sandbox` or `live`, as the path named */
                                environment: string;
                                /** @description The new secret key `sk_…`, shown only here: store it */
                                secret: string;
                                /** @description Its last 4 characters, as key lists show it */
                                last4: string;
                                /** @description When it was made (ISO 8601, UTC) */
                                created_at: string;
                            };
                            /** @description When the keys it replaces stop working, `expires_in_hours` from now (ISO 8601, UTC) */
                            previous_keys_expire_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: The environment has no active key to roll (live before approval).
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    completeTwoFactorLogin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "challenge": "eyJhbGciOiJIUzI1NiJ9.challenge.signature",
                 *       "code": "123456"
                 *     }
                 */
                "application/json": {
                    /** @description The `challenge` `POST /v1/auth/login` answered, within 5 minutes */
                    challenge: string;
                    /** @description The 6-digit code your authenticator app shows now */
                    code?: string;
                    /** @description One of your recovery codes (`xxxxx-xxxxx`), in place of a code; each works once */
                    recovery_code?: string;
                };
            };
        };
        responses: {
            /** @description Session token */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Logged in",
                     *       "data": {
                     *         "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfOEprMkxtTjRwUTZyUzh0VTB2VzJ4WTR6In0.c2lnbmF0dXJl",
                     *         "expires_at": "2026-11-24T11:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The session token: send it as `Authorization: Bearer <token>` */
                            token: string;
                            /**
                             * Format: date-time
                             * @description When the token stops working; sign in again then (ISO 8601, UTC)
                             */
                            expires_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The code is wrong, already used or expired, or the challenge has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many wrong codes for this account or address.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    switchMerchant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "merchant_id": "mer_3Fh8KdP2xQ7mWz9LcR4tVb6N"
                 *     }
                 */
                "application/json": {
                    /** @description The merchant to switch to, `mer_…`: one you are a member of */
                    merchant_id: string;
                };
            };
        };
        responses: {
            /** @description Session token for that merchant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Switched merchant",
                     *       "data": {
                     *         "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfOEprMkxtTjRwUTZyUzh0VTB2VzJ4WTR6In0.c2lnbmF0dXJl",
                     *         "expires_at": "2026-11-24T11:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The session token: send it as `Authorization: Bearer <token>` */
                            token: string;
                            /**
                             * Format: date-time
                             * @description When the token stops working; sign in again then (ISO 8601, UTC)
                             */
                            expires_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: You are not a member of that merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    signOutEverywhere: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Signed out everywhere",
                     *       "data": {
                     *         "signed_out": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /**
                             * @description Always `true`: every session of yours has ended
                             * @enum {boolean}
                             */
                            signed_out: true;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    acceptInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The last part of the link in the invitation e-mail */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "name": "Kofi Mensah",
                 *       "password": "correct horse battery"
                 *     }
                 */
                "application/json": {
                    /** @description Not signed in: your name, for the account made under the invited e-mail */
                    name?: string;
                    /** @description Not signed in: the password of your new account, 10 to 200 characters */
                    password?: string;
                };
            };
        };
        responses: {
            /** @description Membership and session */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Invitation accepted",
                     *       "data": {
                     *         "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfOEprMkxtTjRwUTZyUzh0VTB2VzJ4WTR6In0.c2lnbmF0dXJl",
                     *         "expires_at": "2026-11-24T11:00:00.000Z",
                     *         "member": {
                     *           "id": "mem_4Rt6Yu8Io0Pa2Sd4Fg6Hj8Kl",
                     *           "developer_id": "dev_8Jk2LmN4pQ6rS8tU0vW2xY4z",
                     *           "email": "kofi@example.com",
                     *           "name": "Kofi Mensah",
                     *           "role": "developer",
                     *           "two_factor_enabled": true,
                     *           "created_at": "2026-11-24T10:00:00.000Z"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The session token: send it as `Authorization: Bearer <token>` */
                            token: string;
                            /**
                             * Format: date-time
                             * @description When the token stops working; sign in again then (ISO 8601, UTC)
                             */
                            expires_at: string;
                            /** @description Your membership in the merchant that invited you */
                            member: {
                                /** @description Membership id, `mem_…`: the id to change or remove the member by */
                                id: string;
                                /** @description The person's developer id, `dev_…` (activity log actors name it) */
                                developer_id: string;
                                /** @description The person's e-mail */
                                email: string;
                                /** @description The person's name */
                                name: string;
                                /**
                                 * @description `owner`, `admin`, `developer` or `viewer` (what each may do: Roles)
                                 * @enum {string}
                                 */
                                role: "owner" | "admin" | "developer" | "viewer";
                                /** @description Whether the person has two-factor sign-in on */
                                two_factor_enabled: boolean;
                                /**
                                 * Format: date-time
                                 * @description When the person joined the team (ISO 8601, UTC)
                                 */
                                created_at: string;
                            };
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: You are signed in with another e-mail than the invited one.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: The link was used already or has expired, or the e-mail is already registered (sign in first).
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    retrieveTwoFactor: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Two-factor status",
                     *       "data": {
                     *         "enabled": true,
                     *         "recovery_codes_left": 9
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Whether sign-in asks you for a code */
                            enabled: boolean;
                            /** @description Recovery codes not used yet (0 to 10) */
                            recovery_codes_left: number;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    disableTwoFactor: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Session token */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Two-factor sign-in is off",
                     *       "data": {
                     *         "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfOEprMkxtTjRwUTZyUzh0VTB2VzJ4WTR6In0.c2lnbmF0dXJl",
                     *         "expires_at": "2026-11-24T11:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The session token: send it as `Authorization: Bearer <token>` */
                            token: string;
                            /**
                             * Format: date-time
                             * @description When the token stops working; sign in again then (ISO 8601, UTC)
                             */
                            expires_at: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: No code was confirmed in the last 5 minutes.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: Two-factor sign-in is off.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    enrollTwoFactor: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Secret and URI */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Scan the code, then confirm it",
                     *       "data": {
                     *         "secret": "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
                     *         "otpauth_uri": "otpauth://totp/PayCollect:amina%40example.com?issuer=PayCollect&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The secret in base32, to type into an authenticator app by hand */
                            secret: string;
                            /** @description The same secret as an `otpauth://totp/…` URI, for a QR code the app scans */
                            otpauth_uri: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: Two-factor sign-in is already on.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    confirmTwoFactor: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "code": "123456"
                 *     }
                 */
                "application/json": {
                    /** @description The 6-digit code your authenticator app shows now */
                    code: string;
                };
            };
        };
        responses: {
            /** @description Recovery codes and session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Two-factor sign-in is on",
                     *       "data": {
                     *         "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfOEprMkxtTjRwUTZyUzh0VTB2VzJ4WTR6In0.c2lnbmF0dXJl",
                     *         "expires_at": "2026-11-24T11:00:00.000Z",
                     *         "recovery_codes": [
                     *           "k7m2p-x9q4r",
                     *           "a3b5c-d7e9f",
                     *           "g2h4j-k6m8n",
                     *           "p3q5r-s7t9u",
                     *           "v2w4x-y6z8a",
                     *           "b3c5d-e7f9g",
                     *           "h2j4k-m6n8p",
                     *           "q3r5s-t7u9v",
                     *           "w2x4y-z6a8b",
                     *           "c3d5e-f7g9h"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The session token: send it as `Authorization: Bearer <token>` */
                            token: string;
                            /**
                             * Format: date-time
                             * @description When the token stops working; sign in again then (ISO 8601, UTC)
                             */
                            expires_at: string;
                            /** @description Ten recovery codes, each good once in place of a code if the phone is lost; shown only here */
                            recovery_codes: string[];
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `validation_error`: The code is wrong or expired.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: No enrolment is waiting, or two-factor sign-in is already on.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many wrong codes.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    verifyTwoFactor: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "code": "123456"
                 *     }
                 */
                "application/json": {
                    /** @description The 6-digit code your authenticator app shows now */
                    code?: string;
                    /** @description One of your recovery codes (`xxxxx-xxxxx`), in place of a code; each works once */
                    recovery_code?: string;
                };
            };
        };
        responses: {
            /** @description Session token, confirmed now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Code confirmed",
                     *       "data": {
                     *         "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfOEprMkxtTjRwUTZyUzh0VTB2VzJ4WTR6In0.c2lnbmF0dXJl",
                     *         "expires_at": "2026-11-24T11:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The session token: send it as `Authorization: Bearer <token>` */
                            token: string;
                            /**
                             * Format: date-time
                             * @description When the token stops working; sign in again then (ISO 8601, UTC)
                             */
                            expires_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `validation_error`: The code is wrong, already used or expired.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: Two-factor sign-in is off.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many wrong codes.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "current_password": "a long password",
                 *       "new_password": "an even longer password"
                 *     }
                 */
                "application/json": {
                    /** @description The password you sign in with now */
                    current_password: string;
                    /** @description The password to sign in with from now on: 10 to 200 characters, not the current one */
                    new_password: string;
                };
            };
        };
        responses: {
            /** @description New session token; every earlier one is refused from now on */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Password changed",
                     *       "data": {
                     *         "token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXZfOEprMkxtTjRwUTZyUzh0VTB2VzJ4WTR6In0.c2lnbmF0dXJl",
                     *         "expires_at": "2026-11-24T11:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The session token: send it as `Authorization: Bearer <token>` */
                            token: string;
                            /**
                             * Format: date-time
                             * @description When the token stops working; sign in again then (ISO 8601, UTC)
                             */
                            expires_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             *     - `validation_error`: The current password is wrong, or the new one is shorter than 10 characters, longer than 200 or the same as the current one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: Two-factor sign-in is on and no code was confirmed in the last 5 minutes.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listTeamMembers: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Members */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Members retrieved",
                     *       "data": {
                     *         "members": [
                     *           {
                     *             "id": "mem_4Rt6Yu8Io0Pa2Sd4Fg6Hj8Kl",
                     *             "developer_id": "dev_8Jk2LmN4pQ6rS8tU0vW2xY4z",
                     *             "email": "kofi@example.com",
                     *             "name": "Kofi Mensah",
                     *             "role": "developer",
                     *             "two_factor_enabled": true,
                     *             "created_at": "2026-11-24T10:00:00.000Z"
                     *           }
                     *         ],
                     *         "merchants": [
                     *           {
                     *             "merchant_id": "mer_3Fh8KdP2xQ7mWz9LcR4tVb6N",
                     *             "business_name": "Amina Shop",
                     *             "role": "developer"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The merchant's members and their roles */
                            members: {
                                /** @description Membership id, `mem_…`: the id to change or remove the member by */
                                id: string;
                                /** @description The person's developer id, `dev_…` (activity log actors name it) */
                                developer_id: string;
                                /** @description The person's e-mail */
                                email: string;
                                /** @description The person's name */
                                name: string;
                                /**
                                 * @description `owner`, `admin`, `developer` or `viewer` (what each may do: Roles)
                                 * @enum {string}
                                 */
                                role: "owner" | "admin" | "developer" | "viewer";
                                /** @description Whether the person has two-factor sign-in on */
                                two_factor_enabled: boolean;
                                /**
                                 * Format: date-time
                                 * @description When the person joined the team (ISO 8601, UTC)
                                 */
                                created_at: string;
                            }[];
                            /** @description Every merchant you belong to, with your role there (for switching) */
                            merchants: {
                                /** @description The merchant id, `mer_…`, to send to `POST /v1/auth/switch` */
                                merchant_id: string;
                                /** @description The merchant's business name; null when not given */
                                business_name: string | null;
                                /**
                                 * @description Your role in that merchant
                                 * @enum {string}
                                 */
                                role: "owner" | "admin" | "developer" | "viewer";
                            }[];
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    removeTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The removed member */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Member removed",
                     *       "data": {
                     *         "id": "mem_4Rt6Yu8Io0Pa2Sd4Fg6Hj8Kl",
                     *         "developer_id": "dev_8Jk2LmN4pQ6rS8tU0vW2xY4z",
                     *         "email": "kofi@example.com",
                     *         "name": "Kofi Mensah",
                     *         "role": "developer",
                     *         "two_factor_enabled": true,
                     *         "created_at": "2026-11-24T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Membership id, `mem_…`: the id to change or remove the member by */
                            id: string;
                            /** @description The person's developer id, `dev_…` (activity log actors name it) */
                            developer_id: string;
                            /** @description The person's e-mail */
                            email: string;
                            /** @description The person's name */
                            name: string;
                            /**
                             * @description `owner`, `admin`, `developer` or `viewer` (what each may do: Roles)
                             * @enum {string}
                             */
                            role: "owner" | "admin" | "developer" | "viewer";
                            /** @description Whether the person has two-factor sign-in on */
                            two_factor_enabled: boolean;
                            /**
                             * Format: date-time
                             * @description When the person joined the team (ISO 8601, UTC)
                             */
                            created_at: string;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: Your role cannot make this change, or no code was confirmed in the last 5 minutes.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: It would leave the merchant without an owner.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    updateTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "role": "viewer"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description The new role (only owners give or take `owner`)
                     * @enum {string}
                     */
                    role: "owner" | "admin" | "developer" | "viewer";
                };
            };
        };
        responses: {
            /** @description The member */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Role changed",
                     *       "data": {
                     *         "id": "mem_4Rt6Yu8Io0Pa2Sd4Fg6Hj8Kl",
                     *         "developer_id": "dev_8Jk2LmN4pQ6rS8tU0vW2xY4z",
                     *         "email": "kofi@example.com",
                     *         "name": "Kofi Mensah",
                     *         "role": "viewer",
                     *         "two_factor_enabled": true,
                     *         "created_at": "2026-11-24T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Membership id, `mem_…`: the id to change or remove the member by */
                            id: string;
                            /** @description The person's developer id, `dev_…` (activity log actors name it) */
                            developer_id: string;
                            /** @description The person's e-mail */
                            email: string;
                            /** @description The person's name */
                            name: string;
                            /**
                             * @description `owner`, `admin`, `developer` or `viewer` (what each may do: Roles)
                             * @enum {string}
                             */
                            role: "owner" | "admin" | "developer" | "viewer";
                            /** @description Whether the person has two-factor sign-in on */
                            two_factor_enabled: boolean;
                            /**
                             * Format: date-time
                             * @description When the person joined the team (ISO 8601, UTC)
                             */
                            created_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: Your role cannot make this change, or no code was confirmed in the last 5 minutes.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: It would leave the merchant without an owner.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    listInvitations: {
        parameters: {
            query?: {
                /** @description With a session token: the environment to read (default sandbox); a key's own otherwise */
                environment?: "sandbox" | "live";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Invitations */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Invitations retrieved",
                     *       "data": {
                     *         "invitations": [
                     *           {
                     *             "id": "inv_5Tg7Yh9Uj1Ik3Ol5Pz7Xc9Vb",
                     *             "email": "kofi@example.com",
                     *             "role": "developer",
                     *             "expires_at": "2026-11-27T10:00:00.000Z",
                     *             "created_at": "2026-11-24T10:00:00.000Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Invitations sent and not yet accepted */
                            invitations: {
                                /** @description Invitation id, `inv_…` */
                                id: string;
                                /** @description The e-mail invited: only this person can accept */
                                email: string;
                                /**
                                 * @description The role the person gets on accepting
                                 * @enum {string}
                                 */
                                role: "owner" | "admin" | "developer" | "viewer";
                                /**
                                 * Format: date-time
                                 * @description When the link stops working, 72 hours after sending (ISO 8601, UTC)
                                 */
                                expires_at: string;
                                /**
                                 * Format: date-time
                                 * @description When it was sent (ISO 8601, UTC)
                                 */
                                created_at: string;
                            }[];
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    createInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "email": "kofi@example.com",
                 *       "role": "developer"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: email
                     * @description The e-mail to send the link to; only this person can accept it
                     */
                    email: string;
                    /**
                     * @description The role the person gets on accepting (an admin cannot invite owners)
                     * @enum {string}
                     */
                    role: "owner" | "admin" | "developer" | "viewer";
                };
            };
        };
        responses: {
            /** @description The invitation */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Invitation sent",
                     *       "data": {
                     *         "id": "inv_5Tg7Yh9Uj1Ik3Ol5Pz7Xc9Vb",
                     *         "email": "kofi@example.com",
                     *         "role": "developer",
                     *         "expires_at": "2026-11-27T10:00:00.000Z",
                     *         "created_at": "2026-11-24T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Invitation id, `inv_…` */
                            id: string;
                            /** @description The e-mail invited: only this person can accept */
                            email: string;
                            /**
                             * @description The role the person gets on accepting
                             * @enum {string}
                             */
                            role: "owner" | "admin" | "developer" | "viewer";
                            /**
                             * Format: date-time
                             * @description When the link stops working, 72 hours after sending (ISO 8601, UTC)
                             */
                            expires_at: string;
                            /**
                             * Format: date-time
                             * @description When it was sent (ISO 8601, UTC)
                             */
                            created_at: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: Your role cannot invite this role, or no code was confirmed in the last 5 minutes.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    rollRestrictedKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "expires_in_hours": 0
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Hours the old key still works, 0 to 720 (0: it stops now)
                     * @default 24
                     */
                    expires_in_hours?: number;
                };
            };
        };
        responses: {
            /** @description The new key, shown once */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Key rolled",
                     *       "data": {
                     *         "key": {
                     *           "id": "key_2Wq4Er6Ty8Ui0Op2As4Df6Gh",
                     *           "kind": "restricted",
                     *           "name": "Checkout server",
                     *           "scopes": [
                     *             "payments:write",
                     *             "payments:read"
                     *           ],
                     *           "environment": "sandbox",
                     *           "masked": "rk_sandbox_…Zx9q",
                     *           "last4": "Zx9q",
                     *           "status": "active",
                     *           "created_at": "2026-11-20T08:00:00.000Z",
                     *           "expires_at": null,
                     *           "secret": "rk_sandbox_4eC39HqLyjWDarjtT1zdp7dcZx9q"
                     *         },
                     *         "previous_key_expires_at": "2026-11-25T12:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description The key, with its secret this once */
                            key: {
                                /** @description Key id, `key_…` */
                                id: string;
                                /**
                                 * @description `secret` (every scope) or `restricted` (its `scopes` only)
                                 * @enum {string}
                                 */
                                kind: "secret" | "restricted";
                                /** @description A restricted key's name; null for secret keys */
                                name: string | null;
                                /** @description A restricted key's scopes; null for secret keys, which hold every scope */
                                scopes: ("payments:read" | "payments:write" | "refunds:write" | "payouts:read" | "payouts:write" | "balance:read" | "webhooks:write" | "checkout:read" | "checkout:write")[] | null;
                                /**
                                 * @description `sandbox` or `live`
                                 * @enum {string}
                                 */
                                environment: "sandbox" | "live";
                                /** @description The key with all but its start and last 4 characters hidden */
                                masked: string;
                                /** @description Its last 4 characters */
                                last4: string;
                                /**
                                 * @description `active`; `expiring` during a roll's grace period; `expired`; `revoked`
                                 * @enum {string}
                                 */
                                status: "active" | "expiring" | "expired" | "revoked";
                                /**
                                 * Format: date-time
                                 * @description When it was made (ISO 8601, UTC)
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When it stops working; null while it has no end
                                 */
                                expires_at: string | null;
                                /** @description The key `rk_sandbox_…` or `rk_live_…`, shown only here: store it */
                                secret: string;
                            };
                            /**
                             * Format: date-time
                             * @description After a roll: when the key it replaces stops working (ISO 8601, UTC)
                             */
                            previous_key_expires_at?: string;
                        };
                    };
                };
            };
            /**
             * @description Invalid request. Error codes:
             *
             *     - `validation_error`: A field is missing, unknown or invalid, or a string holds a control character. The message names the first bad field; `details` lists every one.
             *     - `invalid_request`: The body is not valid JSON or not sent as `application/json`.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Body too large. Error codes:
             *
             *     - `invalid_request`: The JSON body is larger than 1 MB.
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    revokeRestrictedKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The resource's id (`pay_…`, `ref_…`, `evt_…`, `whk_…`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revoked key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "Key revoked",
                     *       "data": {
                     *         "id": "key_2Wq4Er6Ty8Ui0Op2As4Df6Gh",
                     *         "kind": "restricted",
                     *         "name": "Checkout server",
                     *         "scopes": [
                     *           "payments:write",
                     *           "payments:read"
                     *         ],
                     *         "environment": "sandbox",
                     *         "masked": "rk_sandbox_…Zx9q",
                     *         "last4": "Zx9q",
                     *         "status": "revoked",
                     *         "created_at": "2026-11-20T08:00:00.000Z",
                     *         "expires_at": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        /**
                         * @description Always true on a success
                         * @enum {boolean}
                         */
                        success: true;
                        /** @description What was done, for a person (`Payment created`) */
                        message: string;
                        /** @description The answer itself */
                        data: {
                            /** @description Key id, `key_…` */
                            id: string;
                            /**
                             * @description `secret` (every scope) or `restricted` (its `scopes` only)
                             * @enum {string}
                             */
                            kind: "secret" | "restricted";
                            /** @description A restricted key's name; null for secret keys */
                            name: string | null;
                            /** @description A restricted key's scopes; null for secret keys, which hold every scope */
                            scopes: ("payments:read" | "payments:write" | "refunds:write" | "payouts:read" | "payouts:write" | "balance:read" | "webhooks:write" | "checkout:read" | "checkout:write")[] | null;
                            /**
                             * @description `sandbox` or `live`
                             * @enum {string}
                             */
                            environment: "sandbox" | "live";
                            /** @description The key with all but its start and last 4 characters hidden */
                            masked: string;
                            /** @description Its last 4 characters */
                            last4: string;
                            /**
                             * @description `active`; `expiring` during a roll's grace period; `expired`; `revoked`
                             * @enum {string}
                             */
                            status: "active" | "expiring" | "expired" | "revoked";
                            /**
                             * Format: date-time
                             * @description When it was made (ISO 8601, UTC)
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description When it stops working; null while it has no end
                             */
                            expires_at: string | null;
                        };
                    };
                };
            };
            /**
             * @description Missing or invalid credential. Error codes:
             *
             *     - `unauthorized`: The credential is missing or malformed, or the session token has expired.
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Forbidden. Error codes:
             *
             *     - `forbidden`: The credential cannot use this operation.
             *     - `merchant_mismatch`: The merchant id in the path is not the API key's merchant.
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Not found. Error codes:
             *
             *     - `not_found`: No such resource in this account and environment (ids of other accounts are not found either).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Conflict with the current state. Error codes:
             *
             *     - `conflict`: The key is a secret key.
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Rate limited. Error codes:
             *
             *     - `rate_limited`: Too many requests; retry after the `Retry-After` seconds.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
            /**
             * @description Unavailable right now. Error codes:
             *
             *     - `service_unavailable`: PostgreSQL or Temporal cannot be reached or did not answer in time. A read changed nothing; a change may or may not have been made, so retry after `Retry-After` seconds with the same `Idempotency-Key`, which never makes it twice.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EnvelopeError"];
                };
            };
        };
    };
    onPaymentCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "payment.created",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                 *         "object": "payment",
                 *         "amount": 1500,
                 *         "amount_refunded": 0,
                 *         "amount_refund_pending": 0,
                 *         "currency": "RWF",
                 *         "status": "pending",
                 *         "payment_method": "mobile_money",
                 *         "provider": "momo",
                 *         "provider_receipt_number": null,
                 *         "description": "Order #1042",
                 *         "phone_number": "+250788123456",
                 *         "metadata": {
                 *           "order_id": "1042"
                 *         },
                 *         "failure_code": null,
                 *         "failure_message": null,
                 *         "cancellation_reason": null,
                 *         "checkout_session": null,
                 *         "next_action": {
                 *           "type": "mobile_money_approval",
                 *           "message": "A payment prompt was sent to +250788123456; the customer approves it on their phone"
                 *         },
                 *         "environment": "sandbox",
                 *         "expires_at": "2026-11-24T10:10:00.000Z",
                 *         "pending_reason": "awaiting_customer",
                 *         "decision_expected_by": "2026-11-24T10:13:00.000Z",
                 *         "balance_transaction": null,
                 *         "reconciled_at": null,
                 *         "refundable": {
                 *           "allowed": false,
                 *           "partial": false,
                 *           "reason": "a pending payment cannot be refunded; only completed payments can"
                 *         },
                 *         "cancellable": {
                 *           "allowed": false,
                 *           "reason": "momo cannot withdraw a request the customer has not answered: it lapses at expires_at"
                 *         },
                 *         "created_at": "2026-11-24T10:00:00.000Z",
                 *         "updated_at": "2026-11-24T10:00:00.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PaymentCreatedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onPaymentCompleted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "payment.completed",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                 *         "object": "payment",
                 *         "amount": 1500,
                 *         "amount_refunded": 0,
                 *         "amount_refund_pending": 0,
                 *         "currency": "RWF",
                 *         "status": "completed",
                 *         "payment_method": "mobile_money",
                 *         "provider": "momo",
                 *         "provider_receipt_number": "5729364812",
                 *         "description": "Order #1042",
                 *         "phone_number": "+250788123456",
                 *         "metadata": {
                 *           "order_id": "1042"
                 *         },
                 *         "failure_code": null,
                 *         "failure_message": null,
                 *         "cancellation_reason": null,
                 *         "checkout_session": null,
                 *         "next_action": null,
                 *         "environment": "sandbox",
                 *         "expires_at": "2026-11-24T10:10:00.000Z",
                 *         "pending_reason": null,
                 *         "decision_expected_by": null,
                 *         "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                 *         "reconciled_at": null,
                 *         "refundable": {
                 *           "allowed": true,
                 *           "partial": true,
                 *           "reason": null
                 *         },
                 *         "cancellable": {
                 *           "allowed": false,
                 *           "reason": "a completed payment cannot be cancelled; only pending and processing payments can"
                 *         },
                 *         "created_at": "2026-11-24T10:00:00.000Z",
                 *         "updated_at": "2026-11-24T10:00:04.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PaymentCompletedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onPaymentFailed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "payment.failed",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                 *         "object": "payment",
                 *         "amount": 1500,
                 *         "amount_refunded": 0,
                 *         "amount_refund_pending": 0,
                 *         "currency": "RWF",
                 *         "status": "failed",
                 *         "payment_method": "mobile_money",
                 *         "provider": "momo",
                 *         "provider_receipt_number": null,
                 *         "description": "Order #1042",
                 *         "phone_number": "+250788123456",
                 *         "metadata": {
                 *           "order_id": "1042"
                 *         },
                 *         "failure_code": "declined",
                 *         "failure_message": "the customer declined the payment",
                 *         "cancellation_reason": null,
                 *         "checkout_session": null,
                 *         "next_action": null,
                 *         "environment": "sandbox",
                 *         "expires_at": "2026-11-24T10:10:00.000Z",
                 *         "pending_reason": "awaiting_customer",
                 *         "decision_expected_by": "2026-11-24T10:13:00.000Z",
                 *         "balance_transaction": null,
                 *         "reconciled_at": null,
                 *         "refundable": {
                 *           "allowed": false,
                 *           "partial": false,
                 *           "reason": "a pending payment cannot be refunded; only completed payments can"
                 *         },
                 *         "cancellable": {
                 *           "allowed": false,
                 *           "reason": "momo cannot withdraw a request the customer has not answered: it lapses at expires_at"
                 *         },
                 *         "created_at": "2026-11-24T10:00:00.000Z",
                 *         "updated_at": "2026-11-24T10:00:30.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PaymentFailedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onPaymentCancelled: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "payment.cancelled",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                 *         "object": "payment",
                 *         "amount": 1500,
                 *         "amount_refunded": 0,
                 *         "amount_refund_pending": 0,
                 *         "currency": "RWF",
                 *         "status": "cancelled",
                 *         "payment_method": "mobile_money",
                 *         "provider": "momo",
                 *         "provider_receipt_number": null,
                 *         "description": "Order #1042",
                 *         "phone_number": "+250788123456",
                 *         "metadata": {
                 *           "order_id": "1042"
                 *         },
                 *         "failure_code": null,
                 *         "failure_message": null,
                 *         "cancellation_reason": "customer changed their mind",
                 *         "checkout_session": null,
                 *         "next_action": null,
                 *         "environment": "sandbox",
                 *         "expires_at": "2026-11-24T10:10:00.000Z",
                 *         "pending_reason": null,
                 *         "decision_expected_by": null,
                 *         "balance_transaction": null,
                 *         "reconciled_at": null,
                 *         "refundable": {
                 *           "allowed": false,
                 *           "partial": false,
                 *           "reason": "a cancelled payment cannot be refunded; only completed payments can"
                 *         },
                 *         "cancellable": {
                 *           "allowed": false,
                 *           "reason": "a cancelled payment cannot be cancelled; only pending and processing payments can"
                 *         },
                 *         "created_at": "2026-11-24T10:00:00.000Z",
                 *         "updated_at": "2026-11-24T10:01:00.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PaymentCancelledEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onRefundCompleted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "refund.completed",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b",
                 *         "object": "refund",
                 *         "payment_id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                 *         "amount": 500,
                 *         "currency": "RWF",
                 *         "status": "completed",
                 *         "reason": "one item out of stock",
                 *         "failure_message": null,
                 *         "created_at": "2026-11-24T11:00:00.000Z",
                 *         "completed_at": "2026-11-24T11:00:01.000Z",
                 *         "balance_transaction": "txn_9Lm1No3Pq5Rs7Tu9Vw1Xy3Za",
                 *         "payment": {
                 *           "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                 *           "object": "payment",
                 *           "amount": 1500,
                 *           "amount_refunded": 500,
                 *           "amount_refund_pending": 0,
                 *           "currency": "RWF",
                 *           "status": "completed",
                 *           "payment_method": "mobile_money",
                 *           "provider": "momo",
                 *           "provider_receipt_number": "5729364812",
                 *           "description": "Order #1042",
                 *           "phone_number": "+250788123456",
                 *           "metadata": {
                 *             "order_id": "1042"
                 *           },
                 *           "failure_code": null,
                 *           "failure_message": null,
                 *           "cancellation_reason": null,
                 *           "checkout_session": null,
                 *           "next_action": null,
                 *           "environment": "sandbox",
                 *           "expires_at": "2026-11-24T10:10:00.000Z",
                 *           "pending_reason": null,
                 *           "decision_expected_by": null,
                 *           "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                 *           "reconciled_at": null,
                 *           "refundable": {
                 *             "allowed": true,
                 *             "partial": true,
                 *             "reason": null
                 *           },
                 *           "cancellable": {
                 *             "allowed": false,
                 *             "reason": "a completed payment cannot be cancelled; only pending and processing payments can"
                 *           },
                 *           "created_at": "2026-11-24T10:00:00.000Z",
                 *           "updated_at": "2026-11-24T11:00:01.000Z"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["RefundCompletedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onRefundFailed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "refund.failed",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "ref_5Tg9HjK3mN7pQ2rS6vW8xZ1b",
                 *         "object": "refund",
                 *         "payment_id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                 *         "amount": 500,
                 *         "currency": "RWF",
                 *         "status": "failed",
                 *         "reason": "one item out of stock",
                 *         "failure_message": "the provider refused the refund",
                 *         "created_at": "2026-11-24T11:00:00.000Z",
                 *         "completed_at": "2026-11-24T11:00:01.000Z",
                 *         "balance_transaction": null,
                 *         "payment": {
                 *           "id": "pay_7Hc2WqN5xR8tLm3Kd9PzYb4V",
                 *           "object": "payment",
                 *           "amount": 1500,
                 *           "amount_refunded": 0,
                 *           "amount_refund_pending": 0,
                 *           "currency": "RWF",
                 *           "status": "completed",
                 *           "payment_method": "mobile_money",
                 *           "provider": "momo",
                 *           "provider_receipt_number": "5729364812",
                 *           "description": "Order #1042",
                 *           "phone_number": "+250788123456",
                 *           "metadata": {
                 *             "order_id": "1042"
                 *           },
                 *           "failure_code": null,
                 *           "failure_message": null,
                 *           "cancellation_reason": null,
                 *           "checkout_session": null,
                 *           "next_action": null,
                 *           "environment": "sandbox",
                 *           "expires_at": "2026-11-24T10:10:00.000Z",
                 *           "pending_reason": null,
                 *           "decision_expected_by": null,
                 *           "balance_transaction": "txn_2Kp4Rt6Vx8Zb0Dc2Fe4Hg6Jk",
                 *           "reconciled_at": null,
                 *           "refundable": {
                 *             "allowed": true,
                 *             "partial": true,
                 *             "reason": null
                 *           },
                 *           "cancellable": {
                 *             "allowed": false,
                 *             "reason": "a completed payment cannot be cancelled; only pending and processing payments can"
                 *           },
                 *           "created_at": "2026-11-24T10:00:00.000Z",
                 *           "updated_at": "2026-11-24T10:00:04.000Z"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["RefundFailedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onWebhookCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "webhook.created",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op",
                 *         "object": "webhook",
                 *         "url": "https://shop.example.com/paycollect/webhooks",
                 *         "events": [
                 *           "payment.completed",
                 *           "payment.failed",
                 *           "refund.completed"
                 *         ],
                 *         "status": "enabled",
                 *         "failure_reason": null,
                 *         "description": "Order fulfilment",
                 *         "environment": "sandbox",
                 *         "previous_secret_expires_at": null,
                 *         "created_at": "2026-11-21T10:00:00.000Z",
                 *         "updated_at": "2026-11-21T10:00:00.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["WebhookCreatedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onPayoutCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "payout.created",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                 *         "object": "payout",
                 *         "amount": 50000,
                 *         "fee": 500,
                 *         "currency": "RWF",
                 *         "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                 *         "status": "pending",
                 *         "failure_code": null,
                 *         "failure_message": null,
                 *         "pending_reason": null,
                 *         "automatic": false,
                 *         "description": "Weekly takings",
                 *         "arrival_date": null,
                 *         "balance_transaction": "txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd",
                 *         "created_at": "2026-11-24T12:05:00.000Z",
                 *         "updated_at": "2026-11-24T12:05:01.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PayoutCreatedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onPayoutPaid: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "payout.paid",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                 *         "object": "payout",
                 *         "amount": 50000,
                 *         "fee": 500,
                 *         "currency": "RWF",
                 *         "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                 *         "status": "paid",
                 *         "failure_code": null,
                 *         "failure_message": null,
                 *         "pending_reason": null,
                 *         "automatic": false,
                 *         "description": "Weekly takings",
                 *         "arrival_date": "2026-11-24T12:05:01.000Z",
                 *         "balance_transaction": "txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd",
                 *         "created_at": "2026-11-24T12:05:00.000Z",
                 *         "updated_at": "2026-11-24T12:05:01.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PayoutPaidEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onPayoutFailed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "payout.failed",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                 *         "object": "payout",
                 *         "amount": 50000,
                 *         "fee": 500,
                 *         "currency": "RWF",
                 *         "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                 *         "status": "failed",
                 *         "failure_code": "account_invalid",
                 *         "failure_message": "The account does not exist",
                 *         "pending_reason": null,
                 *         "automatic": false,
                 *         "description": "Weekly takings",
                 *         "arrival_date": null,
                 *         "balance_transaction": "txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd",
                 *         "created_at": "2026-11-24T12:05:00.000Z",
                 *         "updated_at": "2026-11-24T12:05:01.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PayoutFailedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onPayoutReturned: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "payout.returned",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab",
                 *         "object": "payout",
                 *         "amount": 50000,
                 *         "fee": 500,
                 *         "currency": "RWF",
                 *         "destination": "dst_6Yt8Ui0Op2As4Df6Gh8Jk0Lz",
                 *         "status": "returned",
                 *         "failure_code": null,
                 *         "failure_message": null,
                 *         "pending_reason": null,
                 *         "automatic": false,
                 *         "description": "Weekly takings",
                 *         "arrival_date": "2026-11-24T12:05:01.000Z",
                 *         "balance_transaction": "txn_8Bn0Mq2Wr4Et6Yu8Io0Pa2Sd",
                 *         "created_at": "2026-11-24T12:05:00.000Z",
                 *         "updated_at": "2026-11-24T12:05:01.000Z"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PayoutReturnedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onCheckoutSessionCompleted: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "checkout.session.completed",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                 *         "object": "checkout.session",
                 *         "url": "https://api.paycollect.example/pay/cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                 *         "status": "complete",
                 *         "amount": 5000,
                 *         "currency": "RWF",
                 *         "description": "School fees, term 1",
                 *         "customer_phone": null,
                 *         "payment": "pay_2Kl4Mn6Op8Qr0St2Uv4Wx6Yz",
                 *         "payment_link": null,
                 *         "attempts_count": 1,
                 *         "locale": "en",
                 *         "expires_at": "2026-11-30T10:00:00.000Z",
                 *         "success_url": "https://school.example/paid",
                 *         "cancel_url": null,
                 *         "created_at": "2026-11-29T10:00:00.000Z",
                 *         "metadata": {
                 *           "student": "S-1042"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CheckoutSessionCompletedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onCheckoutSessionExpired: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "checkout.session.expired",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "id": "cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                 *         "object": "checkout.session",
                 *         "url": "https://api.paycollect.example/pay/cs_4Nn6Pq8Rs0Tu2Vw4Xy6Za8Bc",
                 *         "status": "expired",
                 *         "amount": 5000,
                 *         "currency": "RWF",
                 *         "description": "School fees, term 1",
                 *         "customer_phone": null,
                 *         "payment": null,
                 *         "payment_link": null,
                 *         "attempts_count": 0,
                 *         "locale": "en",
                 *         "expires_at": "2026-11-30T10:00:00.000Z",
                 *         "success_url": "https://school.example/paid",
                 *         "cancel_url": null,
                 *         "created_at": "2026-11-29T10:00:00.000Z",
                 *         "metadata": {
                 *           "student": "S-1042"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CheckoutSessionExpiredEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onProviderStatusChanged: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "provider.status_changed",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "provider": "momo",
                 *         "country": "RW",
                 *         "operation": "collection",
                 *         "status": "degraded",
                 *         "previous_status": "operational",
                 *         "since": "2026-11-24T10:00:00.000Z",
                 *         "reason": "34 % provider failures in the last 50 attempts, p95 41 s",
                 *         "success_rate": 0.52,
                 *         "window_attempts": 50
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ProviderStatusChangedEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onWebhookTest: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`), the same on every attempt and retry */
                "webhook-id": string;
                /** @description Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock */
                "webhook-timestamp": string;
                /** @description Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first. */
                "webhook-signature": string;
                /** @description The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches. */
                "X-Webhook-Signature": string;
                /** @description Always `paycollect-webhooks/1.0` */
                "User-Agent": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_4Zq8rT2mWc9LbX1yHn7KpD3s",
                 *       "event": "webhook.test",
                 *       "created_at": "2026-11-24T10:00:04.000Z",
                 *       "data": {
                 *         "webhook_id": "whk_2Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["WebhookTestEvent"];
            };
        };
        responses: {
            /** @description Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
