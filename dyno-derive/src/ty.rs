//! Syntactic questions about field types: is it an `Option`, a `Vec`, a number, a set?
//!
//! Used only to decide which update methods exist (`remove_*` on `Option`, `add_*` on numbers,
//! `append_*` on `Vec`); the values are still checked by the compiler against the real types.

use syn::{GenericArgument, PathArguments, Type};

/// The last path segment of a plain type path (`std::option::Option<T>` gives `Option`).
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

fn single_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let seg = last_segment(ty)?;
    if seg.ident != name {
        return None;
    }
    match &seg.arguments {
        PathArguments::AngleBracketed(args) if args.args.len() == 1 => match args.args.first() {
            Some(GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// `T` for `Option<T>`.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    single_arg(ty, "Option")
}

/// `T` for `Vec<T>`, looking through one `Option`.
pub(crate) fn vec_elem(ty: &Type) -> Option<&Type> {
    single_arg(option_inner(ty).unwrap_or(ty), "Vec")
}

/// `T` for `HashSet<T>` / `BTreeSet<T>` (any hasher), looking through one `Option`.
pub(crate) fn set_elem(ty: &Type) -> Option<&Type> {
    let ty = option_inner(ty).unwrap_or(ty);
    let seg = last_segment(ty)?;
    if seg.ident != "HashSet" && seg.ident != "BTreeSet" {
        return None;
    }
    match &seg.arguments {
        PathArguments::AngleBracketed(args) => match args.args.first() {
            Some(GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

const NUMBERS: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "Decimal",
];

/// True for the number types (primitive integers and floats, `Decimal`), looking through one
/// `Option`.
pub(crate) fn is_numeric(ty: &Type) -> bool {
    let ty = option_inner(ty).unwrap_or(ty);
    match last_segment(ty) {
        Some(seg) => {
            matches!(seg.arguments, PathArguments::None) && NUMBERS.iter().any(|n| seg.ident == n)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Type {
        syn::parse_str(s).unwrap()
    }

    #[test]
    fn recognises_shapes() {
        assert!(option_inner(&t("Option<String>")).is_some());
        assert!(option_inner(&t("std::option::Option<u32>")).is_some());
        assert!(option_inner(&t("String")).is_none());
        assert!(vec_elem(&t("Vec<String>")).is_some());
        assert!(vec_elem(&t("Option<Vec<u8>>")).is_some());
        assert!(set_elem(&t("std::collections::HashSet<String>")).is_some());
        assert!(
            is_numeric(&t("u32"))
                && is_numeric(&t("Option<i64>"))
                && is_numeric(&t("rust_decimal::Decimal"))
        );
        assert!(!is_numeric(&t("String")) && !is_numeric(&t("Vec<u32>")));
    }
}
