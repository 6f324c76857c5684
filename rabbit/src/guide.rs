//! A guide to `#[derive(Rabbit)]`: every attribute, with an example.
