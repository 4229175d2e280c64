// node:stream/promises: pipeline and finished returning promises (they live in node:stream).
import { promises } from "node:stream";

export const { pipeline, finished } = promises;
export default promises;
