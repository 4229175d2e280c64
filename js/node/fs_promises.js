// `node:fs/promises`: the promise forms of `node:fs`.
import { promises } from "node:fs";
export const {
  readFile, writeFile, appendFile, stat, lstat, readdir, mkdir, rm, rmdir, unlink, rename, copyFile, cp,
  realpath, access, chmod, symlink, readlink, link, mkdtemp, truncate, constants, open, watch, statfs,
  utimes, lutimes, opendir,
} = promises;
export default promises;
