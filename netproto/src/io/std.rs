//! The std::net driver (placeholder).
