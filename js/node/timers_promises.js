// `node:timers/promises`.
import { promises } from "paseo:internal/timers";
export const { setTimeout, setImmediate, setInterval, scheduler } = promises;
export default promises;
