//! BatchGetItem and BatchWriteItem with DynamoDB's limits: 1 to 100 keys and 1 to 25 writes per
//! request, no key twice, responses and requests within 16 MB. A batch is validated whole before
//! anything is read or written, as DynamoDB rejects the whole request for one bad element.

use std::collections::HashSet;
use std::sync::Arc;

use super::key_bytes::KeyBytes;
use super::{
    prepare_put_staged, read_lock, read_units, write_capacity, write_lock, MemoryStore, Prepared,
    Stage,
};
use crate::error::{Error, Result};
use crate::expr::eval::{self, Layer};
use crate::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, TableKey, WriteRequest,
};
use crate::store::{Capacity, TableCapacity};

/// BatchGetItem's most keys per request.
pub(super) const MAX_BATCH_GET: usize = 100;
/// BatchWriteItem's most writes per request.
pub(super) const MAX_BATCH_WRITE: usize = 25;
/// The most a batch response (BatchGetItem) or request (BatchWriteItem) may hold.
pub(super) const MAX_BATCH_BYTES: usize = 16 * 1024 * 1024;

fn duplicates() -> Error {
    Error::validation("Provided list of item keys contains duplicates")
}

/// Position of `name` in tables sorted by name.
pub(super) fn position<T>(tables: &[(String, T)], name: &str) -> usize {
    tables
        .binary_search_by(|(n, _)| n.as_str().cmp(name))
        .unwrap_or_else(|_| unreachable!("table {name} was resolved"))
}

/// DynamoDB looks for a key given twice, as sent, before it checks each key against its table's
/// schema (dynoxide's order): on a key error, a repeated key is what it names. Only looked for on
/// that error path, so a valid batch pays nothing for it.
fn repeated_key(keys: &[TableKey]) -> Option<Error> {
    (1..keys.len())
        .any(|i| keys[..i].contains(&keys[i]))
        .then(duplicates)
}

/// DynamoDB reads the whole request before it checks anything (a number it cannot read or
/// store, a NULL that is not true, anywhere in it), then checks the attribute values of every
/// write (sets, depth) before any key or duplicate (dynoxide's order). So on an error of a later
/// stage, a fault of an earlier one in any write from the one that failed on is what it names.
/// Looked for on that error path only: a valid batch pays nothing for it.
fn earlier_fault<'w>(
    writes: impl Iterator<Item = &'w WriteRequest> + Clone,
    stage: Stage,
) -> Option<Error> {
    let attributes = |w: &'w WriteRequest| match w {
        WriteRequest::Put { item, .. } => item,
        WriteRequest::Delete { key, .. } => key,
    };
    let read = || {
        writes
            .clone()
            .find_map(|w| eval::read_error(attributes(w), Layer::Older))
    };
    let value = || {
        writes.clone().find_map(|w| {
            attributes(w).iter().find_map(|(name, value)| {
                eval::validate_attribute(name, &mut value.clone(), Layer::Older).err()
            })
        })
    };
    match stage {
        Stage::Read => None,
        Stage::Value => read(),
        Stage::Key => read().or_else(value),
    }
}

pub(super) fn batch_get(store: &MemoryStore, request: BatchGetRequest) -> Result<BatchGetOutput> {
    if request.keys.is_empty() {
        return Err(crate::store::empty_list_error("requestItems"));
    }
    if request.keys.len() > MAX_BATCH_GET {
        return Err(Error::validation(format!(
            "Too many items requested for the BatchGetItem call: {} keys, the limit is {MAX_BATCH_GET}",
            request.keys.len()
        )));
    }
    let tables = store.tables_in_order(request.keys.iter().map(|k| k.table.as_str()))?;
    let mut seen: HashSet<(usize, KeyBytes, KeyBytes)> = HashSet::with_capacity(request.keys.len());
    let mut located = Vec::with_capacity(request.keys.len());
    for k in &request.keys {
        let t = position(&tables, &k.table);
        let (pk, sk) = tables[t]
            .1
            .schema
            .key(&k.key)
            .map_err(|e| repeated_key(&request.keys).unwrap_or(e))?;
        if !seen.insert((t, pk.clone(), sk.clone())) {
            return Err(duplicates());
        }
        located.push((t, pk, sk));
    }
    let now = store.now();
    let guards: Vec<_> = tables.iter().map(|(_, t)| read_lock(&t.data)).collect();
    let mut out = BatchGetOutput::default();
    let mut bytes = 0usize;
    let mut capacity = Vec::new();
    for (k, (t, pk, sk)) in request.keys.into_iter().zip(located) {
        if !out.unprocessed_keys.is_empty() {
            out.unprocessed_keys.push(k);
            continue;
        }
        let Some(entry) = guards[t].live(&pk, &sk, || now) else {
            // A key read and not found still costs the minimum.
            let units = read_units(0, request.consistent_read);
            TableCapacity::charge(&mut capacity, &k.table, &Capacity::table(units));
            continue;
        };
        if bytes + entry.size > MAX_BATCH_BYTES {
            out.unprocessed_keys.push(k);
            continue;
        }
        bytes += entry.size;
        let units = read_units(entry.size, request.consistent_read);
        TableCapacity::charge(&mut capacity, &k.table, &Capacity::table(units));
        out.items.push((k.table, Arc::clone(&entry.item)));
    }
    out.consumed_capacity = Some(capacity);
    Ok(out)
}

pub(super) fn batch_write(
    store: &MemoryStore,
    request: BatchWriteRequest,
) -> Result<BatchWriteOutput> {
    if request.writes.is_empty() {
        return Err(crate::store::empty_list_error("requestItems"));
    }
    if request.writes.len() > MAX_BATCH_WRITE {
        return Err(Error::validation(format!(
            "1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to {MAX_BATCH_WRITE}, Member must have length greater than or equal to 1] (found {} writes)",
            request.writes.len()
        )));
    }
    // An empty attribute name in an item or a key is refused bare, before the tables are looked
    // up (dynoxide, from DynamoDB's answers).
    if request.writes.iter().any(|w| match w {
        WriteRequest::Put { item, .. } => eval::item_has_empty_name(item),
        WriteRequest::Delete { key, .. } => eval::item_has_empty_name(key),
    }) {
        return Err(Error::validation(eval::EMPTY_NAME));
    }
    let tables = store.tables_in_order(request.writes.iter().map(WriteRequest::table))?;
    let mut seen: HashSet<(usize, KeyBytes, KeyBytes)> =
        HashSet::with_capacity(request.writes.len());
    let mut writes: Vec<(usize, KeyBytes, KeyBytes, Option<Prepared>)> =
        Vec::with_capacity(request.writes.len());
    let mut bytes = 0usize;
    let mut rest = request.writes.into_iter();
    while let Some(w) = rest.next() {
        let t = position(&tables, w.table());
        let schema = &tables[t].1.schema;
        // A fault of an earlier stage in this write or any after it is named first.
        let (pk, sk, put) = match w {
            WriteRequest::Put { table, item } => {
                if !schema.holds_key(&item) {
                    let fault = schema.batch_key_fault(&item);
                    let this = WriteRequest::put(table, item);
                    return Err(earlier_fault(
                        std::iter::once(&this).chain(rest.as_slice()),
                        Stage::Key,
                    )
                    .unwrap_or(fault));
                }
                let prepared =
                    prepare_put_staged(schema, item, Layer::Older).map_err(|(stage, e)| {
                        earlier_fault(rest.as_slice().iter(), stage).unwrap_or(e)
                    })?;
                bytes += prepared.size;
                (prepared.pk.clone(), prepared.sk.clone(), Some(prepared))
            }
            WriteRequest::Delete { table, key } => match schema.key(&key) {
                Ok((pk, sk)) => (pk, sk, None),
                Err(e) => {
                    let this = WriteRequest::delete(table, key);
                    return Err(earlier_fault(
                        std::iter::once(&this).chain(rest.as_slice()),
                        Stage::Key,
                    )
                    .unwrap_or(e));
                }
            },
        };
        if !seen.insert((t, pk.clone(), sk.clone())) {
            return Err(
                earlier_fault(rest.as_slice().iter(), Stage::Key).unwrap_or_else(duplicates)
            );
        }
        writes.push((t, pk, sk, put));
    }
    if bytes > MAX_BATCH_BYTES {
        return Err(Error::validation(format!(
            "Item size to update has exceeded the maximum allowed size: the batch holds {bytes} bytes, the limit is {MAX_BATCH_BYTES}"
        )));
    }
    let now = store.now();
    let mut guards: Vec<_> = tables.iter().map(|(_, t)| write_lock(&t.data)).collect();
    for (guard, (_, t)) in guards.iter_mut().zip(&tables) {
        guard.purge_expired(&t.schema, now);
    }
    let mut capacity = Vec::new();
    for (t, pk, sk, put) in writes {
        let schema = &tables[t].1.schema;
        let charged = match put {
            Some(p) => {
                let (new, old) = guards[t].replace(schema, p);
                write_capacity(schema, old.as_deref(), Some(&new), 1.0)
            }
            None => {
                let old = guards[t].remove(schema, &pk, &sk);
                write_capacity(schema, old.as_deref(), None, 1.0)
            }
        };
        TableCapacity::charge(&mut capacity, &tables[t].0, &charged);
    }
    Ok(BatchWriteOutput {
        unprocessed: Vec::new(),
        consumed_capacity: Some(capacity),
    })
}
