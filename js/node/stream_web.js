// `node:stream/web`: the web stream classes the engine has (web/fetch.js: ReadableStream, its
// default reader and controller; no BYOB reads, no pipes), the two queuing strategies, and for
// the classes Node has that the engine lacks, constructors that throw naming the class, so that
// importing the module (or naming a class) works and only using a missing one fails.
import { lazyModule } from "paseo:internal/core";
import "paseo:internal/web/events";
import "paseo:internal/web/encoding";
import { ReadableStream, ReadableStreamDefaultReader, ReadableStreamDefaultController } from "paseo:internal/web/fetch";

const errors = () => lazyModule("paseo:internal/node/internal_errors");

function validateInit(init) {
  if (init === null || typeof init !== "object") throw errors().invalidArgType("init", ["object"], init);
  if (init.highWaterMark === undefined) {
    throw errors().nodeError(TypeError, "ERR_MISSING_OPTION", "init.highWaterMark is required");
  }
  return +init.highWaterMark;
}

// `size` is one function shared by every instance, as in Node.
const countSize = { size() { return 1; } }.size;
const byteLengthSize = { size(chunk) { return chunk.byteLength; } }.size;

export class CountQueuingStrategy {
  #highWaterMark;
  constructor(init) {
    this.#highWaterMark = validateInit(init);
  }
  get highWaterMark() { return this.#highWaterMark; }
  get size() { return countSize; }
  get [Symbol.toStringTag]() { return "CountQueuingStrategy"; }
}

export class ByteLengthQueuingStrategy {
  #highWaterMark;
  constructor(init) {
    this.#highWaterMark = validateInit(init);
  }
  get highWaterMark() { return this.#highWaterMark; }
  get size() { return byteLengthSize; }
  get [Symbol.toStringTag]() { return "ByteLengthQueuingStrategy"; }
}

const missing = (name) => ({
  [name]: class {
    constructor() {
      throw new Error(`${name} is not supported by the Paseo plugin host yet`);
    }
  },
})[name];

export const WritableStream = missing("WritableStream");
export const WritableStreamDefaultWriter = missing("WritableStreamDefaultWriter");
export const WritableStreamDefaultController = missing("WritableStreamDefaultController");
export const TransformStream = missing("TransformStream");
export const TransformStreamDefaultController = missing("TransformStreamDefaultController");
export const ReadableByteStreamController = missing("ReadableByteStreamController");
export const ReadableStreamBYOBReader = missing("ReadableStreamBYOBReader");
export const ReadableStreamBYOBRequest = missing("ReadableStreamBYOBRequest");
export const TextEncoderStream = missing("TextEncoderStream");
export const TextDecoderStream = missing("TextDecoderStream");
export const CompressionStream = missing("CompressionStream");
export const DecompressionStream = missing("DecompressionStream");

export { ReadableStream, ReadableStreamDefaultReader, ReadableStreamDefaultController };

export default {
  ReadableStream, ReadableStreamDefaultReader, ReadableStreamBYOBReader, ReadableStreamBYOBRequest,
  ReadableByteStreamController, ReadableStreamDefaultController, TransformStream, TransformStreamDefaultController,
  WritableStream, WritableStreamDefaultWriter, WritableStreamDefaultController, ByteLengthQueuingStrategy,
  CountQueuingStrategy, TextEncoderStream, TextDecoderStream, CompressionStream, DecompressionStream,
};
