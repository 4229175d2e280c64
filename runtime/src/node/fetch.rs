//! Ops behind `fetch` (see js/). Filled in by its own change.

deno_core::extension!(paseo_fetch);
