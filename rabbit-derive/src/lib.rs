//! derive
