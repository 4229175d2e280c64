//! Ops behind `child_process` (see js/). Filled in by its own change.

deno_core::extension!(paseo_child_process);
