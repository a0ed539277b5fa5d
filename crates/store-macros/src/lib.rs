//! `#[capability]`: a store capability written once. Each method of the trait is written
//! with its doc, its signature and its SQL; the attribute produces from that
//!
//! - the trait, each method declared to return a `Send` future (the doors hold the store
//!   across await points in multithreaded tasks);
//! - the trait for `SqliteStore` and for `PgStore`, each method's body stamped out for the
//!   backend with the backend's module glob-imported into it, so that the body's `Db`,
//!   `DbRow`, `Conn`, row readers and hooks (`FOR_UPDATE`, `SKIP_LOCKED`, ...) are that
//!   backend's;
//! - the trait for `AnyStore`, each method forwarding to the backend chosen at start-up.
//!
//! No maintained crate covers this: delegation crates forward an enum's methods to its
//! variants but cannot stamp one body out for two concrete types, and the bodies must be
//! concrete because sqlx's query types are per database.

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use syn::{parse_macro_input, parse_quote, Error, FnArg, ItemTrait, Pat, ReturnType, TraitItem, TraitItemFn};

/// The backends a capability is stamped out for: the store type and the module whose items
/// its bodies see.
const BACKENDS: [(&str, &str); 2] = [("SqliteStore", "sqlite"), ("PgStore", "postgres")];

#[proc_macro_attribute]
pub fn capability(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return Error::new(proc_macro2::Span::call_site(), "#[capability] takes no arguments")
            .to_compile_error()
            .into();
    }
    let input = parse_macro_input!(item as ItemTrait);
    match expand(input) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

fn expand(input: ItemTrait) -> syn::Result<proc_macro2::TokenStream> {
    let name = &input.ident;
    let mut declared = input.clone();
    declared.items.clear();
    let mut methods = Vec::new();
    for item in &input.items {
        match item {
            TraitItem::Fn(method) => {
                if method.default.is_none() {
                    return Err(Error::new_spanned(
                        &method.sig,
                        "a capability's method is written once, with its body: give it one",
                    ));
                }
                declared.items.push(TraitItem::Fn(declaration(method)));
                methods.push(method);
            }
            other => return Err(Error::new_spanned(other, "a capability holds only methods")),
        }
    }

    let backends = BACKENDS.iter().map(|(store, module)| {
        let store = format_ident!("{store}");
        let module = format_ident!("{module}");
        let bodies = methods.iter().map(|method| {
            let attrs = method.attrs.iter().filter(|a| !a.path().is_ident("doc"));
            let sig = &method.sig;
            let body = method.default.as_ref().expect("checked above");
            let stmts = &body.stmts;
            quote! {
                #(#attrs)*
                #sig {
                    #[allow(unused_imports)]
                    use crate::#module::*;
                    #(#stmts)*
                }
            }
        });
        quote! {
            impl #name for crate::#store {
                #(#bodies)*
            }
        }
    });

    let forwards = methods.iter().map(|method| forward(method)).collect::<syn::Result<Vec<_>>>()?;

    Ok(quote! {
        #declared
        #(#backends)*
        impl #name for crate::AnyStore {
            #(#forwards)*
        }
    })
}

/// The trait's declaration of a method: its doc and signature, an `async fn` returning a
/// `Send` future, patterns reduced to names.
fn declaration(method: &TraitItemFn) -> TraitItemFn {
    let mut sig = method.sig.clone();
    for input in sig.inputs.iter_mut() {
        if let FnArg::Typed(typed) = input {
            if let Pat::Ident(ident) = typed.pat.as_mut() {
                ident.mutability = None;
            }
        }
    }
    if sig.asyncness.take().is_some() {
        let output = match &sig.output {
            ReturnType::Default => quote!(()),
            ReturnType::Type(_, ty) => quote!(#ty),
        };
        sig.output = parse_quote!(-> impl ::std::future::Future<Output = #output> + Send);
    }
    TraitItemFn { attrs: method.attrs.clone(), sig, default: None, semi_token: Some(Default::default()) }
}

/// `AnyStore`'s method: the same call on the backend it holds.
fn forward(method: &TraitItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let mut sig = method.sig.clone();
    let mut args = Vec::new();
    for input in sig.inputs.iter_mut() {
        if let FnArg::Typed(typed) = input {
            match typed.pat.as_mut() {
                Pat::Ident(ident) => {
                    ident.mutability = None;
                    args.push(ident.ident.clone());
                }
                other => return Err(Error::new_spanned(other, "a capability's arguments are plain names")),
            }
        }
    }
    let name = &sig.ident;
    let call = if sig.asyncness.is_some() {
        quote! {
            match self {
                crate::AnyStore::Sqlite(store) => store.#name(#(#args),*).await,
                crate::AnyStore::Postgres(store) => store.#name(#(#args),*).await,
            }
        }
    } else {
        quote! {
            match self {
                crate::AnyStore::Sqlite(store) => store.#name(#(#args),*),
                crate::AnyStore::Postgres(store) => store.#name(#(#args),*),
            }
        }
    };
    Ok(quote! { #sig { #call } })
}
