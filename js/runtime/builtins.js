// Loads every `node:` builtin this host implements, for CommonJS `require()`: the engine's
// synchronous import cannot load a module that has imports of its own, so the CommonJS loader
// imports this module and then finds each builtin registered (see core.js `loadedBuiltin`).
import "node:assert";
import "node:assert/strict";
import "node:buffer";
import "node:child_process";
import "node:crypto";
import "node:dns";
import "node:dns/promises";
import "node:events";
import "node:fs";
import "node:fs/promises";
import "node:http";
import "node:module";
import "node:net";
import "node:os";
import "node:path";
import "node:path/posix";
import "node:perf_hooks";
import "node:process";
import "node:querystring";
import "node:stream";
import "node:stream/promises";
import "node:string_decoder";
import "node:timers";
import "node:timers/promises";
import "node:url";
import "node:util";
// The builtins the engine evaluates on first use (host_js.rs `LAZY`) cannot register
// themselves; `lazyModule` registers them, returning the module already evaluated above.
import { ops, lazyModule, BuiltinKind } from "paseo:internal/core";
for (const name of ops.op_node_builtins()) if (ops.op_node_builtin_kind(name) === BuiltinKind.LAZY) lazyModule(`node:${name}`);
