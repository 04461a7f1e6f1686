/**
 * zod, extended with `.openapi()` before any schema exists: zod 4 attaches methods when a schema is
 * created, so request and response schemas that the OpenAPI document (docs/api.md#health) reads must import `z`
 * from here rather than from 'zod'.
 */
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
