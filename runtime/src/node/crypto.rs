//! Ops behind `crypto` (see js/). Filled in by its own change.

deno_core::extension!(paseo_crypto);
