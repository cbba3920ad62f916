// The JSON-object test, defined once in the innermost layer (src/schema/json.ts).
export { isRecord } from '../schema/json.ts';
