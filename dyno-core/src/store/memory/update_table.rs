//! UpdateTable: a global secondary index added to or removed from a table, populated or not.
//!
//! The engine fills a new index from the table's items before it answers, under the catalog's
//! write lock (see [`super::TableRef`]), so no request sees a half-built index. The answer
//! describes the table as DynamoDB's response does (the new index `CREATING`, a removed one
//! `DELETING`); every description after it shows the change done.

use std::collections::HashSet;
use std::sync::{Arc, RwLock};

use super::data::TableData;
use super::schema::Schema;
use super::{not_found, write_lock, MemoryStore, TableState};
use crate::error::{Error, Result};
use crate::store::{IndexChange, IndexStatus, TableDescription, UpdateTableRequest};

pub(super) fn update_table(
    store: &MemoryStore,
    request: UpdateTableRequest,
) -> Result<TableDescription> {
    check_request(&request)?;
    let now = store.now();
    let mut catalog = write_lock(&store.tables);
    let current = catalog
        .get(&request.table)
        .cloned()
        .ok_or_else(|| not_found(&request.table))?;
    if request.index_changes.len() > 1 {
        return Err(one_index_at_a_time());
    }
    let mut def = current.schema.def.clone();
    // The index whose status the answer reports as changing.
    let mut changing = None;
    for change in &request.index_changes {
        match change {
            IndexChange::Create(index) => {
                if def.index(&index.name).is_some() {
                    return Err(Error::validation(format!(
                        "One or more parameter values were invalid: Index already exists: {}",
                        index.name
                    )));
                }
                def.global_indexes.push(index.clone());
                changing = Some((index.name.clone(), IndexStatus::Creating));
            }
            IndexChange::Delete(name) => {
                if !def.global_indexes.iter().any(|i| i.name == *name) {
                    // dynoxide's wording (the reference), which names the index as a table.
                    return Err(Error::ResourceNotFound {
                        message: format!("Requested resource not found: Table: {name} not found"),
                    });
                }
                changing = Some((name.clone(), IndexStatus::Deleting));
            }
        }
    }
    let answered = def.clone();
    for change in &request.index_changes {
        if let IndexChange::Delete(name) = change {
            def.global_indexes.retain(|i| i.name != *name);
        }
    }
    let schema = Schema::new(&def)?;
    let mut old = write_lock(&current.data);
    old.purge_expired(&current.schema, now);
    let data: TableData = old.reindex(&current.schema, &schema);
    let ttl_attribute = data.ttl_attribute.clone();
    let item_count = data.live_count(now) as u64;
    drop(old);
    catalog.insert(
        request.table.clone(),
        Arc::new(TableState {
            schema,
            data: RwLock::new(data),
        }),
    );
    drop(catalog);
    let mut definition = answered;
    definition.ttl_attribute = ttl_attribute;
    let index_status = definition
        .global_indexes
        .iter()
        .map(|i| {
            let status = match &changing {
                Some((name, status)) if *name == i.name => *status,
                _ => IndexStatus::Active,
            };
            (i.name.clone(), status)
        })
        .collect();
    Ok(TableDescription {
        definition,
        item_count: Some(item_count),
        index_status,
    })
}

/// The checks DynamoDB makes on the request before it looks the table up.
fn check_request(request: &UpdateTableRequest) -> Result<()> {
    if request.index_changes.is_empty() {
        return Err(Error::validation(
            "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required",
        ));
    }
    let mut seen = HashSet::new();
    for change in &request.index_changes {
        let name = match change {
            IndexChange::Create(index) => &index.name,
            IndexChange::Delete(name) => name,
        };
        if !seen.insert(name.as_str()) {
            return Err(Error::validation(format!(
                "One or more parameter values were invalid: Only one global secondary index update per index is allowed simultaneously. Index: {name}"
            )));
        }
    }
    Ok(())
}

/// DynamoDB's answer to more than one index created or deleted in one request (API Reference,
/// UpdateTable: "You can create or delete only one global secondary index per UpdateTable
/// operation"), a `LimitExceededException`, as `DynamoStore` reports that code. dynoxide 3.2.0
/// accepts up to five; the documentation decides.
fn one_index_at_a_time() -> Error {
    Error::Service {
        code: Some("LimitExceededException".to_owned()),
        message: "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table".to_owned(),
        source: None,
    }
}
