//! `Encode` and `Decode` for the standard library's types, as DESIGN.md lays them out.

mod collections;
mod numbers;
mod pointers;
mod tuples;
