//! Converting dyno's plain requests into the SDK's input builders, and the SDK's outputs back.
//!
//! Pure functions, so they are tested without a server. Every expression of one request is
//! rendered with one [`Placeholders`], so `#n`/`:v` names never collide between the key condition,
//! the filter, the condition, the update and the projection; values and names only ever reach
//! the service through `ExpressionAttributeNames`/`ExpressionAttributeValues`.

use std::collections::HashMap;
use std::sync::Arc;

use aws_sdk_dynamodb::operation::batch_get_item::builders::BatchGetItemInputBuilder;
use aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemInputBuilder;
use aws_sdk_dynamodb::operation::create_table::builders::CreateTableInputBuilder;
use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemInputBuilder;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemInputBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanInputBuilder;
use aws_sdk_dynamodb::operation::transact_get_items::builders::TransactGetItemsInputBuilder;
use aws_sdk_dynamodb::operation::transact_write_items::builders::TransactWriteItemsInputBuilder;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemInputBuilder;
use aws_sdk_dynamodb::operation::update_table::builders::UpdateTableInputBuilder;
use aws_sdk_dynamodb::types as sdk;

use super::error::build_error;
use crate::error::{Error, Result};
use crate::expr::{
    render_condition, render_key_condition, render_projection, render_update, Condition, Path,
    Placeholders,
};
use crate::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, Capacity, DeleteRequest,
    GetRequest, IndexChange, IndexStatus, Page, PutRequest, QueryRequest, ReturnValues,
    ScanRequest, TableCapacity, TableKey, TransactGetRequest, TransactWriteItem,
    TransactWriteRequest, UpdateRequest, UpdateTableRequest, WriteRequest,
};
use crate::table::{IndexDef, KeyAttribute, Projection, ScalarType, StreamView, TableDef};
use crate::value::{check_item_size, Item};

/// `ReturnValues`, left out when it is `NONE`: DynamoDB's default, so the request says the same
/// with fewer bytes to serialize, sign and parse (what a hand-written call sends).
fn return_value(r: ReturnValues) -> Option<sdk::ReturnValue> {
    match r {
        ReturnValues::None => None,
        ReturnValues::AllOld => Some(sdk::ReturnValue::AllOld),
        ReturnValues::UpdatedOld => Some(sdk::ReturnValue::UpdatedOld),
        ReturnValues::AllNew => Some(sdk::ReturnValue::AllNew),
        ReturnValues::UpdatedNew => Some(sdk::ReturnValue::UpdatedNew),
    }
}

fn on_condition_failure(return_old: bool) -> Option<sdk::ReturnValuesOnConditionCheckFailure> {
    return_old.then_some(sdk::ReturnValuesOnConditionCheckFailure::AllOld)
}

fn projection(
    paths: Option<&[Path]>,
    ph: &mut Placeholders,
    table: &str,
) -> Result<Option<String>> {
    match paths {
        None => Ok(None),
        Some([]) => Err(Error::validation(format!(
            "empty projection on table {table}: list at least one attribute, or ask for all attributes with no projection"
        ))),
        Some(p) => Ok(Some(render_projection(p, ph))),
    }
}

fn limit(limit: Option<u32>) -> Result<Option<i32>> {
    limit
        .map(|l| match crate::store::limit_error(l) {
            // Valid ones fit.
            None => Ok(i32::try_from(l).unwrap_or(i32::MAX)),
            Some(e) => Err(e),
        })
        .transpose()
}

/// A page's resume key: some servers send an empty map on the last page, which means none.
fn start_key(key: Option<Item>) -> Option<Item> {
    key.filter(|k| !k.is_empty())
}

/// GetItem.
pub(crate) fn get(r: GetRequest<'_>) -> Result<GetItemInputBuilder> {
    let builder = GetItemInputBuilder::default()
        .consistent_read(r.consistent_read)
        .return_consumed_capacity(sdk::ReturnConsumedCapacity::Indexes);
    // Placeholders only for a projection: most gets have none.
    let builder = match r.projection.as_deref() {
        None => builder,
        paths => {
            let mut ph = Placeholders::new();
            let projection = projection(paths, &mut ph, &r.table)?;
            builder
                .set_projection_expression(projection)
                .set_expression_attribute_names(ph.take_names())
        }
    };
    Ok(builder
        .table_name(r.table)
        .set_key(Some(r.key.into_owned())))
}

/// PutItem, refused before sending when the item is over 400 KB.
pub(crate) fn put(r: PutRequest) -> Result<PutItemInputBuilder> {
    check_item_size(&r.item, None)?;
    let mut ph = Placeholders::new();
    let condition = r.condition.as_ref().map(|c| render_condition(c, &mut ph));
    Ok(PutItemInputBuilder::default()
        .table_name(r.table)
        .set_item(Some(r.item))
        .set_condition_expression(condition)
        .set_expression_attribute_names(ph.take_names())
        .set_expression_attribute_values(ph.take_values())
        .set_return_values(return_value(r.return_values))
        .set_return_values_on_condition_check_failure(on_condition_failure(
            r.return_old_on_condition_failure,
        ))
        .return_consumed_capacity(sdk::ReturnConsumedCapacity::Indexes))
}

/// UpdateItem. An update without actions is sent without an UpdateExpression, which DynamoDB
/// accepts (it creates the item with only its key when absent).
pub(crate) fn update(r: UpdateRequest) -> UpdateItemInputBuilder {
    let mut ph = Placeholders::new();
    let update = render_update(&r.update, &mut ph);
    let condition = r.condition.as_ref().map(|c| render_condition(c, &mut ph));
    UpdateItemInputBuilder::default()
        .table_name(r.table)
        .set_key(Some(r.key))
        .set_update_expression(update)
        .set_condition_expression(condition)
        .set_expression_attribute_names(ph.take_names())
        .set_expression_attribute_values(ph.take_values())
        .set_return_values(return_value(r.return_values))
        .set_return_values_on_condition_check_failure(on_condition_failure(
            r.return_old_on_condition_failure,
        ))
        .return_consumed_capacity(sdk::ReturnConsumedCapacity::Indexes)
}

/// DeleteItem.
pub(crate) fn delete(r: DeleteRequest) -> DeleteItemInputBuilder {
    let mut ph = Placeholders::new();
    let condition = r.condition.as_ref().map(|c| render_condition(c, &mut ph));
    DeleteItemInputBuilder::default()
        .table_name(r.table)
        .set_key(Some(r.key))
        .set_condition_expression(condition)
        .set_expression_attribute_names(ph.take_names())
        .set_expression_attribute_values(ph.take_values())
        .set_return_values(return_value(r.return_values))
        .set_return_values_on_condition_check_failure(on_condition_failure(
            r.return_old_on_condition_failure,
        ))
        .return_consumed_capacity(sdk::ReturnConsumedCapacity::Indexes)
}

/// Query.
pub(crate) fn query(r: QueryRequest) -> Result<QueryInputBuilder> {
    let mut ph = Placeholders::new();
    let key_condition = render_key_condition(&r.key_condition, &mut ph);
    let filter = r.filter.as_ref().map(|c| render_condition(c, &mut ph));
    let projection = projection(r.projection.as_deref(), &mut ph, &r.table)?;
    Ok(QueryInputBuilder::default()
        .table_name(r.table)
        .set_index_name(r.index)
        .key_condition_expression(key_condition)
        .set_filter_expression(filter)
        .set_projection_expression(projection)
        .set_expression_attribute_names(ph.take_names())
        .set_expression_attribute_values(ph.take_values())
        .set_limit(limit(r.limit)?)
        .scan_index_forward(r.scan_forward)
        .set_exclusive_start_key(r.exclusive_start_key)
        .consistent_read(r.consistent_read)
        .set_select(r.count_only.then_some(sdk::Select::Count))
        .return_consumed_capacity(sdk::ReturnConsumedCapacity::Indexes))
}

/// Scan.
pub(crate) fn scan(r: ScanRequest) -> Result<ScanInputBuilder> {
    let mut ph = Placeholders::new();
    let filter = r.filter.as_ref().map(|c| render_condition(c, &mut ph));
    let projection = projection(r.projection.as_deref(), &mut ph, &r.table)?;
    let segment = r
        .segment
        .map(
            |(segment, total)| match crate::store::segment_error(segment, total) {
                // Valid ones are below 1,000,000: they fit.
                None => Ok((
                    i32::try_from(segment).unwrap_or(i32::MAX),
                    i32::try_from(total).unwrap_or(i32::MAX),
                )),
                Some(e) => Err(e),
            },
        )
        .transpose()?;
    Ok(ScanInputBuilder::default()
        .table_name(r.table)
        .set_index_name(r.index)
        .set_filter_expression(filter)
        .set_projection_expression(projection)
        .set_expression_attribute_names(ph.take_names())
        .set_expression_attribute_values(ph.take_values())
        .set_limit(limit(r.limit)?)
        .set_exclusive_start_key(r.exclusive_start_key)
        .consistent_read(r.consistent_read)
        .set_segment(segment.map(|s| s.0))
        .set_total_segments(segment.map(|s| s.1))
        .set_select(r.count_only.then_some(sdk::Select::Count))
        .return_consumed_capacity(sdk::ReturnConsumedCapacity::Indexes))
}

/// A query or scan page.
pub(crate) fn page(
    items: Option<Vec<Item>>,
    count: i32,
    scanned_count: i32,
    last_evaluated_key: Option<Item>,
    consumed_capacity: Option<Capacity>,
) -> Page {
    Page {
        items: items
            .unwrap_or_default()
            .into_iter()
            .map(Arc::new)
            .collect(),
        count: usize::try_from(count).unwrap_or(0),
        scanned_count: usize::try_from(scanned_count).unwrap_or(0),
        last_evaluated_key: start_key(last_evaluated_key),
        consumed_capacity,
    }
}

/// Groups `(table, x)` pairs by table, keeping the tables in first-seen order.
fn by_table<T>(pairs: impl IntoIterator<Item = (String, T)>) -> Vec<(String, Vec<T>)> {
    let mut out: Vec<(String, Vec<T>)> = Vec::new();
    for (table, x) in pairs {
        match out.iter_mut().find(|(t, _)| *t == table) {
            Some((_, xs)) => xs.push(x),
            None => out.push((table, vec![x])),
        }
    }
    out
}

/// BatchGetItem.
pub(crate) fn batch_get(r: BatchGetRequest) -> Result<BatchGetItemInputBuilder> {
    let mut builder = BatchGetItemInputBuilder::default()
        .return_consumed_capacity(sdk::ReturnConsumedCapacity::Indexes);
    for (table, keys) in by_table(r.keys.into_iter().map(|k| (k.table, k.key))) {
        let ka = sdk::KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .consistent_read(r.consistent_read)
            .build()
            .map_err(|e| build_error("BatchGetItem keys", e))?;
        builder = builder.request_items(table, ka);
    }
    Ok(builder)
}

/// BatchGetItem's items and unprocessed keys.
pub(crate) fn batch_get_output(
    responses: Option<HashMap<String, Vec<Item>>>,
    unprocessed: Option<HashMap<String, sdk::KeysAndAttributes>>,
    consumed_capacity: Option<Vec<TableCapacity>>,
) -> BatchGetOutput {
    let items = responses
        .unwrap_or_default()
        .into_iter()
        .flat_map(|(table, items)| items.into_iter().map(move |i| (table.clone(), Arc::new(i))))
        .collect();
    let unprocessed_keys = unprocessed
        .unwrap_or_default()
        .into_iter()
        .flat_map(|(table, ka)| {
            ka.keys.into_iter().map(move |key| TableKey {
                table: table.clone(),
                key,
            })
        })
        .collect();
    BatchGetOutput {
        items,
        unprocessed_keys,
        consumed_capacity,
    }
}

/// BatchWriteItem, refused before sending when a put is over 400 KB.
pub(crate) fn batch_write(r: BatchWriteRequest) -> Result<BatchWriteItemInputBuilder> {
    let mut builder = BatchWriteItemInputBuilder::default()
        .return_consumed_capacity(sdk::ReturnConsumedCapacity::Indexes);
    let mut pairs = Vec::with_capacity(r.writes.len());
    for w in r.writes {
        let (table, request) = match w {
            WriteRequest::Put { table, item } => {
                check_item_size(&item, None)?;
                let put = sdk::PutRequest::builder()
                    .set_item(Some(item))
                    .build()
                    .map_err(|e| build_error("BatchWriteItem put", e))?;
                (table, sdk::WriteRequest::builder().put_request(put).build())
            }
            WriteRequest::Delete { table, key } => {
                let delete = sdk::DeleteRequest::builder()
                    .set_key(Some(key))
                    .build()
                    .map_err(|e| build_error("BatchWriteItem delete", e))?;
                (
                    table,
                    sdk::WriteRequest::builder().delete_request(delete).build(),
                )
            }
        };
        pairs.push((table, request));
    }
    for (table, requests) in by_table(pairs) {
        builder = builder.request_items(table, requests);
    }
    Ok(builder)
}

/// BatchWriteItem's unprocessed writes.
pub(crate) fn batch_write_output(
    unprocessed: Option<HashMap<String, Vec<sdk::WriteRequest>>>,
    consumed_capacity: Option<Vec<TableCapacity>>,
) -> BatchWriteOutput {
    let mut out = Vec::new();
    for (table, requests) in unprocessed.unwrap_or_default() {
        for r in requests {
            if let Some(put) = r.put_request {
                out.push(WriteRequest::put(table.clone(), put.item));
            } else if let Some(delete) = r.delete_request {
                out.push(WriteRequest::delete(table.clone(), delete.key));
            }
        }
    }
    BatchWriteOutput {
        unprocessed: out,
        consumed_capacity,
    }
}

/// TransactGetItems.
pub(crate) fn transact_get(r: TransactGetRequest) -> Result<TransactGetItemsInputBuilder> {
    let mut builder = TransactGetItemsInputBuilder::default()
        .return_consumed_capacity(sdk::ReturnConsumedCapacity::Indexes);
    for g in r.gets {
        let mut ph = Placeholders::new();
        let projection = projection(g.projection.as_deref(), &mut ph, &g.table)?;
        let get = sdk::Get::builder()
            .table_name(g.table)
            .set_key(Some(g.key))
            .set_projection_expression(projection)
            .set_expression_attribute_names(ph.take_names())
            .build()
            .map_err(|e| build_error("TransactGetItems get", e))?;
        builder = builder.transact_items(sdk::TransactGetItem::builder().get(get).build());
    }
    Ok(builder)
}

/// The condition of one transaction action, rendered with the action's own placeholders.
fn action_condition(c: Option<&Condition>, ph: &mut Placeholders) -> Option<String> {
    c.map(|c| render_condition(c, ph))
}

/// TransactWriteItems, refused before sending when a put is over 400 KB. Each action has its
/// own placeholder maps, as DynamoDB scopes them per action.
pub(crate) fn transact_write(r: TransactWriteRequest) -> Result<TransactWriteItemsInputBuilder> {
    let mut builder = TransactWriteItemsInputBuilder::default()
        .set_client_request_token(r.client_request_token)
        .return_consumed_capacity(sdk::ReturnConsumedCapacity::Indexes);
    for (i, action) in r.actions.into_iter().enumerate() {
        let mut ph = Placeholders::new();
        let item = match action {
            TransactWriteItem::Put {
                table,
                item,
                condition,
                return_old_on_condition_failure,
            } => {
                check_item_size(&item, None)?;
                let condition = action_condition(condition.as_ref(), &mut ph);
                let put = sdk::Put::builder()
                    .table_name(table)
                    .set_item(Some(item))
                    .set_condition_expression(condition)
                    .set_expression_attribute_names(ph.take_names())
                    .set_expression_attribute_values(ph.take_values())
                    .set_return_values_on_condition_check_failure(on_condition_failure(
                        return_old_on_condition_failure,
                    ))
                    .build()
                    .map_err(|e| build_error("TransactWriteItems put", e))?;
                sdk::TransactWriteItem::builder().put(put).build()
            }
            TransactWriteItem::Update {
                table,
                key,
                update,
                condition,
                return_old_on_condition_failure,
            } => {
                let Some(update) = render_update(&update, &mut ph) else {
                    return Err(Error::validation(format!(
                        "transaction action {i} (update on table {table}) has no update action: \
                         a transactional update needs at least one SET, REMOVE, ADD or DELETE"
                    )));
                };
                let condition = action_condition(condition.as_ref(), &mut ph);
                let update = sdk::Update::builder()
                    .table_name(table)
                    .set_key(Some(key))
                    .update_expression(update)
                    .set_condition_expression(condition)
                    .set_expression_attribute_names(ph.take_names())
                    .set_expression_attribute_values(ph.take_values())
                    .set_return_values_on_condition_check_failure(on_condition_failure(
                        return_old_on_condition_failure,
                    ))
                    .build()
                    .map_err(|e| build_error("TransactWriteItems update", e))?;
                sdk::TransactWriteItem::builder().update(update).build()
            }
            TransactWriteItem::Delete {
                table,
                key,
                condition,
                return_old_on_condition_failure,
            } => {
                let condition = action_condition(condition.as_ref(), &mut ph);
                let delete = sdk::Delete::builder()
                    .table_name(table)
                    .set_key(Some(key))
                    .set_condition_expression(condition)
                    .set_expression_attribute_names(ph.take_names())
                    .set_expression_attribute_values(ph.take_values())
                    .set_return_values_on_condition_check_failure(on_condition_failure(
                        return_old_on_condition_failure,
                    ))
                    .build()
                    .map_err(|e| build_error("TransactWriteItems delete", e))?;
                sdk::TransactWriteItem::builder().delete(delete).build()
            }
            TransactWriteItem::ConditionCheck {
                table,
                key,
                condition,
                return_old_on_condition_failure,
            } => {
                let condition = render_condition(&condition, &mut ph);
                let check = sdk::ConditionCheck::builder()
                    .table_name(table)
                    .set_key(Some(key))
                    .condition_expression(condition)
                    .set_expression_attribute_names(ph.take_names())
                    .set_expression_attribute_values(ph.take_values())
                    .set_return_values_on_condition_check_failure(on_condition_failure(
                        return_old_on_condition_failure,
                    ))
                    .build()
                    .map_err(|e| build_error("TransactWriteItems condition check", e))?;
                sdk::TransactWriteItem::builder()
                    .condition_check(check)
                    .build()
            }
        };
        builder = builder.transact_items(item);
    }
    Ok(builder)
}

/// What one table's `ConsumedCapacity` (asked with `INDEXES`) says, or `None` when it carries no
/// units. A server that reports only the total has it all charged to the table.
pub(crate) fn capacity(cc: &sdk::ConsumedCapacity) -> Option<Capacity> {
    let units = cc.capacity_units?;
    let mut capacity = Capacity::table(0.0);
    let indexes = [
        (cc.global_secondary_indexes.as_ref(), false),
        (cc.local_secondary_indexes.as_ref(), true),
    ];
    for (map, local) in indexes {
        for (name, c) in map.into_iter().flatten() {
            capacity.add_index(name, local, c.capacity_units.unwrap_or(0.0));
        }
    }
    capacity.table = cc
        .table
        .as_ref()
        .and_then(|t| t.capacity_units)
        .unwrap_or(units - capacity.units);
    capacity.units = units;
    Some(capacity)
}

/// The capacity of a request over several tables (batch and transactional operations), per
/// table in name order, or `None` when the response carries none.
pub(crate) fn table_capacities(cc: Option<&[sdk::ConsumedCapacity]>) -> Option<Vec<TableCapacity>> {
    let mut tables = Vec::new();
    for c in cc? {
        if let Some(capacity) = capacity(c) {
            let table = c.table_name.as_deref().unwrap_or_default();
            TableCapacity::charge(&mut tables, table, &capacity);
        }
    }
    (!tables.is_empty()).then_some(tables)
}

fn scalar_type(t: ScalarType) -> sdk::ScalarAttributeType {
    match t {
        ScalarType::S => sdk::ScalarAttributeType::S,
        ScalarType::N => sdk::ScalarAttributeType::N,
        ScalarType::B => sdk::ScalarAttributeType::B,
    }
}

/// A key schema: the partition attributes (HASH), then the sort attributes (RANGE), each in key
/// order (several of each for a multi-attribute key).
fn key_schema<'k>(
    pk: impl Iterator<Item = &'k KeyAttribute>,
    sk: impl Iterator<Item = &'k KeyAttribute>,
) -> Result<Vec<sdk::KeySchemaElement>> {
    pk.map(|k| (k, sdk::KeyType::Hash))
        .chain(sk.map(|k| (k, sdk::KeyType::Range)))
        .map(|(k, ty)| {
            sdk::KeySchemaElement::builder()
                .attribute_name(&k.name)
                .key_type(ty)
                .build()
                .map_err(|e| build_error("key schema", e))
        })
        .collect()
}

fn sdk_projection(p: &Projection) -> sdk::Projection {
    match p {
        Projection::All => sdk::Projection::builder()
            .projection_type(sdk::ProjectionType::All)
            .build(),
        Projection::KeysOnly => sdk::Projection::builder()
            .projection_type(sdk::ProjectionType::KeysOnly)
            .build(),
        Projection::Include(attrs) => sdk::Projection::builder()
            .projection_type(sdk::ProjectionType::Include)
            .set_non_key_attributes(Some(attrs.clone()))
            .build(),
    }
}

/// A key attribute's definition (`AttributeDefinitions` of CreateTable and UpdateTable).
fn attribute_definition(a: &KeyAttribute) -> Result<sdk::AttributeDefinition> {
    sdk::AttributeDefinition::builder()
        .attribute_name(&a.name)
        .attribute_type(scalar_type(a.ty))
        .build()
        .map_err(|e| build_error("attribute definition", e))
}

/// CreateTable with on-demand billing (the TTL is a separate call).
pub(crate) fn create_table(def: &TableDef) -> Result<CreateTableInputBuilder> {
    let mut builder = CreateTableInputBuilder::default()
        .table_name(&def.name)
        .billing_mode(sdk::BillingMode::PayPerRequest)
        .set_key_schema(Some(key_schema(
            std::iter::once(&def.partition_key),
            def.sort_key.iter(),
        )?));
    for a in def.attribute_definitions() {
        builder = builder.attribute_definitions(attribute_definition(&a)?);
    }
    for i in &def.global_indexes {
        let gsi = sdk::GlobalSecondaryIndex::builder()
            .index_name(&i.name)
            .set_key_schema(Some(key_schema(i.partition_keys(), i.sort_keys())?))
            .projection(sdk_projection(&i.projection))
            .build()
            .map_err(|e| build_error("global secondary index", e))?;
        builder = builder.global_secondary_indexes(gsi);
    }
    for i in &def.local_indexes {
        let lsi = sdk::LocalSecondaryIndex::builder()
            .index_name(&i.name)
            .set_key_schema(Some(key_schema(i.partition_keys(), i.sort_keys())?))
            .projection(sdk_projection(&i.projection))
            .build()
            .map_err(|e| build_error("local secondary index", e))?;
        builder = builder.local_secondary_indexes(lsi);
    }
    if let Some(view) = def.stream {
        let spec = sdk::StreamSpecification::builder()
            .stream_enabled(true)
            .stream_view_type(sdk::StreamViewType::from(view.as_str()))
            .build()
            .map_err(|e| build_error("stream specification", e))?;
        builder = builder.stream_specification(spec);
    }
    Ok(builder)
}

/// UpdateTable: each index change, with the attribute definitions a new index's keys need (the
/// request must declare them even when the table already does).
pub(crate) fn update_table(request: &UpdateTableRequest) -> Result<UpdateTableInputBuilder> {
    let mut builder = UpdateTableInputBuilder::default().table_name(&request.table);
    let mut declared: Vec<&KeyAttribute> = Vec::new();
    for change in &request.index_changes {
        let update = match change {
            IndexChange::Create(i) => {
                for k in i.key_attributes() {
                    if !declared.iter().any(|d| d.name == k.name) {
                        declared.push(k);
                    }
                }
                let create = sdk::CreateGlobalSecondaryIndexAction::builder()
                    .index_name(&i.name)
                    .set_key_schema(Some(key_schema(i.partition_keys(), i.sort_keys())?))
                    .projection(sdk_projection(&i.projection))
                    .build()
                    .map_err(|e| build_error("global secondary index", e))?;
                sdk::GlobalSecondaryIndexUpdate::builder()
                    .create(create)
                    .build()
            }
            IndexChange::Delete(name) => {
                let delete = sdk::DeleteGlobalSecondaryIndexAction::builder()
                    .index_name(name)
                    .build()
                    .map_err(|e| build_error("global secondary index", e))?;
                sdk::GlobalSecondaryIndexUpdate::builder()
                    .delete(delete)
                    .build()
            }
        };
        builder = builder.global_secondary_index_updates(update);
    }
    for a in declared {
        builder = builder.attribute_definitions(attribute_definition(a)?);
    }
    Ok(builder)
}

/// Each global index's status in a description (an index without one, as some servers
/// describe them, is active: it is listed and queryable; a status this SDK does not know is
/// reported as [`IndexStatus::Updating`], not as active).
pub(crate) fn index_status(desc: &sdk::TableDescription) -> Vec<(String, IndexStatus)> {
    desc.global_secondary_indexes()
        .iter()
        .map(|g| {
            let status = match g.index_status() {
                Some(sdk::IndexStatus::Creating) => IndexStatus::Creating,
                Some(sdk::IndexStatus::Updating) => IndexStatus::Updating,
                Some(sdk::IndexStatus::Deleting) => IndexStatus::Deleting,
                None | Some(sdk::IndexStatus::Active) => IndexStatus::Active,
                Some(_) => IndexStatus::Updating,
            };
            (g.index_name.clone().unwrap_or_default(), status)
        })
        .collect()
}

/// Reads a key schema back: the partition (HASH) and sort (RANGE) attribute names, each in key
/// order (several of each for a multi-attribute key).
fn read_key_schema(
    table: &str,
    schema: &[sdk::KeySchemaElement],
) -> Result<(Vec<String>, Vec<String>)> {
    let of = |ty: sdk::KeyType| -> Vec<String> {
        schema
            .iter()
            .filter(|k| k.key_type == ty)
            .map(|k| k.attribute_name.clone())
            .collect()
    };
    let pk = of(sdk::KeyType::Hash);
    if pk.is_empty() {
        return Err(Error::Service {
            code: None,
            message: format!("the description of {table} has a key schema without a HASH key"),
            source: None,
        });
    }
    Ok((pk, of(sdk::KeyType::Range)))
}

fn read_projection(p: Option<&sdk::Projection>) -> Projection {
    match p.and_then(|p| p.projection_type.as_ref()) {
        Some(sdk::ProjectionType::KeysOnly) => Projection::KeysOnly,
        Some(sdk::ProjectionType::Include) => Projection::Include(
            p.and_then(|p| p.non_key_attributes.clone())
                .unwrap_or_default(),
        ),
        _ => Projection::All,
    }
}

fn read_stream_view(v: &sdk::StreamViewType) -> StreamView {
    match v {
        sdk::StreamViewType::NewImage => StreamView::NewImage,
        sdk::StreamViewType::OldImage => StreamView::OldImage,
        sdk::StreamViewType::NewAndOldImages => StreamView::NewAndOldImages,
        // A view this SDK does not know: claim no image rather than one that may be missing.
        _ => StreamView::KeysOnly,
    }
}

/// DescribeTable (and DescribeTimeToLive's attribute, when TTL is on) back into a [`TableDef`].
pub(crate) fn table_def(
    desc: &sdk::TableDescription,
    ttl_attribute: Option<String>,
) -> Result<TableDef> {
    let name = desc.table_name.clone().unwrap_or_default();
    let types: HashMap<&str, ScalarType> = desc
        .attribute_definitions()
        .iter()
        .map(|a| {
            let ty = match a.attribute_type {
                sdk::ScalarAttributeType::N => ScalarType::N,
                sdk::ScalarAttributeType::B => ScalarType::B,
                _ => ScalarType::S,
            };
            (a.attribute_name.as_str(), ty)
        })
        .collect();
    let attr = |n: String| {
        let ty = types.get(n.as_str()).copied().unwrap_or(ScalarType::S);
        KeyAttribute { name: n, ty }
    };
    let index = |index_name: Option<&String>,
                 schema: &[sdk::KeySchemaElement],
                 projection: Option<&sdk::Projection>|
     -> Result<IndexDef> {
        let (pk, sk) = read_key_schema(&name, schema)?;
        let mut pk = pk.into_iter().map(attr);
        let mut sk = sk.into_iter().map(attr);
        Ok(IndexDef {
            name: index_name.cloned().unwrap_or_default(),
            partition_key: pk.next().unwrap_or_else(|| attr(String::new())),
            sort_key: sk.next(),
            extra_partition_keys: pk.collect(),
            extra_sort_keys: sk.collect(),
            projection: read_projection(projection),
        })
    };
    let (pk, sk) = read_key_schema(&name, desc.key_schema())?;
    let mut def = TableDef {
        name: name.clone(),
        partition_key: attr(pk.into_iter().next().unwrap_or_default()),
        sort_key: sk.into_iter().next().map(attr),
        global_indexes: Vec::new(),
        local_indexes: Vec::new(),
        ttl_attribute,
        stream: desc
            .stream_specification()
            .filter(|s| s.stream_enabled)
            .and_then(|s| s.stream_view_type.as_ref())
            .map(read_stream_view),
    };
    for g in desc.global_secondary_indexes() {
        def.global_indexes.push(index(
            g.index_name.as_ref(),
            g.key_schema(),
            g.projection.as_ref(),
        )?);
    }
    for l in desc.local_secondary_indexes() {
        def.local_indexes.push(index(
            l.index_name.as_ref(),
            l.key_schema(),
            l.projection.as_ref(),
        )?);
    }
    Ok(def)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{KeyCondition, SortCondition, Update};
    use crate::store::TransactGetItem;
    use crate::value::{item_size, AttributeValue, MAX_ITEM_SIZE};

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_owned())
    }

    fn key(pk: &str, sk: &str) -> Item {
        [("PK".to_owned(), s(pk)), ("SK".to_owned(), s(sk))].into()
    }

    /// Replaces every placeholder in `expr` by its name or value, to read what was meant.
    fn resolve(
        expr: &str,
        names: Option<&HashMap<String, String>>,
        values: Option<&HashMap<String, AttributeValue>>,
    ) -> String {
        let mut out = expr.to_owned();
        let mut subs: Vec<(String, String)> = names
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone()))
            .chain(
                values
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| (k.clone(), format!("{v:?}"))),
            )
            .collect();
        // Longest first, so #n1 does not eat the prefix of #n10.
        subs.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        for (k, v) in subs {
            out = out.replace(&k, &v);
        }
        out
    }

    #[test]
    fn multi_attribute_key_conditions_render_every_part_as_placeholders() {
        let r = QueryRequest::new(
            "T",
            Some("Multi"),
            KeyCondition::partition("tenant", s("a) OR (b"))
                .and_partition("status", s("open"))
                .sort("n", SortCondition::Eq(AttributeValue::N("2".into())))
                .sort("created", SortCondition::Between(s("2025"), s("2026"))),
        );
        let input = query(r).unwrap().build().unwrap();
        let kce = input.key_condition_expression().unwrap();
        assert!(!kce.contains("tenant") && !kce.contains("open") && !kce.contains("OR ("));
        assert_eq!(
            resolve(
                kce,
                input.expression_attribute_names(),
                input.expression_attribute_values()
            ),
            "tenant = S(\"a) OR (b\") AND status = S(\"open\") AND n = N(\"2\") AND created BETWEEN S(\"2025\") AND S(\"2026\")"
        );
    }

    #[test]
    fn query_shares_placeholders_across_expressions_and_never_splices() {
        let hostile = "x) OR attribute_exists(PK";
        let mut r = QueryRequest::new(
            "T",
            Some("GSI1"),
            KeyCondition::partition("GSI1PK", s("STATUS#shipped"))
                .sort("GSI1SK", SortCondition::BeginsWith(s("2024"))),
        );
        r.filter = Some(Condition::eq("status", s(hostile)).and(Condition::exists("GSI1PK")));
        r.projection = Some(vec![Path::attr("GSI1PK"), Path::attr("a.b")]);
        r.limit = Some(10);
        r.scan_forward = false;
        r.exclusive_start_key = Some(key("p", "s"));
        let input = query(r).unwrap().build().unwrap();
        let names = input.expression_attribute_names();
        let values = input.expression_attribute_values();
        let kce = input.key_condition_expression().unwrap();
        let filter = input.filter_expression().unwrap();
        let projection = input.projection_expression().unwrap();
        for text in [kce, filter, projection] {
            assert!(
                !text.contains("STATUS") && !text.contains("GSI1") && !text.contains("status"),
                "{text}"
            );
            assert!(!text.contains(hostile), "{text}");
        }
        assert_eq!(
            resolve(kce, names, values),
            "GSI1PK = S(\"STATUS#shipped\") AND begins_with(GSI1SK, S(\"2024\"))"
        );
        assert_eq!(
            resolve(filter, names, values),
            format!("status = S({hostile:?}) AND attribute_exists(GSI1PK)")
        );
        // A dot inside a name is one name, not a path.
        assert_eq!(resolve(projection, names, values), "GSI1PK, a.b");
        assert_eq!(
            names.unwrap().values().filter(|n| *n == "GSI1PK").count(),
            1,
            "one placeholder per name"
        );
        assert_eq!(input.index_name(), Some("GSI1"));
        assert_eq!(input.limit(), Some(10));
        assert_eq!(input.scan_index_forward(), Some(false));
        assert_eq!(input.exclusive_start_key(), Some(&key("p", "s")));
        assert_eq!(
            input.return_consumed_capacity(),
            Some(&sdk::ReturnConsumedCapacity::Indexes)
        );
        assert_eq!(input.select(), None);
    }

    #[test]
    fn update_and_condition_share_one_placeholder_map() {
        let r = UpdateRequest {
            table: "T".into(),
            key: key("p", "s"),
            update: Update {
                set: vec![(
                    Path::attr("n"),
                    crate::expr::SetValue::value(AttributeValue::N("1".into())),
                )],
                remove: vec![Path::attr("old")],
                add: vec![(Path::attr("count"), AttributeValue::N("2".into()))],
                delete: vec![],
            },
            condition: Some(Condition::eq("n", AttributeValue::N("0".into()))),
            return_values: ReturnValues::UpdatedNew,
            return_old_on_condition_failure: true,
        };
        let input = update(r).build().unwrap();
        let (names, values) = (
            input.expression_attribute_names(),
            input.expression_attribute_values(),
        );
        let u = resolve(input.update_expression().unwrap(), names, values);
        assert_eq!(u, "SET n = N(\"1\") REMOVE old ADD count N(\"2\")");
        assert_eq!(
            resolve(input.condition_expression().unwrap(), names, values),
            "n = N(\"0\")"
        );
        assert_eq!(
            values.unwrap().len(),
            3,
            "values of both expressions in one map, none reused"
        );
        assert_eq!(input.return_values(), Some(&sdk::ReturnValue::UpdatedNew));
        assert_eq!(
            input.return_values_on_condition_check_failure(),
            Some(&sdk::ReturnValuesOnConditionCheckFailure::AllOld)
        );
    }

    #[test]
    fn requests_without_expressions_send_no_empty_maps() {
        let input = get(GetRequest::new("T", key("p", "s")).consistent())
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(input.expression_attribute_names(), None);
        assert_eq!(input.projection_expression(), None);
        assert_eq!(input.consistent_read(), Some(true));
        let input = delete(DeleteRequest {
            table: "T".into(),
            key: key("p", "s"),
            condition: None,
            return_values: ReturnValues::AllOld,
            return_old_on_condition_failure: false,
        })
        .build()
        .unwrap();
        assert_eq!(input.expression_attribute_names(), None);
        assert_eq!(input.expression_attribute_values(), None);
        assert_eq!(input.condition_expression(), None);
        assert_eq!(input.return_values_on_condition_check_failure(), None);
        assert_eq!(input.return_values(), Some(&sdk::ReturnValue::AllOld));
    }

    #[test]
    fn return_values_none_is_left_to_the_default() {
        // NONE is DynamoDB's default: sending it only adds bytes to serialize, sign and parse.
        let put_input = put(PutRequest {
            table: "T".into(),
            item: key("p", "s"),
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        })
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(put_input.return_values(), None);
        let update_input = update(UpdateRequest {
            table: "T".into(),
            key: key("p", "s"),
            update: Default::default(),
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        })
        .build()
        .unwrap();
        assert_eq!(update_input.return_values(), None);
        let delete_input = delete(DeleteRequest {
            table: "T".into(),
            key: key("p", "s"),
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        })
        .build()
        .unwrap();
        assert_eq!(delete_input.return_values(), None);
    }

    #[test]
    fn empty_projection_and_bad_limits_are_refused() {
        let r = GetRequest {
            projection: Some(vec![]),
            ..GetRequest::new("T", key("p", "s"))
        };
        assert!(
            matches!(get(r), Err(Error::Validation { message }) if message.contains("empty projection on table T"))
        );
        let mut q = QueryRequest::new("T", None, KeyCondition::partition("PK", s("p")));
        q.limit = Some(0);
        assert!(matches!(query(q), Err(Error::Validation { .. })));
        let bad = ScanRequest {
            table: "T".into(),
            segment: Some((4, 4)),
            ..ScanRequest::default()
        };
        assert!(
            matches!(scan(bad), Err(Error::Validation { message }) if message.contains("Segment: 4 is not less than TotalSegments: 4"))
        );
        let good = ScanRequest {
            table: "T".into(),
            segment: Some((1, 4)),
            count_only: true,
            ..ScanRequest::default()
        };
        let input = scan(good).unwrap().build().unwrap();
        assert_eq!(
            (input.segment(), input.total_segments()),
            (Some(1), Some(4))
        );
        assert_eq!(input.select(), Some(&sdk::Select::Count));
    }

    fn big_item() -> Item {
        let mut item = key("p", "s");
        item.insert("blob".into(), AttributeValue::S("x".repeat(MAX_ITEM_SIZE)));
        item
    }

    #[test]
    fn oversized_items_are_refused_everywhere_they_can_be_written() {
        let too_large = |r: Result<()>| matches!(r, Err(Error::ItemTooLarge { size, limit, .. }) if size > limit && limit == MAX_ITEM_SIZE);
        let p = PutRequest {
            table: "T".into(),
            item: big_item(),
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        };
        assert!(too_large(put(p).map(drop)));
        let b = BatchWriteRequest {
            writes: vec![
                WriteRequest::delete("T", key("a", "b")),
                WriteRequest::put("T", big_item()),
            ],
        };
        assert!(too_large(batch_write(b).map(drop)));
        let t = TransactWriteRequest {
            actions: vec![TransactWriteItem::put("T", big_item())],
            client_request_token: None,
        };
        assert!(too_large(transact_write(t).map(drop)));
        // Exactly at the limit is fine.
        let mut item = key("p", "s");
        let room = MAX_ITEM_SIZE - item_size(&item) - "blob".len();
        item.insert("blob".into(), AttributeValue::S("x".repeat(room)));
        assert_eq!(item_size(&item), MAX_ITEM_SIZE);
        assert!(check_item_size(&item, None).is_ok());
    }

    #[test]
    fn batches_group_by_table_and_come_back() {
        let r = BatchGetRequest {
            keys: vec![
                TableKey {
                    table: "A".into(),
                    key: key("1", "x"),
                },
                TableKey {
                    table: "B".into(),
                    key: key("2", "x"),
                },
                TableKey {
                    table: "A".into(),
                    key: key("3", "x"),
                },
            ],
            consistent_read: true,
        };
        let input = batch_get(r).unwrap().build().unwrap();
        let items = input.request_items().unwrap();
        assert_eq!(items["A"].keys(), &[key("1", "x"), key("3", "x")]);
        assert_eq!(items["B"].consistent_read(), Some(true));

        let w = BatchWriteRequest {
            writes: vec![
                WriteRequest::put("A", key("1", "x")),
                WriteRequest::delete("A", key("2", "x")),
            ],
        };
        let input = batch_write(w.clone()).unwrap().build().unwrap();
        let requests = input.request_items().unwrap()["A"].clone();
        assert_eq!(requests.len(), 2);
        // Unprocessed writes convert back to what was asked.
        let charged = vec![TableCapacity {
            table: "A".into(),
            capacity: Capacity::table(2.0),
        }];
        let back = batch_write_output(
            Some([("A".to_owned(), requests)].into()),
            Some(charged.clone()),
        );
        assert_eq!(back.consumed_capacity, Some(charged));
        assert_eq!(back.unprocessed, w.writes);

        let ka = sdk::KeysAndAttributes::builder()
            .keys(key("9", "x"))
            .build()
            .unwrap();
        let out = batch_get_output(
            Some([("A".to_owned(), vec![key("1", "x")])].into()),
            Some([("B".to_owned(), ka)].into()),
            None,
        );
        assert_eq!(out.items, vec![("A".to_owned(), Arc::new(key("1", "x")))]);
        assert_eq!(
            out.unprocessed_keys,
            vec![TableKey {
                table: "B".into(),
                key: key("9", "x")
            }]
        );
    }

    #[test]
    fn transaction_actions_have_their_own_placeholders() {
        let t = TransactWriteRequest {
            actions: vec![
                TransactWriteItem::condition_check("T", key("a", "1"), Condition::exists("PK"))
                    .with_return_old_on_condition_failure(true),
                TransactWriteItem::update(
                    "T",
                    key("b", "1"),
                    Update {
                        remove: vec![Path::attr("x")],
                        ..Update::default()
                    },
                )
                .with_condition(Condition::eq("v", AttributeValue::N("1".into()))),
                TransactWriteItem::delete("T", key("c", "1")),
            ],
            client_request_token: Some("token-1".into()),
        };
        let input = transact_write(t).unwrap().build().unwrap();
        assert_eq!(input.client_request_token(), Some("token-1"));
        let items = input.transact_items();
        let check = items[0].condition_check().unwrap();
        assert_eq!(
            resolve(
                check.condition_expression(),
                check.expression_attribute_names(),
                None
            ),
            "attribute_exists(PK)"
        );
        assert_eq!(
            check.return_values_on_condition_check_failure(),
            Some(&sdk::ReturnValuesOnConditionCheckFailure::AllOld)
        );
        let update = items[1].update().unwrap();
        let (n, v) = (
            update.expression_attribute_names(),
            update.expression_attribute_values(),
        );
        assert_eq!(resolve(update.update_expression(), n, v), "REMOVE x");
        assert_eq!(
            resolve(update.condition_expression().unwrap(), n, v),
            "v = N(\"1\")"
        );
        let delete = items[2].delete().unwrap();
        assert_eq!(delete.expression_attribute_names(), None);

        let empty = TransactWriteRequest {
            actions: vec![TransactWriteItem::update(
                "T",
                key("b", "1"),
                Update::default(),
            )],
            client_request_token: None,
        };
        assert!(
            matches!(transact_write(empty), Err(Error::Validation { message }) if message.contains("action 0"))
        );

        let g = TransactGetRequest {
            gets: vec![TransactGetItem {
                table: "T".into(),
                key: key("a", "1"),
                projection: Some(vec![Path::attr("PK")]),
            }],
        };
        let input = transact_get(g).unwrap().build().unwrap();
        let get = input.transact_items()[0].get().unwrap();
        assert_eq!(
            resolve(
                get.projection_expression().unwrap(),
                get.expression_attribute_names(),
                None
            ),
            "PK"
        );
    }

    #[test]
    fn table_definitions_round_trip_through_create_and_describe() {
        let def = TableDef::new("T", "PK", Some("SK"))
            .global_index(IndexDef::new("GSI1", "GSI1PK", Some("GSI1SK")))
            .global_index(IndexDef::new("GSI2", "GSI2PK", None).projection(Projection::KeysOnly))
            .global_index(
                IndexDef::multi(
                    "Multi",
                    [
                        KeyAttribute::string("tenant"),
                        KeyAttribute::string("GSI1PK"),
                    ],
                    [
                        KeyAttribute::new("n", ScalarType::N),
                        KeyAttribute::new("blob", ScalarType::B),
                        KeyAttribute::string("created"),
                    ],
                )
                .unwrap(),
            )
            .local_index(
                IndexDef {
                    name: "LSI1".into(),
                    partition_key: KeyAttribute::string("PK"),
                    sort_key: Some(KeyAttribute::new("n", ScalarType::N)),
                    extra_partition_keys: Vec::new(),
                    extra_sort_keys: Vec::new(),
                    projection: Projection::All,
                }
                .projection(Projection::Include(vec!["a".into(), "b".into()])),
            )
            .ttl("expires");
        let input = create_table(&def).unwrap().build().unwrap();
        assert_eq!(input.billing_mode(), Some(&sdk::BillingMode::PayPerRequest));
        assert_eq!(input.attribute_definitions().len(), 9);
        let multi = &input.global_secondary_indexes()[2];
        let schema: Vec<(&str, &sdk::KeyType)> = multi
            .key_schema()
            .iter()
            .map(|k| (k.attribute_name(), k.key_type()))
            .collect();
        assert_eq!(
            schema,
            [
                ("tenant", &sdk::KeyType::Hash),
                ("GSI1PK", &sdk::KeyType::Hash),
                ("n", &sdk::KeyType::Range),
                ("blob", &sdk::KeyType::Range),
                ("created", &sdk::KeyType::Range),
            ]
        );
        // What a server would describe, built from what was sent.
        let desc = sdk::TableDescription::builder()
            .table_name("T")
            .set_attribute_definitions(Some(input.attribute_definitions().to_vec()))
            .set_key_schema(Some(input.key_schema().to_vec()))
            .set_global_secondary_indexes(Some(
                input
                    .global_secondary_indexes()
                    .iter()
                    .map(|g| {
                        sdk::GlobalSecondaryIndexDescription::builder()
                            .index_name(g.index_name())
                            .set_key_schema(Some(g.key_schema().to_vec()))
                            .set_projection(Some(g.projection().unwrap().clone()))
                            .build()
                    })
                    .collect(),
            ))
            .set_local_secondary_indexes(Some(
                input
                    .local_secondary_indexes()
                    .iter()
                    .map(|l| {
                        sdk::LocalSecondaryIndexDescription::builder()
                            .index_name(l.index_name())
                            .set_key_schema(Some(l.key_schema().to_vec()))
                            .set_projection(Some(l.projection().unwrap().clone()))
                            .build()
                    })
                    .collect(),
            ))
            .build();
        assert_eq!(table_def(&desc, Some("expires".into())).unwrap(), def);
    }

    #[test]
    fn pages_drop_empty_resume_keys() {
        let p = page(
            Some(vec![key("a", "1")]),
            1,
            3,
            Some(Item::new()),
            Some(Capacity::table(0.5)),
        );
        assert_eq!(
            (
                p.count,
                p.scanned_count,
                p.last_evaluated_key,
                p.consumed_capacity.map(|c| c.units)
            ),
            (1, 3, None, Some(0.5))
        );
        assert_eq!(p.items, vec![Arc::new(key("a", "1"))]);
        assert_eq!(
            page(None, 0, 0, Some(key("a", "1")), None).last_evaluated_key,
            Some(key("a", "1"))
        );
        let detail = |units: f64| sdk::Capacity::builder().capacity_units(units).build();
        let cc = [
            sdk::ConsumedCapacity::builder()
                .table_name("B")
                .capacity_units(1.5)
                .build(),
            sdk::ConsumedCapacity::builder()
                .table_name("A")
                .capacity_units(4.0)
                .table(detail(2.0))
                .global_secondary_indexes("GSI1", detail(1.0))
                .local_secondary_indexes("LSI1", detail(1.0))
                .build(),
        ];
        let tables = table_capacities(Some(&cc)).unwrap();
        assert_eq!(TableCapacity::total(&tables), 5.5);
        // In name order; a server reporting only the total has it charged to the table.
        assert_eq!(tables[0].table, "A");
        assert_eq!(
            tables[0].capacity,
            Capacity {
                units: 4.0,
                table: 2.0,
                global_indexes: vec![("GSI1".into(), 1.0)],
                local_indexes: vec![("LSI1".into(), 1.0)],
            }
        );
        assert_eq!(tables[1].capacity, Capacity::table(1.5));
        assert_eq!(table_capacities(Some(&[])), None);
    }
}
