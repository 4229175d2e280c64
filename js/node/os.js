// `node:os` from facts the host reads once per isolate (Linux).
import { ops } from "paseo:internal/core";

const info = ops.op_os_info();
// Host information a plugin's policy may withhold (`sys`): asking throws ERR_ACCESS_DENIED then.
const sys = (name, read) => () => {
  ops.op_os_check_sys(`os.${name}()`);
  return read();
};
export const EOL = "\n";
export const devNull = "/dev/null";
export const constants = Object.freeze({ signals: Object.freeze({ SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 }), errno: Object.freeze({}), priority: Object.freeze({}) });
export const homedir = () => info.homedir;
export const hostname = sys("hostname", () => info.hostname);
export const tmpdir = () => info.tmpdir;
export const platform = () => info.platform;
export const type = () => (info.platform === "linux" ? "Linux" : info.platform);
export const arch = () => info.arch;
export const machine = () => ({ x64: "x86_64", arm64: "aarch64" })[info.arch] ?? info.arch;
export const release = sys("release", () => info.release);
export const version = sys("version", () => info.release);
export const endianness = () => "LE";
export const uptime = sys("uptime", () => info.uptime);
export const loadavg = sys("loadavg", () => info.loadavg);
export const totalmem = sys("totalmem", () => info.totalmem);
export const freemem = sys("freemem", () => info.freemem);
export const availableParallelism = () => info.cpus;
export const cpus = () => Array.from({ length: info.cpus }, () => ({ model: "unknown", speed: 0, times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 } }));
export const networkInterfaces = sys("networkInterfaces", () => ({}));
export const userInfo = sys("userInfo", () => ({ uid: info.uid, gid: info.gid, username: info.username, homedir: info.homedir, shell: info.shell ?? null }));

export default {
  EOL, devNull, constants, homedir, hostname, tmpdir, platform, type, arch, machine, release, version,
  endianness, uptime, loadavg, totalmem, freemem, availableParallelism, cpus, networkInterfaces, userInfo,
};
