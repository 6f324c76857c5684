//! Collects every error found in one input so that they are reported together.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Error sink shared by the parsing and checking passes.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Option<syn::Error>>,
}

impl Ctxt {
    /// Records an error at `span`.
    pub fn error(&self, span: Span, msg: impl Display) {
        self.push(syn::Error::new(span, msg));
    }

    /// Records an error spanning `tokens`.
    pub fn error_spanned(&self, tokens: impl ToTokens, msg: impl Display) {
        self.push(syn::Error::new_spanned(tokens, msg));
    }

    /// Records an existing error.
    pub fn push(&self, err: syn::Error) {
        let mut slot = self.errors.borrow_mut();
        match slot.as_mut() {
            Some(all) => all.combine(err),
            None => *slot = Some(err),
        }
    }

    /// All errors so far, combined, or `Ok` if there were none.
    pub fn check(self) -> syn::Result<()> {
        match self.errors.into_inner() {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }
}
