// node:assert/strict: node:assert in strict mode (equal is strictEqual, deepEqual is deepStrictEqual, …).
import { strict } from "node:assert";

export const {
  AssertionError, CallTracker, ok, fail, equal, notEqual, deepEqual, notDeepEqual, deepStrictEqual, notDeepStrictEqual,
  strictEqual, notStrictEqual, throws, rejects, doesNotThrow, doesNotReject, ifError, match, doesNotMatch,
} = strict;
export { strict };
export default strict;
