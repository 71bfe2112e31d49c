// Writes schemas/active_intents.schema.json (contributed through `yamlValidation`) from
// `intent-ls schema`, so the extension ships the schema of the validator it runs against.
// The program is `$INTENT_LS` when set (e.g. a virtualenv's bin/intent-ls), else
// `intent-ls` on PATH; the build fails with the reason when it cannot produce a schema.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

const program = process.env.INTENT_LS || 'intent-ls';
const target = new URL('../schemas/active_intents.schema.json', import.meta.url);

function fail(reason) {
  console.error(`schema: cannot generate schemas/active_intents.schema.json: ${reason}`);
  console.error('schema: install intent-ls with the `schema` verb (or set INTENT_LS to it) and rebuild');
  process.exit(1);
}

let text;
try {
  text = execFileSync(program, ['schema'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
} catch (error) {
  const stderr = error.stderr ? String(error.stderr).trim() : '';
  fail(`\`${program} schema\` failed: ${stderr || error.message}`);
}
let schema;
try {
  schema = JSON.parse(text);
} catch (error) {
  fail(`\`${program} schema\` did not print JSON (${error.message})`);
}
if (typeof schema !== 'object' || schema === null || !('$schema' in schema)) {
  fail(`\`${program} schema\` printed JSON without a "$schema" key`);
}
mkdirSync(new URL('../schemas/', import.meta.url), { recursive: true });
writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`schema: wrote schemas/active_intents.schema.json from ${program} schema`);
