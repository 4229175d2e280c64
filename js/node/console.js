// `node:console`: the global console (Node's module is that very object), its methods as named
// exports, and `Console` for a console over streams of one's own.
import { console, Console } from "paseo:internal/console";

export default console;
export { Console };
export const {
  log, warn, dir, time, timeEnd, timeLog, trace, assert, clear, count, countReset, group, groupEnd,
  table, debug, info, dirxml, error, groupCollapsed, profile, profileEnd, timeStamp,
} = console;
