//! The `#[reversible]` procedural macro of gradus's reversible eDSL (docs/reversible.md).
//!
//! Pipeline (one module per step): [`parse`] (tokens → statement AST with spans, scope rules),
//! [`check`] (static rules on single statements), [`invert`] (statement → inverse statement,
//! docs/reversible.md §The inverse), [`lower`] (statement AST → Rust tokens, for the forward and
//! the inverse), [`diag`] (spanned errors with their GR codes). The macro depends only on `syn`,
//! `quote` and `proc-macro2`; it never panics on user input: every rejection is a `syn::Error` at
//! the offending span.
//!
//! Generated items for `fn f`: `f` and `f_inv`, both returning
//! `Result<(), gradus_rev::InvertibilityError>`, and with `loss = …` also `f_grad`.
//! A call `g(…)` in a body needs `g_inv` for the inverse: rustc's "cannot find function
//! `g_inv`" means "`g` is not `#[reversible]`".

#![deny(missing_docs)]

mod ast;
mod check;
mod diag;
mod invert;
mod lower;
mod parse;
mod print;

use ast::Kind;
use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::{ToTokens, format_ident, quote};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType, Type};

/// Marks a function written in the reversible statement language and generates its inverse
/// (`name_inv`) and, with `loss = x`, its gradient (`name_grad`). Arguments: `loss = ident`,
/// `scalar = Ident`, `checks = off`, `atol = float`. See docs/reversible.md §The statement
/// language.
#[proc_macro_attribute]
pub fn reversible(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// `#[derive(GradParam)]` for a user struct generic over one scalar type parameter
/// (docs/reversible.md §Gradients): `*_grad` wraps a `&mut S<T>` state parameter into `S<GVar<T>>`
/// and returns an `S<T>` holding the gradient of every field that mentions `T`; other fields are
/// cloned. Lifetimes and const parameters are carried over.
#[proc_macro_derive(GradParam)]
pub fn derive_grad_param(item: TokenStream) -> TokenStream {
    match derive_grad_param2(item.into()) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn derive_grad_param2(item: TokenStream2) -> syn::Result<TokenStream2> {
    let input: syn::DeriveInput = syn::parse2(item)?;
    let syn::Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "`GradParam` can be derived for structs only",
        ));
    };
    let tps: Vec<&syn::TypeParam> = input.generics.type_params().collect();
    let [tp] = tps.as_slice() else {
        return Err(syn::Error::new(
            input.generics.span(),
            "`GradParam` needs exactly one type parameter: the scalar type",
        ));
    };
    let t = &tp.ident;
    let name = &input.ident;
    let args = |scalar: TokenStream2| -> Vec<TokenStream2> {
        input
            .generics
            .params
            .iter()
            .map(|p| match p {
                syn::GenericParam::Type(_) => scalar.clone(),
                syn::GenericParam::Lifetime(l) => {
                    let l = &l.lifetime;
                    quote!(#l)
                }
                syn::GenericParam::Const(c) => {
                    let c = &c.ident;
                    quote!(#c)
                }
            })
            .collect()
    };
    let plain = args(quote!(#t));
    let wrapped = args(quote!(::gradus_rev::GVar<#t>));
    let (impl_generics, _, where_clause) = input.generics.split_for_impl();
    let mut where_clause = where_clause
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(where));
    where_clause
        .predicates
        .push(syn::parse_quote!(#t: ::gradus_rev::__rt::GradScalar));
    let field = |f: &syn::Field, i: usize, dst: &TokenStream2, op: &str| -> TokenStream2 {
        let member = match &f.ident {
            Some(id) => quote!(#id),
            None => {
                let idx = syn::Index::from(i);
                quote!(#idx)
            }
        };
        let ty = &f.ty;
        if mentions(ty, t) {
            let op = format_ident!("{}", op);
            quote!(#member: <#ty as ::gradus_rev::GradParam<#t>>::#op(&#dst.#member))
        } else {
            quote!(#member: ::core::clone::Clone::clone(&#dst.#member))
        }
    };
    let wraps = data
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| field(f, i, &quote!(self), "wrap"));
    let grads = data
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| field(f, i, &quote!(w), "grad"));
    Ok(quote! {
        impl #impl_generics ::gradus_rev::GradParam<#t> for #name<#(#plain),*> #where_clause {
            type Wrapped = #name<#(#wrapped),*>;
            type Grad = #name<#(#plain),*>;
            fn wrap(&self) -> Self::Wrapped {
                #name { #(#wraps,)* }
            }
            fn grad(w: &Self::Wrapped) -> Self::Grad {
                #name { #(#grads,)* }
            }
        }
    })
}

/// The whole expansion (also used by the unit tests).
fn expand(attr: TokenStream2, item: TokenStream2) -> syn::Result<TokenStream2> {
    let attr = parse::Attr::parse(attr)?;
    let func: ItemFn = syn::parse2(item)?;
    let sig = &func.sig;
    let mut errors = Vec::new();
    let e = |s: proc_macro2::Span, m: &str| diag::err(s, "GR010", m);
    if let ReturnType::Type(_, t) = &sig.output {
        errors.push(e(
            t.span(),
            "a reversible function has no return type: results leave through `&mut` parameters",
        ));
    }
    if let Some(a) = &sig.asyncness {
        errors.push(e(a.span(), "a reversible function cannot be `async`"));
    }
    if let Some(c) = &sig.constness {
        errors.push(e(c.span(), "a reversible function cannot be `const`"));
    }
    if let Some(u) = &sig.unsafety {
        errors.push(e(u.span(), "a reversible function cannot be `unsafe`"));
    }
    if let Some(a) = &sig.abi {
        errors.push(e(a.span(), "a reversible function cannot be `extern`"));
    }
    if let Some(v) = &sig.variadic {
        errors.push(e(v.span(), "a reversible function cannot be variadic"));
    }
    // Parameters and their kinds.
    let mut params: Vec<(syn::Ident, Kind, Type)> = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(r) => errors.push(e(
                r.span(),
                "methods are not reversible functions yet; `self` receivers are not accepted",
            )),
            FnArg::Typed(pt) => {
                let Pat::Ident(pi) = &*pt.pat else {
                    errors.push(e(
                        pt.pat.span(),
                        "parameters of a reversible function are plain identifiers",
                    ));
                    continue;
                };
                let (kind, ty) = match &*pt.ty {
                    Type::Reference(r) if r.mutability.is_some() => {
                        (Kind::State, (*r.elem).clone())
                    }
                    Type::Reference(r) => (Kind::ConstRef, (*r.elem).clone()),
                    t => (Kind::ByValue, t.clone()),
                };
                params.push((pi.ident.clone(), kind, ty));
            }
        }
    }
    // The scalar type parameter.
    let candidates: Vec<syn::Ident> = sig
        .generics
        .type_params()
        .filter(|tp| {
            tp.bounds.iter().any(|b| {
                matches!(b, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| s.ident == "RevReal"))
            })
        })
        .map(|tp| tp.ident.clone())
        .collect();
    let scalar = match &attr.scalar {
        Some(s) => Some(s.clone()),
        None if candidates.len() == 1 => Some(candidates[0].clone()),
        None => None,
    };
    if let Some(loss) = &attr.loss {
        match &scalar {
            None => errors.push(e(
                loss.span(),
                "`loss` needs exactly one type parameter bounded by `RevReal` (or `scalar = T`)",
            )),
            Some(s) => match params.iter().find(|p| p.0 == *loss) {
                Some((_, Kind::State, ty)) if *s == ty.to_token_stream().to_string() => {}
                _ => errors.push(e(
                    loss.span(),
                    &format!("`loss` must name a `&mut {s}` parameter"),
                )),
            },
        }
    }
    if let Some(err) = diag::combine(std::mem::take(&mut errors)) {
        return Err(err);
    }

    // Parse the body.
    let mut p = parse::Parser_::new(params.iter().map(|(n, k, _)| (n.clone(), *k)).collect());
    let body = p.body(&func.block);
    if let Some(err) = diag::combine(std::mem::take(&mut p.errors)) {
        return Err(err);
    }
    let inv_body = invert::invert_body(&body);
    let name = &sig.ident;
    let atol = attr
        .atol
        .as_ref()
        .map(|a| quote!(#a))
        .unwrap_or(quote!(1e-8));
    let state: Vec<syn::Ident> = params
        .iter()
        .filter(|p| p.1 == Kind::State)
        .map(|p| p.0.clone())
        .collect();
    let fwd = lower::Ctx::new(
        name.to_string(),
        false,
        atol.clone(),
        scalar.clone(),
        &body,
        &state,
    )
    .body(&body, attr.checks);
    let inv = lower::Ctx::new(
        name.to_string(),
        true,
        atol,
        scalar.clone(),
        &inv_body,
        &state,
    )
    .body(&inv_body, attr.checks);

    let vis = &func.vis;
    let attrs = &func.attrs;
    let generics = &sig.generics;
    let where_clause = &generics.where_clause;
    let inputs = &sig.inputs;
    let inv_name = format_ident!("{}_inv", name);
    let doc_inv = format!("Inverse of [`{name}`].");
    let allow = quote! {
        #[allow(unused_parens, unused_braces, unused_mut, unused_variables, clippy::all, clippy::pedantic)]
    };
    let result = quote!(::core::result::Result<(), ::gradus_rev::__rt::InvertibilityError>);
    let mut out = quote! {
        #(#attrs)*
        #allow
        #vis fn #name #generics (#inputs) -> #result #where_clause {
            #fwd
            ::core::result::Result::Ok(())
        }
        #(#attrs)*
        #[doc = ""]
        #[doc = #doc_inv]
        #allow
        #vis fn #inv_name #generics (#inputs) -> #result #where_clause {
            #inv
            ::core::result::Result::Ok(())
        }
    };
    if let (Some(loss), Some(s)) = (&attr.loss, &scalar) {
        out.extend(grad_fn(&func, &params, loss, s));
    }
    Ok(out)
}

fn mentions(ty: &Type, s: &syn::Ident) -> bool {
    let mut ids = Vec::new();
    parse::idents(ty.to_token_stream(), &mut ids);
    ids.iter().any(|i| s == i)
}

/// `name_grad` (docs/reversible.md §Gradients): forward, wrap, seed, inverse on `GVar`s, read
/// gradients.
fn grad_fn(
    func: &ItemFn,
    params: &[(syn::Ident, Kind, Type)],
    loss: &syn::Ident,
    s: &syn::Ident,
) -> TokenStream2 {
    let sig = &func.sig;
    let name = &sig.ident;
    let inv_name = format_ident!("{}_inv", name);
    let grad_name = format_ident!("{}_grad", name);
    let mut generics = sig.generics.clone();
    generics
        .make_where_clause()
        .predicates
        .push(syn::parse_quote!(#s: ::gradus_rev::__rt::GradScalar));
    let (_, _, where_clause) = generics.split_for_impl();
    let inputs = &sig.inputs;
    let vis = &func.vis;
    let mut fwd_args = Vec::new();
    let mut wraps = Vec::new();
    let mut inv_args = Vec::new();
    let mut grads = Vec::new();
    let mut grad_tys = Vec::new();
    for (id, kind, ty) in params {
        let w = format_ident!("__gr_w_{}", id);
        match kind {
            Kind::State => {
                fwd_args.push(quote!(&mut *#id));
                if mentions(ty, s) {
                    wraps.push(quote! { let mut #w = <#ty as ::gradus_rev::__rt::GradParam<#s>>::wrap(&*#id); });
                    grads.push(quote!(<#ty as ::gradus_rev::__rt::GradParam<#s>>::grad(&#w)));
                    grad_tys.push(quote!(<#ty as ::gradus_rev::__rt::GradParam<#s>>::Grad));
                } else if matches!(ty, Type::Slice(_)) {
                    wraps.push(quote! { let mut #w = (*#id).to_vec(); });
                } else {
                    wraps.push(quote! { let mut #w = ::core::clone::Clone::clone(&*#id); });
                }
                inv_args.push(quote!(&mut #w));
            }
            Kind::ConstRef => {
                fwd_args.push(quote!(#id));
                if mentions(ty, s) {
                    wraps.push(
                        quote! { let #w = <#ty as ::gradus_rev::__rt::GradParam<#s>>::wrap(#id); },
                    );
                    inv_args.push(quote!(&#w));
                } else {
                    inv_args.push(quote!(#id));
                }
            }
            _ => {
                fwd_args.push(quote!(#id));
                if mentions(ty, s) {
                    inv_args.push(quote!(<#ty as ::gradus_rev::__rt::GradParam<#s>>::wrap(&#id)));
                } else {
                    inv_args.push(quote!(#id));
                }
            }
        }
    }
    let wl = format_ident!("__gr_w_{}", loss);
    let doc = format!(
        "Gradient of [`{name}`] with respect to every differentiable state parameter, with `{loss}` as the loss (∂{loss}_out/∂input). On return the arguments hold the forward outputs."
    );
    quote! {
        #[doc = #doc]
        #[allow(unused_parens, unused_mut, unused_variables, clippy::all, clippy::pedantic)]
        #vis fn #grad_name #generics (#inputs) -> ::core::result::Result<(#(#grad_tys,)*), ::gradus_rev::__rt::InvertibilityError> #where_clause {
            #name(#(#fwd_args),*)?;
            #(#wraps)*
            ::gradus_rev::__rt::seed_loss(&mut #wl);
            #inv_name(#(#inv_args),*)?;
            ::core::result::Result::Ok((#(#grads,)*))
        }
    }
}

#[cfg(test)]
mod tests;
