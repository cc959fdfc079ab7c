//! TransactGetItems and TransactWriteItems: up to 100 actions on distinct items, isolated by
//! locking every table involved (in name order), all or nothing, with a cancellation reason per
//! action in request order, and idempotency tokens honoured for 10 minutes.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, PoisonError};

use super::batch::position;
use super::key_bytes::KeyBytes;
use super::{
    check_condition, plan, prepare_put, read_lock, read_units, updated_item, write_capacity,
    write_lock, MemoryStore, Prepared,
};
use crate::error::{CancellationReason, Error, Result};
use crate::expr::eval::{self, Layer};
use crate::store::{
    Capacity, TableCapacity, TransactGetOutput, TransactGetRequest, TransactWriteItem,
    TransactWriteOutput, TransactWriteRequest,
};
use crate::value::SharedItem;

/// The most actions of one transaction.
pub(super) const MAX_ACTIONS: usize = 100;
/// The most bytes of items one write transaction carries: "the aggregate size of the items in
/// the transaction cannot exceed 4 MB" (TransactWriteItems).
pub(super) const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;
/// How long an idempotency token is remembered, in seconds.
pub(super) const TOKEN_WINDOW: f64 = 600.0;

fn check_count(n: usize) -> Result<()> {
    if n == 0 {
        return Err(crate::store::empty_list_error("transactItems"));
    }
    if n > MAX_ACTIONS {
        return Err(Error::validation(format!(
            "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to {MAX_ACTIONS} (found {n} actions)"
        )));
    }
    Ok(())
}

/// The table key an action names, when its key attributes alone make a key of the schema (an
/// empty value included): two actions on one item are refused before anything else is said of
/// either (dynoxide).
fn named_key(
    schema: &super::schema::Schema,
    item: &crate::value::Item,
) -> Option<(KeyBytes, KeyBytes)> {
    let key: crate::value::Item = schema
        .key_names()
        .into_iter()
        .filter_map(|n| item.get(n).map(|v| (n.to_owned(), v.clone())))
        .collect();
    schema.key_identity(&key)
}

/// The values an action names an item by: a put's item, the others' key.
fn named_values(action: &TransactWriteItem) -> &crate::value::Item {
    match action {
        TransactWriteItem::Put { item, .. } => item,
        TransactWriteItem::Update { key, .. }
        | TransactWriteItem::Delete { key, .. }
        | TransactWriteItem::ConditionCheck { key, .. } => key,
    }
}

/// An action's update and condition.
fn expressions(
    action: &TransactWriteItem,
) -> (
    Option<&crate::expr::Update>,
    Option<&crate::expr::Condition>,
) {
    match action {
        TransactWriteItem::Put { condition, .. } | TransactWriteItem::Delete { condition, .. } => {
            (None, condition.as_ref())
        }
        TransactWriteItem::Update {
            update, condition, ..
        } => (Some(update), condition.as_ref()),
        TransactWriteItem::ConditionCheck { condition, .. } => (None, Some(condition)),
    }
}

/// A transaction, of reads or of writes, touches each item once.
fn one_action_per_item() -> Error {
    Error::validation("Transaction request cannot include multiple operations on one item")
}

pub(super) fn transact_get(
    store: &MemoryStore,
    request: TransactGetRequest,
) -> Result<TransactGetOutput> {
    check_count(request.gets.len())?;
    let tables = store.tables_in_order(request.gets.iter().map(|g| g.table.as_str()))?;
    let mut located = Vec::with_capacity(request.gets.len());
    let mut reasons = Vec::with_capacity(request.gets.len());
    let mut twice = false;
    for g in &request.gets {
        let t = position(&tables, &g.table);
        plan::validate_projection(g.projection.as_deref())?;
        match tables[t].1.schema.key(&g.key) {
            Ok((pk, sk)) => {
                twice |= located.contains(&(t, pk.clone(), sk.clone()));
                reasons.push(CancellationReason::code(Some("None")));
                located.push((t, pk, sk));
            }
            Err(e) => reasons.push(validation_reason(e)?),
        }
    }
    // An invalid key cancels the read before one item named twice is looked for (dynoxide).
    if located.len() < request.gets.len() {
        return Err(Error::TransactionCanceled { reasons });
    }
    if twice {
        return Err(one_action_per_item());
    }
    let now = store.now();
    let guards: Vec<_> = tables.iter().map(|(_, t)| read_lock(&t.data)).collect();
    let mut capacity = Vec::new();
    let items = request
        .gets
        .iter()
        .zip(&located)
        .map(|(g, (t, pk, sk))| {
            let entry = guards[*t].live(pk, sk, || now);
            let units = transactional_read(entry.map_or(0, |e| e.size));
            TableCapacity::charge(&mut capacity, &g.table, &Capacity::table(units));
            let item = entry.map(|e| Arc::clone(&e.item))?;
            Some(match &g.projection {
                Some(paths) => Arc::new(eval::project(&item, paths)),
                None => item,
            })
        })
        .collect();
    Ok(TransactGetOutput {
        items,
        consumed_capacity: Some(capacity),
    })
}

/// A transactional read of an item of `bytes` (0 when missing) costs twice a strongly consistent
/// one, whatever the projection and for a missing item too (Developer Guide, "Capacity management
/// for transactions").
fn transactional_read(bytes: usize) -> f64 {
    2.0 * read_units(bytes, true)
}

/// What a transaction answered from its idempotency token consumed: a transactional read of each
/// item the first call wrote, at the larger of its sizes before and after that write (dynoxide's
/// capture against DynamoDB; the API Reference says only that such a retry "returns the same
/// result" and consumes read capacity).
fn replayed_capacity(sizes: &[(String, usize)]) -> Vec<TableCapacity> {
    let mut capacity = Vec::new();
    for (table, bytes) in sizes {
        TableCapacity::charge(
            &mut capacity,
            table,
            &Capacity::table(transactional_read(*bytes)),
        );
    }
    capacity
}

/// The cancellation reason of an action whose key is invalid; other errors stay errors of the
/// whole request.
fn validation_reason(e: Error) -> Result<CancellationReason> {
    match e {
        Error::Validation { message } => Ok(CancellationReason {
            code: Some("ValidationError".to_owned()),
            message: Some(message),
            item: None,
        }),
        other => Err(other),
    }
}

/// The 4 MB limit, after the actions' keys: the items a transaction carries, measured as
/// dynoxide measures them (a put's item; an update's key and the literal values of its update and
/// condition; a delete's or condition check's key) by DynamoDB's item size formula.
fn check_transaction_size(actions: &[TransactWriteItem]) -> Result<()> {
    let bytes: usize = actions
        .iter()
        .map(|action| match action {
            TransactWriteItem::Put { item, .. } => crate::value::item_size(item),
            TransactWriteItem::Update {
                key,
                update,
                condition,
                ..
            } => {
                crate::value::item_size(key) + eval::literal_bytes(Some(update), condition.as_ref())
            }
            TransactWriteItem::Delete { key, .. }
            | TransactWriteItem::ConditionCheck { key, .. } => crate::value::item_size(key),
        })
        .sum();
    if bytes > MAX_TRANSACTION_BYTES {
        return Err(Error::validation(
            "Collection size of items exceeded, which can also be caused by the aggregate size of the items in the transaction exceeding the 4MB limit",
        ));
    }
    Ok(())
}

/// A write an action makes once every action holds: its table, key, the item it puts (none for a
/// delete), and the item it replaces.
type Write = (
    usize,
    KeyBytes,
    KeyBytes,
    Option<Prepared>,
    Option<SharedItem>,
);

/// One action, validated: its table, key, and what it writes.
struct Planned {
    table: usize,
    pk: KeyBytes,
    sk: KeyBytes,
    action: TransactWriteItem,
    put: Option<Prepared>,
}

pub(super) fn transact_write(
    store: &MemoryStore,
    request: TransactWriteRequest,
) -> Result<TransactWriteOutput> {
    check_count(request.actions.len())?;
    // An empty attribute name in an action's item or key (bare), or in its expression values
    // (naming the first placeholder holding one), before anything else of the actions.
    for action in &request.actions {
        if eval::item_has_empty_name(named_values(action)) {
            return Err(Error::validation(eval::EMPTY_NAME));
        }
        let (update, condition) = expressions(action);
        if eval::literals_have_empty_name(update, condition) {
            return Err(Error::validation(format!(
                "ExpressionAttributeValues contains invalid value: {} for key {}",
                eval::EMPTY_NAME,
                eval::first_value_with_empty_name(update, condition)
            )));
        }
    }
    // Invalid values (an item's, a key's, an expression's) and overlapping update paths fail the
    // whole request, as DynamoDB reports them: a validation error of the request, not a
    // cancellation reason of its action (the other expression errors are the action's
    // ValidationError). dynoxide's order: what reading the request refuses anywhere in it (a
    // number, a NULL that is not true), in an action's item or key and then its expression
    // values, action by action; then, action by action, its item's or key's other faults (a
    // repeated set member, an empty set; attributes by name), its expression values', and its
    // update's overlapping paths.
    for action in &request.actions {
        if let Some(e) = eval::read_error(named_values(action), Layer::Older) {
            return Err(e);
        }
        let (update, condition) = expressions(action);
        eval::check_literal_reads(update, condition)?;
    }
    for action in &request.actions {
        let values = named_values(action);
        let mut names: Vec<&String> = values.keys().collect();
        names.sort_unstable();
        for name in names {
            eval::validate_attribute(name, &mut values[name].clone(), Layer::Older)?;
        }
        let (update, condition) = expressions(action);
        eval::check_literals(update, condition)?;
        if let Some(update) = update {
            eval::check_update_overlap(update)?;
        }
    }
    // Tokens are checked and recorded under one lock held across the transaction, so two
    // concurrent retries with one token apply once. Lock order: tokens, then tables by name.
    let mut tokens = request
        .client_request_token
        .as_ref()
        .map(|_| store.tokens.lock().unwrap_or_else(PoisonError::into_inner));
    let now = store.now();
    if let (Some(tokens), Some(token)) = (tokens.as_mut(), &request.client_request_token) {
        if token.is_empty() || token.len() > 36 {
            return Err(Error::validation(format!(
                "1 validation error detected: ClientRequestToken must have length between 1 and 36, found {}",
                token.len()
            )));
        }
        tokens.expire(now);
        if let Some(earlier) = (tokens.by_token.get(token)).filter(|e| now - e.at < TOKEN_WINDOW) {
            return if earlier.request == request {
                Ok(TransactWriteOutput {
                    consumed_capacity: Some(replayed_capacity(&earlier.sizes)),
                })
            } else {
                Err(Error::validation(format!(
                    "IdempotentParameterMismatch: the client request token {token:?} was used within the last 10 minutes with a different request"
                )))
            };
        }
    }
    let tables = store.tables_in_order(request.actions.iter().map(TransactWriteItem::table))?;
    // Two actions on one item are refused before any action's key is checked further (an empty
    // key value in an earlier action; dynoxide's order).
    let mut seen: HashSet<(usize, KeyBytes, KeyBytes)> =
        HashSet::with_capacity(request.actions.len());
    for action in &request.actions {
        let t = position(&tables, action.table());
        if let Some((pk, sk)) = named_key(&tables[t].1.schema, named_values(action))
            && !seen.insert((t, pk, sk))
        {
            return Err(one_action_per_item());
        }
    }
    // An action whose key does not fit its table is a user error DynamoDB reports as that
    // action's ValidationError reason (after the request-wide checks), not as a
    // ValidationException of the whole request; the other actions' conditions are still
    // evaluated, so their reasons stand beside it (dynoxide: `[ConditionalCheckFailed,
    // ValidationError]`).
    let mut planned: Vec<std::result::Result<Planned, CancellationReason>> =
        Vec::with_capacity(request.actions.len());
    for action in &request.actions {
        let t = position(&tables, action.table());
        let schema = &tables[t].1.schema;
        let keyed = match action {
            TransactWriteItem::Put { item, .. } => prepare_put(schema, item.clone(), Layer::Older)
                .map(|p| (p.pk.clone(), p.sk.clone(), Some(p))),
            TransactWriteItem::Update { key, update, .. } => {
                if update.is_empty() {
                    return Err(Error::validation(
                        "1 validation error detected: an Update action of a transaction needs an update expression (found no action)",
                    ));
                }
                schema.key(key).map(|(pk, sk)| (pk, sk, None))
            }
            TransactWriteItem::Delete { key, .. }
            | TransactWriteItem::ConditionCheck { key, .. } => {
                schema.key(key).map(|(pk, sk)| (pk, sk, None))
            }
        };
        let (pk, sk, put) = match keyed {
            Ok(keyed) => keyed,
            // An empty string or binary key value (the table's, or in a Put a secondary index's)
            // fails the request, where the action's other key faults are its cancellation reason
            // (dynoxide, as captured from DynamoDB; the API reference lists "the update expression
            // attempted to update the secondary index key to unsupported type" among the
            // ValidationError reasons). Only the first fault of the action's key checks counts:
            // a sort key of the wrong type before an empty index key value is the action's reason.
            Err(e) if super::schema::is_empty_key_value(&e) => return Err(e),
            Err(e) => {
                planned.push(Err(validation_reason(e)?));
                continue;
            }
        };
        planned.push(Ok(Planned {
            table: t,
            pk,
            sk,
            action: action.clone(),
            put,
        }));
    }
    check_transaction_size(&request.actions)?;

    let mut guards: Vec<_> = tables.iter().map(|(_, t)| write_lock(&t.data)).collect();
    for (guard, (_, t)) in guards.iter_mut().zip(&tables) {
        guard.purge_expired(&t.schema, now);
    }
    // Evaluate every action against the current state; write nothing unless all succeed.
    let mut reasons = Vec::with_capacity(planned.len());
    let mut writes: Vec<Write> = Vec::new();
    // Each action's capacity: its table's share doubled (a condition check as a write of the
    // item it read), its indexes' at their single-write cost ([`write_capacity`]); and the size
    // of the item it wrote, before or after, whichever is larger, for a retry by token.
    let mut capacity = Vec::new();
    let mut sizes: Vec<(String, usize)> = Vec::with_capacity(planned.len());
    let mut failed = false;
    for p in planned {
        let p = match p {
            Ok(p) => p,
            Err(reason) => {
                failed = true;
                reasons.push(reason);
                continue;
            }
        };
        let schema = &tables[p.table].1.schema;
        let old: Option<SharedItem> = guards[p.table]
            .get(&p.pk, &p.sk)
            .map(|e| Arc::clone(&e.item));
        let (condition, return_old) = match &p.action {
            TransactWriteItem::Put {
                condition,
                return_old_on_condition_failure,
                ..
            }
            | TransactWriteItem::Update {
                condition,
                return_old_on_condition_failure,
                ..
            }
            | TransactWriteItem::Delete {
                condition,
                return_old_on_condition_failure,
                ..
            } => (condition.as_ref(), *return_old_on_condition_failure),
            TransactWriteItem::ConditionCheck {
                condition,
                return_old_on_condition_failure,
                ..
            } => (Some(condition), *return_old_on_condition_failure),
        };
        let outcome =
            check_condition(condition, old.as_ref(), return_old).and_then(|()| match &p.action {
                TransactWriteItem::Put { .. } => Ok(Some((p.pk.clone(), p.sk.clone(), p.put))),
                TransactWriteItem::Update { key, update, .. } => updated_item(
                    schema,
                    key,
                    old.as_ref(),
                    update,
                    &p.pk,
                    &p.sk,
                    Layer::Older,
                )
                .map(|(new, _)| Some((p.pk.clone(), p.sk.clone(), Some(new)))),
                TransactWriteItem::Delete { .. } => Ok(Some((p.pk.clone(), p.sk.clone(), None))),
                TransactWriteItem::ConditionCheck { .. } => Ok(None),
            });
        match outcome {
            Ok(write) => {
                reasons.push(CancellationReason::code(Some("None")));
                match write {
                    Some((pk, sk, put)) => writes.push((p.table, pk, sk, put, old)),
                    None => {
                        let read = write_capacity(schema, old.as_deref(), None, 2.0);
                        let table = &tables[p.table].0;
                        TableCapacity::charge(&mut capacity, table, &Capacity::table(read.table));
                        let bytes = old.as_deref().map_or(0, crate::value::item_size);
                        sizes.push((table.clone(), bytes));
                    }
                }
            }
            Err(Error::ConditionFailed { item, .. }) => {
                failed = true;
                reasons.push(CancellationReason {
                    code: Some("ConditionalCheckFailed".to_owned()),
                    message: Some("The conditional request failed".to_owned()),
                    item,
                });
            }
            // An update that sets an index key to an empty value fails the request too, as an
            // empty key value in an action's key or put does (dynoxide).
            Err(e) if super::schema::is_empty_key_value(&e) => return Err(e),
            Err(e) => {
                failed = true;
                reasons.push(validation_reason(e)?);
            }
        }
    }
    if failed {
        return Err(Error::TransactionCanceled { reasons });
    }
    for (t, pk, sk, put, old) in writes {
        let schema = &tables[t].1.schema;
        let new = match put {
            Some(p) => Some(guards[t].insert(schema, p)),
            None => {
                guards[t].remove(schema, &pk, &sk);
                None
            }
        };
        let charged = write_capacity(schema, old.as_deref(), new.as_deref(), 2.0);
        TableCapacity::charge(&mut capacity, &tables[t].0, &charged);
        let size = |item: Option<&SharedItem>| item.map_or(0, |i| crate::value::item_size(i));
        sizes.push((
            tables[t].0.clone(),
            size(old.as_ref()).max(size(new.as_ref())),
        ));
    }
    drop(guards);
    if let (Some(tokens), Some(token)) = (tokens.as_mut(), &request.client_request_token) {
        tokens.remember(
            token.clone(),
            Remembered {
                at: now,
                request: request.clone(),
                sizes,
            },
        );
    }
    Ok(TransactWriteOutput {
        consumed_capacity: Some(capacity),
    })
}

/// The tokens of successful transactions, remembered for [`TOKEN_WINDOW`]; expired ones are
/// dropped oldest first, so a transaction costs what it expires, not a scan of every token
/// (every typed `Transaction` carries one).
#[derive(Default)]
pub(super) struct Tokens {
    by_token: HashMap<String, Remembered>,
    /// `(time, token)` in the order remembered.
    order: VecDeque<(f64, String)>,
}

impl Tokens {
    /// Drops the tokens remembered `TOKEN_WINDOW` or longer before `now`.
    fn expire(&mut self, now: f64) {
        while let Some((at, _)) = self.order.front() {
            if now - at < TOKEN_WINDOW {
                break;
            }
            let Some((at, token)) = self.order.pop_front() else {
                break;
            };
            // A token remembered again later keeps its newer entry.
            if self.by_token.get(&token).is_some_and(|r| r.at <= at) {
                self.by_token.remove(&token);
            }
        }
        // A clock set back leaves older entries behind newer ones: the window still holds.
        if self.order.len() > self.by_token.len() * 2 + 64 {
            self.by_token.retain(|_, r| now - r.at < TOKEN_WINDOW);
            let by_token = &self.by_token;
            self.order
                .retain(|(at, t)| by_token.get(t).is_some_and(|r| r.at == *at));
        }
    }

    fn remember(&mut self, token: String, remembered: Remembered) {
        self.order.push_back((remembered.at, token.clone()));
        self.by_token.insert(token, remembered);
    }
}

/// A transaction that succeeded with an idempotency token, remembered for [`TOKEN_WINDOW`].
pub(super) struct Remembered {
    /// When it ran (the store's clock, in epoch seconds).
    at: f64,
    /// The request, which a retry with the token must repeat.
    request: TransactWriteRequest,
    /// Each written item's table and size, for what a retry consumes.
    sizes: Vec<(String, usize)>,
}
