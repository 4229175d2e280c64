// Every `node:` builtin this host implements, loaded together, for the synchronous lookups
// (`require()` from CommonJS, `process.getBuiltinModule`). The engine's synchronous import
// cannot load a module that has imports of its own, so builtins are reached through here.
import * as assert from "node:assert";
import * as assertStrict from "node:assert/strict";
import * as buffer from "node:buffer";
import * as childProcess from "node:child_process";
import * as crypto from "node:crypto";
import * as dns from "node:dns";
import * as dnsPromises from "node:dns/promises";
import * as events from "node:events";
import * as fs from "node:fs";
import * as fsPromises from "node:fs/promises";
import * as http from "node:http";
import * as module from "node:module";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as perfHooks from "node:perf_hooks";
import * as process from "node:process";
import * as querystring from "node:querystring";
import * as stream from "node:stream";
import * as streamPromises from "node:stream/promises";
import * as stringDecoder from "node:string_decoder";
import * as timers from "node:timers";
import * as timersPromises from "node:timers/promises";
import * as url from "node:url";
import * as util from "node:util";

const namespaces = {
  assert, "assert/strict": assertStrict, buffer, child_process: childProcess, crypto, dns, "dns/promises": dnsPromises,
  events, fs, "fs/promises": fsPromises, http, module, net, os, path, "path/posix": path, perf_hooks: perfHooks, process,
  querystring, stream, "stream/promises": streamPromises, string_decoder: stringDecoder, timers,
  "timers/promises": timersPromises, url, util,
};

/** A builtin's CommonJS face (its default export, as `require` gives it), or undefined. */
export function builtin(name) {
  const ns = namespaces[String(name).replace(/^node:/, "")];
  return ns && ("default" in ns ? ns.default : ns);
}
