// `node:timers`: the same timers as the globals.
export { setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate, promises } from "paseo:internal/timers";
import * as timers from "paseo:internal/timers";
export default { ...timers };
