// node:path — pure-JS port of Node's POSIX path implementation.
// Derived from Node.js lib/path.js: Copyright Joyent, Inc. and other Node contributors. MIT
// licence; the notice is in NOTICE.
// Standalone ES module: no imports; only ECMAScript built-ins are used.

const CHAR_DOT = 46;
const CHAR_FORWARD_SLASH = 47;

// Approximation of Node's `determineSpecificType` (the "Received ..." part).
function describeReceived(value) {
  if (value == null) return `${value}`;
  if (typeof value === "function") return `function ${value.name}`;
  if (typeof value === "object") {
    if (value.constructor?.name) return `an instance of ${value.constructor.name}`;
    return `[Object: null prototype]${Reflect.ownKeys(value).length === 0 ? " {}" : ""}`;
  }
  let shown;
  if (typeof value === "string") shown = `'${value.length > 28 ? `${value.slice(0, 25)}...` : value}'`;
  else if (typeof value === "bigint") shown = `${value}n`;
  else if (Object.is(value, -0)) shown = "-0";
  else shown = String(value);
  return `type ${typeof value} (${shown})`;
}

function invalidArgType(name, expected, actual) {
  const kind = name.includes(".") ? "property" : "argument";
  const err = new TypeError(
    `The "${name}" ${kind} must be ${expected}. Received ${describeReceived(actual)}`,
  );
  err.code = "ERR_INVALID_ARG_TYPE";
  return err;
}

function validateString(value, name) {
  if (typeof value !== "string") throw invalidArgType(name, "of type string", value);
}

// Resolves "." and ".." segments; the core of normalize/resolve.
function normalizeString(path, allowAboveRoot) {
  let res = "";
  let lastSegmentLength = 0;
  let lastSlash = -1;
  let dots = 0;
  let code = 0;
  for (let i = 0; i <= path.length; ++i) {
    if (i < path.length) code = path.charCodeAt(i);
    else if (code === CHAR_FORWARD_SLASH) break;
    else code = CHAR_FORWARD_SLASH;

    if (code === CHAR_FORWARD_SLASH) {
      if (lastSlash === i - 1 || dots === 1) {
        // Empty segment or ".": nothing to add.
      } else if (dots === 2) {
        if (res.length < 2 || lastSegmentLength !== 2 ||
            res.charCodeAt(res.length - 1) !== CHAR_DOT ||
            res.charCodeAt(res.length - 2) !== CHAR_DOT) {
          if (res.length > 2) {
            const lastSlashIndex = res.lastIndexOf("/");
            if (lastSlashIndex === -1) {
              res = "";
              lastSegmentLength = 0;
            } else {
              res = res.slice(0, lastSlashIndex);
              lastSegmentLength = res.length - 1 - res.lastIndexOf("/");
            }
            lastSlash = i;
            dots = 0;
            continue;
          } else if (res.length !== 0) {
            res = "";
            lastSegmentLength = 0;
            lastSlash = i;
            dots = 0;
            continue;
          }
        }
        if (allowAboveRoot) {
          res += res.length > 0 ? "/.." : "..";
          lastSegmentLength = 2;
        }
      } else {
        if (res.length > 0) res += `/${path.slice(lastSlash + 1, i)}`;
        else res = path.slice(lastSlash + 1, i);
        lastSegmentLength = i - lastSlash - 1;
      }
      lastSlash = i;
      dots = 0;
    } else if (code === CHAR_DOT && dots !== -1) {
      ++dots;
    } else {
      dots = -1;
    }
  }
  return res;
}

function cwd() {
  return globalThis.process?.cwd?.() ?? "/";
}

export const sep = "/";
export const delimiter = ":";

export function resolve(...args) {
  let resolvedPath = "";
  let resolvedAbsolute = false;
  // Walk right-to-left until an absolute path is found; fall back to cwd.
  for (let i = args.length - 1; i >= -1 && !resolvedAbsolute; i--) {
    const path = i >= 0 ? args[i] : cwd();
    validateString(path, `paths[${i}]`);
    if (path.length === 0) continue;
    resolvedPath = `${path}/${resolvedPath}`;
    resolvedAbsolute = path.charCodeAt(0) === CHAR_FORWARD_SLASH;
  }
  resolvedPath = normalizeString(resolvedPath, !resolvedAbsolute);
  if (resolvedAbsolute) return `/${resolvedPath}`;
  return resolvedPath.length > 0 ? resolvedPath : ".";
}

export function normalize(path) {
  validateString(path, "path");
  if (path.length === 0) return ".";
  const absolute = path.charCodeAt(0) === CHAR_FORWARD_SLASH;
  const trailingSeparator = path.charCodeAt(path.length - 1) === CHAR_FORWARD_SLASH;
  path = normalizeString(path, !absolute);
  if (path.length === 0) {
    if (absolute) return "/";
    return trailingSeparator ? "./" : ".";
  }
  if (trailingSeparator) path += "/";
  return absolute ? `/${path}` : path;
}

export function isAbsolute(path) {
  validateString(path, "path");
  return path.length > 0 && path.charCodeAt(0) === CHAR_FORWARD_SLASH;
}

export function join(...args) {
  if (args.length === 0) return ".";
  let joined;
  for (const arg of args) {
    validateString(arg, "path");
    if (arg.length > 0) joined = joined === undefined ? arg : `${joined}/${arg}`;
  }
  return joined === undefined ? "." : normalize(joined);
}

export function relative(from, to) {
  validateString(from, "from");
  validateString(to, "to");
  if (from === to) return "";
  from = resolve(from);
  to = resolve(to);
  if (from === to) return "";

  // Both are absolute now; skip the leading "/".
  const fromStart = 1;
  const fromEnd = from.length;
  const fromLen = fromEnd - fromStart;
  const toStart = 1;
  const toLen = to.length - toStart;
  const length = fromLen < toLen ? fromLen : toLen;
  let lastCommonSep = -1;
  let i = 0;
  for (; i < length; i++) {
    const fromCode = from.charCodeAt(fromStart + i);
    if (fromCode !== to.charCodeAt(toStart + i)) break;
    else if (fromCode === CHAR_FORWARD_SLASH) lastCommonSep = i;
  }
  if (i === length) {
    if (toLen > length) {
      // `from` is a prefix of `to` ("/foo/bar" -> "/foo/bar/baz", or "/" -> "/foo").
      if (to.charCodeAt(toStart + i) === CHAR_FORWARD_SLASH) return to.slice(toStart + i + 1);
      if (i === 0) return to.slice(toStart + i);
    } else if (fromLen > length) {
      // `to` is a prefix of `from`.
      if (from.charCodeAt(fromStart + i) === CHAR_FORWARD_SLASH) lastCommonSep = i;
      else if (i === 0) lastCommonSep = 0;
    }
  }
  let out = "";
  // One ".." for every remaining segment of `from` after the common part.
  for (i = fromStart + lastCommonSep + 1; i <= fromEnd; ++i) {
    if (i === fromEnd || from.charCodeAt(i) === CHAR_FORWARD_SLASH) {
      out += out.length === 0 ? ".." : "/..";
    }
  }
  return `${out}${to.slice(toStart + lastCommonSep)}`;
}

export function toNamespacedPath(path) {
  return path; // No-op on POSIX.
}

export function dirname(path) {
  validateString(path, "path");
  if (path.length === 0) return ".";
  const hasRoot = path.charCodeAt(0) === CHAR_FORWARD_SLASH;
  let end = -1;
  let matchedSlash = true;
  for (let i = path.length - 1; i >= 1; --i) {
    if (path.charCodeAt(i) === CHAR_FORWARD_SLASH) {
      if (!matchedSlash) {
        end = i;
        break;
      }
    } else {
      matchedSlash = false; // Past the trailing slashes.
    }
  }
  if (end === -1) return hasRoot ? "/" : ".";
  if (hasRoot && end === 1) return "//";
  return path.slice(0, end);
}

export function basename(path, suffix) {
  if (suffix !== undefined) validateString(suffix, "suffix");
  validateString(path, "path");
  let start = 0;
  let end = -1;
  let matchedSlash = true;

  if (suffix !== undefined && suffix.length > 0 && suffix.length <= path.length) {
    if (suffix === path) return "";
    let extIdx = suffix.length - 1;
    let firstNonSlashEnd = -1;
    for (let i = path.length - 1; i >= 0; --i) {
      const code = path.charCodeAt(i);
      if (code === CHAR_FORWARD_SLASH) {
        if (!matchedSlash) {
          start = i + 1;
          break;
        }
      } else {
        if (firstNonSlashEnd === -1) {
          matchedSlash = false;
          firstNonSlashEnd = i + 1;
        }
        if (extIdx >= 0) {
          // Try to match the suffix from the end of the name.
          if (code === suffix.charCodeAt(extIdx)) {
            if (--extIdx === -1) end = i;
          } else {
            extIdx = -1;
            end = firstNonSlashEnd;
          }
        }
      }
    }
    if (start === end) end = firstNonSlashEnd;
    else if (end === -1) end = path.length;
    return path.slice(start, end);
  }

  for (let i = path.length - 1; i >= 0; --i) {
    if (path.charCodeAt(i) === CHAR_FORWARD_SLASH) {
      if (!matchedSlash) {
        start = i + 1;
        break;
      }
    } else if (end === -1) {
      matchedSlash = false;
      end = i + 1;
    }
  }
  if (end === -1) return "";
  return path.slice(start, end);
}

export function extname(path) {
  validateString(path, "path");
  let startDot = -1;
  let startPart = 0;
  let end = -1;
  let matchedSlash = true;
  // preDotState: 0 = no non-dot char seen before the dot, 1 = only dots, -1 = other chars.
  let preDotState = 0;
  for (let i = path.length - 1; i >= 0; --i) {
    const code = path.charCodeAt(i);
    if (code === CHAR_FORWARD_SLASH) {
      if (!matchedSlash) {
        startPart = i + 1;
        break;
      }
      continue;
    }
    if (end === -1) {
      matchedSlash = false;
      end = i + 1;
    }
    if (code === CHAR_DOT) {
      if (startDot === -1) startDot = i;
      else if (preDotState !== 1) preDotState = 1;
    } else if (startDot !== -1) {
      preDotState = -1;
    }
  }
  if (startDot === -1 || end === -1 || preDotState === 0 ||
      // ".." has no extension.
      (preDotState === 1 && startDot === end - 1 && startDot === startPart + 1)) {
    return "";
  }
  return path.slice(startDot, end);
}

export function format(pathObject) {
  if (pathObject === null || typeof pathObject !== "object" || Array.isArray(pathObject)) {
    throw invalidArgType("pathObject", "of type object", pathObject);
  }
  const dir = pathObject.dir || pathObject.root;
  const ext = pathObject.ext ? `${pathObject.ext[0] === "." ? "" : "."}${pathObject.ext}` : "";
  const base = pathObject.base || `${pathObject.name || ""}${ext}`;
  if (!dir) return base;
  return dir === pathObject.root ? `${dir}${base}` : `${dir}/${base}`;
}

export function parse(path) {
  validateString(path, "path");
  const ret = { root: "", dir: "", base: "", ext: "", name: "" };
  if (path.length === 0) return ret;
  const absolute = path.charCodeAt(0) === CHAR_FORWARD_SLASH;
  let start;
  if (absolute) {
    ret.root = "/";
    start = 1;
  } else {
    start = 0;
  }
  let startDot = -1;
  let startPart = 0;
  let end = -1;
  let matchedSlash = true;
  let i = path.length - 1;
  let preDotState = 0; // See extname().
  for (; i >= start; --i) {
    const code = path.charCodeAt(i);
    if (code === CHAR_FORWARD_SLASH) {
      if (!matchedSlash) {
        startPart = i + 1;
        break;
      }
      continue;
    }
    if (end === -1) {
      matchedSlash = false;
      end = i + 1;
    }
    if (code === CHAR_DOT) {
      if (startDot === -1) startDot = i;
      else if (preDotState !== 1) preDotState = 1;
    } else if (startDot !== -1) {
      preDotState = -1;
    }
  }
  if (end !== -1) {
    const nameStart = startPart === 0 && absolute ? 1 : startPart;
    if (startDot === -1 || preDotState === 0 ||
        (preDotState === 1 && startDot === end - 1 && startDot === startPart + 1)) {
      ret.base = ret.name = path.slice(nameStart, end);
    } else {
      ret.name = path.slice(nameStart, startDot);
      ret.base = path.slice(nameStart, end);
      ret.ext = path.slice(startDot, end);
    }
  }
  if (startPart > 0) ret.dir = path.slice(0, startPart - 1);
  else if (absolute) ret.dir = "/";
  return ret;
}

export function matchesGlob(_path, _pattern) {
  throw new Error("node:path.matchesGlob is not supported by the Paseo plugin host");
}

const path = {
  sep,
  delimiter,
  resolve,
  normalize,
  isAbsolute,
  join,
  relative,
  toNamespacedPath,
  dirname,
  basename,
  extname,
  format,
  parse,
  matchesGlob,
  _makeLong: toNamespacedPath, // Legacy alias kept by Node.
  posix: undefined,
  win32: undefined,
};
path.posix = path;
// Windows path semantics are not supported: `win32` is the POSIX implementation.
path.win32 = path;

export const posix = path;
export const win32 = path;
export default path;
