//! Case conversions for generated names (`GSI1` -> `gsi1`, `total` -> `TOTAL`) and for
//! `rename_all` on key-part enums.

/// Splits an identifier-like string into lowercase words: `OrderDate` -> `order`, `date`;
/// `GSI1PK` -> `gsi1pk`; `by-status` -> `by`, `status`.
fn words(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_uppercase() && !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || (prev.is_uppercase() && next_lower) {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `snake_case`.
pub(crate) fn snake(s: &str) -> String {
    words(s).join("_")
}

/// `SCREAMING_SNAKE_CASE`.
pub(crate) fn screaming(s: &str) -> String {
    snake(s).to_uppercase()
}

/// The table's constant for an index (`GSI1` -> `GSI1`, `ByDay` -> `BY_DAY`, `1x` -> `INDEX_1X`):
/// the Table derive defines it and the Entity derive names it, so both use this one function.
pub(crate) fn index_const(name: &str) -> String {
    let s = screaming(name);
    match s.chars().next() {
        Some(c) if c.is_alphabetic() => s,
        _ => format!("INDEX_{s}"),
    }
}

/// The constant holding a field's handle: the field name in upper case (`order_date` ->
/// `ORDER_DATE`), underscores kept, so it is always an identifier.
pub(crate) fn field_const(field: &str) -> String {
    field.to_uppercase()
}

/// `PascalCase`.
pub(crate) fn pascal(s: &str) -> String {
    words(s)
        .iter()
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// Applies a serde-style `rename_all` case to a variant name.
pub(crate) fn convert(s: &str, case: &str) -> String {
    match case {
        "lowercase" => s.to_lowercase(),
        "UPPERCASE" => s.to_uppercase(),
        "snake_case" => snake(s),
        "SCREAMING_SNAKE_CASE" => screaming(s),
        "kebab-case" => words(s).join("-"),
        "camelCase" => {
            let p = pascal(s);
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_lowercase().chain(c).collect(),
                None => p,
            }
        }
        "PascalCase" => pascal(s),
        _ => s.to_owned(),
    }
}

/// The number naming index `name` in `PartitionKeyOf<A, INDEX>` (FNV-1a, 64 bits; never 0,
/// which names the table): entities and collections compute it from the name alike.
pub(crate) fn index_id(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(snake("GSI1"), "gsi1");
        assert_eq!(snake("ByStatus"), "by_status");
        assert_eq!(snake("by-status"), "by_status");
        assert_eq!(snake("HTTPServer"), "http_server");
        assert_eq!(screaming("order_date"), "ORDER_DATE");
        assert_eq!(field_const("order_date"), "ORDER_DATE");
        assert_eq!(field_const("_x"), "_X");
        assert_eq!(pascal("order_date"), "OrderDate");
        assert_eq!(pascal("GSI1"), "Gsi1");
        assert_eq!(convert("InTransit", "SCREAMING_SNAKE_CASE"), "IN_TRANSIT");
        assert_eq!(convert("InTransit", "kebab-case"), "in-transit");
        assert_eq!(convert("InTransit", "camelCase"), "inTransit");
        assert_eq!(convert("Shipped", "UPPERCASE"), "SHIPPED");
    }
}
