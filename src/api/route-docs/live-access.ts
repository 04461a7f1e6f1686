/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Documents and the live-
 * access review.
 */
import { z } from '../../lib/zod';
import * as out from '../../views';
import * as example from '../schemas/examples';
import type { CodeDoc } from '../schemas/error-docs';
import type { ErrorCode } from '../../domain/errors';
import { kycUploadFields, businessUploadFields } from '../schemas/documents';
import { liveAccessRequestBody, respondBody } from '../schemas/live-access';
import { listAnswer, answer, documentFile, type RouteDoc } from './shared';

/** Why an upload is refused (docs/live-access.md#documents): its type, its size, or the account's quota. */
const UPLOAD_CODES: (ErrorCode | CodeDoc)[] = [
  'unsupported_file_type',
  'file_too_large',
  {
    code: 'conflict',
    when: 'Your account holds as many documents as it may; see the upload limits.',
    message: 'this account has reached its document quota',
  },
];

/** Documents and the live-access review. */
export const liveAccessRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/documents/upload/kyc',
    operationId: 'uploadIdentityDocument',
    tag: 'Live access',
    summary: 'Upload an identity document',
    description:
      "A passport, a driver's licence, or one side of a national ID (`side` `front` or `back`), as a PDF, JPEG or PNG of at most 10 MB. Replaces the current document of its type and side.",
    security: ['session'],
    body: z.object({
      document: documentFile,
      document_type: kycUploadFields.shape.document_type,
      side: kycUploadFields.shape.side,
    }),
    bodyContentType: 'multipart/form-data',
    bodyExample: { document: '(file contents)', document_type: 'passport' },
    success: answer('The stored document', out.document, 'Document uploaded', example.document, 201),
    codes: UPLOAD_CODES,
  },
  {
    method: 'post',
    path: '/v1/documents/upload/business',
    operationId: 'uploadBusinessDocument',
    tag: 'Live access',
    summary: 'Upload a business document',
    description:
      'A business registration certificate (the default `document_type`), a tax identification or a business licence, as a PDF, JPEG or PNG of at most 10 MB. Replaces the current document of its type.',
    security: ['session'],
    body: z.object({ document: documentFile, document_type: businessUploadFields.shape.document_type }),
    bodyContentType: 'multipart/form-data',
    bodyExample: { document: '(file contents)', document_type: 'business_registration' },
    success: answer(
      'The stored document',
      out.document,
      'Document uploaded',
      {
        ...example.document,
        category: 'business',
        document_type: 'business_registration',
        file_name: 'certificate.pdf',
      },
      201,
    ),
    codes: UPLOAD_CODES,
  },
  {
    method: 'get',
    path: '/v1/documents',
    operationId: 'listDocuments',
    tag: 'Live access',
    summary: 'List uploaded documents',
    security: ['session'],
    success: listAnswer('Documents', 'documents', out.document, 'Your uploaded documents', example.document),
  },
  {
    method: 'post',
    path: '/v1/developer/live-access/request',
    operationId: 'requestLiveAccess',
    tag: 'Live access',
    summary: 'Request live access',
    description:
      "Starts the review of your business for live payments. Needs an identity document (a passport, a driver's licence, or both sides of a national ID) and a business registration certificate uploaded first; one request at a time.",
    security: ['session'],
    body: liveAccessRequestBody,
    bodyExample: {
      business_name: 'Kigali Books',
      business_type: 'e_commerce',
      business_website: 'https://kigalibooks.example.com',
      expected_monthly_volume: 5000000,
      use_case: 'Online book shop collecting mobile money and card payments in Rwanda',
      compliance_acknowledged: true,
    },
    success: answer(
      'The request, under review',
      out.liveAccessStatus,
      'Live access requested',
      example.liveAccessStatus,
      201,
    ),
    codes: [
      {
        code: 'documents_missing',
        details: [{ field: 'business_registration', message: 'upload a business registration certificate' }],
      },
      {
        code: 'conflict',
        when: 'Live access is granted already, or a request is still open.',
        message: 'live access is already granted to this account',
      },
    ],
  },
  {
    method: 'get',
    path: '/v1/developer/live-access/status',
    operationId: 'retrieveLiveAccessStatus',
    tag: 'Live access',
    summary: 'Live access status',
    security: ['session'],
    success: answer('The status', out.liveAccessStatus, 'Live access status retrieved', example.liveAccessStatus),
  },
  {
    method: 'post',
    path: '/v1/developer/live-access/respond',
    operationId: 'respondToLiveAccessReview',
    tag: 'Live access',
    summary: 'Answer the reviewers',
    description: "Answers the reviewers' question when the request is `more_info_required`; the review then resumes.",
    security: ['session'],
    body: respondBody,
    bodyExample: { message: 'Our business registration number is 108234567; the certificate is uploaded.' },
    success: answer(
      'Recorded; the review resumed',
      out.liveAccessStatus,
      'Response received; the review resumed',
      example.liveAccessStatus,
    ),
    otherSuccess: [{ status: 202, description: 'Recorded; the review resumes shortly' }],
    codes: [
      {
        code: 'conflict',
        when: 'No request is waiting for information from you.',
        message: 'no live access request is waiting for information from you (the request is under_review)',
      },
    ],
  },
  {
    method: 'post',
    path: '/v1/developer/live-access/live-key',
    operationId: 'revealLiveKey',
    tag: 'Live access',
    summary: 'Reveal your first live key',
    description:
      'Answers the live secret key created when live access was approved, once: store it. Roll the live keys for a new one. Takes no body; one sent must be JSON, as on every endpoint.',
    security: ['session'],
    success: answer(
      'The live key; never shown again',
      out.revealedKey,
      'Live key revealed; it is not shown again',
      example.revealedKey,
    ),
    errors: [400, 404],
    codes: [
      {
        code: 'not_found',
        when: 'Live access has not been approved.',
        message: 'no live key yet: live access has not been approved',
      },
      {
        code: 'conflict',
        when: 'The live key was revealed already.',
        message: 'the live key was already revealed; it is shown only once (roll it for a new one)',
      },
    ],
  },
];
