// `node:readline/promises`: node:readline's `promises` (js/node/readline.js), whose interface's
// `question` returns a promise, and `Readline`.
import { promises } from "node:readline";

export const { Interface, Readline, createInterface } = promises;
export default promises;
