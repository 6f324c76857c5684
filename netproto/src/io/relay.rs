//! The lossy UDP relay (placeholder).
