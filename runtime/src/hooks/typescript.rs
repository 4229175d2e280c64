//! TypeScript declarations generated from the hook catalogue. Filled in by its own change.
