/**
 * The layer rule of docs/architecture.md#layers, enforced by eslint (eslint.config.mjs,
 * eslint-plugin-boundaries): fixtures placed at paths inside src/ import a layer above them (the
 * linter must refuse) or below them (it must accept). The imported modules are real files, so the
 * resolver classifies them exactly as it does the source tree.
 */
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '../..');

interface Fixture {
  /** Where the fixture pretends to live, relative to the repository. */
  at: string;
  code: string;
}

const UPWARD: Fixture[] = [
  { at: 'src/domain/layer-fixture.ts', code: "import { createDb } from '../db/knex';\nexport const db = createDb;\n" },
  { at: 'src/domain/layer-fixture.ts', code: "import type { Config } from '../config';\nexport type C = Config;\n" },
  { at: 'src/db/layer-fixture.ts', code: "import { newId } from '../lib/ids';\nexport const id = newId;\n" },
  { at: 'src/lib/layer-fixture.ts', code: "import type { Db } from '../db/knex';\nexport type D = Db;\n" },
  {
    at: 'src/activities/layer-fixture.ts',
    code: "import { registerDeveloper } from '../services/auth-service';\nexport const f = registerDeveloper;\n",
  },
  {
    at: 'src/services/layer-fixture.ts',
    code: "import { createApp } from '../api/app';\nexport const f = createApp;\n",
  },
  {
    at: 'src/workflows/layer-fixture.ts',
    code: "import type { Activities } from '../activities';\nexport type A = Activities;\n",
  },
  {
    at: 'src/providers/momo/layer-fixture.ts',
    code: "import { createDb } from '../../db/knex';\nexport const f = createDb;\n",
  },
  {
    at: 'src/api/routes/layer-fixture.ts',
    code: "import { createDb } from '../../db/knex';\nexport const f = createDb;\n",
  },
  {
    at: 'src/api/routes/layer-fixture.ts',
    code: "import type { EventRecord } from '../../db/events';\nexport type E = EventRecord;\n",
  },
  {
    at: 'src/views/layer-fixture.ts',
    code: "import { getPayment } from '../services/payment-service';\nexport const f = getPayment;\n",
  },
  { at: 'src/views/layer-fixture.ts', code: "import { createApp } from '../api/app';\nexport const f = createApp;\n" },
  {
    at: 'src/views/layer-fixture.ts',
    code: "import type { EventRecord } from '../db/events';\nexport type E = EventRecord;\n",
  },
  {
    at: 'src/views/layer-fixture.ts',
    code: "import { createPaymentActivities } from '../activities/payment-activities';\nexport const f = createPaymentActivities;\n",
  },
  {
    at: 'src/db/layer-fixture.ts',
    code: "import { toGenericPaymentView } from '../views/payment';\nexport const f = toGenericPaymentView;\n",
  },
  {
    at: 'src/domain/layer-fixture.ts',
    code: "import type { GenericPaymentView } from '../views/payment';\nexport type V = GenericPaymentView;\n",
  },
  // A provider's pure descriptor is domain code: it may not reach its own adapter's HTTP code, nor may domain or
  // workflows reach the adapter.
  {
    at: 'src/providers/momo/descriptor.ts',
    code: "import { providerHttp } from '../http';\nexport const f = providerHttp;\n",
  },
  {
    at: 'src/domain/layer-fixture.ts',
    code: "import { createMomoProvider } from '../providers/momo/adapter';\nexport const f = createMomoProvider;\n",
  },
  {
    at: 'src/workflows/layer-fixture.ts',
    code: "import { provider } from '../providers/momo';\nexport const f = provider;\n",
  },
];

const DOWNWARD: Fixture[] = [
  { at: 'src/services/layer-fixture.ts', code: "import { createDb } from '../db/knex';\nexport const f = createDb;\n" },
  { at: 'src/api/routes/layer-fixture.ts', code: "import type { Db } from '../../db/knex';\nexport type D = Db;\n" },
  {
    at: 'src/api/routes/layer-fixture.ts',
    code: "import { registerDeveloper } from '../../services/auth-service';\nexport const f = registerDeveloper;\n",
  },
  {
    at: 'src/workflows/layer-fixture.ts',
    code: "import { paymentWorkflowId } from './messages';\nexport const f = paymentWorkflowId;\n",
  },
  {
    at: 'src/activities/layer-fixture.ts',
    code: "import { paymentWorkflowId } from '../workflows/messages';\nexport const f = paymentWorkflowId;\n",
  },
  {
    at: 'src/domain/layer-fixture.ts',
    code: "import { CURRENCY_EXPONENTS } from './money';\nexport const f = CURRENCY_EXPONENTS;\n",
  },
  {
    at: 'src/services/layer-fixture.ts',
    code: "import { toGenericPaymentView } from '../views/payment';\nexport const f = toGenericPaymentView;\n",
  },
  {
    at: 'src/activities/layer-fixture.ts',
    code: "import { toGenericPaymentView } from '../views/payment';\nexport const f = toGenericPaymentView;\n",
  },
  {
    at: 'src/api/routes/layer-fixture.ts',
    code: "import { toGenericPaymentView } from '../../views/payment';\nexport const f = toGenericPaymentView;\n",
  },
  {
    at: 'src/views/layer-fixture.ts',
    code: "import { toRefundView } from './refund';\nexport const f = toRefundView;\n",
  },
  {
    at: 'src/views/layer-fixture.ts',
    code: "import { CURRENCY_EXPONENTS } from '../domain/money';\nexport const f = CURRENCY_EXPONENTS;\n",
  },
  {
    at: 'src/domain/layer-fixture.ts',
    code: "import { PROVIDER_DESCRIPTORS } from '../providers/descriptors';\nexport const f = PROVIDER_DESCRIPTORS;\n",
  },
  {
    at: 'src/workflows/layer-fixture.ts',
    code: "import { descriptor } from '../providers/momo/descriptor';\nexport const f = descriptor;\n",
  },
];

/** The boundaries messages eslint reports for `fixture`, linted as if it were the file at `fixture.at`. */
async function layerErrors(eslint: ESLint, fixture: Fixture): Promise<string[]> {
  const [result] = await eslint.lintText(fixture.code, { filePath: path.join(ROOT, fixture.at) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId?.startsWith('boundaries/'))
    .map((message) => message.message);
}

describe('layer rule (docs/architecture.md#layers)', function () {
  this.timeout(120_000);
  const eslint = new ESLint({ cwd: ROOT });

  for (const fixture of UPWARD) {
    it(`refuses ${fixture.code.split('\n')[0]} in ${fixture.at}`, async () => {
      const errors = await layerErrors(eslint, fixture);
      expect(errors, 'the linter accepted an upward import').to.have.length(1);
      expect(errors[0]).to.match(/There is no policy allowing dependencies/);
    });
  }

  for (const fixture of DOWNWARD) {
    it(`accepts ${fixture.code.split('\n')[0]} in ${fixture.at}`, async () => {
      expect(await layerErrors(eslint, fixture)).to.deep.equal([]);
    });
  }
});
