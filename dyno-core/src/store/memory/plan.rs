//! Query and Scan planning: validating a request against the key schema before any lock is
//! taken (the target table or index, the key condition bound to key bytes, the start key, the
//! filter, projection and limit), into a [`QueryPlan`] or [`ScanPlan`] that `read.rs` runs.

use std::ops::Bound;

use super::key_bytes::KeyBytes;
use super::key_encoding;
use super::schema::{self, IndexPos, IndexSchema, Schema};
use crate::error::{Error, Result};
use crate::expr::eval;
use crate::expr::{Condition, KeyCondition, Operand, Path, SortCondition};
use crate::store::{QueryRequest, ScanRequest};
use crate::table::KeyAttribute;
use crate::value::{type_name, AttributeValue, Item};

/// Where a read happens: the table, or one of its indexes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Target<'a> {
    /// The index and its position in `Schema::indexes`, or `None` for the table.
    pub index: Option<(usize, &'a IndexSchema)>,
    /// Partition key attributes of the table or index (several for a multi-attribute key).
    pub pk: &'a [KeyAttribute],
    /// Sort key attributes of the table or index (none, one, or several).
    pub sk: &'a [KeyAttribute],
}

impl<'a> Target<'a> {
    /// Resolves the table or the named index, rejecting consistent reads on a global index.
    pub(super) fn resolve(
        schema: &'a Schema,
        index: Option<&str>,
        consistent_read: bool,
    ) -> Result<Self> {
        match index {
            None => Ok(Target {
                index: None,
                pk: std::slice::from_ref(schema.pk()),
                sk: schema.def.sort_key.as_slice(),
            }),
            Some(name) => {
                let (pos, index) = schema.index(name).ok_or_else(|| {
                    Error::validation(format!(
                        "The table does not have the specified index: {name}"
                    ))
                })?;
                if consistent_read && !index.local {
                    return Err(Error::validation(
                        "Consistent reads are not supported on global secondary indexes",
                    ));
                }
                Ok(Target {
                    index: Some((pos, index)),
                    pk: &index.pk,
                    sk: &index.sk,
                })
            }
        }
    }

    /// The attributes of a `LastEvaluatedKey`: the target's keys, then the table's (once each).
    pub(super) fn start_key_names(&self, schema: &'a Schema) -> Vec<&'a str> {
        let mut names: Vec<&str> = self.keys().map(|k| k.name.as_str()).collect();
        for n in schema.key_names() {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        names
    }

    /// Every key attribute of the target: partition attributes, then sort attributes.
    fn keys(&self) -> impl Iterator<Item = &'a KeyAttribute> + use<'a> {
        self.pk.iter().chain(self.sk)
    }

    /// True when the target's key has several partition or sort attributes.
    fn is_multi_attribute(&self) -> bool {
        self.pk.len() > 1 || self.sk.len() > 1
    }
}

/// A validated `ExclusiveStartKey`.
#[derive(Debug, Clone)]
pub(super) struct StartKey {
    /// Partition key bytes of the target (table or index).
    pub(super) pk: KeyBytes,
    /// The bytes of each partition attribute (one unless the key is multi-attribute).
    pub(super) pk_parts: Vec<KeyBytes>,
    /// Table partition and sort key bytes.
    pub(super) table_pk: KeyBytes,
    pub(super) table_sk: KeyBytes,
    /// The target's sort key bytes (the table's sort key when reading the table).
    pub(super) sk: KeyBytes,
}

pub(super) fn invalid_start(detail: &str) -> Error {
    Error::validation(format!("The provided starting key is invalid: {detail}"))
}

pub(super) fn parse_start_key(
    schema: &Schema,
    target: &Target<'_>,
    key: &Item,
) -> Result<StartKey> {
    let names = target.start_key_names(schema);
    if key.len() != names.len() || names.iter().any(|n| !key.contains_key(*n)) {
        return Err(invalid_start(
            "The provided key element does not match the schema",
        ));
    }
    let part = |attr: &KeyAttribute, partition: bool| -> Result<KeyBytes> {
        let value = &key[&attr.name];
        if !attr.ty.matches(value) {
            return Err(invalid_start(
                "The provided key element does not match the schema",
            ));
        }
        schema::checked_key_bytes(attr, normalized(value)?.as_ref(), partition).map_err(|e| match e
        {
            Error::Validation { message } => invalid_start(&message),
            other => other,
        })
    };
    let table_pk = part(schema.pk(), true)?;
    let table_sk = match schema.sk() {
        Some(s) => part(s, false)?,
        None => KeyBytes::empty(),
    };
    let (pk_parts, sk) = match target.index {
        None => (vec![table_pk.clone()], table_sk.clone()),
        Some(_) => {
            let pk_parts = target
                .pk
                .iter()
                .map(|a| part(a, true))
                .collect::<Result<Vec<_>>>()?;
            let sk_parts = target
                .sk
                .iter()
                .map(|a| part(a, false))
                .collect::<Result<Vec<_>>>()?;
            let sk = if sk_parts.is_empty() {
                KeyBytes::empty()
            } else {
                schema::composite_key(&sk_parts)
            };
            (pk_parts, sk)
        }
    };
    Ok(StartKey {
        pk: schema::composite_key(&pk_parts),
        pk_parts,
        table_pk,
        table_sk,
        sk,
    })
}

/// A value with its number normalized (validating it), for key comparisons; other values as
/// they are (not copied).
pub(super) fn normalized(value: &AttributeValue) -> Result<std::borrow::Cow<'_, AttributeValue>> {
    Ok(match value {
        AttributeValue::N(n) => {
            std::borrow::Cow::Owned(AttributeValue::N(eval::normalize_number(n)?))
        }
        other => std::borrow::Cow::Borrowed(other),
    })
}

/// Checks `Select` against the projection, as DynamoDB does before it looks the table up:
/// a count (`Select = COUNT`) returns no attributes, so it cannot name any.
pub(super) fn validate_select(count_only: bool, projection: Option<&[Path]>) -> Result<()> {
    if count_only && projection.is_some() {
        return Err(Error::validation(
            "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count",
        ));
    }
    Ok(())
}

/// Checks a projection as DynamoDB does: not empty, then the paths themselves (see
/// [`eval::check_projection`]: each starts with an attribute name and is at most 32 levels deep,
/// no two overlap or conflict).
pub(super) fn validate_projection(paths: Option<&[Path]>) -> Result<()> {
    let Some(paths) = paths else { return Ok(()) };
    if paths.is_empty() {
        return Err(Error::validation(
            "Invalid ProjectionExpression: The expression can not be empty;",
        ));
    }
    eval::check_projection(paths)
}

/// The top-level attribute names a condition refers to.
pub(super) fn condition_attributes<'c>(cond: &'c Condition, out: &mut Vec<&'c str>) {
    fn operand<'c>(o: &'c Operand, out: &mut Vec<&'c str>) {
        match o {
            Operand::Path(p) | Operand::Size(p) => out.extend(p.top()),
            Operand::Value(_) => {}
        }
    }
    match cond {
        Condition::Compare(a, _, b) => {
            operand(a, out);
            operand(b, out);
        }
        Condition::Between(a, b, c) => {
            operand(a, out);
            operand(b, out);
            operand(c, out);
        }
        Condition::In(a, list) => {
            operand(a, out);
            list.iter().for_each(|o| operand(o, out));
        }
        Condition::AttributeExists(p)
        | Condition::AttributeNotExists(p)
        | Condition::AttributeType(p, _) => {
            out.extend(p.top());
        }
        Condition::BeginsWith(p, o) | Condition::Contains(p, o) => {
            out.extend(p.top());
            operand(o, out);
        }
        Condition::And(cs) | Condition::Or(cs) => {
            cs.iter().for_each(|c| condition_attributes(c, out))
        }
        Condition::Not(c) => condition_attributes(c, out),
    }
}

pub(super) fn validate_limit(limit: Option<u32>) -> Result<()> {
    match limit.and_then(crate::store::limit_error) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Bounds on the target's sort key bytes.
#[derive(Debug, Clone)]
pub(super) struct SortRange {
    pub(super) lower: Bound<KeyBytes>,
    pub(super) upper: Bound<KeyBytes>,
}

/// A validated query, ready to run under the read lock.
#[derive(Debug)]
pub(super) struct QueryPlan<'a> {
    pub(super) target: Target<'a>,
    pub(super) pk: KeyBytes,
    pub(super) range: SortRange,
    pub(super) start: Option<StartKey>,
}

impl QueryPlan<'_> {
    /// The index queried, if not the table.
    pub(super) fn index(&self) -> Option<&IndexSchema> {
        self.target.index.map(|(_, i)| i)
    }
}

/// Validates a query against the schema.
pub(super) fn plan_query<'a>(schema: &'a Schema, req: &QueryRequest) -> Result<QueryPlan<'a>> {
    let key_condition = &req.key_condition;
    for (_, cond) in key_condition.sort_parts() {
        check_sort_condition(cond)?;
    }
    check_one_condition_per_key(key_condition)?;
    let target = Target::resolve(schema, req.index.as_deref(), req.consistent_read)?;
    for (_, cond) in key_condition.sort_parts() {
        check_between_bounds(cond)?;
    }
    validate_limit(req.limit)?;
    // dynoxide's order: the key condition bound to the key (its structure and types), a filter
    // on a key attribute, the projection's paths; an empty key value in the condition, which
    // dynoxide does not check at all, is named after all of those.
    let bound = match bind_key_condition(&target, key_condition) {
        Err(e) if !schema::is_empty_key_value(&e) => return Err(e),
        bound => bound,
    };
    if let Some(filter) = &req.filter {
        let mut names = Vec::new();
        condition_attributes(filter, &mut names);
        // Of several key attributes in the filter, the first by name (dynoxide sorts them).
        if let Some(k) = target
            .keys()
            .filter(|k| names.contains(&k.name.as_str()))
            .min_by(|a, b| a.name.cmp(&b.name))
        {
            return Err(Error::validation(format!(
                "Filter Expression can only contain non-primary key attributes: Primary key attribute: {}",
                k.name
            )));
        }
    }
    validate_projection(req.projection.as_deref())?;
    let bound = bound?;
    let start = match &req.exclusive_start_key {
        None => None,
        Some(key) => {
            let start = parse_start_key(schema, &target, key)?;
            check_start_within(&target, &bound, &start)?;
            Some(start)
        }
    };
    Ok(QueryPlan {
        target,
        pk: bound.pk,
        range: bound.range,
        start,
    })
}

/// A key condition bound to the target's key: the partition key bytes and the range of sort
/// key bytes it reads.
pub(super) struct BoundKey {
    pub(super) pk: KeyBytes,
    /// The bytes of each partition attribute, in key order, when the target's key is
    /// multi-attribute (empty otherwise: `pk` is the one attribute's).
    pub(super) pk_parts: Vec<KeyBytes>,
    pub(super) range: SortRange,
    /// True when a condition on the sort key was given.
    pub(super) sorted: bool,
}

/// One condition of a key condition, by the attribute it names.
#[derive(Clone, Copy)]
pub(super) enum Clause<'c> {
    /// `name = value`, as a partition part gives it.
    Eq(&'c AttributeValue),
    /// A sort condition.
    Sort(&'c SortCondition),
}

impl<'c> Clause<'c> {
    /// The value when the clause is an equality.
    fn eq_value(self) -> Option<&'c AttributeValue> {
        match self {
            Clause::Eq(v) | Clause::Sort(SortCondition::Eq(v)) => Some(v),
            Clause::Sort(_) => None,
        }
    }
}

/// Every clause of a key condition with the attribute it names, in the order given.
pub(super) fn clauses(k: &KeyCondition) -> impl Iterator<Item = (&str, Clause<'_>)> {
    k.partition_parts()
        .map(|(n, v)| (n.as_str(), Clause::Eq(v)))
        .chain(k.sort_parts().map(|(n, c)| (n.as_str(), Clause::Sort(c))))
}

/// A second condition on one attribute, refused before the table is looked at (dynoxide).
pub(super) fn check_one_condition_per_key(k: &KeyCondition) -> Result<()> {
    // A handful of clauses: compared pairwise, nothing collected.
    if clauses(k)
        .enumerate()
        .any(|(i, (n, _))| clauses(k).take(i).any(|(m, _)| m == n))
    {
        return Err(Error::validation(
            "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key",
        ));
    }
    Ok(())
}

/// Binds a key condition to the target's key by attribute name, as DynamoDB does, with its
/// checks in its order (dynoxide's, captured from DynamoDB): the clause count; an equality on
/// every partition attribute; each value's type; a clause on an attribute outside the key; on a
/// multi-attribute sort key, equalities on every attribute ahead of the last one constrained.
pub(super) fn bind_key_condition(target: &Target<'_>, k: &KeyCondition) -> Result<BoundKey> {
    let given = clauses(k).count();
    let defined = target.pk.len() + target.sk.len();
    if given > defined {
        return Err(Error::validation(format!(
            "The number of query conditions ({given}) exceeds the number of key attributes defined in the schema ({defined})"
        )));
    }
    let clause_for = |name: &str| clauses(k).find(|(n, _)| *n == name).map(|(_, c)| c);
    // The attributes of `attrs` without an equality condition.
    let without_equality = |attrs: &[KeyAttribute]| -> Vec<String> {
        attrs
            .iter()
            .filter(|a| clause_for(&a.name).and_then(Clause::eq_value).is_none())
            .map(|a| a.name.clone())
            .collect()
    };
    if target.is_multi_attribute() {
        let missing = without_equality(target.pk);
        if !missing.is_empty() {
            return Err(Error::validation(format!(
                "HASH key attributes {} must have equality conditions specified in the query",
                missing.join(", ")
            )));
        }
    } else {
        let pk = &target.pk[0];
        match clause_for(&pk.name) {
            Some(c) if c.eq_value().is_some() => {}
            Some(_) => return Err(Error::validation("Query key condition not supported")),
            None => {
                return Err(Error::validation(format!(
                    "Query condition missed key schema element: {}",
                    pk.name
                )))
            }
        }
    }
    // An empty partition key value is named after every other fault of the condition, a sort
    // value of the wrong type included (dynoxide's order; see `plan_query`).
    let mut empty_value = None;
    let mut part = |a: &KeyAttribute| {
        let v = clause_for(&a.name).and_then(Clause::eq_value);
        match key_condition_value(a, v.unwrap_or(&AttributeValue::Null(true)), true) {
            Err(e) if schema::is_empty_key_value(&e) => {
                empty_value.get_or_insert(e);
                Ok(KeyBytes::empty())
            }
            bytes => bytes,
        }
    };
    // A single-attribute key has no parts to keep (nothing is collected for it).
    let (pk, pk_parts) = if target.is_multi_attribute() {
        let parts = target
            .pk
            .iter()
            .map(&mut part)
            .collect::<Result<Vec<_>>>()?;
        (schema::composite_key(&parts), parts)
    } else {
        (part(&target.pk[0])?, Vec::new())
    };
    if clauses(k).any(|(n, _)| !target.keys().any(|k| k.name == n)) {
        // Every partition attribute has its clause and there are no more clauses than key
        // attributes, so a stray one leaves a sort attribute without one: that is named.
        let unmatched = target
            .sk
            .iter()
            .find(|a| clause_for(&a.name).is_none())
            .map_or("", |a| a.name.as_str());
        return Err(Error::validation(format!(
            "Query condition missed key schema element: {unmatched}"
        )));
    }
    let last = target
        .sk
        .iter()
        .rposition(|a| clause_for(&a.name).is_some());
    let range = match last {
        None => SortRange {
            lower: Bound::Unbounded,
            upper: Bound::Unbounded,
        },
        Some(last) => {
            let leading = &target.sk[..last];
            let missing = without_equality(leading);
            if !missing.is_empty() {
                return Err(Error::validation(format!(
                    "RANGE key attributes {} must have equality conditions specified in the query because a condition is present on key attribute {}",
                    missing.join(", "),
                    target.sk[last].name
                )));
            }
            let last_attr = &target.sk[last];
            let cond = match clause_for(&last_attr.name) {
                Some(Clause::Sort(c)) => sort_range(last_attr, c)?,
                Some(Clause::Eq(v)) => sort_range(last_attr, &SortCondition::Eq(v.clone()))?,
                None => unreachable!("`last` has a clause"),
            };
            if target.sk.len() == 1 {
                cond
            } else {
                let mut prefix = Vec::new();
                for a in leading {
                    let v = clause_for(&a.name).and_then(Clause::eq_value);
                    let bytes =
                        key_condition_value(a, v.unwrap_or(&AttributeValue::Null(true)), false)?;
                    key_encoding::push_key_part(&mut prefix, &bytes);
                }
                cond.within_part(&prefix)
            }
        }
    };
    if let Some(e) = empty_value {
        return Err(e);
    }
    Ok(BoundKey {
        pk,
        pk_parts,
        range,
        sorted: last.is_some(),
    })
}

/// Refuses a starting key the key condition could not have produced, with DynamoDB's message.
/// On a multi-attribute key DynamoDB walks the condition in order (dynoxide): a partition
/// attribute other than the last that differs, then the sort conditions, then the last
/// partition attribute.
pub(super) fn check_start_within(
    target: &Target<'_>,
    bound: &BoundKey,
    start: &StartKey,
) -> Result<()> {
    const AT_MOST_ONE_ROW: &str = "The query can return at most one row and cannot be restarted";
    let outside_sort = !target.sk.is_empty() && !bound.range.contains(&start.sk);
    if target.is_multi_attribute() {
        let n = bound.pk_parts.len();
        if bound.pk_parts[..n - 1] != start.pk_parts[..n - 1] {
            return Err(Error::validation(AT_MOST_ONE_ROW));
        }
        if outside_sort {
            return Err(Error::validation(
                "The provided starting key does not match the range key predicate",
            ));
        }
        if bound.pk_parts[n - 1] != start.pk_parts[n - 1] {
            return Err(Error::validation(if bound.sorted {
                AT_MOST_ONE_ROW
            } else {
                "The provided starting key is outside query boundaries based on provided conditions"
            }));
        }
        return Ok(());
    }
    if start.pk != bound.pk {
        return Err(Error::validation(
            "The provided starting key is outside query boundaries based on provided conditions",
        ));
    }
    if outside_sort {
        return Err(Error::validation(
            "The provided starting key does not match the range key predicate",
        ));
    }
    Ok(())
}

impl SortRange {
    /// This range of one sort attribute's bytes as a range of multi-attribute sort keys whose
    /// leading parts are `prefix` (equalities, each closed by [`key_encoding::push_key_part`]):
    /// a part compares with a value as its closed bytes compare with the value's closed bytes.
    fn within_part(self, prefix: &[u8]) -> SortRange {
        let closed = |v: &KeyBytes| {
            let mut out = prefix.to_vec();
            key_encoding::push_key_part(&mut out, v);
            out
        };
        // The smallest key after every key whose part is `v`: a closed part ends with a zero
        // byte, so that is the same bytes with the last one raised to 1.
        let after_closed = |v: &KeyBytes| {
            let mut out = closed(v);
            if let Some(last) = out.last_mut() {
                *last = 1;
            }
            KeyBytes::from(out)
        };
        let lower = match self.lower {
            Bound::Unbounded if prefix.is_empty() => Bound::Unbounded,
            Bound::Unbounded => Bound::Included(KeyBytes::from(prefix)),
            Bound::Included(v) => Bound::Included(KeyBytes::from(closed(&v))),
            Bound::Excluded(v) => Bound::Included(after_closed(&v)),
        };
        let upper = match self.upper {
            Bound::Unbounded if prefix.is_empty() => Bound::Unbounded,
            Bound::Unbounded => {
                key_encoding::prefix_successor(prefix).map_or(Bound::Unbounded, Bound::Excluded)
            }
            Bound::Included(v) => Bound::Excluded(after_closed(&v)),
            Bound::Excluded(v) => Bound::Excluded(KeyBytes::from(closed(&v))),
        };
        SortRange { lower, upper }
    }

    fn contains(&self, v: &KeyBytes) -> bool {
        let above = match &self.lower {
            Bound::Included(l) => v >= l,
            Bound::Excluded(l) => v > l,
            Bound::Unbounded => true,
        };
        let below = match &self.upper {
            Bound::Included(u) => v <= u,
            Bound::Excluded(u) => v < u,
            Bound::Unbounded => true,
        };
        above && below
    }
}

/// The bytes of a key condition's value, checked against the key's type.
pub(super) fn key_condition_value(
    attr: &KeyAttribute,
    value: &AttributeValue,
    partition: bool,
) -> Result<KeyBytes> {
    if !attr.ty.matches(value) {
        return Err(Error::validation(format!(
            "One or more parameter values were invalid: Condition parameter type does not match schema type (key {} is {}, the condition gives {})",
            attr.name,
            attr.ty.name(),
            type_name(value)
        )));
    }
    schema::checked_key_bytes(attr, normalized(value)?.as_ref(), partition)
}

/// The checks of a sort key condition that need no schema, which DynamoDB makes first (before
/// the index, ConsistentRead and the key's type; dynoxide agrees): the comparisons and BETWEEN
/// take strings, numbers and binaries, `begins_with` strings and binaries; BETWEEN's bounds are
/// of one type (their order: [`check_between_order`]).
pub(super) fn check_sort_condition(cond: &SortCondition) -> Result<()> {
    let operand_type = |op: &str, v: &AttributeValue, allowed: bool| {
        if allowed {
            Ok(())
        } else {
            Err(Error::validation(format!(
                "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: {op}, operand type: {}",
                type_name(v)
            )))
        }
    };
    let ordered = |v: &AttributeValue| {
        matches!(
            v,
            AttributeValue::S(_) | AttributeValue::N(_) | AttributeValue::B(_)
        )
    };
    match cond {
        // `=` leaves the type to the schema check.
        SortCondition::Eq(_) => Ok(()),
        SortCondition::Lt(v) => operand_type("<", v, ordered(v)),
        SortCondition::Le(v) => operand_type("<=", v, ordered(v)),
        SortCondition::Gt(v) => operand_type(">", v, ordered(v)),
        SortCondition::Ge(v) => operand_type(">=", v, ordered(v)),
        SortCondition::BeginsWith(v) => operand_type(
            "begins_with",
            v,
            matches!(v, AttributeValue::S(_) | AttributeValue::B(_)),
        ),
        SortCondition::Between(a, b) => {
            operand_type("BETWEEN", a, ordered(a))?;
            operand_type("BETWEEN", b, ordered(b))
        }
    }
}

/// BETWEEN's bounds of one type and in order, which DynamoDB checks after the index
/// (ConsistentRead on a GSI) and before the key's type (dynoxide).
pub(super) fn check_between_bounds(cond: &SortCondition) -> Result<()> {
    let SortCondition::Between(a, b) = cond else {
        return Ok(());
    };
    if std::mem::discriminant(a) != std::mem::discriminant(b) {
        return Err(Error::validation(format!(
            "Invalid KeyConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: {}, upper bound operand: {}",
            eval::describe(a),
            eval::describe(b)
        )));
    }
    match (key_encoding::encode_value(a), key_encoding::encode_value(b)) {
        (Some(lo), Some(hi)) if lo > hi => Err(Error::validation(format!(
            "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: {}, upper bound operand: {}",
            eval::describe(a),
            eval::describe(b)
        ))),
        // An invalid number is the schema check's to name.
        _ => Ok(()),
    }
}

/// The key range of a sort key condition that [`check_sort_condition`] accepted.
pub(super) fn sort_range(sk: &KeyAttribute, cond: &SortCondition) -> Result<SortRange> {
    let v = |value: &AttributeValue| key_condition_value(sk, value, false);
    use Bound::{Excluded, Included, Unbounded};
    Ok(match cond {
        SortCondition::Eq(a) => {
            let a = v(a)?;
            SortRange {
                lower: Included(a.clone()),
                upper: Included(a),
            }
        }
        SortCondition::Lt(a) => SortRange {
            lower: Unbounded,
            upper: Excluded(v(a)?),
        },
        SortCondition::Le(a) => SortRange {
            lower: Unbounded,
            upper: Included(v(a)?),
        },
        SortCondition::Gt(a) => SortRange {
            lower: Excluded(v(a)?),
            upper: Unbounded,
        },
        SortCondition::Ge(a) => SortRange {
            lower: Included(v(a)?),
            upper: Unbounded,
        },
        SortCondition::Between(a, b) => {
            let (lo, hi) = (v(a)?, v(b)?);
            SortRange {
                lower: Included(lo),
                upper: Included(hi),
            }
        }
        SortCondition::BeginsWith(p) => {
            // On a number key a string or binary prefix is a value of the wrong type (dynoxide);
            // a number prefix was refused as begins_with's operand before.
            if !sk.ty.matches(p) {
                return Err(Error::validation(
                    "One or more parameter values were invalid: Condition parameter type does not match schema type",
                ));
            }
            let prefix = key_encoding::encode_value(p).unwrap_or_default();
            let upper = key_encoding::prefix_successor(&prefix).map_or(Unbounded, Excluded);
            SortRange {
                lower: Included(prefix),
                upper,
            }
        }
    })
}

/// How index positions relate to bounds on the index sort key: the smallest position with sort
/// key `v` is `(v, [], [])`, and the smallest byte string greater than `v` is `v + [0]`.
pub(super) fn index_bound(bound: &Bound<KeyBytes>, is_lower: bool) -> Bound<IndexPos> {
    let pos = |sk: KeyBytes| IndexPos {
        sk,
        table_pk: KeyBytes::empty(),
        table_sk: KeyBytes::empty(),
    };
    let succ = |v: &KeyBytes| {
        let mut s = v.to_vec();
        s.push(0);
        KeyBytes::from(s)
    };
    match (bound, is_lower) {
        (Bound::Unbounded, _) => Bound::Unbounded,
        (Bound::Included(v), true) => Bound::Included(pos(v.clone())),
        (Bound::Excluded(v), true) => Bound::Included(pos(succ(v))),
        (Bound::Included(v), false) => Bound::Excluded(pos(succ(v))),
        (Bound::Excluded(v), false) => Bound::Excluded(pos(v.clone())),
    }
}

/// True when `BTreeMap::range` accepts these bounds (it panics on an inverted range).
pub(super) fn valid_range<K: Ord>(lower: &Bound<K>, upper: &Bound<K>) -> bool {
    match (lower, upper) {
        (Bound::Included(a), Bound::Included(b)) => a <= b,
        (Bound::Included(a) | Bound::Excluded(a), Bound::Included(b) | Bound::Excluded(b)) => a < b,
        _ => true,
    }
}

/// A validated scan, ready to run under the read lock.
#[derive(Debug)]
pub(super) struct ScanPlan<'a> {
    pub(super) target: Target<'a>,
    pub(super) start: Option<StartKey>,
    pub(super) segment: Option<(u64, u64)>,
}

impl ScanPlan<'_> {
    /// The index scanned, if not the table.
    pub(super) fn index(&self) -> Option<&IndexSchema> {
        self.target.index.map(|(_, i)| i)
    }
}

/// Validates a scan against the schema.
pub(super) fn plan_scan<'a>(schema: &'a Schema, req: &ScanRequest) -> Result<ScanPlan<'a>> {
    let target = Target::resolve(schema, req.index.as_deref(), req.consistent_read)?;
    validate_limit(req.limit)?;
    validate_projection(req.projection.as_deref())?;
    let segment = match req.segment {
        None => None,
        Some((segment, total)) => {
            if let Some(e) = crate::store::segment_error(segment, total) {
                return Err(e);
            }
            Some((u64::from(segment), u64::from(total)))
        }
    };
    let start = match &req.exclusive_start_key {
        None => None,
        Some(key) => {
            let start = parse_start_key(schema, &target, key)?;
            if let Some((segment, total)) = segment
                && crate::hash::fnv1a(&start.pk) % total != segment
            {
                return Err(invalid_start(&format!(
                        "Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: {total} Segment: {segment}"
                    )));
            }
            Some(start)
        }
    };
    Ok(ScanPlan {
        target,
        start,
        segment,
    })
}
