/**
 * Every provider's descriptor (docs/providers.md#new-provider), one line each: the catalogue, the fee
 * schedule, the prefix table, the provider codes and the API's enums derive from this list. Pure, so
 * domain and workflow code import it. Order is the API's order of methods (list B) and of operators.
 */
import { descriptor as bankTransfer } from './bank_transfer/descriptor';
import { descriptor as cardGateway } from './stripe/descriptor';
import { descriptor as mobileMoneyB } from './airtel/descriptor';
import { descriptor as mobileMoneyC } from './mobile_money_c/descriptor';
import { descriptor as momo } from './momo/descriptor';
import { descriptor as mpesa } from './mpesa/descriptor';
import { descriptor as orange } from './orange/descriptor';
import { descriptor as vodacom } from './vodacom/descriptor';
import { descriptor as wallet } from './wallet/descriptor';
import { descriptor as wave } from './wave/descriptor';

/** The providers' pure descriptors. */
export const PROVIDER_DESCRIPTORS = [
  cardGateway,
  momo,
  mobileMoneyB,
  mpesa,
  orange,
  vodacom,
  wave,
  mobileMoneyC,
  wallet,
  bankTransfer,
] as const;
