#!/usr/bin/env node
// `npx paycollect <command>` from the checkout (package.json "bin"): runs src/cli/paycollect.ts
// through tsx's CommonJS loader in this very process, so Ctrl-C reaches the command directly.
'use strict';
const path = require('node:path');
const tsx = require('tsx/cjs/api');

tsx.require(path.join(__dirname, '..', 'src', 'cli', 'paycollect.ts'), __filename).main();
