// Default and configured high-water marks.
// Derived from Node.js lib/internal/streams/state.js: Copyright Joyent, Inc. and other Node contributors.
// MIT licence; the notice is in NOTICE. Ported to ES modules for the Paseo plugin host.
import { E } from "../../internal_errors.js";

let defaultHwmBytes = 16 * 1024;
let defaultHwmObjects = 16;
export function getDefaultHighWaterMark(objectMode) {
  return objectMode ? defaultHwmObjects : defaultHwmBytes;
}
export function setDefaultHighWaterMark(objectMode, value) {
  if (!Number.isInteger(value) || value < 0) throw E.invalidArgValue("value", value);
  if (objectMode) defaultHwmObjects = value;
  else defaultHwmBytes = value;
}
function getHighWaterMark(state, options, duplexKey, isDuplex) {
  const hwm = options.highWaterMark != null ? options.highWaterMark : isDuplex ? options[duplexKey] : null;
  if (hwm != null) {
    if (!Number.isInteger(hwm) || hwm < 0) throw E.invalidArgValue(isDuplex ? `options.${duplexKey}` : "options.highWaterMark", hwm);
    return Math.floor(hwm);
  }
  return getDefaultHighWaterMark(state.objectMode);
}

export { defaultHwmBytes, defaultHwmObjects, getHighWaterMark };
