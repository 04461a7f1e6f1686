/** Every workflow the worker runs (the bundle's entry point). */
export { paymentWorkflow } from './payment-workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery-workflow';
