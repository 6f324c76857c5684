//! What the Bevy tests share: the stepper that runs a server app and client apps together
//! with manual time (`stepper`), the every-mode harness of the two-app tests (`modes`), and
//! the harness of the seed protocols' tests (`seed`).

#![allow(dead_code, unused_imports, unused_macros)]

pub mod modes;
pub mod seed;
pub mod stepper;

pub use modes::{check, client_app, server_app};
pub use stepper::{Errors, Stepper, app};
