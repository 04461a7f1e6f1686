/**
 * The shapes the dashboard reads from the `/v1` API (documented at `/v1/openapi.json`); amounts in
 * minor units, times ISO 8601 UTC.
 */
import type { Environment } from './api';

export const PAYMENT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled', 'refunded'] as const;
export const PAYMENT_METHODS = ['mobile_money', 'bank_transfer', 'card', 'card_gateway', 'momo', 'mobile_money_b', 'mobile_money_c', 'wallet'] as const;
export const EVENT_NAMES = ['payment.created', 'payment.completed', 'payment.failed', 'payment.cancelled', 'refund.completed', 'webhook.created'] as const;

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  as_of?: string;
}

export interface Developer {
  id: string;
  merchant_id: string;
  email: string;
  name: string;
  business_name: string | null;
  plan: string;
  has_live_access: boolean;
  created_at: string;
}

export interface Profile extends Developer {
  country: string | null;
  phone: string | null;
}

export interface Transaction {
  id: string;
  type: 'payment' | 'refund';
  payment_id: string;
  amount: number;
  currency: string;
  fee: number;
  net: number;
  status: string;
  payment_method: string;
  customer: string | null;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface Payment {
  id: string;
  amount: number;
  amount_refunded: number;
  currency: string;
  status: string;
  payment_method: string;
  provider: string;
  description: string | null;
  phone_number?: string;
  customer_email?: string;
  wallet_id?: string;
  metadata: Record<string, string>;
  failure_code: string | null;
  failure_message: string | null;
  cancellation_reason: string | null;
  next_action: Record<string, string> | null;
  environment: Environment;
  expires_at: string;
  reconciled_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface Refund {
  id: string;
  payment_id: string;
  amount: number;
  currency: string;
  status: 'pending' | 'completed' | 'failed';
  reason: string | null;
  failure_message: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface DeliveryAttempt {
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
}

export interface Delivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  retry_of: string | null;
  created_at: string;
  updated_at: string;
  attempts: DeliveryAttempt[];
}

export interface StatusChange {
  at: string;
  from: string | null;
  to: string;
  source: 'create' | 'provider_callback' | 'poll' | 'expiry' | 'merchant' | 'reconciliation';
  failure_code: string | null;
  failure_message: string | null;
}

export interface PaymentDetail {
  payment: Payment;
  fee: number;
  net: number;
  provider_reference: string | null;
  refunds: Refund[];
  status_changes: StatusChange[];
  history_available: boolean;
  events: { id: string; event: string; created_at: string; deliveries: Delivery[] }[];
  next_provider_check: { at: string; reason: 'poll' | 'expiry' | 'refund_check' } | null;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  status: string;
  description: string | null;
  environment: Environment;
  created_at: string;
  updated_at: string;
}

export interface KeySummary {
  id: string;
  environment: Environment;
  masked: string;
  last4: string;
  status: 'active' | 'expiring' | 'expired' | 'revoked';
  created_at: string;
  expires_at: string | null;
}

export interface DocumentView {
  id: string;
  category: 'kyc' | 'business';
  document_type: string;
  side: 'front' | 'back' | null;
  file_name: string;
  content_type: string;
  size: number;
  uploaded_at: string;
}

export interface LiveAccessStatus {
  status: 'none' | 'pending' | 'approved' | 'rejected';
  has_live_access: boolean;
  live_access_request?: {
    id: string;
    status: 'under_review' | 'more_info_required' | 'approved' | 'rejected';
    requested_at: string;
    decided_at?: string;
    reviewer_message?: string;
  };
}

export interface Analytics {
  from: string;
  to: string;
  volume_by_currency: { currency: string; completed_volume: number; refunded_volume: number; fees: number; net: number }[];
  count_by_status: Record<string, number>;
  count_by_method: Record<string, number>;
  success_rate: number | null;
  daily: { date: string; currency: string; payments: number; completed: number; completed_volume: number; fees?: number }[];
}

export interface ActivityEntry {
  id: string;
  actor: { type: string; id: string };
  action: string;
  target: string;
  ip: string | null;
  created_at: string;
}
